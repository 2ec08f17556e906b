"""Fixtures of the study tests: small spec texts and a tiny spec file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

TINY_SPEC = """
[study]
name = "tiny"
seed = 11

[protocol]
kind = "kfold"
n_splits = 3

[datasets.blobs]
generator = "sklearn.datasets.make_classification"
params = { n_samples = 120, n_features = 4, n_informative = 2, n_redundant = 0 }

[datasets.iris]
source = "iris"

[classifiers.nb]
class = "sklearn.naive_bayes.GaussianNB"

[classifiers.lr]
class = "sklearn.linear_model.LogisticRegression"
params = { C = 0.5 }

[scenarios.raw]
kind = "raw"

[scenarios.sigmoid_cv]
kind = "wrapper"
wrapper = { class = "sklearn.calibration.CalibratedClassifierCV", params = { method = "sigmoid", cv = 2, ensemble = false } }
classifiers = ["nb"]

[metrics]
names = ["brier", "log_loss", "ece", "accuracy"]
"""


@pytest.fixture
def tiny_spec_path(tmp_path: Path) -> Path:
    """A small, fast, valid spec (sklearn only) written to a temporary file."""
    path = tmp_path / "tiny.toml"
    path.write_text(TINY_SPEC)
    return path


@pytest.fixture
def test_estimators_on_path(monkeypatch: pytest.MonkeyPatch) -> str:
    """Make ``study_test_estimators`` importable; return its module name."""
    monkeypatch.syspath_prepend(str(HERE))
    sys.modules.pop("study_test_estimators", None)
    return "study_test_estimators"

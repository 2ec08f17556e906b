"""Venn-ABERS and Dirichlet calibrators named by dotted path in a study spec."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import cross_val_predict
from sklearn.naive_bayes import GaussianNB

from bayescal.calibration import CalibratedClassifier, DirichletCalibrator
from bayescal.datasets import load_dataset
from bayescal.study import parse_spec
from bayescal.study.runner import run

SPEC = """
[study]
name = "venn_dirichlet"
seed = 5

[protocol]
kind = "kfold"
n_splits = 2

[datasets.blobs]
generator = "sklearn.datasets.make_classification"
params = { n_samples = 200, n_features = 4, n_informative = 2, n_redundant = 0 }

[classifiers.nb]
class = "sklearn.naive_bayes.GaussianNB"

[scenarios.ivap_split]
kind = "split"
calibrator = { class = "bayescal.calibration.VennAbersCalibrator" }

[scenarios.cvap]
kind = "wrapper"
wrapper = { class = "bayescal.calibration.VennAbersClassifier", params = { n_splits = 3 } }

[scenarios.dirichlet_split]
kind = "split"
calibrator = { class = "bayescal.calibration.DirichletCalibrator", params = { reg_lambda = 0.001, reg_mu = 0.001 } }

[metrics]
names = ["brier", "log_loss"]
"""


@pytest.mark.slow
def test_spec_runs_venn_abers_and_dirichlet_scenarios(tmp_path):
    spec = parse_spec(SPEC)
    tree = run(spec, tmp_path / "store", n_jobs=1, progress=False)
    m = tree["metrics"].to_dataset()
    assert bool(m["done"].all()) and not bool(m["failed"].any())
    assert np.isfinite(m["brier"].values).all()
    proba = tree["predictions"]["blobs"].to_dataset()["proba"].values
    np.testing.assert_allclose(np.nansum(proba, axis=-1), 1.0)


def test_dirichlet_in_calibrated_classifier_on_three_classes():
    iris = load_dataset("iris")
    clf = CalibratedClassifier(
        GaussianNB(), DirichletCalibrator(reg_lambda=1e-3, reg_mu=1e-3), scenario="cv"
    ).fit(iris.X, iris.y)
    proba = clf.predict_proba(iris.X)
    assert proba.shape == (150, 3)
    P = cross_val_predict(GaussianNB(), iris.X, iris.y, cv=5, method="predict_proba")
    direct = DirichletCalibrator(reg_lambda=1e-3, reg_mu=1e-3).fit(P, iris.y)
    assert direct.n_features_in_ == 3

"""The ``bayescal compare`` command on a tiny study store, and its tables."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from bayescal.cli import main
from bayescal.report.method_tables import (
    MIN_DATASETS,
    comparison_frame,
    few_datasets_caution,
)
from bayescal.stats.methods import compare_methods
from tests.report.cube_factory import make_cube
from tests.study.conftest import TINY_SPEC


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("compare")
    spec = path / "tiny.toml"
    spec.write_text(TINY_SPEC)
    out = CliRunner().invoke(main, ["run", str(spec), "--store", str(path / "store"), "-j", "1",
                                    "-q"])
    assert out.exit_code == 0, out.output
    return path / "store"


def test_friedman_table(store):
    out = CliRunner().invoke(main, ["compare", str(store), "--metric", "brier"])
    assert out.exit_code == 0, out.output
    assert "classifier lr:\n  skipped: only ['raw'] applies" in out.output
    assert "friedman on brier (lower is better), 2 methods x 2 datasets" in out.output
    assert "Nemenyi CD =" in out.output and "mean rank" in out.output
    # two data sets: the verdict comes with Demšar's caution
    assert "caution: only 2 data sets" in out.output and "Demšar 2006" in out.output


def test_few_datasets_caution_threshold():
    assert few_datasets_caution(MIN_DATASETS) is None
    assert few_datasets_caution(12) is None
    assert "only 4 data sets" in few_datasets_caution(4)
    assert "only 1 data set;" in few_datasets_caution(1)


def test_hierarchical_sampler_options_are_passed_through(store, monkeypatch):
    import bayescal.stats.methods as methods

    seen = []

    def fake(*args, **kwargs):
        seen.append(kwargs.get("hierarchical_options"))
        raise ValueError("stop here")

    monkeypatch.setattr(methods, "compare_methods", fake)
    out = CliRunner().invoke(main, ["compare", str(store), "--test", "hierarchical",
                                    "--classifier", "nb", "--tune", "3000", "--draws", "1500",
                                    "--target-accept", "0.99"])
    assert "stop here" in out.output
    assert seen == [{"tune": 3000, "draws": 1500, "target_accept": 0.99}]
    out = CliRunner().invoke(main, ["compare", str(store), "--test", "hierarchical",
                                    "--classifier", "nb"])
    assert seen[-1] is None  # the estimator's own defaults


def test_bayesian_table(store):
    out = CliRunner().invoke(main, ["compare", str(store), "--metric", "accuracy", "--test",
                                    "signed-rank", "--rope", "0.01", "--classifier", "nb"])
    assert out.exit_code == 0, out.output
    assert "against 'raw' with ROPE +-0.01" in out.output and "P(better)" in out.output
    assert "higher is better" in out.output and "classifier lr" not in out.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--metric", "nonsense"], "'nonsense' is not a variable"),
        (["--classifier", "svm"], "--classifier ['svm'] not in the study"),
        (["--test", "signed-rank", "--control", "platt"], "`control` 'platt'"),
        (["--tune", "500"], "--tune only apply to --test hierarchical"),
        (["--test", "hierarchical", "--target-accept", "1.0"], "--target-accept"),
        (["--test", "hierarchical", "--draws", "0"], "--draws"),
    ],
)
def test_errors(store, args, message):
    out = CliRunner().invoke(main, ["compare", str(store), *args])
    assert out.exit_code != 0 and message in out.output


def test_not_a_store(tmp_path):
    out = CliRunner().invoke(main, ["compare", str(tmp_path)])
    assert out.exit_code != 0 and "not a bayescal study store" in out.output


def test_comparison_frame_columns():
    cube = make_cube(datasets=("a", "b", "c"), n_samples=120)
    result = compare_methods(cube, "brier", select={"classifier": "nb"}, control="raw")
    frame = comparison_frame(result)
    assert list(frame.columns) == ["mean brier", "mean rank", "Holm p vs raw"]
    np.testing.assert_allclose(frame["mean rank"], result["mean_rank"].values)
    bayes = compare_methods(cube, "brier", select={"classifier": "nb"}, control="raw",
                            test="correlated-t")
    frame = comparison_frame(bayes)
    assert frame.loc["platt", "P(better)"] == pytest.approx(
        float(bayes["p_right"].sel(scenario="platt").mean()))

"""compare_methods on result cubes: the numpy tests on the fold means, policies for bad cells."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from bayescal.stats.bayesian_tests import correlated_ttest
from bayescal.stats.friedman import friedman_test
from bayescal.stats.methods import (
    ComparisonExclusionWarning,
    compare_methods,
    metric_lower_is_better,
)
from bayescal.stats.posthoc import nemenyi_test, wilcoxon_holm_test
from tests.report.cube_factory import make_cube

DATASETS = ("a", "b", "c", "d", "e", "f")


@pytest.fixture(scope="module")
def cube():
    return make_cube(datasets=DATASETS, n_samples=150, seed=1)


def fold_means(cube, metric="brier", classifier="nb"):
    return cube["metrics"][metric].sel(classifier=classifier).mean("fold").values


def test_friedman_on_cube_equals_numpy_layer(cube):
    result = compare_methods(cube, "brier", select={"classifier": "nb"}, control="raw")
    scores = fold_means(cube)
    fr = friedman_test(scores)
    ne = nemenyi_test(scores)
    wh = wilcoxon_holm_test(scores, control=0)
    assert float(result["statistic"]) == fr.statistic
    assert float(result["f_p_value"]) == fr.f_p_value
    np.testing.assert_array_equal(result["nemenyi_p_value"].values, ne.p_values)
    np.testing.assert_array_equal(result["mean_rank"].values, fr.mean_ranks)
    assert float(result["critical_difference"]) == ne.critical_difference
    np.testing.assert_array_equal(result["wilcoxon_p_value_holm"].values, wh.p_adjusted)
    assert result["scenario"].values.tolist() == ["raw", "platt", "isotonic"]
    assert result.attrs["lower_is_better"] == 1 and result.attrs["excluded_datasets"] == []


def test_direction_from_metric(cube):
    loss = compare_methods(cube, "brier", select={"classifier": "nb"})
    acc = compare_methods(cube, "accuracy", select={"classifier": "nb"})
    expected = friedman_test(fold_means(cube, "accuracy"), lower_is_better=False).mean_ranks
    np.testing.assert_array_equal(acc["mean_rank"].values, expected)
    assert loss.attrs["lower_is_better"] == 1 and acc.attrs["lower_is_better"] == 0
    with pytest.raises(ValueError, match="fit_seconds.*not ranked.*lower_is_better"):
        metric_lower_is_better("fit_seconds")
    with pytest.raises(ValueError, match="unknown metric 'nope'.*lower_is_better"):
        metric_lower_is_better("nope")
    timed = compare_methods(cube, "fit_seconds", select={"classifier": "nb"},
                            lower_is_better=True)
    assert timed.attrs["lower_is_better"] == 1


def test_correlated_t_per_dataset_is_oriented_as_improvement(cube):
    result = compare_methods(cube, "brier", select={"classifier": "nb"}, test="correlated-t",
                             control="raw", rope=0.005)
    folds = cube["metrics"]["brier"].sel(classifier="nb")
    for d in DATASETS:
        gain = (folds.sel(dataset=d, scenario="raw") - folds.sel(dataset=d, scenario="platt"))
        expected = correlated_ttest(gain.values, rope=0.005, rho=1 / 5)
        got = result.sel(dataset=d, scenario="platt")
        assert float(got["p_right"]) == pytest.approx(expected.p_right, abs=1e-12)
        assert float(got["p_left"]) == pytest.approx(expected.p_left, abs=1e-12)
    assert np.isnan(result["p_rope"].sel(scenario="raw")).all()
    assert result.attrs["rho"] == pytest.approx(0.2)


def test_rho_from_the_spec_protocol(cube):
    import json

    # the protocol as the cube stores it (MCCV with test_fraction 0.3: n_test / n_train)
    layout = {**json.loads(cube.attrs["layout"]), "test_train_ratio": 0.3 / 0.7}
    mccv = cube.copy()
    mccv.attrs = {**cube.attrs, "layout": json.dumps(layout)}
    result = compare_methods(mccv, "brier", select={"classifier": "nb"}, test="correlated-t",
                             control="raw")
    assert result.attrs["rho"] == pytest.approx(0.3)


def test_signed_rank_on_cube(cube):
    result = compare_methods(cube, "brier", select={"classifier": "nb"}, test="signed-rank",
                             control="raw", n_samples=2000, random_state=4)
    assert result["samples"].dims == ("scenario", "sample", "region")
    p = result[["p_left", "p_rope", "p_right"]].to_array().sum("variable")
    np.testing.assert_allclose(p.sel(scenario=["platt", "isotonic"]).values, 1.0)
    again = compare_methods(cube, "brier", select={"classifier": "nb"}, test="signed-rank",
                            control="raw", n_samples=2000, random_state=4)
    xr.testing.assert_identical(result, again)


def test_repeat_dim_is_pooled_with_folds():
    base = make_cube(datasets=DATASETS[:3], n_samples=120, seed=2)["metrics"].to_dataset()
    repeated = xr.concat([base, base + 0.001], dim="repeat").transpose(
        "dataset", "classifier", "scenario", "repeat", "fold")
    result = compare_methods(repeated[["brier"]], "brier", select={"classifier": "nb"},
                             test="correlated-t", control="raw")
    assert result.attrs["rho"] == pytest.approx(0.2)  # 1 / folds, not 1 / (repeats x folds)


def test_not_applicable_cells_raise_or_are_excluded_on_request():
    cube = make_cube(datasets=DATASETS[:3], applicable={"isotonic": ("blr",)}, n_samples=120)
    with pytest.raises(ValueError, match=r"missing \(NaN\) cells.*scenario='isotonic'"):
        compare_methods(cube, "brier", select={"classifier": "nb"})
    ok = compare_methods(cube, "brier", select={"classifier": "nb"}, methods=["raw", "platt"])
    assert ok.sizes["scenario"] == 2


def test_nan_cells_drop_datasets_with_warning():
    ds = make_cube(datasets=DATASETS[:4], n_samples=120)["metrics"].to_dataset()
    ds["brier"][1, 0, 2, 3] = np.nan
    with pytest.raises(ValueError, match="dataset='b'.*drop_datasets"):
        compare_methods(ds, "brier", select={"classifier": "nb"})
    with pytest.warns(ComparisonExclusionWarning, match=r"\['b'\]"):
        result = compare_methods(ds, "brier", select={"classifier": "nb"},
                                 missing="drop_datasets")
    assert result["dataset"].values.tolist() == ["a", "c", "d"]
    assert result.attrs["excluded_datasets"] == ["b"]


def test_unconverged_cells_from_diagnostics_and_converged_variable():
    cube = make_cube(datasets=DATASETS[:3], n_samples=120, failed_diagnostics=True)
    kwargs = {"method_dim": "classifier", "select": {"scenario": "raw"}}
    with pytest.raises(ValueError, match="unconverged posterior cells: 3 cell"):
        compare_methods(cube, "brier", **kwargs)
    kept = compare_methods(cube, "brier", unconverged="keep", **kwargs)
    assert kept.sizes["dataset"] == 3
    with pytest.raises(ValueError, match="only 0 dataset"), pytest.warns(
            ComparisonExclusionWarning):
        compare_methods(cube, "brier", unconverged="missing", missing="drop_datasets", **kwargs)
    ds = make_cube(datasets=DATASETS[:3], n_samples=120)["metrics"].to_dataset()
    ds["converged"] = ds["done"].copy(data=np.ones(ds["done"].shape, dtype=bool))
    ds["converged"][0, 0, 1, 0] = False
    with pytest.raises(ValueError, match="dataset='a'.*scenario='platt'"):
        compare_methods(ds, "brier", select={"classifier": "nb"})


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"metric": "nope"}, ValueError, "`metric` 'nope' is not a variable"),
        ({"test": "t-test"}, ValueError, "`test` must be one of"),
        ({}, ValueError, "dimension 'classifier' has 2 entries.*select"),
        ({"select": {"classifier": "nb"}, "methods": ["raw"]}, ValueError, "at least 2"),
        ({"select": {"classifier": "nb"}, "methods": ["x", "raw"]}, ValueError, r"\['x'\]"),
        ({"select": {"classifier": "xx"}}, ValueError, "`select`"),
        ({"select": {"classifier": "nb"}, "test": "signed-rank"}, ValueError, "pass `control`"),
        ({"select": {"classifier": "nb"}, "control": "zz"}, ValueError, "`control` 'zz'"),
        ({"select": {"classifier": "nb"}, "method_dim": "model"}, ValueError, "'model'"),
        ({"select": {"classifier": "nb"}, "missing": "drop"}, ValueError, "`missing`"),
    ],
)
def test_bad_input(cube, kwargs, error, match):
    kwargs = {"metric": "brier", **kwargs}
    with pytest.raises(error, match=match):
        compare_methods(cube, **kwargs)


def test_one_dataset_is_rejected():
    cube = make_cube(datasets=("only",), n_samples=120)
    with pytest.raises(ValueError, match="1 dataset"):
        compare_methods(cube, "brier", select={"classifier": "nb"})


def test_rejects_non_cube():
    with pytest.raises(TypeError, match="result cube"):
        compare_methods(np.ones((3, 3)), "brier")


@pytest.mark.slow
def test_hierarchical_on_cube():
    rng = np.random.default_rng(0)
    # 10 datasets x 2 scenarios x 10 folds; "better" improves the Brier score by 0.02
    raw = rng.uniform(0.15, 0.25, size=(10, 1, 10))
    better = raw - 0.02 + rng.normal(0, 0.008, size=raw.shape)
    ds = xr.Dataset({"brier": (("dataset", "scenario", "fold"), np.concatenate([raw, better], 1))},
                    coords={"dataset": [f"d{i}" for i in range(10)],
                            "scenario": ["raw", "better"]})
    result = compare_methods(ds, "brier", test="hierarchical", control="raw", rope=0.01,
                             hierarchical_options={"draws": 500, "tune": 500},
                             random_state=1)
    assert float(result["p_right"].sel(scenario="better")) > 0.9
    assert bool(result["converged"].sel(scenario="better"))
    assert result["dataset_difference"].sel(scenario="better").mean() == pytest.approx(0.02,
                                                                                       abs=0.01)


def test_spec_knows_the_same_tests():
    from bayescal.stats.methods import METHOD_TESTS
    from bayescal.study import spec

    assert spec.METHOD_TESTS == METHOD_TESTS

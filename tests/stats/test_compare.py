"""compare(): the NumPy tests applied along the folds of an xarray cube."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

from bayescal.stats import (
    combined_ftest_5x2cv,
    compare,
    corrected_resampled_ttest,
    cv_ttest,
    paired_ttest_5x2cv,
)

SCENARIOS = ["raw", "split", "dgg"]


def kfold_cube(seed=0, k=10, repeats=None):
    rng = np.random.default_rng(seed)
    dims = ["dataset", "classifier", "scenario"] + (["repeat"] if repeats else []) + ["fold"]
    shape = (2, 3, 3) + ((repeats,) if repeats else ()) + (k,)
    brier = rng.normal(0.2, 0.02, size=shape)
    brier[:, :, 2] -= 0.06  # dgg better
    return xr.Dataset(
        {"brier": (dims, brier), "log_loss": (dims, brier * 3)},
        coords={"dataset": ["a", "b"], "classifier": ["nb", "rf", "svm"], "scenario": SCENARIOS},
    )


def test_cv_ttest_on_cube_equals_numpy_per_cell():
    cube = kfold_cube()
    out = compare(cube, "brier", baseline="raw")
    assert set(out.data_vars) == {"p_value", "statistic", "mean_difference", "dof"}
    assert out.p_value.dims == ("dataset", "classifier", "scenario")
    for ds in ["a", "b"]:
        for clf in ["nb", "rf", "svm"]:
            base = cube.brier.sel(dataset=ds, classifier=clf, scenario="raw").values
            assert np.isnan(out.p_value.sel(dataset=ds, classifier=clf, scenario="raw"))
            for sc in ["split", "dgg"]:
                r = cv_ttest(cube.brier.sel(dataset=ds, classifier=clf, scenario=sc).values, base)
                cell = out.sel(dataset=ds, classifier=clf, scenario=sc)
                assert float(cell.p_value) == pytest.approx(r.p_value, abs=1e-12)
                assert float(cell.statistic) == pytest.approx(r.statistic, abs=1e-12)
                assert float(cell.mean_difference) == pytest.approx(r.mean_difference, abs=1e-15)
                assert float(cell.dof) == 9
    assert bool((out.p_value.sel(scenario="dgg") < 0.05).all())
    assert bool((out.mean_difference.sel(scenario="dgg") < 0).all())
    assert out.attrs["test"] == "cv_ttest" and out.attrs["baseline"] == "raw"


def test_compare_along_classifier_dim_and_corrected_test():
    cube = kfold_cube(seed=1)
    out = compare(cube, "log_loss", baseline="rf", dim="classifier",
                  test="corrected_resampled_ttest", test_train_ratio=1 / 9)
    a = cube.log_loss.sel(dataset="b", classifier="svm", scenario="dgg").values
    b = cube.log_loss.sel(dataset="b", classifier="rf", scenario="dgg").values
    r = corrected_resampled_ttest(a, b, test_train_ratio=1 / 9)
    assert float(out.p_value.sel(dataset="b", classifier="svm", scenario="dgg")) == pytest.approx(
        r.p_value, abs=1e-12
    )
    assert out.attrs["test_train_ratio"] == pytest.approx(1 / 9)


@pytest.mark.parametrize(
    ("test", "func"), [("paired_ttest_5x2cv", paired_ttest_5x2cv),
                       ("combined_ftest_5x2cv", combined_ftest_5x2cv)]
)
def test_5x2_designs_any_dim_order(test, func):
    cube = kfold_cube(seed=2, k=2, repeats=5)
    shuffled = cube.transpose("fold", "scenario", "repeat", "classifier", "dataset")
    out = compare(shuffled, "brier", baseline="raw", test=test)
    a = cube.brier.sel(dataset="a", classifier="nb", scenario="split").values
    b = cube.brier.sel(dataset="a", classifier="nb", scenario="raw").values
    r = func(a, b)
    cell = out.sel(dataset="a", classifier="nb", scenario="split")
    assert float(cell.statistic) == pytest.approx(r.statistic, abs=1e-12)
    assert float(cell.p_value) == pytest.approx(r.p_value, abs=1e-12)


def test_repeated_kfold_uses_every_repeat_fold_cell():
    cube = kfold_cube(seed=3, k=5, repeats=3)
    out = compare(cube, "brier", baseline="raw")
    a = cube.brier.sel(dataset="a", classifier="svm", scenario="dgg").values.ravel()
    b = cube.brier.sel(dataset="a", classifier="svm", scenario="raw").values.ravel()
    r = cv_ttest(a, b)
    cell = out.sel(dataset="a", classifier="svm", scenario="dgg")
    assert float(cell.p_value) == pytest.approx(r.p_value, abs=1e-12) and float(cell.dof) == 14


def test_missing_fold_gives_nan_only_in_its_cell():
    cube = kfold_cube(seed=4)
    cube.brier[0, 1, 1, 3] = np.nan
    out = compare(cube, "brier", baseline="raw")
    assert np.isnan(out.p_value.values[0, 1, 1])
    assert np.isfinite(out.p_value.values[0, 1, 2]) and np.isfinite(out.p_value.values[1, 1, 1])


def test_datatree_input_reads_metrics_group():
    cube = kfold_cube(seed=5)
    tree = xr.DataTree.from_dict({"/metrics": cube})
    xr.testing.assert_identical(
        compare(tree, "brier", baseline="raw"), compare(cube, "brier", baseline="raw")
    )


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 1000), st.permutations(list(range(10))))
def test_fold_order_does_not_matter_for_cv_ttest(seed, perm):
    cube = kfold_cube(seed=seed)
    out = compare(cube, "brier", baseline="raw")
    permuted = compare(cube.isel(fold=list(perm)), "brier", baseline="raw")
    np.testing.assert_allclose(permuted.p_value.values, out.p_value.values, atol=1e-12)
    p = out.p_value.values
    assert np.all((p[np.isfinite(p)] >= 0) & (p[np.isfinite(p)] <= 1))


CUBE = kfold_cube(k=4)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"metrics": CUBE.brier}, TypeError, "xarray Dataset"),
        ({"metric": "ece"}, ValueError, "'ece' is not a variable"),
        ({"baseline": "dg"}, ValueError, "`baseline` 'dg' is not an entry"),
        ({"dim": "method"}, ValueError, "`dim` 'method'"),
        ({"dim": "fold"}, ValueError, "must differ"),
        ({"fold_dim": "split"}, ValueError, "`fold_dim` 'split'"),
        ({"test": "mcnemar"}, ValueError, "per-sample predictions"),
        ({"test": "wilcoxon"}, ValueError, "`test` must be one of"),
        ({"test": "corrected_resampled_ttest"}, ValueError, "needs `test_train_ratio`"),
        ({"test": "corrected_resampled_ttest", "test_train_ratio": -1}, ValueError, "positive"),
        ({"test_train_ratio": 0.2}, ValueError, "unknown keyword"),
        ({"test": "paired_ttest_5x2cv"}, ValueError, "5x2 CV design"),
    ],
)
def test_bad_input(kwargs, error, match):
    args = {"metrics": CUBE, "metric": "brier", "baseline": "raw"} | kwargs
    with pytest.raises(error, match=match):
        compare(args.pop("metrics"), args.pop("metric"), **args)


def test_5x2_wrong_sizes():
    cube = kfold_cube(k=2, repeats=3)
    with pytest.raises(ValueError, match=r"sizes \(5, 2\)"):
        compare(cube, "brier", baseline="raw", test="combined_ftest_5x2cv")

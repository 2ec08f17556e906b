"""Significance tests applied along the fold dimension of a result cube.

The NumPy tests of :mod:`bayescal.stats.significance` are written once; this
module wraps them for xarray (the ArviZ layering: NumPy function on trailing
axes -> ``xarray.apply_ufunc`` wrapper).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import xarray as xr

from bayescal.stats.significance import FOLD_TESTS, _check_test_train_ratio, _corrected_kernel

__all__ = ["TESTS", "compare"]

#: Names accepted by ``compare(test=...)``.
TESTS = tuple(FOLD_TESTS)


def _metric_array(metrics: Any, metric: str) -> xr.DataArray:
    if isinstance(metrics, xr.DataTree):
        if "metrics" in metrics.children:
            metrics = metrics["metrics"].to_dataset()
        else:
            metrics = metrics.to_dataset()
    if not isinstance(metrics, xr.Dataset):
        raise TypeError(
            f"`metrics` must be an xarray Dataset (the cube's /metrics group); got "
            f"{type(metrics).__name__}."
        )
    if metric not in metrics.data_vars:
        raise ValueError(
            f"`metric` {metric!r} is not a variable of `metrics`; available: "
            f"{sorted(map(str, metrics.data_vars))}."
        )
    return metrics[metric]


def _core_dims(
    da: xr.DataArray, test: str, fold_dim: Hashable, repeat_dim: Hashable
) -> tuple[xr.DataArray, list[Hashable]]:
    """The fold dims of ``test`` (stacking repeats into one sample dim for k-fold tests)."""
    if fold_dim not in da.dims:
        raise ValueError(
            f"`fold_dim` {fold_dim!r} is not a dimension of the metric; its dims are {da.dims}."
        )
    n_axes = FOLD_TESTS[test][1]
    if n_axes == 2:
        if repeat_dim not in da.dims:
            raise ValueError(
                f"test {test!r} needs a 5x2 CV design with dims ({repeat_dim!r}, {fold_dim!r}) "
                f"of sizes (5, 2); the metric has dims {da.dims}. Pass `repeat_dim` if it is "
                "named differently."
            )
        shape = (da.sizes[repeat_dim], da.sizes[fold_dim])
        if shape != (5, 2):
            raise ValueError(
                f"test {test!r} needs sizes (5, 2) for ({repeat_dim!r}, {fold_dim!r}); got {shape}."
            )
        return da, [repeat_dim, fold_dim]
    if repeat_dim in da.dims:
        # Repeated k-fold: every (repeat, fold) cell is one resample.
        da = da.stack(_resample=(repeat_dim, fold_dim))
        return da, ["_resample"]
    return da, [fold_dim]


def compare(
    metrics: Any,
    metric: str,
    *,
    baseline: Any,
    dim: Hashable = "scenario",
    test: str = "cv_ttest",
    fold_dim: Hashable = "fold",
    repeat_dim: Hashable = "repeat",
    **kwargs: Any,
) -> xr.Dataset:
    """Test every entry of ``dim`` against ``baseline`` along the folds of a cube.

    Parameters
    ----------
    metrics : xarray.Dataset or xarray.DataTree
        The ``/metrics`` group of a result cube (a DataTree is read at its
        ``metrics`` child), with dims like
        ``dataset × classifier × scenario × fold`` (and ``repeat``).
    metric : str
        The variable to compare, e.g. ``"brier"``.
    baseline : hashable
        The coordinate value of ``dim`` every other entry is compared with.
    dim : hashable, default="scenario"
        The dimension whose entries are compared (e.g. ``"classifier"``).
    test : {"cv_ttest", "corrected_resampled_ttest", "paired_ttest_5x2cv", \
"combined_ftest_5x2cv"}, default="cv_ttest"
        The test of :mod:`bayescal.stats.significance`. The 5×2 tests need
        ``repeat_dim`` and ``fold_dim`` of sizes (5, 2). The k-fold tests use
        every ``(repeat, fold)`` cell as one resample when ``repeat_dim`` is
        present (repeated k-fold).
    fold_dim : hashable, default="fold"
        The fold dimension.
    repeat_dim : hashable, default="repeat"
        The repetition dimension (5×2 CV, repeated k-fold).
    **kwargs
        Passed to the test: ``test_train_ratio`` for
        ``"corrected_resampled_ttest"``.

    Returns
    -------
    xarray.Dataset
        Variables ``p_value``, ``statistic``, ``mean_difference`` (entry minus
        baseline; positive when the entry scores higher) and ``dof``, with the
        dims of the metric less the fold (and repeat) dims. The baseline's own
        entry is NaN (not compared); so is any comparison with a missing (NaN)
        fold. ``attrs`` record the test, metric, baseline and dimension.

    Raises
    ------
    ValueError
        If a name is not in the cube, the design does not fit the test, or a
        keyword is unknown.
    TypeError
        If ``test_train_ratio`` is not a number.

    Notes
    -----
    McNemar's test needs per-sample predictions, not per-fold metrics; use
    :func:`bayescal.stats.mcnemar` on :func:`bayescal.stats.mcnemar_table`
    of the cube's ``/predictions``.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> brier = rng.normal(0.2, 0.01, size=(2, 3, 10))
    >>> brier[:, 1] -= 0.02
    >>> cube = xr.Dataset({"brier": (("dataset", "scenario", "fold"), brier)},
    ...                   coords={"scenario": ["raw", "dgg", "split"]})
    >>> out = compare(cube, "brier", baseline="raw")
    >>> bool((out.p_value.sel(scenario="dgg") < 0.05).all())
    True
    """
    if test == "mcnemar":
        raise ValueError(
            "McNemar's test needs per-sample predictions, not per-fold metrics; use "
            "bayescal.stats.mcnemar(bayescal.stats.mcnemar_table(y, pred_a, pred_b))."
        )
    if test not in FOLD_TESTS:
        raise ValueError(f"`test` must be one of {list(TESTS)!r}; got {test!r}.")
    allowed = {"test_train_ratio"} if test == "corrected_resampled_ttest" else set()
    unknown = set(kwargs) - allowed
    if unknown:
        raise ValueError(f"unknown keyword(s) {sorted(unknown)} for test {test!r}.")
    da = _metric_array(metrics, metric)
    if dim not in da.dims:
        raise ValueError(f"`dim` {dim!r} is not a dimension of {metric!r}; its dims are {da.dims}.")
    if dim in (fold_dim, repeat_dim):
        raise ValueError(f"`dim` {dim!r} must differ from the fold and repeat dimensions.")
    values = da[dim].values
    if not np.any(values == baseline):
        raise ValueError(
            f"`baseline` {baseline!r} is not an entry of {dim!r}; entries: {values.tolist()}."
        )
    kernel = FOLD_TESTS[test][0]
    if test == "corrected_resampled_ttest":
        if "test_train_ratio" not in kwargs:
            raise ValueError(
                "test 'corrected_resampled_ttest' needs `test_train_ratio` (n_test / n_train, "
                "e.g. 1/(k-1) for k-fold CV)."
            )
        ratio = _check_test_train_ratio(kwargs["test_train_ratio"])

        def kernel(d: np.ndarray) -> Any:
            return _corrected_kernel(d, ratio)

    difference = da - da.sel({dim: baseline}, drop=True)
    difference, core = _core_dims(difference, test, fold_dim, repeat_dim)
    difference = difference.astype(float)

    def apply(d: np.ndarray) -> tuple[np.ndarray, ...]:
        return tuple(np.asarray(v, dtype=float) for v in kernel(d))

    outputs = xr.apply_ufunc(
        apply,
        difference,
        input_core_dims=[core],
        output_core_dims=[[], [], [], []],
        dask="parallelized",
        output_dtypes=[float] * 4,
    )
    names = ("statistic", "p_value", "mean_difference", "dof")
    not_baseline = da[dim] != baseline
    result = xr.Dataset(
        {name: out.where(not_baseline) for name, out in zip(names, outputs, strict=True)}
    )
    result = result[["p_value", "statistic", "mean_difference", "dof"]]
    result.attrs.update(
        test=test,
        metric=str(metric),
        baseline=str(baseline),
        dim=str(dim),
        alternative="two-sided",
        difference="entry - baseline",
        **{k: float(v) for k, v in kwargs.items()},
    )
    return result

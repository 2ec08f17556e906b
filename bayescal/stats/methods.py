"""Comparisons of methods across the datasets of a result cube.

:func:`compare_methods` takes one metric of a cube's ``/metrics`` group
(dims ``dataset x classifier x scenario x fold``, ``repeat`` when the
protocol repeats), picks the methods along one dimension (the scenarios by
default), checks every cell it will use, and runs one of the across-dataset
tests of this package on it:

============== ==========================================================
``test``       what it returns
============== ==========================================================
"friedman"     ranks, Friedman chi-square and Iman-Davenport F, Nemenyi
               p-values and critical difference; with a ``control`` also
               Holm-corrected Wilcoxon p-values
"correlated-t" per dataset, P(left/rope/right) of each method against the
               control from the folds (Bayesian correlated t-test)
"signed-rank"  across datasets, P(left/rope/right) of each method against
               the control (Bayesian signed-rank test) and its samples
"hierarchical" across datasets x folds, P(left/rope/right) on a new dataset,
               shrunk per-dataset differences and diagnostics
============== ==========================================================

Orientation of the Bayesian tests: the difference of a method against the
control is its *improvement* (control minus method for a loss such as the
Brier score, method minus control for accuracy), so *right* means "the
method is practically better than the control", *left* "practically worse".

Cells that cannot be used are never dropped silently. A cell is missing when
its value is NaN (not applicable to the classifier, not run yet, or failed);
a cell is unconverged when the cube's ``converged`` variable is False or,
where the cube has none, when its ``rhat_max`` or ``divergences`` fail the
thresholds of :class:`bayescal.inference.posterior.DiagnosticThresholds` (NaN
diagnostics, i.e. non-Bayesian cells, pass). By default either raises a
``ValueError`` listing the cells; ``missing="drop_datasets"`` excludes every
dataset with a missing cell, and ``unconverged="missing"`` treats
unconverged cells as missing (``"keep"`` uses their values). The excluded
datasets and cells are recorded in the result's attributes and announced by
a :class:`ComparisonExclusionWarning`.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from bayescal.stats.bayesian_tests import correlated_ttest, signed_rank_test
from bayescal.stats.friedman import friedman_test
from bayescal.stats.posthoc import nemenyi_test, wilcoxon_holm_test
from bayescal.stats.ranks import check_score_matrix, rank_methods
from bayescal.validation import check_choice

__all__ = [
    "ComparisonExclusionWarning",
    "METHOD_TESTS",
    "compare_methods",
    "metric_lower_is_better",
]

#: Names accepted by ``compare_methods(test=...)``.
METHOD_TESTS = ("friedman", "correlated-t", "signed-rank", "hierarchical")

_FOLD_DIMS = ("repeat", "fold")


class ComparisonExclusionWarning(UserWarning):
    """Datasets or cells were excluded from a comparison on request."""


def metric_lower_is_better(metric: str) -> bool:
    """Whether lower values of a cube metric are better (the cube's metric registry).

    Parameters
    ----------
    metric : str
        A metric of the cube.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        For a metric the registry (:func:`bayescal.cube.lower_is_better`) does
        not rank (timings, ``unc``) or does not know: pass ``lower_is_better``
        explicitly.
    """
    from bayescal.cube import lower_is_better

    try:
        return lower_is_better(metric)
    except ValueError as exc:
        raise ValueError(
            f"{exc}; pass `lower_is_better=True` or `False` to compare methods on {metric!r}."
        ) from None


def _metrics_dataset(cube: Any) -> xr.Dataset:
    if isinstance(cube, xr.DataTree):
        node = cube["metrics"] if "metrics" in cube.children else cube
        return node.to_dataset()
    if isinstance(cube, xr.Dataset):
        return cube
    raise TypeError(
        f"`cube` must be a result cube (xarray.DataTree) or its /metrics Dataset; got "
        f"{type(cube).__name__}."
    )


def _default_rho(cube: Any, n_folds: int) -> float:
    """n_test / n_total of the cube's protocol (from its stored layout), else 1 / n_folds."""
    from bayescal.cube import cube_layout

    try:
        ratio = cube_layout(cube).test_train_ratio  # n_test / n_train
    except (ValueError, AttributeError):
        ratio = None
    return 1.0 / n_folds if ratio is None else ratio / (1.0 + ratio)


def _converged(ds: xr.Dataset) -> xr.DataArray | None:
    if "converged" in ds.data_vars:
        return ds["converged"].astype(bool)
    from bayescal.inference.posterior import DiagnosticThresholds

    th = DiagnosticThresholds()
    bad = None
    for name, limit in (("rhat_max", th.rhat_max), ("divergences", th.divergences_max)):
        if name in ds.data_vars:
            fails = ds[name] > limit  # NaN (not Bayesian) compares False
            bad = fails if bad is None else bad | fails
    return None if bad is None else ~bad


def _describe_cells(mask: xr.DataArray, limit: int = 5) -> str:
    idx = np.argwhere(mask.values)
    cells = [
        "("
        + ", ".join(
            f"{d}={mask[d].values[i].item()!r}" for d, i in zip(mask.dims, row, strict=True)
        )
        + ")"
        for row in idx[:limit]
    ]
    more = "" if len(idx) <= limit else f" and {len(idx) - limit} more"
    return f"{len(idx)} cell(s): {', '.join(cells)}{more}"


def _select(
    ds: xr.Dataset,
    metric: str,
    method_dim: Hashable,
    methods: Sequence[Any] | None,
    select: Mapping[Hashable, Any] | None,
) -> tuple[xr.DataArray, xr.DataArray | None]:
    if metric not in ds.data_vars:
        raise ValueError(
            f"`metric` {metric!r} is not a variable of the cube; available: "
            f"{sorted(map(str, ds.data_vars))}."
        )
    da = ds[metric]
    conv = _converged(ds)
    for name in ("dataset", method_dim):
        if name not in da.dims:
            raise ValueError(
                f"the metric {metric!r} has dims {da.dims}; it needs a {name!r} dimension "
                "(check `method_dim`)."
            )
    if select:
        try:
            da = da.sel(dict(select))
            if conv is not None:
                conv = conv.sel({d: v for d, v in select.items() if d in conv.dims})
        except (KeyError, ValueError) as exc:
            raise ValueError(f"`select` {dict(select)!r} does not match the cube: {exc}") from exc
    if methods is not None:
        methods = list(methods)
        unknown = [m for m in methods if m not in da[method_dim].values]
        if unknown:
            raise ValueError(
                f"`methods` {unknown!r} are not in the cube's {method_dim!r} coordinate "
                f"{da[method_dim].values.tolist()!r}."
            )
        da = da.sel({method_dim: methods})
        if conv is not None and method_dim in conv.dims:
            conv = conv.sel({method_dim: methods})
    extra = [d for d in da.dims if d not in ("dataset", method_dim, *_FOLD_DIMS)]
    for d in extra:
        if da.sizes[d] != 1:
            raise ValueError(
                f"dimension {d!r} has {da.sizes[d]} entries {da[d].values.tolist()!r}; "
                f"choose one with `select={{{d!r}: ...}}` (methods are along {method_dim!r})."
            )
    da = da.squeeze(extra, drop=True) if extra else da
    if conv is not None:
        conv = conv.squeeze([d for d in extra if d in conv.dims], drop=True)
        conv = conv.broadcast_like(da)
    folds = [d for d in _FOLD_DIMS if d in da.dims]
    order = ["dataset", method_dim, *folds]
    da = da.transpose(*order)
    conv = None if conv is None else conv.transpose(*order)
    return da, conv


def _usable_cells(
    da: xr.DataArray, conv: xr.DataArray | None, missing: str, unconverged: str
) -> tuple[xr.DataArray, dict[str, Any]]:
    """Apply the missing/unconverged policies; return the data and what was excluded."""
    excluded: dict[str, Any] = {"datasets": [], "unconverged_cells": 0}
    bad_conv = None if conv is None else ~conv & da.notnull()
    if bad_conv is not None and bool(bad_conv.any()):
        if unconverged == "raise":
            raise ValueError(
                f"the cube has unconverged posterior cells: {_describe_cells(bad_conv)}. "
                "Rerun them with more draws, or pass `unconverged='missing'` (exclude them) "
                "or `unconverged='keep'` (use their values)."
            )
        if unconverged == "missing":
            excluded["unconverged_cells"] = int(bad_conv.sum())
            da = da.where(~bad_conv)
    nan = da.isnull()
    if bool(nan.any()):
        if missing == "raise":
            raise ValueError(
                f"the cube has missing (NaN) cells for this comparison: {_describe_cells(nan)}. "
                "They are not applicable, not run yet or failed; choose `methods`/`select` "
                "without them, finish the run, or pass `missing='drop_datasets'`."
            )
        bad = nan.any([d for d in nan.dims if d != "dataset"])
        dropped = da["dataset"].values[bad.values].tolist()
        excluded["datasets"] = dropped
        da = da.sel(dataset=~bad.values)
    if excluded["datasets"] or excluded["unconverged_cells"]:
        warnings.warn(
            f"compare_methods excluded datasets {excluded['datasets']!r} "
            f"({excluded['unconverged_cells']} unconverged cell(s) treated as missing); "
            "see the result's attrs 'excluded_datasets'.",
            ComparisonExclusionWarning,
            stacklevel=3,
        )
    if da.sizes["dataset"] < 2:
        raise ValueError(
            f"only {da.sizes['dataset']} dataset(s) remain for the comparison; a comparison "
            "across datasets needs at least 2."
        )
    return da, excluded


def _control_index(methods: list[Any], control: Any, test: str) -> int | None:
    if control is None:
        if test == "friedman":
            return None
        raise ValueError(
            f"test {test!r} compares each method with a control; pass `control` (one of "
            f"{methods!r})."
        )
    if control not in methods:
        raise ValueError(f"`control` {control!r} is not among the methods {methods!r}.")
    return methods.index(control)


def compare_methods(
    cube: Any,
    metric: str,
    *,
    methods: Sequence[Any] | None = None,
    test: str = "friedman",
    control: Any = None,
    method_dim: Hashable = "scenario",
    select: Mapping[Hashable, Any] | None = None,
    rope: float = 0.01,
    alpha: float = 0.05,
    lower_is_better: bool | None = None,
    rho: float | None = None,
    missing: str = "raise",
    unconverged: str = "raise",
    n_samples: int = 50000,
    random_state: Any = 0,
    hierarchical_options: Mapping[str, Any] | None = None,
) -> xr.Dataset:
    """Compare methods across the datasets of a result cube.

    Parameters
    ----------
    cube : xarray.DataTree or xarray.Dataset
        A result cube (:func:`bayescal.study.open_results`) or its
        ``/metrics`` Dataset.
    metric : str
        The metric to compare (e.g. ``"brier"``).
    methods : sequence, optional
        Labels along ``method_dim`` to compare (default: all), at least 2.
    test : {"friedman", "correlated-t", "signed-rank", "hierarchical"}, default="friedman"
        See the module docstring.
    control : label, optional
        The method the others are tested against (required by the Bayesian
        tests; adds Holm-corrected Wilcoxon tests to ``"friedman"``).
    method_dim : str, default="scenario"
        The dimension whose labels are the methods (``"classifier"`` to
        compare classifiers).
    select : mapping, optional
        Labels fixing the other dimensions, e.g. ``{"classifier": "rf"}``;
        every dimension besides dataset, ``method_dim``, repeat and fold must
        end with one entry.
    rope : float, default=0.01
        Half-width of the region of practical equivalence (metric units).
    alpha : float, default=0.05
        Level of Nemenyi's critical difference.
    lower_is_better : bool, optional
        Direction of the metric; default from :func:`metric_lower_is_better`.
    rho : float, optional
        Correlation of the folds for the correlated t-test and the
        hierarchical model; default ``n_test / n_total`` of the cube's
        protocol (from its spec; 1 / n_folds for K-fold CV).
    missing : {"raise", "drop_datasets"}, default="raise"
        What to do with NaN cells.
    unconverged : {"raise", "missing", "keep"}, default="raise"
        What to do with cells whose posterior failed its diagnostics.
    n_samples : int, default=50000
        Monte-Carlo samples of the signed-rank test.
    random_state : None, int or Generator, default=0
        Seed of the signed-rank samples and the hierarchical sampler.
    hierarchical_options : mapping, optional
        Extra arguments of :class:`~bayescal.stats.hierarchical.HierarchicalComparison`
        (``draws``, ``tune``, ``chains``, ...).

    Returns
    -------
    xarray.Dataset
        Dims ``dataset`` and ``method_dim`` (the methods keep their
        dimension's name, e.g. ``scenario``). Always: ``score`` (dataset x
        method, mean over folds), ``rank`` and ``mean_rank``. ``"friedman"``:
        ``statistic``, ``p_value``, ``f_statistic``, ``f_p_value``,
        ``nemenyi_p_value`` (method x ``<method_dim>_other``),
        ``critical_difference``; with a control
        ``wilcoxon_statistic``, ``wilcoxon_p_value``,
        ``wilcoxon_p_value_holm``. Bayesian tests: ``p_left``, ``p_rope``,
        ``p_right`` and ``mean_difference`` (per method; the control's are
        NaN; ``"correlated-t"`` per dataset and method), ``samples``
        (method x sample x region, region = left/rope/right) for ``"signed-rank"`` and
        ``"hierarchical"``, which adds ``dataset_difference``, ``rhat_max``
        and ``converged``. Attributes: ``metric``, ``test``,
        ``lower_is_better``, ``control``, ``rope``, ``alpha``, ``method_dim``,
        ``excluded_datasets``, ``unconverged_cells_excluded``.

    Raises
    ------
    ValueError
        For an unknown metric, test or method, fewer than 2 datasets or
        methods, missing or unconverged cells (by default), a dimension left
        unselected, or a Bayesian test without a control.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> brier = rng.uniform(0.1, 0.2, size=(6, 3, 5)) + np.array([0, -0.02, 0.01])[:, None]
    >>> ds = xr.Dataset({"brier": (("dataset", "scenario", "fold"), brier)},
    ...                 coords={"scenario": ["raw", "platt", "isotonic"]})
    >>> result = compare_methods(ds, "brier")
    >>> result["mean_rank"].to_series().round(2).to_dict()
    {'raw': 2.0, 'platt': 1.17, 'isotonic': 2.83}
    """
    test = check_choice(test, "test", METHOD_TESTS)
    missing = check_choice(missing, "missing", ("raise", "drop_datasets"))
    unconverged = check_choice(unconverged, "unconverged", ("raise", "missing", "keep"))
    ds = _metrics_dataset(cube)
    da, conv = _select(ds, metric, method_dim, methods, select)
    if lower_is_better is None:
        lower_is_better = metric_lower_is_better(metric)
    names = da[method_dim].values.tolist()
    if len(names) < 2:
        raise ValueError(
            f"`methods` selects {len(names)} method(s) {names!r}; a comparison needs at least 2."
        )
    da, excluded = _usable_cells(da, conv, missing, unconverged)
    fold_dims = [d for d in _FOLD_DIMS if d in da.dims]
    means = da.mean(fold_dims) if fold_dims else da
    scores = check_score_matrix(means.values, f"the {metric!r} scores")
    ci = _control_index(names, control, test)
    dim = str(method_dim)
    out = xr.Dataset(coords={"dataset": da["dataset"].values, dim: names})
    out["score"] = (("dataset", dim), scores)
    out["rank"] = (("dataset", dim), rank_methods(scores, lower_is_better=lower_is_better))
    out["mean_rank"] = (dim, out["rank"].values.mean(axis=0))
    if test == "friedman":
        _friedman(out, dim, scores, lower_is_better, alpha, ci, names)
    else:
        sign = -1.0 if lower_is_better else 1.0
        folds = da.stack(_resample=fold_dims).values if fold_dims else da.values[..., None]
        gains = sign * (folds - folds[:, [ci], :])  # (dataset, method, resample)
        if rho is None and test in ("correlated-t", "hierarchical"):
            rho = _default_rho(cube, da.sizes["fold"] if "fold" in da.dims else gains.shape[2])
        if test == "correlated-t":
            _correlated(out, dim, gains, ci, rope, rho)
        elif test == "signed-rank":
            gains = sign * (scores - scores[:, [ci]])
            _signed_rank(out, dim, gains, ci, rope, n_samples, random_state)
        else:
            _hierarchical(out, dim, gains, ci, rope, rho, random_state, hierarchical_options)
    out.attrs.update(
        metric=metric,
        test=test,
        lower_is_better=int(bool(lower_is_better)),
        control="" if control is None else str(control),
        rope=float(rope),
        alpha=float(alpha),
        method_dim=str(method_dim),
        excluded_datasets=[str(d) for d in excluded["datasets"]],
        unconverged_cells_excluded=excluded["unconverged_cells"],
    )
    return out


def _friedman(out, dim, scores, lower_is_better, alpha, ci, names) -> None:
    fr = friedman_test(scores, lower_is_better=lower_is_better)
    ne = nemenyi_test(scores, lower_is_better=lower_is_better, alpha=alpha)
    out["statistic"] = fr.statistic
    out["p_value"] = fr.p_value
    out["f_statistic"] = fr.f_statistic
    out["f_p_value"] = fr.f_p_value
    out["critical_difference"] = ne.critical_difference
    out.coords[f"{dim}_other"] = names
    out["nemenyi_p_value"] = ((dim, f"{dim}_other"), ne.p_values)
    if ci is not None:
        wh = wilcoxon_holm_test(scores, control=ci)
        out["wilcoxon_statistic"] = (dim, wh.statistic)
        out["wilcoxon_p_value"] = (dim, wh.p_values)
        out["wilcoxon_p_value_holm"] = (dim, wh.p_adjusted)


def _probability_vars(out: xr.Dataset, dims: tuple[str, ...], values: np.ndarray) -> None:
    for i, name in enumerate(("p_left", "p_rope", "p_right", "mean_difference")):
        out[name] = (dims, values[..., i])
        out[name].attrs["orientation"] = (
            "difference = improvement of the method over the control; "
            "left: method practically worse, right: practically better"
        )


def _correlated(out, dim, gains, ci, rope, rho) -> None:
    n_datasets, k, _ = gains.shape
    values = np.full((n_datasets, k, 4), np.nan)
    for i in range(n_datasets):
        for j in range(k):
            if j != ci:
                r = correlated_ttest(gains[i, j], rope=rope, rho=rho)
                values[i, j] = (r.p_left, r.p_rope, r.p_right, r.mean_difference)
    _probability_vars(out, ("dataset", dim), values)
    out.attrs["rho"] = float(rho)


def _signed_rank(out, dim, gains, ci, rope, n_samples, random_state) -> None:
    from bayescal.datasets._rng import as_generator

    rng = as_generator(random_state)
    k = gains.shape[1]
    values = np.full((k, 4), np.nan)
    samples = np.full((k, n_samples, 3), np.nan)
    for j in range(k):
        if j != ci:
            r = signed_rank_test(gains[:, j], rope=rope, n_samples=n_samples, random_state=rng)
            values[j] = (r.p_left, r.p_rope, r.p_right, r.mean_difference)
            samples[j] = r.samples
    _probability_vars(out, (dim,), values)
    out["samples"] = ((dim, "sample", "region"), samples)
    out.coords["region"] = ["left", "rope", "right"]


def _hierarchical(out, dim, gains, ci, rope, rho, random_state, options) -> None:
    from bayescal.stats.hierarchical import HierarchicalComparison

    k = gains.shape[1]
    values = np.full((k, 4), np.nan)
    per_dataset = np.full((gains.shape[0], k), np.nan)
    rhat = np.full(k, np.nan)
    converged = np.ones(k, dtype=bool)
    samples = None
    for j in range(k):
        if j == ci:
            continue
        model = HierarchicalComparison(
            rope=rope, rho=rho, random_state=random_state, **dict(options or {})
        ).fit(gains[:, j])
        values[j] = (model.p_left_, model.p_rope_, model.p_right_, model.mean_difference_)
        per_dataset[:, j] = model.dataset_differences_
        rhat[j] = model.diagnostics_["rhat_max"]
        converged[j] = model.diagnostics_["converged"]
        if samples is None:
            samples = np.full((k, model.samples_.shape[0], 3), np.nan)
        samples[j] = model.samples_
    _probability_vars(out, (dim,), values)
    out["dataset_difference"] = (("dataset", dim), per_dataset)
    out["rhat_max"] = (dim, rhat)
    out["converged"] = (dim, converged)
    out["samples"] = ((dim, "sample", "region"), samples)
    out.coords["region"] = ["left", "rope", "right"]
    out.attrs["rho"] = float(rho)

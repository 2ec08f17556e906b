"""Posterior diagnostics of a study: the per-cell table, trace and rank plots.

The table reads the cube's ``rhat_max``, ``ess_bulk_min`` and ``divergences``
(NaN where a model is not Bayesian) and applies the thresholds of
:func:`bayescal.inference.posterior.diagnostic_failures`. The plots take a
posterior (``idata_``, an ``xarray.DataTree`` with a ``posterior`` group):
:func:`plot_trace` is ArviZ's ``plot_trace``; :func:`plot_rank_histogram` is a
rank histogram drawn by hand on one matplotlib axes (ArviZ 1.x draws its rank
plots as Δ-ECDFs in a figure of its own, which cannot be placed in a given
axes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescal.report.comparison import metrics_dataset
from bayescal.validation import check_positive_int

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

    from bayescal.inference.posterior import DiagnosticThresholds

__all__ = ["diagnostics_table", "plot_rank_histogram", "plot_trace", "threshold_words",
           "with_samplers", "worst_fit"]

_DIAGNOSTICS = ("rhat_max", "ess_bulk_min", "divergences")


def threshold_words(thresholds: DiagnosticThresholds | None = None) -> str:
    """The failure conditions of :mod:`bayescal.inference.posterior`, in words."""
    from bayescal.inference.posterior import DiagnosticThresholds

    th = thresholds or DiagnosticThresholds()
    return (f"R-hat > {th.rhat_max:g}, bulk or tail ESS < {th.ess_min_per_chain:g} per chain, "
            f"or more than {th.divergences_max} divergent transitions")


def diagnostics_table(
    metrics: Any, thresholds: DiagnosticThresholds | None = None
) -> pd.DataFrame:
    """One row per Bayesian cell of a cube: R-hat, ESS, divergences and failures.

    Parameters
    ----------
    metrics : xarray.DataTree or xarray.Dataset
        The result cube or its ``/metrics`` Dataset.
    thresholds : DiagnosticThresholds, optional
        Limits (default: those of :mod:`bayescal.inference.posterior`, the ones
        the estimators apply). The ESS limit is per chain, using the cube's
        ``n_chains`` (one chain where it is missing). Where the cube has the
        ``converged`` variable and no ``thresholds`` are given, the verdict
        recorded when the cell ran is used.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``classifier``, ``scenario``, (``repeat``,)
        ``fold``, ``rhat_max``, ``ess_bulk_min``, ``divergences``,
        ``failures`` (``"; "``-joined, empty when the fit passes) and
        ``failed`` (bool). A cell is Bayesian when any of the three
        diagnostics is finite. Empty (with these columns) when nothing is
        Bayesian.

    Raises
    ------
    ValueError
        If the cube lacks the diagnostic variables.
    """
    import pandas as pd

    from bayescal.inference.posterior import diagnostic_failures

    ds = metrics_dataset(metrics)
    missing = [v for v in _DIAGNOSTICS if v not in ds]
    if missing:
        raise ValueError(f"the cube has no diagnostic variable(s) {missing}; is it a study cube?")
    extra = [v for v in ("ess_tail_min", "pareto_k", "n_chains") if v in ds]
    recorded = "converged" in ds and thresholds is None
    names = [*_DIAGNOSTICS, *extra, *(["converged"] if recorded else [])]
    frame = ds[names].to_dataframe().reset_index()
    keep = [c for c in frame.columns if c in (*ds[_DIAGNOSTICS[0]].dims, *names)]
    frame = frame[keep]
    bayesian = frame[list(_DIAGNOSTICS)].notna().any(axis=1)
    frame = frame[bayesian].reset_index(drop=True)
    failures = []
    for _, row in frame.iterrows():
        record = {k: float(row[k]) for k in (*_DIAGNOSTICS, *extra) if k != "divergences"}
        div = row["divergences"]
        record["divergences"] = int(div) if np.isfinite(div) else 0
        if not np.isfinite(record.get("n_chains", np.nan)):
            record.pop("n_chains", None)
        found = diagnostic_failures(record, thresholds)
        if recorded and not bool(row["converged"]) and not found:
            found = ["failed when the cell ran"]
        elif recorded and bool(row["converged"]):
            found = []
        failures.append("; ".join(found))
    frame = frame.drop(columns=[c for c in ("converged", "n_chains") if c in frame])
    frame["failures"] = pd.Series(failures, dtype=object)
    frame["failed"] = frame["failures"].str.len() > 0
    return frame


def with_samplers(table: pd.DataFrame, tree: Any) -> pd.DataFrame:
    """``table`` with a ``sampler`` column after ``fold``: the cube's ``samplers`` record.

    The inference behind each Bayesian cell (``"nutpie"``, ``"laplace"``, ...,
    as its estimator's ``diagnostics_`` named it) from the root attribute
    ``samplers`` (:func:`bayescal.cube.consolidate`); ``table`` unchanged for a
    cube written before the attribute existed or for a bare ``Dataset``.
    """
    import json

    attrs = getattr(tree, "attrs", {}) or {}
    if "samplers" not in attrs or table.empty:
        return table
    record = json.loads(attrs["samplers"])
    labels = (table["dataset"].astype(str) + "/" + table["classifier"].astype(str) + "/"
              + table["scenario"].astype(str))
    out = table.copy()
    out.insert(list(out.columns).index("fold") + 1, "sampler",
               [record.get(label, "") for label in labels])
    return out


def worst_fit(table: pd.DataFrame) -> pd.Series | None:
    """The row of :func:`diagnostics_table` with the worst convergence.

    Worst means: most failures first, then largest R-hat, then most
    divergences, then smallest bulk ESS, then largest Pareto k̂. Only rows
    with something to rank are candidates (a failure, a divergence, a finite
    R-hat, ESS or Pareto k̂): None when there is none (e.g. only Laplace fits
    without an importance-sampling check, whose rows are all "–") or the
    table is empty.
    """
    if table.empty:
        return None
    checks = [c for c in ("rhat_max", "ess_bulk_min", "ess_tail_min", "pareto_k") if c in table]
    measured = (
        table[checks].notna().any(axis=1).to_numpy()
        | (np.nan_to_num(table["divergences"].to_numpy(float), nan=0.0) > 0)
        | table["failed"].to_numpy(bool)
    )
    if not measured.any():
        return None
    table = table[measured]
    khat = table["pareto_k"].to_numpy(float) if "pareto_k" in table else np.zeros(len(table))
    key = np.lexsort(
        (
            -np.nan_to_num(khat, nan=-np.inf),
            np.nan_to_num(table["ess_bulk_min"].to_numpy(float), nan=np.inf),
            -np.nan_to_num(table["divergences"].to_numpy(float), nan=0.0),
            -np.nan_to_num(table["rhat_max"].to_numpy(float), nan=0.0),
            -table["failures"].map(lambda s: len(s.split("; ")) if s else 0).to_numpy(),
        )
    )
    return table.iloc[int(key[0])]


def _posterior(idata: Any) -> Any:
    import xarray as xr

    if isinstance(idata, xr.DataTree):
        if "posterior" not in idata.children:
            raise ValueError("`idata` has no 'posterior' group.")
        return idata["posterior"].to_dataset()
    if isinstance(idata, xr.Dataset):
        return idata
    raise TypeError(
        f"`idata` must be an xarray.DataTree with a posterior group; got {type(idata).__name__}."
    )


def _worst_element(posterior: Any, var_name: str | None) -> tuple[str, dict[str, Any], Any]:
    """The scalar element of the posterior with the largest R-hat."""
    import arviz as az

    names = [var_name] if var_name is not None else [str(v) for v in posterior.data_vars]
    if var_name is not None and var_name not in posterior.data_vars:
        raise ValueError(
            f"`var_name` must be one of {list(posterior.data_vars)}; got {var_name!r}."
        )
    rhat = az.rhat(posterior[names]) if posterior.sizes.get("chain", 1) >= 2 else None
    best: tuple[float, str, dict[str, Any]] = (-np.inf, names[0], {})
    for name in names:
        da = posterior[name]
        extra = [d for d in da.dims if d not in ("chain", "draw")]
        values = (
            np.asarray(rhat[name]) if rhat is not None else np.zeros([da.sizes[d] for d in extra])
        )
        flat = np.nan_to_num(values, nan=-np.inf).ravel()
        i = int(np.argmax(flat)) if flat.size else 0
        if flat.size and flat[i] > best[0]:
            idx = np.unravel_index(i, values.shape) if values.ndim else ()
            best = (flat[i], name, {d: int(j) for d, j in zip(extra, idx, strict=True)})
    name, sel = best[1], best[2]
    return name, sel, posterior[name].isel(sel)


def plot_rank_histogram(
    idata: Any, var_name: str | None = None, *, n_bins: int = 20, ax: Axes | None = None
) -> Axes:
    """Rank histograms of one posterior quantity, one per chain.

    Parameters
    ----------
    idata : xarray.DataTree or xarray.Dataset
        A posterior (``chain`` × ``draw`` dims).
    var_name : str, optional
        Variable drawn; default the variable with the largest R-hat. For a
        vector variable the element with the largest R-hat is drawn.
    n_bins : int, default=20
        Bins of the rank histograms.
    ax : matplotlib Axes, optional
        Axes to draw in; a new figure is made when omitted.

    Returns
    -------
    matplotlib.axes.Axes
        One step histogram per chain (``ax.patches``); the dashed line is the
        count expected under uniform ranks and the grey band its 99%
        binomial interval.

    Raises
    ------
    TypeError, ValueError
        If ``idata`` is not a posterior or ``var_name`` is not in it.

    Notes
    -----
    Rank plots of Vehtari et al. (2021): the draws of all chains are ranked
    together (average ranks for ties); if every chain samples the same
    distribution each chain's ranks are uniform on ``1 .. S`` (``S`` draws in
    all), so each bin holds ``n_draws / n_bins`` draws per chain up to
    binomial noise. A chain whose histogram leaves the band explores a
    different region. Written by hand here so that it fits in one given axes.

    References
    ----------
    Vehtari, Gelman, Simpson, Carpenter and Bürkner (2021). Rank-normalization,
    folding, and localization: an improved R-hat. Bayesian Analysis 16(2).
    """
    from scipy.stats import binom, rankdata

    n_bins = check_positive_int(n_bins, "n_bins")
    posterior = _posterior(idata)
    name, sel, da = _worst_element(posterior, var_name)
    draws = np.asarray(da.transpose("chain", "draw").values, dtype=float)
    n_chains, n_draws = draws.shape
    ranks = rankdata(draws.ravel()).reshape(draws.shape)
    edges = np.linspace(0.5, draws.size + 0.5, n_bins + 1)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.5, 3.5))
    expected = n_draws / n_bins
    low, high = binom.interval(0.99, n_draws, 1.0 / n_bins)
    ax.axhspan(low, high, color="0.85", zorder=0, label="99% band of uniform ranks")
    ax.axhline(expected, color="0.3", linestyle="--", linewidth=1.0, label="expected count")
    for c in range(n_chains):
        ax.hist(ranks[c], bins=edges, histtype="step", linewidth=1.4, label=f"chain {c}")
    where = ", ".join(f"{d}={j}" for d, j in sel.items())
    ax.set_title(f"Rank histogram: {name}" + (f"[{where}]" if where else ""))
    ax.set_xlabel("rank of the draw among all chains")
    ax.set_ylabel("draws per bin")
    ax.legend(loc="upper right", fontsize="x-small")
    return ax


def plot_trace(idata: Any, var_names: list[str] | None = None) -> Any:
    """ArviZ trace plot (``arviz.plot_trace``) of a posterior.

    Parameters
    ----------
    idata : xarray.DataTree
        A posterior with ``chain`` and ``draw`` dims.
    var_names : list of str, optional
        Variables drawn; default every posterior variable.

    Returns
    -------
    matplotlib.figure.Figure
        ArviZ draws its own figure (one panel per scalar element, divergent
        draws marked); this is that figure.
    """
    import arviz as az

    posterior = _posterior(idata)
    coords = {
        d: np.arange(posterior.sizes[d]) for d in posterior.dims if d not in posterior.coords
    }
    tree = idata if not coords else _with_coords(idata, coords)
    pc = az.plot_trace(tree, var_names=var_names, backend="matplotlib")
    return pc.viz["figure"].item()


def _with_coords(idata: Any, coords: dict[str, Any]) -> Any:
    """A copy of ``idata`` with index coordinates on every dimension (ArviZ wants them)."""
    import xarray as xr

    groups = {}
    for name in idata.children:
        ds = idata[name].to_dataset()
        groups[name] = ds.assign_coords({d: v for d, v in coords.items() if d in ds.dims})
    return xr.DataTree.from_dict(groups)

"""A metric per scenario with its spread over folds, from a result cube.

matplotlib is imported inside the plotting function so that importing
:mod:`bayescal.report` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["fold_values", "metrics_dataset", "plot_metric_comparison"]


def metrics_dataset(results: Any) -> Any:
    """The ``/metrics`` Dataset of a cube (a DataTree, its ``/metrics`` node or a Dataset).

    Raises
    ------
    TypeError
        If ``results`` is none of these.
    """
    import xarray as xr

    if isinstance(results, xr.DataTree):
        node = results["metrics"] if "metrics" in results.children else results
        return node.to_dataset()
    if isinstance(results, xr.Dataset):
        return results
    raise TypeError(
        "`metrics` must be a result cube (xarray.DataTree) or its /metrics Dataset; "
        f"got {type(results).__name__}."
    )


def fold_values(
    metrics: Any, metric: str, *, dataset: Any, classifier: Any = None
) -> dict[str, np.ndarray]:
    """Per-fold values of ``metric`` for each (classifier,) scenario of one dataset.

    Parameters
    ----------
    metrics : xarray.DataTree or xarray.Dataset
        The cube or its ``/metrics`` Dataset.
    metric : str
        A float variable of ``/metrics``.
    dataset : hashable
        Entry of the ``dataset`` dimension.
    classifier : hashable, optional
        Entry of the ``classifier`` dimension; None gives every classifier
        (labels ``"classifier / scenario"``).

    Returns
    -------
    dict of str to ndarray
        Label to the finite values over ``repeat`` × ``fold`` of cells that
        are done; entries with no finite value (scenarios that do not apply,
        cells not run) are left out.

    Raises
    ------
    ValueError
        If ``metric``, ``dataset`` or ``classifier`` is not in the cube.
    """
    ds = metrics_dataset(metrics)
    floats = [str(v) for v in ds.data_vars if ds[v].dtype.kind == "f"]
    if metric not in floats:
        raise ValueError(f"`metric` must be one of {floats!r}; got {metric!r}.")
    for name, value in (("dataset", dataset), ("classifier", classifier)):
        if value is not None and value not in ds[name].values.tolist():
            raise ValueError(
                f"`{name}` must be one of {ds[name].values.tolist()!r}; got {value!r}."
            )
    da = ds[metric].sel(dataset=dataset)
    if "done" in ds:
        da = da.where(ds["done"].sel(dataset=dataset))
    classifiers = [classifier] if classifier is not None else da["classifier"].values.tolist()
    out: dict[str, np.ndarray] = {}
    for clf in classifiers:
        for scen in da["scenario"].values.tolist():
            v = np.asarray(da.sel(classifier=clf, scenario=scen).values, dtype=float).ravel()
            v = v[np.isfinite(v)]
            if v.size:
                out[str(scen) if classifier is not None else f"{clf} / {scen}"] = v
    return out


def plot_metric_comparison(
    metrics: Any,
    metric: str,
    *,
    dataset: Any,
    classifier: Any = None,
    ax: Axes | None = None,
) -> Axes:
    """Box plot of a metric per scenario, with every fold drawn as a point.

    Parameters
    ----------
    metrics : xarray.DataTree or xarray.Dataset
        The result cube or its ``/metrics`` Dataset.
    metric : str
        The variable drawn, e.g. ``"brier"``.
    dataset : hashable
        The dataset compared.
    classifier : hashable, optional
        One classifier (boxes are its scenarios); None draws every
        classifier × scenario that has values.
    ax : matplotlib Axes, optional
        Axes to draw in; a new figure is made when omitted.

    Returns
    -------
    matplotlib.axes.Axes
        Boxes in the order of the cube; the fold points are one
        ``PathCollection`` per box (x jittered deterministically around the
        box's position), so their y values are exactly the cube's.

    Raises
    ------
    ValueError
        If a name is not in the cube or nothing is left to draw.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, xarray as xr
    >>> cube = xr.Dataset(
    ...     {"brier": (("dataset", "classifier", "scenario", "fold"),
    ...                np.array([[[[0.2, 0.3], [0.1, 0.15]]]]))},
    ...     coords={"dataset": ["d"], "classifier": ["nb"], "scenario": ["raw", "iso"]})
    >>> ax = plot_metric_comparison(cube, "brier", dataset="d", classifier="nb")
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['raw', 'iso']
    """
    values = fold_values(metrics, metric, dataset=dataset, classifier=classifier)
    if not values:
        raise ValueError(
            f"no finished cell of {metric!r} for dataset {dataset!r}"
            + (f" and classifier {classifier!r}" if classifier is not None else "")
            + "; nothing to draw."
        )
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(max(4.0, 0.8 * len(values) + 2.0), 4.0))
    labels = list(values)
    positions = np.arange(1, len(labels) + 1)
    ax.boxplot(
        [values[k] for k in labels],
        positions=positions,
        widths=0.55,
        showfliers=False,
        medianprops={"color": "black"},
    )
    for pos, key in zip(positions, labels, strict=True):
        v = values[key]
        # deterministic jitter: evenly spread within +-0.18 of the box centre
        offsets = np.linspace(-0.18, 0.18, v.size) if v.size > 1 else np.zeros(1)
        ax.scatter(pos + offsets, v, s=12, alpha=0.7, zorder=3)
    ax.set_xticks(
        positions,
        labels,
        rotation=30 if len(labels) > 3 else 0,
        ha="right" if len(labels) > 3 else "center",
    )
    from bayescal.cube.schema import METRICS

    info = METRICS.get(metric)
    direction = info.direction if info is not None else None
    ax.set_ylabel(metric if direction is None else f"{metric} ({direction} is better)")
    what = f"{dataset}" + (f", {classifier}" if classifier is not None else "")
    ax.set_title(f"{metric} per fold: {what}")
    return ax

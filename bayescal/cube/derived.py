"""Label metrics a finished cube did not record, recomputed from its stored predictions.

A study records the metrics its spec names. A reproduction that needs another
label metric of the same cells (e.g. the thesis' ``brier_sum`` of a study whose
spec asked for ``brier``) can compute it per fold from the cube's
out-of-fold predictions with the very function the runner scores cells with
(:func:`bayescal.cube.scoring.label_metrics`), instead of re-running the study.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["fold_label_metric"]


def fold_label_metric(tree: Any, metric: str, *, n_bins: int = 10,
                      clip: Mapping[str, float] | None = None) -> Any:
    """A label metric per data set, classifier, scenario and fold, from the predictions.

    Parameters
    ----------
    tree : xarray.DataTree
        A result cube (:func:`bayescal.cube.open_results`) with a ``/predictions``
        group (one out-of-fold prediction per sample, k-fold protocols).
    metric : str
        A label metric the runner knows (e.g. ``"brier_sum"``, ``"log_loss"``).
    n_bins : int, default=10
        Bins of binned metrics (ECE), as the spec's ``[metrics] n_bins``.
    clip : mapping, optional
        Metric -> probability clipping, as the spec's ``[metrics] clip``.

    Returns
    -------
    xarray.DataArray
        Dims ``(dataset, classifier, scenario, fold)``; NaN where the cell has no
        predictions (failed, not applicable or not run).

    Raises
    ------
    ValueError
        If the cube has no predictions, its protocol repeats folds, or ``metric``
        is not a label metric.

    Examples
    --------
    >>> fold_label_metric(object(), "brier_sum")
    Traceback (most recent call last):
    ...
    ValueError: `tree` is not a result cube with a /predictions group ...
    """
    import xarray as xr

    from bayescal.cube.scoring import label_metrics

    try:
        groups = tree["/predictions"]
        metrics = tree["/metrics"].ds
    except (KeyError, TypeError) as err:
        raise ValueError("`tree` is not a result cube with a /predictions group (open it "
                         "with bayescal.cube.open_results)") from err
    if "repeat" in metrics.dims and metrics.sizes["repeat"] > 1:
        raise ValueError("`tree`: its protocol repeats the folds; out-of-fold predictions "
                         "hold one repeat only, so per-fold metrics cannot be recomputed")
    folds = metrics["fold"].to_numpy() if "fold" in metrics.coords else None
    out = []
    for name in (str(d) for d in metrics["dataset"].to_numpy()):
        ds = groups[name].ds
        y = ds["y"].to_numpy()
        fold_of = ds["fold"].to_numpy()
        proba = ds["proba"]
        fold_ids = folds if folds is not None else np.unique(fold_of)
        values = np.full((proba.sizes["classifier"], proba.sizes["scenario"], len(fold_ids)),
                         np.nan)
        for i, clf in enumerate(proba["classifier"].to_numpy()):
            for j, sc in enumerate(proba["scenario"].to_numpy()):
                p = proba.sel(classifier=clf, scenario=sc).to_numpy()
                for k, f in enumerate(fold_ids):
                    rows = fold_of == f
                    if not rows.any() or np.isnan(p[rows]).any():
                        continue
                    got = label_metrics(y[rows], p[rows], (metric,), n_bins, clip)
                    if metric not in got:
                        raise ValueError(f"`metric` {metric!r} is not a label metric the "
                                         "runner computes from predictions")
                    values[i, j, k] = got[metric]
        out.append(xr.DataArray(values, dims=("classifier", "scenario", "fold"),
                                coords={"classifier": proba["classifier"].to_numpy(),
                                        "scenario": proba["scenario"].to_numpy(),
                                        "fold": fold_ids}))
    return xr.concat(out, dim="dataset").assign_coords(
        dataset=metrics["dataset"].to_numpy()).rename(metric)

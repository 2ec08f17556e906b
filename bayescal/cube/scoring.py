"""The metrics a study records per cell, mapped to :mod:`bayescal.metrics` (beside the registry).

Names, directions, units and clipping come from the metric registry
(:mod:`bayescal.cube.schema`); this module maps the label- and truth-based
names to the functions that compute them.

========== ======================================================= ============
name       computed by                                             needs
========== ======================================================= ============
brier      :func:`bayescal.metrics.brier_score` (scikit-learn's     labels
           ``brier_score_loss``: binary squared error of the
           positive-class probability, multi-class sum)
brier_sum  :func:`bayescal.metrics.brier_sum` (thesis Eq. 10)      labels
brier_     :func:`bayescal.metrics.brier_class_mean` (Eq. 10 / K)  labels
class_mean
log_loss   :func:`bayescal.metrics.log_loss` with the spec's       labels
           ``metrics.clip`` or the registry's (``1e-15``)
ece        :func:`bayescal.metrics.expected_calibration_error`     labels
           (``kind="binary"`` for two classes, ``"top_label"``
           otherwise; ``metrics.ece_bins`` equal-width bins)
accuracy   :func:`bayescal.metrics.accuracy`                       labels
mcb, dsc,  :func:`bayescal.metrics.score_decomposition` (CORP) of   labels,
unc        the Brier score of the positive-class probability, so   binary
           ``mcb - dsc + unc == brier``; higher ``dsc`` is better
smooth_ece :func:`bayescal.metrics.smooth_ece` (``kind="binary"``   labels
           for two classes, ``"top_label"`` otherwise)
rmse_true  :func:`bayescal.metrics.rmse_true`                      ``p_true``
mae_true   :func:`bayescal.metrics.mae_true`                       ``p_true``
mse_true   ``rmse_true`` squared: the mean squared error against   ``p_true``
           ``p_true`` of the fold (Alasalmi 2020 Table 5's MSE)
probe_*    :func:`bayescal.cube.consolidate.probe_metrics`, at     probe
           consolidation (the probe's cell may come from another
           worker); NaN for the probe's own cells
========== ======================================================= ============

Log loss clips the true-class probability (at ``1e-15`` unless the spec's
``[metrics] clip = { log_loss = ... }`` says otherwise; Phelps et al. (2024) clip at
``1e-5``) so that a single zero probability gives a large finite loss rather
than ``inf`` for the whole cell.
``mcb``/``dsc``/``unc`` are NaN for multi-class datasets and for a test fold
holding a single class (CORP needs both outcomes).
``rmse_true``/``mae_true``/``mse_true`` are recorded (NaN elsewhere) for every dataset with
known true probabilities, ``probe_rmse``/``probe_coverage`` when the spec names
a probe, whether or not they are listed in ``metrics.names``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from bayescal.cube.schema import metric_info, metric_names

__all__ = [
    "BRIER_DECOMPOSITION",
    "LABEL_METRICS",
    "METRICS",
    "label_metrics",
    "truth_metrics",
]

#: Metrics computed from labels in every cell (from the registry).
LABEL_METRICS = metric_names("labels")
#: The CORP decomposition of the Brier score, computed together.
BRIER_DECOMPOSITION = ("mcb", "dsc", "unc")
#: Every metric name a spec may list (from the registry).
METRICS = metric_names()


def _label_functions(n_bins: int, clip: Mapping[str, float]
                     ) -> dict[str, Callable[[np.ndarray, np.ndarray], float]]:
    from bayescal import metrics as m

    eps = clip.get("log_loss", metric_info("log_loss").clip)

    def ece(y: np.ndarray, P: np.ndarray) -> float:
        kind = "binary" if P.shape[1] == 2 else "top_label"
        return m.expected_calibration_error(y, P, n_bins=n_bins, kind=kind)

    def smooth_ece(y: np.ndarray, P: np.ndarray) -> float:
        return m.smooth_ece(y, P, kind="binary" if P.shape[1] == 2 else "top_label")

    return {
        "brier": m.brier_score,
        "brier_sum": m.brier_sum,
        "brier_class_mean": m.brier_class_mean,
        "log_loss": lambda y, P: m.log_loss(y, P, eps=eps),
        "ece": ece,
        "accuracy": m.accuracy,
        "smooth_ece": smooth_ece,
    }


def brier_decomposition(y: np.ndarray, proba: np.ndarray) -> dict[str, float]:
    """``mcb``, ``dsc`` and ``unc`` of the cube's Brier score (NaN where CORP does not apply).

    The cube's ``brier`` is the positive-class Brier score that
    :func:`bayescal.metrics.score_decomposition` decomposes, so
    ``mcb - dsc + unc == brier``.
    """
    if proba.shape[1] != 2 or np.unique(y).size < 2:
        return dict.fromkeys(BRIER_DECOMPOSITION, float("nan"))
    from bayescal.metrics import score_decomposition

    d = score_decomposition(y, proba[:, 1], score="brier")
    return {"mcb": d.mcb, "dsc": d.dsc, "unc": d.unc}


def label_metrics(y: np.ndarray, proba: np.ndarray, names: tuple[str, ...],
                  n_bins: int, clip: Mapping[str, float] | None = None) -> dict[str, float]:
    """The label-based metrics ``names`` of one cell's test predictions.

    ``clip`` maps a metric name to its probability clipping (the spec's
    ``metrics.clip``); metrics not in it use the registry's.
    """
    funcs = _label_functions(n_bins, clip or {})
    out = {name: float(funcs[name](y, proba)) for name in names if name in funcs}
    if any(name in BRIER_DECOMPOSITION for name in names):
        terms = brier_decomposition(y, proba)
        out.update({name: terms[name] for name in names if name in BRIER_DECOMPOSITION})
    return out


def truth_metrics(p_true: np.ndarray, proba: np.ndarray) -> dict[str, float]:
    """``rmse_true``, ``mae_true`` and ``mse_true`` of binary predictions against ``p_true``."""
    from bayescal.metrics import mae_true, rmse_true

    rmse = rmse_true(p_true, proba[:, 1])
    return {"rmse_true": rmse, "mae_true": mae_true(p_true, proba[:, 1]), "mse_true": rmse * rmse}

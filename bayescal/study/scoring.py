"""The metrics a study records per cell, mapped to :mod:`bayescal.metrics`.

========== ======================================================= ============
name       computed by                                             needs
========== ======================================================= ============
brier      :func:`bayescal.metrics.brier_score`                    labels
log_loss   :func:`bayescal.metrics.log_loss` with ``eps=1e-15``    labels
ece        :func:`bayescal.metrics.expected_calibration_error`     labels
           (``kind="binary"`` for two classes, ``"top_label"``
           otherwise; ``metrics.ece_bins`` equal-width bins)
accuracy   :func:`bayescal.metrics.accuracy`                       labels
mcb, dsc,  :func:`bayescal.metrics.score_decomposition` (CORP) of   labels,
unc        the Brier score, in the convention of ``brier`` (sum     binary
           over both classes: twice the positive-class terms), so
           ``mcb - dsc + unc == brier``; higher ``dsc`` is better
smooth_ece :func:`bayescal.metrics.smooth_ece` (``kind="binary"``   labels
           for two classes, ``"top_label"`` otherwise)
rmse_true  :func:`bayescal.metrics.rmse_true`                      ``p_true``
mae_true   :func:`bayescal.metrics.mae_true`                       ``p_true``
probe_rmse :func:`bayescal.metrics.rmse_true` against the probe's  probe
           posterior-mean probabilities on the same test samples
probe_cov. :func:`bayescal.metrics.probe_distance`: share of       probe
           probabilities inside the probe's credible interval
========== ======================================================= ============

Log loss clips the true-class probability at ``1e-15`` so that a single
zero probability gives a large finite loss rather than ``inf`` for the whole
cell (the convention of the seed thesis' tables and scikit-learn).
``mcb``/``dsc``/``unc`` are NaN for multi-class datasets and for a test fold
holding a single class (CORP needs both outcomes).
``rmse_true``/``mae_true`` are recorded (NaN elsewhere) for every dataset with
known true probabilities, ``probe_rmse``/``probe_coverage`` when the spec names
a probe, whether or not they are listed in ``metrics.names``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = [
    "LABEL_METRICS",
    "METRICS",
    "label_metrics",
    "probe_metrics",
    "truth_metrics",
]

LOG_LOSS_EPS = 1e-15

#: Metrics computed from labels in every cell.
LABEL_METRICS = ("brier", "log_loss", "ece", "accuracy", "mcb", "dsc", "unc", "smooth_ece")
#: The CORP decomposition of the Brier score, computed together.
BRIER_DECOMPOSITION = ("mcb", "dsc", "unc")
#: Every metric name a spec may list.
METRICS = (*LABEL_METRICS, "rmse_true", "mae_true", "probe_rmse", "probe_coverage")


def _label_functions(n_bins: int) -> dict[str, Callable[[np.ndarray, np.ndarray], float]]:
    from bayescal import metrics as m

    def ece(y: np.ndarray, P: np.ndarray) -> float:
        kind = "binary" if P.shape[1] == 2 else "top_label"
        return m.expected_calibration_error(y, P, n_bins=n_bins, kind=kind)

    def smooth_ece(y: np.ndarray, P: np.ndarray) -> float:
        return m.smooth_ece(y, P, kind="binary" if P.shape[1] == 2 else "top_label")

    return {
        "brier": m.brier_score,
        "log_loss": lambda y, P: m.log_loss(y, P, eps=LOG_LOSS_EPS),
        "ece": ece,
        "accuracy": m.accuracy,
        "smooth_ece": smooth_ece,
    }


def brier_decomposition(y: np.ndarray, proba: np.ndarray) -> dict[str, float]:
    """``mcb``, ``dsc`` and ``unc`` of the cube's Brier score (NaN where CORP does not apply).

    The cube's ``brier`` sums the squared error over both classes, twice the
    positive-class Brier score that :func:`bayescal.metrics.score_decomposition`
    decomposes, so each term is doubled and ``mcb - dsc + unc == brier``.
    """
    if proba.shape[1] != 2 or np.unique(y).size < 2:
        return dict.fromkeys(BRIER_DECOMPOSITION, float("nan"))
    from bayescal.metrics import score_decomposition

    d = score_decomposition(y, proba[:, 1], score="brier")
    return {"mcb": 2.0 * d.mcb, "dsc": 2.0 * d.dsc, "unc": 2.0 * d.unc}


def label_metrics(y: np.ndarray, proba: np.ndarray, names: tuple[str, ...],
                  n_bins: int) -> dict[str, float]:
    """The label-based metrics ``names`` of one cell's test predictions."""
    funcs = _label_functions(n_bins)
    out = {name: float(funcs[name](y, proba)) for name in names if name in funcs}
    if any(name in BRIER_DECOMPOSITION for name in names):
        terms = brier_decomposition(y, proba)
        out.update({name: terms[name] for name in names if name in BRIER_DECOMPOSITION})
    return out


def truth_metrics(p_true: np.ndarray, proba: np.ndarray) -> dict[str, float]:
    """``rmse_true`` and ``mae_true`` of binary predictions against ``p_true``."""
    from bayescal.metrics import mae_true, rmse_true

    return {"rmse_true": rmse_true(p_true, proba[:, 1]), "mae_true": mae_true(p_true, proba[:, 1])}


def probe_metrics(proba: np.ndarray, probe_proba: np.ndarray,
                  probe_interval: np.ndarray | None) -> dict[str, float]:
    """``probe_rmse`` and ``probe_coverage`` of one cell against the probe.

    Computed by :func:`bayescal.metrics.probe_distance` (``rmse`` and
    ``inside``); without credible intervals (a probe that has none, e.g. a
    non-Bayesian reference) only the RMSE is defined and the coverage is NaN.
    """
    from bayescal.metrics import probe_distance, rmse_true

    if probe_interval is None or not np.isfinite(probe_interval).all():
        return {"probe_rmse": rmse_true(probe_proba, proba), "probe_coverage": np.nan}
    distance = probe_distance(proba, probe_proba, probe_interval)
    return {"probe_rmse": distance.rmse, "probe_coverage": distance.inside}

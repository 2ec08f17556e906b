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
rmse_true  :func:`bayescal.metrics.rmse_true`                      ``p_true``
mae_true   :func:`bayescal.metrics.mae_true`                       ``p_true``
probe_rmse :func:`bayescal.metrics.rmse_true` against the probe's  probe
           posterior-mean probabilities on the same test samples
probe_cov. :func:`probe_coverage`: share of probabilities inside   probe
           the probe's credible interval
========== ======================================================= ============

Log loss clips the true-class probability at ``1e-15`` so that a single
zero probability gives a large finite loss rather than ``inf`` for the whole
cell (the convention of the seed thesis' tables and scikit-learn).
``rmse_true``/``mae_true`` are recorded (NaN elsewhere) for every dataset with
known true probabilities, ``probe_rmse``/``probe_coverage`` when the spec names
a probe, whether or not they are listed in ``metrics.names``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "LABEL_METRICS",
    "METRICS",
    "label_metrics",
    "probe_coverage",
    "probe_metrics",
    "truth_metrics",
]

LOG_LOSS_EPS = 1e-15

#: Metrics computed from labels in every cell.
LABEL_METRICS = ("brier", "log_loss", "ece", "accuracy")
#: Every metric name a spec may list.
METRICS = (*LABEL_METRICS, "rmse_true", "mae_true", "probe_rmse", "probe_coverage")


def _label_functions(n_bins: int) -> dict[str, Callable[[np.ndarray, np.ndarray], float]]:
    from bayescal import metrics as m

    def ece(y: np.ndarray, P: np.ndarray) -> float:
        kind = "binary" if P.shape[1] == 2 else "top_label"
        return m.expected_calibration_error(y, P, n_bins=n_bins, kind=kind)

    return {
        "brier": m.brier_score,
        "log_loss": lambda y, P: m.log_loss(y, P, eps=LOG_LOSS_EPS),
        "ece": ece,
        "accuracy": m.accuracy,
    }


def label_metrics(y: np.ndarray, proba: np.ndarray, names: tuple[str, ...],
                  n_bins: int) -> dict[str, float]:
    """The label-based metrics ``names`` of one cell's test predictions."""
    funcs = _label_functions(n_bins)
    return {name: float(funcs[name](y, proba)) for name in names if name in funcs}


def truth_metrics(p_true: np.ndarray, proba: np.ndarray) -> dict[str, float]:
    """``rmse_true`` and ``mae_true`` of binary predictions against ``p_true``."""
    from bayescal.metrics import mae_true, rmse_true

    return {"rmse_true": rmse_true(p_true, proba[:, 1]), "mae_true": mae_true(p_true, proba[:, 1])}


def probe_coverage(proba: Any, interval: Any) -> float:
    """Share of predicted probabilities inside a probe's credible intervals.

    Parameters
    ----------
    proba : array-like of shape (n, K)
        Probabilities of the classifier under study.
    interval : array-like of shape (n, K, 2)
        Lower and upper bounds of the probe's credible interval of each class
        probability (``predict_interval``).

    Returns
    -------
    float
        Fraction of the ``n * K`` probabilities with ``lower <= p <= upper``;
        for a binary problem both columns agree, so this is the share of
        samples whose positive-class probability the probe finds credible.

    Raises
    ------
    ValueError
        If the shapes do not match.

    Examples
    --------
    >>> P = np.array([[0.2, 0.8], [0.6, 0.4]])
    >>> I = np.array([[[0.1, 0.3], [0.7, 0.9]], [[0.1, 0.3], [0.7, 0.9]]])
    >>> probe_coverage(P, I)
    0.5
    """
    P = np.asarray(proba, dtype=float)
    bounds = np.asarray(interval, dtype=float)
    if bounds.shape != (*P.shape, 2):
        raise ValueError(f"`interval` has shape {bounds.shape}; expected {(*P.shape, 2)} "
                         "to match `proba`")
    inside = (P >= bounds[..., 0]) & (P <= bounds[..., 1])
    return float(inside.mean())


def probe_metrics(proba: np.ndarray, probe_proba: np.ndarray,
                  probe_interval: np.ndarray | None) -> dict[str, float]:
    """``probe_rmse`` and ``probe_coverage`` of one cell against the probe."""
    from bayescal.metrics import rmse_true

    out = {"probe_rmse": rmse_true(probe_proba, proba), "probe_coverage": np.nan}
    if probe_interval is not None and np.isfinite(probe_interval).all():
        out["probe_coverage"] = probe_coverage(proba, probe_interval)
    return out

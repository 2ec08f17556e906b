"""The metrics a study records per cell, mapped to :mod:`bayescal.metrics`.

Names, directions, units and clipping come from the metric registry
(:mod:`bayescal.cube.schema`); this module maps the label- and truth-based
names to the functions that compute them.

========== ======================================================= ============
name       computed by                                             needs
========== ======================================================= ============
brier      :func:`bayescal.metrics.brier_score`                    labels
log_loss   :func:`bayescal.metrics.log_loss` with the registry's   labels
           clipping (``1e-15``)
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
probe_*    :func:`bayescal.cube.consolidate.probe_metrics`, at     probe
           consolidation (the probe's cell may come from another
           worker); NaN for the probe's own cells
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


def _label_functions(n_bins: int) -> dict[str, Callable[[np.ndarray, np.ndarray], float]]:
    from bayescal import metrics as m

    def ece(y: np.ndarray, P: np.ndarray) -> float:
        kind = "binary" if P.shape[1] == 2 else "top_label"
        return m.expected_calibration_error(y, P, n_bins=n_bins, kind=kind)

    def smooth_ece(y: np.ndarray, P: np.ndarray) -> float:
        return m.smooth_ece(y, P, kind="binary" if P.shape[1] == 2 else "top_label")

    return {
        "brier": m.brier_score,
        "log_loss": lambda y, P: m.log_loss(y, P, eps=metric_info("log_loss").clip),
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

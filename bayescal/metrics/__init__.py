"""bayescal.metrics: scoring rules, calibration errors, reliability curves.

Every function takes plain arrays, validates them with :mod:`bayescal.validation`
(a ``ValueError`` naming the argument for bad input) and returns NumPy values.
Lower is better for every loss; :func:`accuracy` is a score (higher is better).

Binary problems may pass a 1-D array of positive-class probabilities wherever an
``(n, K)`` probability matrix is accepted.
"""

from bayescal.metrics.binning import BinStatistics, bin_edges, bin_statistics
from bayescal.metrics.calibration_error import (
    expected_calibration_error,
    maximum_calibration_error,
)
from bayescal.metrics.corp import (
    CORPReliability,
    MiscalibrationTest,
    ScoreDecomposition,
    corp_recalibrate,
    corp_reliability,
    miscalibration_test,
    score_decomposition,
)
from bayescal.metrics.intervals import wilson_interval
from bayescal.metrics.multilabel import ece_per_label, ece_total, ece_weighted, hamming_loss
from bayescal.metrics.probe import ProbeDistance, probe_distance
from bayescal.metrics.reliability import ReliabilityCurve, reliability_curve
from bayescal.metrics.scoring import accuracy, brier_score, log_loss
from bayescal.metrics.smooth_ece import SmoothedReliability, smooth_ece, smoothed_reliability
from bayescal.metrics.truth import mae_true, rmse_true
from bayescal.metrics.uncertainty import uncertainty

__all__ = [
    "BinStatistics",
    "CORPReliability",
    "MiscalibrationTest",
    "ProbeDistance",
    "ReliabilityCurve",
    "ScoreDecomposition",
    "SmoothedReliability",
    "accuracy",
    "bin_edges",
    "bin_statistics",
    "brier_score",
    "corp_recalibrate",
    "corp_reliability",
    "ece_per_label",
    "ece_total",
    "ece_weighted",
    "expected_calibration_error",
    "hamming_loss",
    "log_loss",
    "mae_true",
    "maximum_calibration_error",
    "miscalibration_test",
    "probe_distance",
    "reliability_curve",
    "rmse_true",
    "score_decomposition",
    "smooth_ece",
    "smoothed_reliability",
    "uncertainty",
    "wilson_interval",
]

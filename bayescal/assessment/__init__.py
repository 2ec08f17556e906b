"""bayescal.assessment: validate someone else's predicted probabilities.

Everything the calibration hierarchy of Van Calster et al. (2016) asks of a
binary (or multi-class) prediction, with an interval for each number:
observed/expected and calibration-in-the-large, the logistic recalibration
intercept and slope with ``rms::val.prob``'s unreliability test, a LOWESS and a
Bayesian calibration curve with ICI/E50/E90/E_max, Spiegelhalter's,
Hosmer-Lemeshow's, the CORP and Tygert's cumulative tests, and the scores
(Brier with its CORP decomposition, log loss, c-statistic, ECE, smooth ECE).

:func:`assess` is the entry point; the plain NumPy functions below it are
public too. Names are imported on first use (``import bayescal`` stays fast).
"""

from bayescal._lazy import lazy_attributes

_NAMES = {
    "Assessment": "bayescal.assessment.result",
    "assess": "bayescal.assessment.result",
    "CalibrationDisplay": "bayescal.assessment.display",
    "BayesianCurve": "bayescal.assessment.bayesian_curve",
    "bayesian_calibration_curve": "bayescal.assessment.bayesian_curve",
    "CalibrationTest": "bayescal.assessment.calibration_tests",
    "brownian_range_sf": "bayescal.assessment.calibration_tests",
    "brownian_sup_abs_sf": "bayescal.assessment.calibration_tests",
    "cumulative_difference_tests": "bayescal.assessment.calibration_tests",
    "hosmer_lemeshow_test": "bayescal.assessment.calibration_tests",
    "spiegelhalter_test": "bayescal.assessment.calibration_tests",
    "ConcordanceStatistic": "bayescal.assessment.discrimination",
    "concordance": "bayescal.assessment.discrimination",
    "LogisticCalibration": "bayescal.assessment.logistic_calibration",
    "logistic_calibration": "bayescal.assessment.logistic_calibration",
    "LowessCurve": "bayescal.assessment.lowess_curve",
    "curve_errors": "bayescal.assessment.lowess_curve",
    "lowess": "bayescal.assessment.lowess_curve",
    "lowess_calibration_curve": "bayescal.assessment.lowess_curve",
    "bootstrap_intervals": "bayescal.assessment.bootstrap",
    "val_prob": "bayescal.assessment.val_prob",
}

__all__ = sorted(_NAMES)

__getattr__, __dir__ = lazy_attributes(__name__, _NAMES)

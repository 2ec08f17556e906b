"""bayescal.assess: validate someone else's predicted probabilities.

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
    "Assessment": "bayescal.assess.assessment",
    "assess": "bayescal.assess.assessment",
    "CalibrationDisplay": "bayescal.assess.display",
    "BayesianCurve": "bayescal.assess.bayesian_curve",
    "bayesian_calibration_curve": "bayescal.assess.bayesian_curve",
    "CalibrationTest": "bayescal.assess.calibration_tests",
    "brownian_range_sf": "bayescal.assess.calibration_tests",
    "brownian_sup_abs_sf": "bayescal.assess.calibration_tests",
    "cumulative_difference_tests": "bayescal.assess.calibration_tests",
    "hosmer_lemeshow_test": "bayescal.assess.calibration_tests",
    "spiegelhalter_test": "bayescal.assess.calibration_tests",
    "ConcordanceStatistic": "bayescal.assess.discrimination",
    "concordance": "bayescal.assess.discrimination",
    "LogisticCalibration": "bayescal.assess.logistic_calibration",
    "logistic_calibration": "bayescal.assess.logistic_calibration",
    "LowessCurve": "bayescal.assess.lowess_curve",
    "curve_errors": "bayescal.assess.lowess_curve",
    "lowess": "bayescal.assess.lowess_curve",
    "lowess_calibration_curve": "bayescal.assess.lowess_curve",
    "bootstrap_intervals": "bayescal.assess.bootstrap",
    "val_prob": "bayescal.assess.val_prob",
}

__all__ = sorted(_NAMES)

__getattr__, __dir__ = lazy_attributes(__name__, _NAMES)

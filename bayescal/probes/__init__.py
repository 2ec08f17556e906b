"""bayescal.probes."""

from bayescal.probes.binning import ABBCalibrator, BBQCalibrator, SBBCalibrator  # noqa: E402,F401
from bayescal.probes.calibration_maps import (  # noqa: E402,F401
    BayesianBetaCalibrator,
    BayesianPlattCalibrator,
    BayesianSplineCalibrator,
)
from bayescal.probes.gp_classifier import BayesianGPClassifier  # noqa: E402,F401
from bayescal.probes.logistic import BayesianLogisticRegression  # noqa: E402,F401
from bayescal.probes.sampling import PosteriorFit, sample_posterior  # noqa: E402,F401

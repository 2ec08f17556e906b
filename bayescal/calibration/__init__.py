"""bayescal.calibration."""

from bayescal.calibration.beta import BetaCalibrator
from bayescal.calibration.calibrated_classifier import SCENARIOS, CalibratedClassifier
from bayescal.calibration.coupling import (
    couple_hastie1998,
    couple_kernlab_minpair,
    couple_wu2004,
    pairwise_coupling,
)
from bayescal.calibration.dirichlet import DirichletCalibrator
from bayescal.calibration.enir import ENIRCalibrator, near_isotonic_path
from bayescal.calibration.gam import LogisticGAMCalibrator
from bayescal.calibration.generation import (
    generate_calibration_data,
    group_binary_problems,
    group_by_score,
)
from bayescal.calibration.histogram import HistogramBinningCalibrator
from bayescal.calibration.isotonic import IsotonicCalibrator
from bayescal.calibration.platt import PlattCalibrator
from bayescal.calibration.reductions import (
    AllPairsCalibrator,
    BinaryProblem,
    MultiLabelCalibrator,
    OneVsRestCalibrator,
)
from bayescal.calibration.temperature import TemperatureScaling
from bayescal.calibration.undersampling import UndersamplingCorrection
from bayescal.calibration.venn_abers import VennAbersCalibrator, VennAbersClassifier

__all__ = [
    "AllPairsCalibrator",
    "BetaCalibrator",
    "CalibratedClassifier",
    "DirichletCalibrator",
    "SCENARIOS",
    "generate_calibration_data",
    "group_binary_problems",
    "group_by_score",
    "ENIRCalibrator",
    "near_isotonic_path",
    "HistogramBinningCalibrator",
    "IsotonicCalibrator",
    "LogisticGAMCalibrator",
    "PlattCalibrator",
    "TemperatureScaling",
    "UndersamplingCorrection",
    "BinaryProblem",
    "MultiLabelCalibrator",
    "OneVsRestCalibrator",
    "couple_hastie1998",
    "couple_kernlab_minpair",
    "couple_wu2004",
    "pairwise_coupling",
    "VennAbersCalibrator",
    "VennAbersClassifier",
]

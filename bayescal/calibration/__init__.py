"""bayescal.calibration."""

from bayescal.calibration.coupling import couple_hastie1998, couple_wu2004, pairwise_coupling
from bayescal.calibration.reductions import (
    AllPairsCalibrator,
    BinaryProblem,
    MultiLabelCalibrator,
    OneVsRestCalibrator,
)

__all__ = [
    "AllPairsCalibrator",
    "BinaryProblem",
    "MultiLabelCalibrator",
    "OneVsRestCalibrator",
    "couple_hastie1998",
    "couple_wu2004",
    "pairwise_coupling",
]

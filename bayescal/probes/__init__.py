"""bayescal.probes."""

from bayescal.probes.binning import ABBCalibrator, BBQCalibrator, SBBCalibrator  # noqa: E402,F401

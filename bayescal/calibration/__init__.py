"""bayescal.calibration."""

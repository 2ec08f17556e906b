"""bayescal.report."""

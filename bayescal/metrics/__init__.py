"""bayescal.metrics."""

"""bayescal.datasets."""

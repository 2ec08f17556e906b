"""bayescal.missing."""

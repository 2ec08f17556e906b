"""bayescal.study."""

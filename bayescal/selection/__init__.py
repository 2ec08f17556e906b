"""bayescal.selection."""

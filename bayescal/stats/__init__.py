"""bayescal.stats."""

"""bayescal.probes."""

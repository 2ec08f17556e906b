"""numba's CPU target, started ahead of a process's first kernel, behind one adapter.

A process's first numba kernel (bayescal's calibrators load theirs from the
disk cache) initialises numba's CPU target first, about 0.45 CPU-s. A study's
worker process does this in its warm-up (:mod:`bayescal.study.workers`),
while the calling process is still importing and preparing the data, rather
than inside its first task. numba has no public call for it:
:func:`start_cpu_target` refreshes the target context of ``numba.core``, an
internal module. Any failure (moved, renamed, a changed signature) leaves
the initialisation to the first kernel, as without the warm-up: it costs time,
never results.

``numba`` is bounded above in ``pyproject.toml``; ``tests/test_compat.py``
simulates the failure.
"""

from __future__ import annotations

__all__ = ["start_cpu_target"]


def start_cpu_target() -> bool:
    """Initialise numba's CPU target in this process now.

    Call :func:`bayescal._numba_cache.configure_numba_cache` first (before
    numba is imported).

    Returns
    -------
    bool
        True when it was initialised here; False when numba's internals
        differ (the first kernel then initialises it).
    """
    try:
        from numba.core.registry import cpu_target

        cpu_target.target_context.refresh()
        return True
    except Exception:  # any change of numba's internals: the first kernel pays
        return False

"""loky's private memory-leak guard, behind one adapter.

loky (through joblib) replaces a worker whose resident memory has grown by
more than 300 MB since its first task. A study worker that has compiled PyMC
models grows that much by design (warm, not leaking); replaced, it pays
every import and compilation again. loky has no public setting for the
threshold, so :func:`disable_memory_leak_guard` raises the private module
constant ``_MAX_MEMORY_LEAK_SIZE`` in the worker that calls it. Any failure
(loky moved, the constant renamed or gone) leaves loky's default, which costs
time (a worker restarted), never results.

``joblib`` (which vendors loky) is bounded above in ``pyproject.toml``.
"""

from __future__ import annotations

import sys

__all__ = ["disable_memory_leak_guard"]


def disable_memory_leak_guard() -> bool:
    """Switch off loky's worker replacement on memory growth, in this process.

    Returns
    -------
    bool
        True when the guard was switched off; False when loky's private
        setting is not there (the default then applies).
    """
    try:
        from joblib.externals.loky import process_executor

        if not hasattr(process_executor, "_MAX_MEMORY_LEAK_SIZE"):
            return False
        process_executor._MAX_MEMORY_LEAK_SIZE = sys.maxsize
        return True
    except Exception:  # any change of loky's internals: its default applies
        return False

"""Showing each distinct warning once per process while a study computes cells.

Why a study repeated the same warning in every cell
---------------------------------------------------
Python's ``"default"`` warning action shows a warning the first time it comes
from a location and remembers it in the emitting module's
``__warningregistry__``. That registry is stamped with the version of the
warning filters, and *every* change to the filters -- entering or leaving
:class:`warnings.catch_warnings`, any :func:`warnings.simplefilter` -- bumps
the version, which empties every module's registry at its next warning.
scikit-learn's :func:`~sklearn.utils.check_array` runs
``with warnings.catch_warnings(): warnings.simplefilter("error", ComplexWarning)``
on each call, and pandas' ``pandas_dtype`` does the same, so between two fits
of a study's classifier the registry is always emptied and a warning raised
in ``fit`` (``SVC(probability=True)``'s FutureWarning in scikit-learn 1.9) is
shown again for every fit: 178 times in ``benchmarks/thesis_small.toml``.
Even the ``"once"`` action does not help: CPython's C implementation keeps its
key in the same module registry when there is one. Plain scikit-learn shows
the same: ``SVC(probability=True).fit`` three times in a loop prints three
warnings.

What :func:`each_warning_once` does
-----------------------------------
While it is active, a warning that reaches display (the filters did not
ignore it or turn it into an error) is shown only the first time its
``(category, message, file, line)`` is seen in this process; later identical
ones are not printed. Nothing else changes: no filter is added or altered,
a warning with another message (other numbers in it, another location) is a
new warning and shown, a warning that an ``"always"`` filter matches is shown
every time, and recording contexts (``catch_warnings(record=True)``,
``pytest.warns``) entered inside see every warning, since they replace the
display hook this works through (:func:`warnings.showwarning`). Repeats carry
no news: a study's per-cell outcome (failure, convergence) is in its cube.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Iterator
from typing import Any, TextIO

__all__ = ["each_warning_once"]

#: ``(category, message, filename, lineno)`` of the warnings shown under
#: :func:`each_warning_once` in this process.
_SHOWN: set[tuple[type[Warning], str, str, int]] = set()
_LOCK = threading.Lock()
_active = 0


def _shown_always(category: type[Warning], text: str) -> bool:
    """Whether an ``"always"`` filter may match (then every repeat is shown)."""
    for action, message, filter_category, _module, _lineno in warnings.filters:
        if (action in ("always", "all") and issubclass(category, filter_category)
                and (message is None or message.match(text))):
            return True
    return False


class _ShowOnce:
    """A :func:`warnings.showwarning` that drops repeats while a scope is active."""

    def __init__(self, previous: Any) -> None:
        self.previous = previous

    def __call__(self, message: Warning | str, category: type[Warning], filename: str,
                 lineno: int, file: TextIO | None = None, line: str | None = None) -> None:
        text = str(message)
        if _active and not _shown_always(category, text):
            key = (category, text, filename, lineno)
            with _LOCK:
                if key in _SHOWN:
                    return
                _SHOWN.add(key)
        self.previous(message, category, filename, lineno, file, line)


@contextlib.contextmanager
def each_warning_once() -> Iterator[None]:
    """Within the block, show each distinct warning once per process.

    A warning is *distinct* by its category, message text, file and line. The
    first occurrence is shown as usual (through the display hook in place when
    the block was entered); identical ones after it, in this block or a later
    one, are not. Filters act as before: ``"ignore"`` and ``"error"`` are not
    affected, and an ``"always"`` filter matching the warning shows every one.
    Blocks may nest (also across threads); the hook is restored when the
    outermost ends.

    Yields
    ------
    None

    Notes
    -----
    Python's ``"default"`` action already shows a warning once per location
    but forgets it whenever the warning filters change, and scikit-learn
    changes them (a :class:`warnings.catch_warnings` block) in every
    ``check_array`` call; see the module docstring.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("default")
    ...     with each_warning_once():
    ...         for _ in range(3):
    ...             with warnings.catch_warnings():  # what scikit-learn does
    ...                 pass
    ...             warnings.warn("doctest: said once", FutureWarning, stacklevel=1)
    >>> len(caught)
    1
    """
    global _active
    with _LOCK:
        _active += 1
        if not isinstance(warnings.showwarning, _ShowOnce):
            warnings.showwarning = _ShowOnce(warnings.showwarning)
        installed = warnings.showwarning
    try:
        yield
    finally:
        with _LOCK:
            _active -= 1
            if _active == 0 and warnings.showwarning is installed:
                warnings.showwarning = installed.previous

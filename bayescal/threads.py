"""Control of BLAS threads for sampling and parallel work.

PyTensor finds no system BLAS on many machines and falls back to NumPy's
OpenBLAS, whose threads oversubscribe the cores when several chains or workers
run at once (measured: BLR at n=10000, d=50 took 120 s with default threads and
16.5 s with one BLAS thread per chain on 2 cores). Every place in bayescal that
runs chains or workers in parallel wraps its work in :func:`limit_blas_threads`.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["limit_blas_threads"]

#: One threadpoolctl controller, rebuilt when modules were imported since it was built:
#: building one scans every loaded shared library (about 3 ms, as much as a whole
#: scikit-learn logistic regression at n = 10^4), and a new BLAS comes with an import.
_CONTROLLER: list[Any] = [None, -1]
_CONTROLLER_LOCK = threading.Lock()


def _controller() -> Any:
    from threadpoolctl import ThreadpoolController

    with _CONTROLLER_LOCK:
        if _CONTROLLER[0] is None or _CONTROLLER[1] != len(sys.modules):
            _CONTROLLER[1] = len(sys.modules)
            _CONTROLLER[0] = ThreadpoolController()
        return _CONTROLLER[0]


@contextlib.contextmanager
def limit_blas_threads(n_threads: int | None = 1) -> Iterator[None]:
    """Limit BLAS/OpenMP threads within the ``with`` block.

    Parameters
    ----------
    n_threads : int or None, default=1
        Threads allowed per BLAS pool; ``None`` leaves the pools untouched.

    Examples
    --------
    >>> import numpy as np
    >>> with limit_blas_threads(1):
    ...     _ = np.ones((50, 50)) @ np.ones((50, 50))
    """
    if n_threads is None:
        yield
        return
    with _controller().limit(limits=n_threads):
        yield

"""Control of BLAS threads for sampling and parallel work.

PyTensor finds no system BLAS on many machines and falls back to NumPy's
OpenBLAS, whose threads oversubscribe the cores when several chains or workers
run at once (measured: BLR at n=10000, d=50 took 120 s with default threads and
16.5 s with one BLAS thread per chain on 2 cores). Every place in bayescal that
runs chains or workers in parallel wraps its work in :func:`limit_blas_threads`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


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
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=n_threads):
        yield

"""Cleveland's LOWESS without robustness iterations (R's ``lowess(x, y, iter=0)``), in numba.

A line-by-line port of the algorithm of R's ``clowess`` (Cleveland 1979, 1981)
restricted to ``iter=0``: for each anchor ``x_i`` the ``ns = floor(f n)`` nearest
points (in sorted order) get tricube weights, a weighted straight line is fitted
and evaluated at ``x_i``; points within ``delta`` of the last anchor are not
fitted but linearly interpolated, and tied ``x`` share the fit of the first.
Written from the published description of the algorithm, not from R's sources.
"""

from __future__ import annotations

import numpy as np

from bayescal._numba_cache import configure_numba_cache

configure_numba_cache()  # before numba compiles: caches go to the user's cache dir

from numba import njit  # noqa: E402

__all__ = ["lowess_sorted"]


@njit(cache=True)
def _local_fit(x, y, xs, nleft, nright, span):
    """Weighted local-linear fit at ``xs`` from the window ``[nleft, nright]``.

    Returns ``(value, ok)``; ``ok`` is False when every weight is zero.
    """
    n = x.shape[0]
    h = max(xs - x[nleft], x[nright] - xs)
    h9 = 0.999 * h
    h1 = 0.001 * h
    # The window may extend to the right over points tied in distance.
    nrt = nleft
    total = 0.0
    j = nleft
    while j < n:
        r = abs(x[j] - xs)
        if r <= h9:
            if r > h1:
                q = r / h
                q = 1.0 - q * q * q
                total += q * q * q
            else:
                total += 1.0
        elif x[j] > xs:
            break
        j += 1
    nrt = j - 1
    if total <= 0.0:
        return 0.0, False
    w = np.empty(nrt - nleft + 1)
    for k in range(nleft, nrt + 1):
        r = abs(x[k] - xs)
        if r <= h9:
            if r > h1:
                q = r / h
                q = 1.0 - q * q * q
                w[k - nleft] = q * q * q / total
            else:
                w[k - nleft] = 1.0 / total
        else:
            w[k - nleft] = 0.0
    if h > 0.0:
        a = 0.0
        for k in range(nleft, nrt + 1):
            a += w[k - nleft] * x[k]
        b = xs - a
        c = 0.0
        for k in range(nleft, nrt + 1):
            c += w[k - nleft] * (x[k] - a) * (x[k] - a)
        if np.sqrt(c) > 0.001 * span:
            b = b / c
            for k in range(nleft, nrt + 1):
                w[k - nleft] = w[k - nleft] * (b * (x[k] - a) + 1.0)
    value = 0.0
    for k in range(nleft, nrt + 1):
        value += w[k - nleft] * y[k]
    return value, True


@njit(cache=True)
def lowess_sorted(x, y, frac, delta):
    """LOWESS fit (no robustness iterations) at every ``x``; ``x`` sorted increasingly.

    Parameters
    ----------
    x, y : ndarray of shape (n,), float64
        Abscissae (sorted, ties allowed) and responses, ``n >= 2``.
    frac : float
        Smoother span ``f``: ``max(2, min(n, floor(f n + 1e-7)))`` points per fit.
    delta : float
        Points closer than ``delta`` to the last fitted anchor are interpolated.

    Returns
    -------
    ndarray of shape (n,)
        The smoothed value at each ``x``.
    """
    n = x.shape[0]
    ys = np.empty(n)
    ns = max(2, min(n, int(frac * n + 1e-7)))
    span = x[n - 1] - x[0]
    nleft = 0
    nright = ns - 1
    last = -1
    i = 0
    while True:
        if nright < n - 1:
            d1 = x[i] - x[nleft]
            d2 = x[nright + 1] - x[i]
            if d1 > d2:
                nleft += 1
                nright += 1
                continue
        value, ok = _local_fit(x, y, x[i], nleft, nright, span)
        ys[i] = value if ok else y[i]
        if last < i - 1:
            denom = x[i] - x[last]
            for j in range(last + 1, i):
                alpha = (x[j] - x[last]) / denom
                ys[j] = alpha * ys[i] + (1.0 - alpha) * ys[last]
        last = i
        cut = x[last] + delta
        i = last + 1
        while i < n:
            if x[i] > cut:
                break
            if x[i] == x[last]:
                ys[i] = ys[last]
                last = i
            i += 1
        i = max(last + 1, i - 1)
        if last >= n - 1:
            break
    return ys

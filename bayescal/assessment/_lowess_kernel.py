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


@njit(cache=True, fastmath=True)
def _local_fit(x, y, xs, nleft, nright, span):
    """Weighted local-linear fit at ``xs`` from the window ``[nleft, nright]``.

    One pass accumulates the tricube-weighted sums of ``d = x - xs``, ``d^2``,
    ``y`` and ``d y``; the fitted value is the weighted mean plus the weighted
    least-squares slope times ``-mean(d)`` -- algebraically R's update
    ``w_j (1 + b (x_j - a))`` of the normalised weights, evaluated about ``xs``
    for conditioning. Returns ``(value, ok)``; ``ok`` is False when every
    weight is zero.
    """
    n = x.shape[0]
    h = max(xs - x[nleft], x[nright] - xs)
    h9 = 0.999 * h
    h1 = 0.001 * h
    # The window may extend to the right over points tied in distance: it ends
    # before the first point right of ``xs`` farther than ``h9`` (x is sorted).
    nrt = nright
    while nrt + 1 < n and x[nrt + 1] - xs <= h9:
        nrt += 1
    sw = 0.0
    sd = 0.0
    sdd = 0.0
    sy = 0.0
    sdy = 0.0
    for j in range(nleft, nrt + 1):  # branch-free body: the compiler vectorises it
        d = x[j] - xs
        r = abs(d)
        q = min(r / h, 1.0) if h > 0.0 else 0.0
        q = 1.0 - q * q * q
        w = q * q * q
        w = 1.0 if r <= h1 else w
        w = 0.0 if r > h9 else w
        sw += w
        sd += w * d
        sdd += w * d * d
        sy += w * y[j]
        sdy += w * d * y[j]
    if sw <= 0.0:
        return 0.0, False
    mean_y = sy / sw
    if h > 0.0:
        a = sd / sw
        c = sdd / sw - a * a
        if np.sqrt(c) > 0.001 * span:
            return mean_y - a * (sdy / sw - a * mean_y) / c, True
    return mean_y, True


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

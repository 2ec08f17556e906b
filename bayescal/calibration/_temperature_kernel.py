"""One fused pass of the temperature-scaling NLL and its derivatives (numba).

:func:`bayescal.calibration.temperature.temperature_nll` evaluates, at an
inverse temperature ``beta``, the weighted NLL of ``softmax(beta z)`` and its
first two derivatives in ``beta``; in NumPy that is some fifteen passes over
the ``n x K`` logits with as many temporaries. This kernel computes the same
three sums row by row in one pass (the same formulas: a max-shifted softmax,
``E_p[z]`` and the two-pass ``Var_p[z]`` per row; a non-finite logit -- a
probability of 0 -- gets probability 0 and is counted as ``z = 0``).
"""

from __future__ import annotations

import math

import numpy as np

from bayescal._numba_cache import configure_numba_cache

configure_numba_cache()  # before numba compiles: caches go to the user's cache dir

from numba import njit  # noqa: E402

__all__ = ["temperature_nll_fused"]


@njit(cache=True)
def temperature_nll_fused(logits, labels, weights, beta):
    """``(nll, d_nll, d2_nll)`` of :func:`temperature_nll` in one pass."""
    n, k = logits.shape
    p = np.empty(k)
    z = np.empty(k)
    nll = 0.0
    grad = 0.0
    hess = 0.0
    for i in range(n):
        top = -np.inf
        for j in range(k):
            v = logits[i, j]
            if math.isfinite(v):
                z[j] = v
                s = beta * v
                if s > top:
                    top = s
            else:
                z[j] = 0.0
        total = 0.0
        for j in range(k):
            if math.isfinite(logits[i, j]):
                e = math.exp(beta * z[j] - top)
                p[j] = e
                total += e
            else:
                p[j] = 0.0
        mean = 0.0
        for j in range(k):
            p[j] /= total
            mean += p[j] * z[j]
        var = 0.0
        for j in range(k):
            dev = z[j] - mean
            var += p[j] * dev * dev
        z_true = z[labels[i]]
        w = weights[i]
        nll += w * (math.log(total) + top - beta * z_true)
        grad += w * (mean - z_true)
        hess += w * var
    return nll, grad, hess

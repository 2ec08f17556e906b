"""One fused pass of the logistic Newton step (numba kernel for large n).

:func:`bayescal.calibration._logistic.fit_logistic` needs, at every trial point
``beta``, the weighted log-loss and -- once the point is accepted -- its
gradient ``X^T w (p - t)`` and Hessian ``X^T diag(w p (1 - p)) X``. In NumPy
that is a dozen passes over ``n`` values with as many temporaries; this kernel
computes all three in one pass over the rows (numerically the same formulas:
``softplus(eta) = max(eta, 0) + log1p(exp(-|eta|))`` and a sign-stable
logistic function), so fits on 10^5-10^6 scores run at memory speed.
"""

from __future__ import annotations

import math

import numpy as np

from bayescal._numba_cache import configure_numba_cache

configure_numba_cache()  # before numba compiles: caches go to the user's cache dir

from numba import njit  # noqa: E402

__all__ = ["logistic_newton_terms"]


@njit(cache=True)
def logistic_newton_terms(design, coef, targets, weights):
    """Loss, gradient, Hessian and linear predictor at ``coef`` in one pass.

    Parameters
    ----------
    design : ndarray of shape (n, d), C-contiguous
    coef : ndarray of shape (d,)
    targets, weights : ndarray of shape (n,)

    Returns
    -------
    loss : float
    grad : ndarray of shape (d,)
    hessian : ndarray of shape (d, d)
    eta : ndarray of shape (n,)
    """
    n, d = design.shape
    grad = np.zeros(d)
    hessian = np.zeros((d, d))
    eta = np.empty(n)
    loss = 0.0
    for i in range(n):
        e = 0.0
        for j in range(d):
            e += design[i, j] * coef[j]
        eta[i] = e
        w = weights[i]
        t = targets[i]
        if e > 0.0:
            z = math.exp(-e)
            softplus = e + math.log1p(z)
            p = 1.0 / (1.0 + z)
        else:
            z = math.exp(e)
            softplus = math.log1p(z)
            p = z / (1.0 + z)
        loss += w * (softplus - t * e)
        r = w * (p - t)
        c = w * p * (1.0 - p)
        for j in range(d):
            xj = design[i, j]
            grad[j] += r * xj
            cx = c * xj
            for k in range(j + 1):
                hessian[j, k] += cx * design[i, k]
    for j in range(d):
        for k in range(j):
            hessian[k, j] = hessian[j, k]
    return loss, grad, hessian, eta

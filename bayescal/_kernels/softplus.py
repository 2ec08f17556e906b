"""Products of ``1 + exp(z)`` over groups of rows, in single precision (numba).

The exact log density of a logistic model at ``S`` draws
(:meth:`bayescal.inference.laplace_glm.LogisticGLM.log_density_many`) needs
``sum_i log1p(exp(z_is))`` for every draw ``s``, ``z_is = -zeta_is <= 0``
except on rows whose sign flips. With equal weights the sum over a group of
rows is the log of the product of their ``1 + exp(z_is)``; NumPy takes it in
three passes over the ``rows x S`` block (``exp``, ``+ 1``, a strided
multiply-reduce). :func:`exp_plus_one_products` takes it in one, vectorised
over the draws: ``exp`` by Cody-Waite range reduction ``z = k log 2 + f``
(``|f| <= log(2) / 2``), the degree-7 Taylor polynomial of ``exp(f)``
(truncation below ``4e-9`` relative, under single precision's rounding) and
``2^k`` written into the exponent bits; each factor multiplied in as
``acc + acc e`` (a fused multiply-add: no rounding of ``1 + e``).

``z`` below -87 contributes a factor ``1 + e`` with ``e < 2^-125``: it is
taken as -87 (``exp`` stays normal; the factor rounds to 1 either way).
``z`` above 88 overflows single precision: the factor, and so the group's
product, is ``inf``, and the caller evaluates that group again in double
precision.
"""

from __future__ import annotations

import numpy as np

from bayescal._numba_cache import configure_numba_cache

configure_numba_cache()  # before numba compiles: caches go to the user's cache dir

from numba import njit  # noqa: E402

__all__ = ["exp_plus_one_products"]

_F = np.float32
_LOG2E = _F(1.4426950408889634)
_LN2_HI = _F(0.693359375)  # log 2 = _LN2_HI + _LN2_LO, _LN2_HI exact in 9 bits
_LN2_LO = _F(-2.12194440e-4)
_HALF = _F(0.5)
_ONE = _F(1.0)
_C2, _C3, _C4 = _F(1.0 / 2.0), _F(1.0 / 6.0), _F(1.0 / 24.0)
_C5, _C6, _C7 = _F(1.0 / 120.0), _F(1.0 / 720.0), _F(1.0 / 5040.0)
_LOWEST = _F(-87.0)
_HIGHEST = _F(88.0)
_INF = _F(np.inf)


@njit(cache=True, nogil=True, inline="always", fastmath={"contract"})
def _exp32(z):
    """``exp(z)`` in single precision for ``z >= -87`` (``inf`` above 88)."""
    k = np.floor(z * _LOG2E + _HALF)
    f = z - k * _LN2_HI
    f = f - k * _LN2_LO
    p = _C6 + f * _C7
    p = _C5 + f * p
    p = _C4 + f * p
    p = _C3 + f * p
    p = _C2 + f * p
    p = _ONE + f * p
    p = _ONE + f * p
    scale = np.int32((np.int32(k) + np.int32(127)) << np.int32(23)).view(np.float32)
    return p * scale if z <= _HIGHEST else _INF


@njit(cache=True, nogil=True, fastmath={"contract"})
def exp_plus_one_products(b, offset, sign, shift, group_rows, out):
    """``out[g, s] = prod(1 + exp(z[r, s]))`` over the rows ``r`` of group ``g``.

    ``z[r, s] = offset[r] + sign[r] * (b[r, s] + shift[s])``: a block of linear
    predictors ``b`` (a matrix product) moved and signed row by row and
    draw by draw in the same pass.

    Parameters
    ----------
    b : ndarray of shape (rows, S), float32, C-contiguous
    offset, sign : ndarray of shape (rows,), float32
    shift : ndarray of shape (S,), float32
    group_rows : int
        Rows per group (the last group may be shorter); each factor is at
        most 2 where ``z <= 0``, so 120 rows keep a product below 2^120.
    out : ndarray of shape (ceil(rows / group_rows), S), float32
        Written in place.
    """
    n_rows, n_draws = b.shape
    acc = np.empty(n_draws, dtype=np.float32)
    group = 0
    for start in range(0, n_rows, group_rows):
        for s in range(n_draws):
            acc[s] = _ONE
        for r in range(start, min(start + group_rows, n_rows)):
            row_offset, row_sign = offset[r], sign[r]
            for s in range(n_draws):
                z = row_offset + row_sign * (b[r, s] + shift[s])
                e = _exp32(max(z, _LOWEST))
                acc[s] = acc[s] + acc[s] * e
        for s in range(n_draws):
            out[group, s] = acc[s]
        group += 1

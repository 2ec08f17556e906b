"""Confidence intervals for an observed success rate (Wilson score interval)."""

from __future__ import annotations

from statistics import NormalDist
from typing import Any

import numpy as np

from bayescal.validation import check_fraction

__all__ = ["normal_quantile", "wilson_interval"]


def normal_quantile(confidence: float) -> float:
    """Two-sided standard-normal limit ``z`` with ``P[-z <= Z <= z] = confidence``.

    Parameters
    ----------
    confidence : float
        In (0, 1).

    Returns
    -------
    float
        ``Phi^{-1}((1 + confidence) / 2)``; 1.2816 for 0.8, 1.96 for 0.95.
    """
    c = check_fraction(confidence, "confidence")
    return NormalDist().inv_cdf(0.5 + c / 2.0)


def _as_counts(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"`{name}` must hold numbers; got dtype {arr.dtype}.")
    arr = arr.astype(np.float64)
    if arr.size == 0:
        raise ValueError(f"`{name}` is empty.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` contains NaN or inf; got {values!r}.")
    return arr


def wilson_interval(
    successes: Any, n: Any, confidence: float = 0.95
) -> tuple[np.ndarray | float, np.ndarray | float]:
    """Wilson score interval for a success rate ``successes / n``.

    Parameters
    ----------
    successes : float or array-like
        Observed successes (``0 <= successes <= n``; fractional counts from
        weighted data are accepted).
    n : float or array-like
        Number of trials (``> 0``); broadcast against ``successes``.
    confidence : float, default=0.95
        Two-sided confidence level ``c`` in (0, 1).

    Returns
    -------
    lower, upper : float or ndarray
        Interval limits in ``[0, 1]``, floats for scalar input, arrays of the
        broadcast shape otherwise.

    Raises
    ------
    ValueError
        If ``n <= 0``, ``successes`` lies outside ``[0, n]``, any value is not
        finite, or ``confidence`` is outside (0, 1).

    Notes
    -----
    With observed rate :math:`p' = s/n` and :math:`z = \\Phi^{-1}((1+c)/2)`,
    the limits are the two roots of the normal approximation to the rate
    (decision-tree lecture notes [1]_, "Confidence on a prediction"; Wilson [2]_):

    .. math:: \\mu = \\frac{p' + \\frac{z^2}{2n} \\pm z \\sqrt{\\frac{p'}{n}
              - \\frac{p'^2}{n} + \\frac{z^2}{4n^2}}}{1 + \\frac{z^2}{n}}

    Unlike the Wald interval it stays inside [0, 1] and is not degenerate at
    ``p' = 0`` or 1, which matters for the sparse bins of reliability curves.
    Written by hand (closed form; SciPy's ``binomtest(...).proportion_ci`` needs
    integer counts and one call per interval).

    References
    ----------
    .. [1] Sigg, S. (2022). Non-parametric methods. Lecture notes of CS-C3240
       Machine Learning D, Aalto University; "Confidence on a
       prediction": 750/1000 at c=0.8 gives [0.732, 0.767]; 75/100 gives
       [0.691, 0.801].
    .. [2] Wilson, E. B. (1927). Probable inference, the law of succession, and
       statistical inference. JASA 22(158), 209-212.

    Examples
    --------
    >>> lo, hi = wilson_interval(750, 1000, confidence=0.8)
    >>> round(lo, 3), round(hi, 3)
    (0.732, 0.767)
    """
    z = normal_quantile(confidence)
    s = _as_counts(successes, "successes")
    m = _as_counts(n, "n")
    try:
        s, m = np.broadcast_arrays(s, m)
    except ValueError as exc:
        raise ValueError(
            f"`successes` (shape {s.shape}) and `n` (shape {m.shape}) cannot be broadcast."
        ) from exc
    if np.any(m <= 0):
        raise ValueError(f"`n` must be > 0 (an empty group has no rate); got {n!r}.")
    if np.any(s < 0) or np.any(s > m):
        raise ValueError(f"`successes` must lie in [0, n]; got successes={successes!r}, n={n!r}.")
    p = s / m
    z2 = z * z
    denom = 1.0 + z2 / m
    centre = (p + z2 / (2.0 * m)) / denom
    half = z * np.sqrt(np.maximum(p * (1.0 - p) / m + z2 / (4.0 * m * m), 0.0)) / denom
    # the limits are exactly 0 at p' = 0 and exactly 1 at p' = 1 (avoid rounding)
    lower = np.where(s == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    upper = np.where(s == m, 1.0, np.clip(centre + half, 0.0, 1.0))
    if lower.ndim == 0:
        return float(lower), float(upper)
    return lower, upper

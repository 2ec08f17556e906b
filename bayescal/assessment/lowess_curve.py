"""Moderate calibration from a LOWESS calibration curve: ICI, E50, E90, E_max.

The smoothed outcome-on-prediction curve ``g`` of ``rms::val.prob`` (R's
``lowess(p, y, iter=0)``: span 2/3, no robustness iterations, ``delta`` 1 % of
the range of ``p``) estimates ``P(y = 1 | p)``; the absolute differences
``|p_i - g(p_i)|`` at the observed predictions summarise how far the model is
from moderate calibration (Austin & Steyerberg 2019): their mean is the
integrated calibration index ICI (``rms``' ``Eavg``), their median E50, their
90th percentile E90 and their maximum E_max.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bayescal.assessment._inputs import check_outcomes
from bayescal.validation import check_fraction

__all__ = [
    "CURVE_ERRORS",
    "LowessCurve",
    "curve_errors",
    "lowess",
    "lowess_calibration_curve",
]

#: Names of the summaries of ``|p - g(p)|``, in order.
CURVE_ERRORS = ("ici", "e50", "e90", "emax")


@dataclass(frozen=True)
class LowessCurve:
    """A LOWESS calibration curve at the sorted predictions.

    Attributes
    ----------
    p : ndarray of shape (n,)
        Predictions, sorted increasingly.
    smoothed : ndarray of shape (n,)
        LOWESS estimate of ``P(y = 1 | p)`` at each.
    """

    p: np.ndarray
    smoothed: np.ndarray


def lowess(x: Any, y: Any, *, frac: float = 2.0 / 3.0, delta: float | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    """R's ``lowess(x, y, f=frac, iter=0, delta=delta)``: sorted ``x`` and the fit there.

    Parameters
    ----------
    x, y : array-like of shape (n,)
        Abscissae and responses (finite), ``n >= 2``.
    frac : float, default=2/3
        Smoother span in (0, 1].
    delta : float, optional
        Interpolation distance; ``0.01 * (max x - min x)`` when omitted (R's default).

    Returns
    -------
    x_sorted, fitted : ndarray of shape (n,)

    Notes
    -----
    Cleveland's locally weighted straight-line fit with tricube weights on the
    ``floor(frac n)`` nearest points (Cleveland 1979), without the robustness
    iterations. Agrees with R's ``stats::lowess(iter=0)`` to rounding.

    References
    ----------
    .. [1] Cleveland, W. S. (1979). Robust locally weighted regression and smoothing
       scatterplots. Journal of the American Statistical Association 74, 829-836.

    Examples
    --------
    >>> xs, fit = lowess([1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0], frac=1.0)
    >>> [float(round(v, 10)) for v in fit]
    [2.0, 4.0, 6.0, 8.0]
    """
    from bayescal.assessment._lowess_kernel import lowess_sorted

    xa = np.asarray(x, dtype=np.float64)
    ya = np.asarray(y, dtype=np.float64)
    if xa.ndim != 1 or ya.shape != xa.shape or xa.shape[0] < 2:
        raise ValueError(
            f"`x` and `y` must be 1-D of the same length >= 2; got shapes {xa.shape}, {ya.shape}."
        )
    if not (np.all(np.isfinite(xa)) and np.all(np.isfinite(ya))):
        raise ValueError("`x` and `y` must be finite (no NaN or inf).")
    frac = check_fraction(frac, "frac", inclusive_high=True)
    order = np.argsort(xa, kind="stable")
    xs, ys = xa[order], ya[order]
    if delta is None:
        delta = 0.01 * float(xs[-1] - xs[0])
    return xs, lowess_sorted(xs, ys, float(frac), float(delta))


def lowess_calibration_curve(y: Any, p: Any) -> LowessCurve:
    """The calibration curve of ``rms::val.prob``: ``lowess(p, y, iter=0)``.

    Parameters
    ----------
    y : array-like of shape (n,)
        Outcomes coded 0/1.
    p : array-like of shape (n,) or (n, 2)
        Predicted probabilities of outcome 1.

    Returns
    -------
    LowessCurve
    """
    labels, proba = check_outcomes(y, p)
    xs, fitted = lowess(proba, labels)
    return LowessCurve(p=xs, smoothed=fitted)


def curve_errors(p: np.ndarray, curve_at_p: np.ndarray, axis: int = -1) -> dict[str, np.ndarray]:
    """ICI, E50, E90 and E_max of ``|p - g(p)|`` along ``axis``.

    Parameters
    ----------
    p : ndarray
        Predictions.
    curve_at_p : ndarray
        The calibration curve evaluated at ``p`` (broadcast against ``p``; a
        leading axis of posterior draws is allowed).
    axis : int, default=-1
        The axis of the rows.

    Returns
    -------
    dict of str to ndarray
        ``ici`` (mean), ``e50`` (median), ``e90`` (90th percentile, linear
        interpolation as R's ``quantile`` type 7) and ``emax`` (maximum).
    """
    err = np.abs(np.asarray(p) - np.asarray(curve_at_p))
    q50, q90 = np.quantile(err, [0.5, 0.9], axis=axis)
    return {"ici": err.mean(axis=axis), "e50": q50, "e90": q90, "emax": err.max(axis=axis)}

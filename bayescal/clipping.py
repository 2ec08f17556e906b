"""Probabilities kept off exact 0 and 1: the clip rule in, the output floor out.

A calibrator that takes logs of probabilities clips its scores by one rule
(:data:`DEFAULT_CLIP`, :func:`clip_constraint`, :func:`clip_probabilities`);
a map that ends in a sigmoid or a softmax keeps its output within
:data:`OUTPUT_FLOOR` of 0 and 1 (:func:`bounded_expit`, :func:`bounded_softmax`).
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np

from bayescal.validation.arrays import describe_bad_values

__all__ = [
    "DEFAULT_CLIP",
    "OUTPUT_FLOOR",
    "bounded_expit",
    "bounded_softmax",
    "clip_constraint",
    "clip_probabilities",
]


#: The one clip rule: a calibrator that takes logs of probabilities clips them to
#: ``[clip, 1 - clip]`` with this default ``clip`` (the ``eps`` scikit-learn's
#: temperature scaling adds before its log), counts the clipped scores in
#: ``n_clipped_``, and with ``clip=None`` raises on a score of exactly 0 or 1.
DEFAULT_CLIP = 1e-12


def clip_constraint() -> list[Any]:
    """The ``_parameter_constraints`` entry of ``clip``: None or a float in (0, 0.5)."""
    from bayescal._compat.param_validation import Interval

    return [Interval(Real, 0.0, 0.5, closed="neither"), None]


def clip_probabilities(
    values: np.ndarray,
    clip: float | None,
    *,
    name: str = "scores",
    owner: str = "this calibrator",
    upper: bool = True,
) -> tuple[np.ndarray, int]:
    """Apply bayescal's one clip rule before a log or logit of probabilities.

    Parameters
    ----------
    values : ndarray
        Validated probabilities in [0, 1].
    clip : float or None
        A float ``eps`` in (0, 0.5): values are clipped to ``[eps, 1 - eps]``
        (to ``[eps, 1]`` when ``upper`` is False, for ``log p`` alone).
        ``None``: strict, a value that would be clipped raises.
    name : str, default="scores"
        Argument name for the message.
    owner : str
        Calibrator name for the message.
    upper : bool, default=True
        Whether values near 1 are clipped too (a logit or ``log(1 - s)``).

    Returns
    -------
    clipped : ndarray
    n_clipped : int
        How many entries were moved.

    Raises
    ------
    ValueError
        If ``clip`` is None and a value is exactly 0 (or 1, with ``upper``).
    """
    if clip is None:
        bad = values <= 0.0
        if upper:
            bad |= values >= 1.0
        if bad.any():
            what = "exactly 0 or 1" if upper else "exactly 0"
            raise ValueError(
                f"`{name}` must lie strictly inside (0, 1) for {owner}, which takes logs, "
                f"because `clip`=None is strict; {describe_bad_values(values, bad)} are "
                f"{what}. Pass clip={DEFAULT_CLIP:g} (the default) or another eps in (0, 0.5) "
                "to clip scores to [eps, 1 - eps]; the count is recorded in n_clipped_."
            )
        return values, 0
    high = 1.0 - clip if upper else 1.0
    moved = (values < clip) | (values > high)
    return np.clip(values, clip, high), int(np.count_nonzero(moved))



#: The output floor of every map that ends in a sigmoid (Platt, beta, the
#: logistic GAM, the Bayesian maps, BLR): its probabilities lie in
#: ``[OUTPUT_FLOOR, 1 - OUTPUT_FLOOR]``, so a steep map on a clipped score never
#: returns an exact 0 or 1 (infinite log loss) by float64 rounding. 1e-15 is
#: the smallest floor whose complement ``1 - 1e-15`` float64 still tells from 1
#: with room to spare (its spacing below 1 is 1.1e-16).
OUTPUT_FLOOR = 1e-15
_LOGIT_BOUND = float(np.log1p(-OUTPUT_FLOOR) - np.log(OUTPUT_FLOOR))


def bounded_expit(eta: Any) -> np.ndarray:
    """The logistic function with bayescal's output floor, ``expit`` kept off 0 and 1.

    Parameters
    ----------
    eta : array-like
        Log-odds (any real numbers, e.g. a fitted map's linear predictor).

    Returns
    -------
    ndarray
        ``expit(eta)`` within ``[OUTPUT_FLOOR, 1 - OUTPUT_FLOOR]``: log-odds
        beyond ``±logit(1 - OUTPUT_FLOOR)`` (about ±34.5) give the floor.
        This is a property of the map's output, not a change of its input:
        the map itself (its coefficients, ``n_clipped_``) is untouched.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import expit
    >>> p = bounded_expit(np.array([-800.0, 0.0, 40.0]))
    >>> float(p[0]) == OUTPUT_FLOOR, float(p[1]), bool(p[2] < 1.0), bool(expit(40.0) == 1.0)
    (True, 0.5, True, True)
    """
    from scipy.special import expit

    p = expit(np.clip(eta, -_LOGIT_BOUND, _LOGIT_BOUND))
    return np.clip(p, OUTPUT_FLOOR, 1.0 - OUTPUT_FLOOR)


def bounded_softmax(eta: Any, axis: int = -1) -> np.ndarray:
    """The softmax with bayescal's output floor: no class probability is exactly 0 or 1.

    Parameters
    ----------
    eta : array-like
        Logits (any real numbers); ``axis`` indexes the ``K >= 2`` classes.
    axis : int, default=-1
        The class axis.

    Returns
    -------
    ndarray
        ``OUTPUT_FLOOR + (1 - K OUTPUT_FLOOR) softmax(eta)``: the softmax,
        computed in log space (``exp(log_softmax(eta))``, no overflow for any
        logits), mixed with the uniform distribution at weight
        ``K OUTPUT_FLOOR``. Every entry lies in
        ``[OUTPUT_FLOOR, 1 - (K - 1) OUTPUT_FLOOR]`` and rows still sum to 1.
        Where ``softmax`` itself is above the floor it moves by at most
        ``K OUTPUT_FLOOR``; the plain softmax rounds to exactly 0 once two
        logits differ by more than about 745 and to exactly 1 once the others
        are below ``1.1e-16`` of the largest (a difference of about 37).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import softmax
    >>> eta = np.array([[0.0, 40.0, -800.0]])
    >>> p = bounded_softmax(eta)
    >>> bool(softmax(eta).max() == 1.0), bool(p.max() < 1.0), bool(p.min() >= OUTPUT_FLOOR)
    (True, True, True)
    """
    from scipy.special import log_softmax

    eta = np.asarray(eta, dtype=float)
    n_classes = eta.shape[axis]
    return OUTPUT_FLOOR + (1.0 - n_classes * OUTPUT_FLOOR) * np.exp(log_softmax(eta, axis=axis))

"""Whether a fitted map depends on the clip convention rather than on the data.

A calibrator that takes logs of probabilities must give a score of exactly 0 or
1 a finite log, and does so by bayescal's one clip rule
(:mod:`bayescal.clipping`): scores are clipped to ``[clip, 1 - clip]``. The
value of ``clip`` is a convention (bayescal ``1e-12``, the ``betacal`` package
machine epsilon, ``2.2e-16``). When few scores are clipped it does not matter;
when many are -- naive Bayes on many features returns exact 0 and 1 for most
rows -- the clipped scores' log features are set by the convention, not by the
data, and so is the fitted map. This module measures that on the calibration
set itself: the map is refitted at :func:`alternative_clip` and the two fits'
probabilities on the calibration scores are compared. Nothing here looks at
test data or at another implementation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bayescal.clipping import DEFAULT_CLIP

__all__ = [
    "CLIP_SENSITIVITY_MAX",
    "ClipSensitivity",
    "ClipSensitivityWarning",
    "alternative_clip",
    "clip_sensitivity",
]

#: Largest mean absolute change of the calibrated probabilities on the calibration
#: scores, between the fit at ``clip`` and at :func:`alternative_clip`, that counts as
#: immaterial: 0.01, the scale at which calibrators' Brier scores are told apart (the
#: tolerance of the issue-27 peer sweep). On that sweep (11 two-class data sets, naive
#: Bayes, random forest and logistic regression scores, 500 rows, 3 folds; 99 beta
#: fits) the fits whose test Brier score moved by more than 0.01 between the two clips
#: changed by 0.015-0.029 on their calibration scores, the others by up to 0.033: the
#: check fired on 12 fits (5 of 33 data set x classifier cells), 3 of them in the
#: one cell where the default clip was more than 0.01 worse than ``betacal``'s.
CLIP_SENSITIVITY_MAX = 0.01

_MACHINE_EPS = float(np.finfo(float).eps)


class ClipSensitivityWarning(UserWarning):
    """A fitted map depends materially on the clip convention (see :func:`clip_sensitivity`)."""


def alternative_clip(clip: float) -> float:
    """The other clip convention a fit is compared with.

    Machine epsilon (``2.2e-16``, the clip of the authors' ``betacal``
    package and the smallest ``eps`` for which ``1 - eps`` is still below 1
    in float64), or bayescal's default ``1e-12`` when ``clip`` is already
    within a factor 10 of machine epsilon.
    """
    return DEFAULT_CLIP if clip < 10.0 * _MACHINE_EPS else _MACHINE_EPS


@dataclass(frozen=True)
class ClipSensitivity:
    """How much a fit moves when only the clip convention changes.

    Attributes
    ----------
    clip, alternative : float
        The fit's clip and the one it was compared with.
    n_saturated : int
        Calibration scores within ``max(clip, alternative)`` of 0 or 1.
    n_exact : int
        Of them, scores exactly 0 or 1.
    n : int
        Calibration scores.
    mean_change, max_change : float
        Weighted mean and largest absolute difference of the two fits'
        class-1 probabilities on the calibration scores.
    """

    clip: float
    alternative: float
    n_saturated: int
    n_exact: int
    n: int
    mean_change: float
    max_change: float

    @property
    def material(self) -> bool:
        """Whether ``mean_change`` exceeds :data:`CLIP_SENSITIVITY_MAX`."""
        return self.mean_change > CLIP_SENSITIVITY_MAX

    def describe(self, owner: str) -> str:
        """The cause, in words, for a warning or a diagnostics failure."""
        return (
            f"{self.n_saturated} of {self.n} calibration scores "
            f"({100.0 * self.n_saturated / self.n:.0f}%) lie within "
            f"{max(self.clip, self.alternative):.1e} of 0 or 1 ({self.n_exact} are exactly 0 "
            f"or 1), so {owner}'s log features on them are set by the clip convention, not by "
            f"the data: refitting with clip={self.alternative:.2g} instead of "
            f"clip={self.clip:.2g} moves the calibrated probabilities of the calibration "
            f"scores by {self.mean_change:.3f} on average (largest {self.max_change:.3f}; "
            f"more than {CLIP_SENSITIVITY_MAX} is material)"
        )

    remedy = (
        "For scores this saturated use a calibrator that takes no logs of them "
        "(IsotonicCalibrator, PlattCalibrator(input='score')) or give the classifier's "
        "decision values or log-probabilities to PlattCalibrator(input='decision'); "
        "if you keep this map, set `clip` deliberately and check it at both values "
        "(clip_sensitivity_ holds the measurement)."
    )


def clip_sensitivity(
    fit_predict: Callable[[float], np.ndarray],
    scores: np.ndarray,
    weights: np.ndarray,
    clip: float | None,
    fitted: np.ndarray | None = None,
) -> ClipSensitivity | None:
    """Refit a map at :func:`alternative_clip` and measure how far its probabilities move.

    Parameters
    ----------
    fit_predict : callable
        ``fit_predict(clip)`` fits the map to the calibration set with that
        clip and returns its class-1 probabilities on the calibration scores.
    scores : ndarray of shape (n,)
        Validated calibration scores in [0, 1].
    weights : ndarray of shape (n,)
        Sample weights (the mean change is weighted by them).
    clip : float or None
        The fit's clip. ``None`` (strict: no score was clipped) returns None.
    fitted : ndarray of shape (n,), optional
        The class-1 probabilities on the calibration scores of the fit at ``clip``
        when the caller has them (its own fit), so that only the alternative is
        fitted; default ``fit_predict(clip)``.

    Returns
    -------
    ClipSensitivity or None
        None when ``clip`` is None or no calibration score lies within either
        clip of 0 or 1 (then the two fits are identical).
    """
    if clip is None:
        return None
    alternative = alternative_clip(float(clip))
    bound = max(float(clip), alternative)
    saturated = (scores < bound) | (scores > 1.0 - bound)
    n_saturated = int(np.count_nonzero(saturated))
    if n_saturated == 0:
        return None
    if fitted is None:
        fitted = fit_predict(float(clip))
    change = np.abs(fitted - fit_predict(alternative))
    return ClipSensitivity(
        clip=float(clip),
        alternative=alternative,
        n_saturated=n_saturated,
        n_exact=int(np.count_nonzero((scores == 0.0) | (scores == 1.0))),
        n=int(scores.shape[0]),
        mean_change=float(np.average(change, weights=weights)),
        max_change=float(change.max()),
    )

"""The analytical correction of probabilities learned after undersampling."""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np

from bayescal._compat.param_validation import Interval, validate_params
from bayescal.calibration.base import BinaryCalibrator
from bayescal.validation import check_consistent_length, check_targets

__all__ = ["UndersamplingCorrection", "undersampling_correction"]


def undersampling_correction(scores: np.ndarray, pi0: float) -> np.ndarray:
    """Map ``kappa(gamma) = gamma pi0 / (1 - gamma + gamma pi0)`` (Phelps et al. 2024, Eq. 1).

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Probabilities ``gamma`` estimated on the undersampled data, in [0, 1].
    pi0 : float
        Probability with which a negative was kept, in (0, 1].

    Returns
    -------
    ndarray of shape (n,)
        Probabilities on the original (not undersampled) distribution.

    Examples
    --------
    >>> float(undersampling_correction(np.array(0.5), 0.1))
    0.09090909090909091
    """
    scores = np.asarray(scores, dtype=float)
    return scores * pi0 / (1.0 - scores + scores * pi0)


class UndersamplingCorrection(BinaryCalibrator):
    """Analytical calibration after undersampling (Dal Pozzolo et al. 2015).

    Parameters
    ----------
    pi0 : float
        Sampling rate of the negative (majority) class: each negative was kept
        with probability ``pi0`` in (0, 1], every positive was kept.
        ``pi0 = 1`` is the identity map. Required: there is no sensible default.

    Attributes
    ----------
    pi0_ : float
        The validated sampling rate.
    classes_ : ndarray of shape (2,)
        ``[0, 1]``.

    Raises
    ------
    ValueError
        ``pi0`` outside (0, 1]; bad scores; ``y`` of another length.

    Notes
    -----
    By Bayes' rule, a probability ``gamma = P(Y=1 | x, S=1)`` learned on data
    where negatives were kept with probability ``pi0`` corresponds to

    .. math:: p = \\kappa(\\gamma) = \\frac{\\gamma \\pi_0}{1 - \\gamma + \\gamma \\pi_0}

    on the original distribution (Phelps et al. 2024, Eq. 1; equivalently
    ``logit p = logit gamma + log pi0``, its Eq. 4). The map has no free
    parameter, so ``fit`` only validates its input: ``y`` and
    ``sample_weight`` are **ignored** (and ``y`` may be omitted); they are
    accepted so that the correction can stand wherever a fitted calibrator
    does. It is exact only for a perfect base model (Phelps et al. 2024, Table 1).

    References
    ----------
    Dal Pozzolo, A., Caelen, O., Johnson, R. A. & Bontempi, G. (2015).
    Calibrating probability with undersampling for unbalanced classification.
    *IEEE SSCI*, 159-166.

    Examples
    --------
    >>> cal = UndersamplingCorrection(pi0=0.1).fit([0.5])
    >>> cal.predict_proba([0.5])[:, 1].round(4).tolist()
    [0.0909]
    """

    _parameter_constraints: dict = {"pi0": [Interval(Real, 0, 1, closed="right")]}

    def __init__(self, *, pi0: float) -> None:
        self.pi0 = pi0

    def fit(
        self, scores: Any, y: Any = None, sample_weight: Any = None
    ) -> UndersamplingCorrection:
        """Validate the scores and ``pi0``; ``y`` and ``sample_weight`` are ignored.

        Parameters
        ----------
        scores : array-like of shape (n,) or (n, 2)
            Scores of the undersampled base model.
        y : array-like of shape (n,), optional
            Ignored (checked for length and range when given).
        sample_weight : array-like of shape (n,), optional
            Ignored.

        Returns
        -------
        self
        """
        validate_params(self)
        s = self._validate_scores(scores)
        self.pi0_ = float(self.pi0)
        if y is not None:
            check_consistent_length(scores=s, y=check_targets(y, "y"))
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = 1
        return self

    def _predict_positive(self, scores: np.ndarray) -> np.ndarray:
        return undersampling_correction(scores, self.pi0_)

    def __sklearn_tags__(self):  # noqa: D105
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False  # the map is fixed by pi0; y is only checked
        return tags

"""The base class every binary calibrator builds on.

A binary calibrator learns a calibration map score -> probability from
``fit(scores, y, sample_weight=None)`` and applies it in
``predict_proba(scores)``, which returns ``(n, 2)`` rows summing to one.
Scores are a 1-D array in [0, 1] (or logits where the calibrator says so) or an
``(n, 2)`` probability array whose second column is used. Targets are 0/1
labels or fractions in [0, 1] (grouped calibration data from DGG and Platt's
smoothed targets are fractional).

Subclasses implement ``_fit(scores, targets, weights)`` and
``_predict_positive(scores) -> ndarray`` on validated 1-D arrays; all input
checking happens here, once (DESIGN.md, "Bad input").
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from bayescal.validation import (
    check_binary_scores,
    check_consistent_length,
    check_min_samples,
    check_n_classes_present,
    check_sample_weight,
    check_targets,
)

__all__ = ["BinaryCalibrator"]


class BinaryCalibrator(ClassifierMixin, BaseEstimator):
    """Base class of binary calibration maps (not used directly).

    Subclasses set ``_score_input`` to ``"score"`` (values in [0, 1]) or read
    it from an ``input`` parameter, and implement ``_fit`` and
    ``_predict_positive``.
    """

    #: Smallest number of calibration samples accepted by ``fit``.
    _min_samples: int = 2

    def _input_kind(self) -> str:
        return getattr(self, "input", "score")

    def _validate_scores(self, scores: Any) -> np.ndarray:
        return check_binary_scores(scores, "scores", input=self._input_kind())

    def fit(self, scores: Any, y: Any, sample_weight: Any = None) -> BinaryCalibrator:
        """Fit the calibration map.

        Parameters
        ----------
        scores : array-like of shape (n,) or (n, 2)
            Uncalibrated scores of the positive class (or a two-column
            probability array).
        y : array-like of shape (n,)
            0/1 labels or fractional targets in [0, 1].
        sample_weight : array-like of shape (n,), optional
            Non-negative weights.

        Returns
        -------
        self
        """
        s = self._validate_scores(scores)
        t = check_targets(y, "y")
        check_consistent_length(scores=s, y=t)
        w = check_sample_weight(sample_weight, s.shape[0])
        check_min_samples(s.shape[0], self._min_samples, "scores", type(self).__name__)
        if t.min() == t.max():  # O(n); the full check sorts, so run it only to raise
            check_n_classes_present(t, "y")
        self._fit(s, t, w)
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = 1
        return self

    def _fit(self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> None:
        raise TypeError(f"{type(self).__name__} does not implement _fit")

    def _predict_positive(self, scores: np.ndarray) -> np.ndarray:
        raise TypeError(f"{type(self).__name__} does not implement _predict_positive")

    def predict_proba(self, scores: Any) -> np.ndarray:
        """Calibrated probabilities, shape ``(n, 2)``; column 1 is the positive class."""
        check_is_fitted(self, "classes_")
        s = self._validate_scores(scores)
        p = np.asarray(self._predict_positive(s), dtype=float)
        return np.column_stack([1.0 - p, p])

    def predict(self, scores: Any) -> np.ndarray:
        """Class 1 where the calibrated probability exceeds 0.5, else 0."""
        return (self.predict_proba(scores)[:, 1] > 0.5).astype(np.int64)

    def calibration_map(self, grid: Any) -> np.ndarray:
        """The fitted map evaluated on ``grid`` (positive-class probability)."""
        return self.predict_proba(grid)[:, 1]

    def __sklearn_tags__(self):  # noqa: D105
        tags = super().__sklearn_tags__()
        tags.input_tags.one_d_array = True
        tags.input_tags.two_d_array = False
        return tags

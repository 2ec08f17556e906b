"""The base class every binary calibrator builds on.

A binary calibrator learns a calibration map score -> probability from
``fit(scores, y, sample_weight=None)`` and applies it in
``predict_proba(scores)``, which returns ``(n, 2)`` rows summing to one.
Scores are a 1-D array or an ``(n, 2)`` probability array whose second column
is used. What they are is said by the calibrator's ``input`` parameter, one
vocabulary across bayescal (:data:`bayescal.contracts.SCORE_INPUTS`):
``"score"`` (probabilities in [0, 1]), ``"logit"`` (probabilities read on the
log-odds scale) and ``"decision"`` (any real number, e.g. an SVM's
``decision_function``); each calibrator declares the inputs its method allows
once, in the ``"input"`` entry of its ``_parameter_constraints``
(:func:`bayescal.contracts.input_constraint`). Calibrators that take logs of probabilities share one
``clip`` rule (:func:`bayescal.clipping.clip_probabilities`). Targets are 0/1
labels or fractions in [0, 1] (grouped calibration data from DGG and Platt's
smoothed targets are fractional).

Subclasses implement ``_fit(scores, targets, weights)`` and
``_predict_positive(scores) -> ndarray`` on validated 1-D arrays; all input
checking happens here, once (DESIGN.md, "Bad input").

:class:`MultiClassCalibrator` is the same contract for maps of ``(n, K)``
class scores (temperature scaling, the Dirichlet maps): ``fit(scores, y,
sample_weight=None)`` with integer labels ``0 .. K-1``; subclasses turn the
scores into the matrix their map reads (``_transform_scores``, which owns the
``input`` vocabulary and the clip rule) and fill in ``_fit`` and
``_predict_transformed``.
"""

from __future__ import annotations

import re
from abc import ABCMeta, abstractmethod
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from bayescal._compat.param_validation import validate_params
from bayescal.contracts import SCORE_INPUTS, accepted_inputs
from bayescal.validation import (
    check_binary_scores,
    check_consistent_length,
    check_labels,
    check_min_samples,
    check_n_classes_present,
    check_sample_weight,
    check_targets,
)

__all__ = ["BinaryCalibrator", "MultiClassCalibrator"]


class BinaryCalibrator(ClassifierMixin, BaseEstimator, metaclass=ABCMeta):
    """Base class of binary calibration maps (not used directly).

    Subclasses declare their hyper-parameters in ``_parameter_constraints``
    (checked by scikit-learn's ``_validate_params`` at the start of ``fit``),
    among them the ``input`` values their method allows, declared once with
    :func:`~bayescal.contracts.input_constraint` (read back by
    :func:`~bayescal.contracts.accepted_inputs`; without an ``input``
    parameter a calibrator reads probabilities, ``"score"``), and
    implement ``_fit`` and ``_predict_positive``.
    """

    #: Smallest number of calibration samples accepted by ``fit``.
    _min_samples: int = 2

    #: What to do with decision values when ``"decision"`` is not allowed.
    _decision_remedy: str = (
        "This calibrator needs probabilities; map decision values to [0, 1] first "
        "or use a calibrator that accepts input='decision' (e.g. PlattCalibrator)."
    )

    _parameter_constraints: dict = {}

    #: Whether validated scores are a copy of the input. A calibrator that never
    #: writes to its scores (nor keeps them) sets False: a float64 input is
    #: then checked without being copied (one pass less over large inputs).
    _copy_scores: bool = True

    def _input_kind(self) -> str:
        return getattr(self, "input", "score")

    def _validate_scores(self, scores: Any) -> np.ndarray:
        kind = self._input_kind()
        if kind not in SCORE_INPUTS:  # a bad ``input`` set after fit
            validate_params(self)
        try:
            return check_binary_scores(scores, "scores", input=kind, copy=self._copy_scores)
        except ValueError as exc:
            if kind == "decision" or not re.search(r"must be [<>]= [01]", str(exc)):
                raise
            remedy = (
                "for decision values, margins or logits (e.g. SVC.decision_function) pass "
                "input='decision'."
                if "decision" in accepted_inputs(self)
                else self._decision_remedy
            )
            raise ValueError(
                f"{exc} {type(self).__name__} reads probabilities in [0, 1] "
                f"(input={kind!r}); {remedy}"
            ) from None

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
        validate_params(self)
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

    @abstractmethod
    def _predict_positive(self, scores: np.ndarray) -> np.ndarray:
        """Calibrated positive-class probabilities of validated 1-D scores."""

    def predict_proba(self, scores: Any) -> np.ndarray:
        """Calibrated probabilities, shape ``(n, 2)``; column 1 is the positive class."""
        check_is_fitted(self, "classes_")
        return self._proba_of_valid_scores(self._validate_scores(scores))

    def _proba_of_valid_scores(self, scores: np.ndarray) -> np.ndarray:
        """``[1 - p, p]`` rows for validated scores.

        Calibrators with a kernel that writes both columns in one pass (no
        temporary ``p``, no stacking) override this; the result must equal
        the default's.
        """
        p = np.asarray(self._predict_positive(scores), dtype=float)
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


class MultiClassCalibrator(ClassifierMixin, BaseEstimator, metaclass=ABCMeta):
    """Base class of multi-class calibration maps (not used directly).

    ``fit(scores, y, sample_weight=None)`` checks the parameters, the scores
    (through the subclass's :meth:`_transform_scores`), the labels ``0 .. K-1``
    (every class present), the lengths and the weights once, sets
    ``classes_``, ``n_features_in_`` (``K``) and ``n_clipped_``, and hands the
    validated arrays to :meth:`_fit`. ``predict_proba`` checks new scores the
    same way against the fitted ``K`` and calls :meth:`_predict_transformed`.
    A warning raised inside ``_fit`` points at the user's line with
    ``stacklevel=3`` (``_fit`` -> ``fit`` -> caller).
    """

    _parameter_constraints: dict = {}

    @abstractmethod
    def _transform_scores(
        self, scores: Any, n_classes: int | None
    ) -> tuple[np.ndarray, int]:
        """``(Z, n_clipped)``: the ``(n, K)`` matrix the map reads and the clip count.

        ``n_classes`` is the fitted ``K`` (None in ``fit``); a matrix of another
        width raises a ``ValueError`` naming ``scores``.
        """

    @abstractmethod
    def _fit(self, Z: np.ndarray, labels: np.ndarray, weights: np.ndarray) -> None:
        """Fit the map to validated scores, integer labels and weights."""

    @abstractmethod
    def _predict_transformed(self, Z: np.ndarray) -> np.ndarray:
        """Calibrated ``(n, K)`` probabilities of validated, transformed scores."""

    def fit(self, scores: Any, y: Any, sample_weight: Any = None) -> MultiClassCalibrator:
        """Fit the calibration map.

        Parameters
        ----------
        scores : array-like of shape (n, K) or (n,)
            Class scores (see the subclass's ``input``); 1-D: the class-1
            score of a binary problem.
        y : array-like of shape (n,)
            Integer labels ``0 .. K-1``.
        sample_weight : array-like of shape (n,), optional
            Non-negative weights.

        Returns
        -------
        self
        """
        validate_params(self)
        Z, n_clipped = self._transform_scores(scores, None)
        n, k = Z.shape
        labels = check_labels(y, "y", n_classes=k)
        check_consistent_length(scores=Z, y=labels)
        check_n_classes_present(labels, "y")
        w = check_sample_weight(sample_weight, n)
        self._fit(Z, labels, w)
        self.n_clipped_ = n_clipped
        self.classes_ = np.arange(k)
        self.n_features_in_ = k
        return self

    def predict_proba(self, scores: Any) -> np.ndarray:
        """Calibrated probabilities, shape ``(n, K)``."""
        check_is_fitted(self, "classes_")
        Z, _ = self._transform_scores(scores, self.n_features_in_)
        return self._predict_transformed(Z)

    def predict(self, scores: Any) -> np.ndarray:
        """Class with the largest calibrated probability."""
        proba = self.predict_proba(scores)
        return self.classes_[np.argmax(proba, axis=1)]

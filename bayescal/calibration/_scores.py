"""The one way bayescal obtains a classifier's scores for calibration.

A calibrator learns from what the classifier outputs: ``predict_proba`` when
the classifier has it, ``decision_function`` otherwise (an SVM without
``probability=True``), as scikit-learn's ``CalibratedClassifierCV`` does. The
calibration scenarios (:class:`~bayescal.calibration.CalibratedClassifier`,
:func:`~bayescal.calibration.generate_calibration_data`) and through them the
study runner all go through :func:`score_method` and :func:`classifier_scores`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import clone

from bayescal.contracts import accepted_inputs

__all__ = ["calibrator_for", "classifier_scores", "score_method"]


def score_method(estimator: Any) -> str:
    """``"predict_proba"`` when ``estimator`` has it, else ``"decision_function"``.

    Parameters
    ----------
    estimator : classifier
        Fitted or unfitted.

    Returns
    -------
    str

    Raises
    ------
    TypeError
        If the estimator has neither method.
    """
    if hasattr(estimator, "predict_proba"):
        return "predict_proba"
    if hasattr(estimator, "decision_function"):
        return "decision_function"
    raise TypeError(
        f"`estimator` must be a classifier with predict_proba or decision_function; got "
        f"{type(estimator).__name__}."
    )


def classifier_scores(estimator: Any, X: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Scores of a fitted classifier with columns in ``classes`` order.

    Parameters
    ----------
    estimator : fitted classifier
    X : ndarray of shape (n, d)
    classes : ndarray of shape (K,)
        The class labels of the whole problem (the estimator may have seen
        fewer, e.g. on a bootstrap sample).

    Returns
    -------
    ndarray
        ``predict_proba``: ``(n, K)`` probabilities, zero for a class the
        estimator never saw. ``decision_function``: ``(n,)`` decision values of
        ``classes[1]`` for two classes, ``(n, K)`` for more.

    Raises
    ------
    ValueError
        If decision values are asked of an estimator that did not see every
        class (they cannot be aligned).
    """
    method = score_method(estimator)
    values = np.asarray(getattr(estimator, method)(X), dtype=float)
    seen = np.asarray(estimator.classes_)
    same = seen.shape == classes.shape and np.array_equal(seen, classes)
    if method == "decision_function":
        if not same:
            raise ValueError(
                f"{type(estimator).__name__} was fitted on classes {seen.tolist()} of "
                f"{classes.tolist()}; its decision values cannot be aligned with the missing "
                "classes. Use more training rows of the rare class or a classifier with "
                "predict_proba."
            )
        return values
    if same:
        return values
    aligned = np.zeros((values.shape[0], classes.shape[0]))
    aligned[:, np.searchsorted(classes, seen)] = values
    return aligned


def calibrator_for(calibrator: Any, method: str, estimator_name: str = "the estimator") -> Any:
    """A clone of ``calibrator`` that reads the output of ``method``.

    Parameters
    ----------
    calibrator : estimator
        Unfitted calibrator.
    method : {"predict_proba", "decision_function"}
        What the classifier's scores come from (:func:`score_method`).
    estimator_name : str
        For the message.

    Returns
    -------
    estimator
        The clone, unchanged for probabilities; with ``input="decision"`` for
        decision values.

    Raises
    ------
    ValueError
        For decision values when the calibrator cannot read them.
    """
    cal = clone(calibrator)
    if method == "predict_proba":
        return cal
    if "decision" in accepted_inputs(cal) and "input" in cal.get_params(deep=False):
        return cal.set_params(input="decision")
    raise ValueError(
        f"`estimator` {estimator_name} has no predict_proba, so the calibrator is fitted on "
        f"decision values, which `calibrator` {type(calibrator).__name__} cannot read. Use a "
        "calibrator that accepts input='decision' (PlattCalibrator, LogisticGAMCalibrator, "
        "IsotonicCalibrator, ENIRCalibrator, HistogramBinningCalibrator, TemperatureScaling, "
        "...) or an estimator with predict_proba (for an SVM, scikit-learn 1.9 recommends "
        "CalibratedClassifierCV(SVC(), ensemble=False) over the deprecated "
        "SVC(probability=True))."
    )

"""Proper scoring rules and the classification rate.

``brier_score`` (scikit-learn's convention), ``brier_sum`` and
``brier_class_mean`` (the two forms of the thesis' Eq. 10) and ``log_loss`` are
the proper scoring rules of the small-data calibration thesis (Alasalmi 2020, Eqs. 10-11);
``accuracy`` is its classification rate. Losses: lower is better. Accuracy is a
score: higher is better.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from bayescal.metrics._inputs import check_weighted_labels_and_proba

__all__ = ["accuracy", "brier_class_mean", "brier_score", "brier_sum", "log_loss"]


def _one_hot(labels: np.ndarray, n_classes: int) -> np.ndarray:
    Y = np.zeros((labels.shape[0], n_classes))
    Y[np.arange(labels.shape[0]), labels] = 1.0
    return Y


def _squared_errors(y: Any, proba: Any, sample_weight: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """Per-sample squared error summed over the K classes, the weights and K."""
    labels, P, w = check_weighted_labels_and_proba(y, proba, sample_weight)
    return np.sum((_one_hot(labels, P.shape[1]) - P) ** 2, axis=1), w, P.shape[1]


def brier_score(y: Any, proba: Any, *, sample_weight: Any = None) -> float:
    """Brier score in scikit-learn's ``brier_score_loss`` convention.

    Parameters
    ----------
    y : array-like of shape (n,)
        True class codes ``0 .. K-1``.
    proba : array-like of shape (n, K) or (n,)
        Predicted class probabilities (rows sum to 1). A 1-D array is the
        positive-class probability of a binary problem.
    sample_weight : array-like of shape (n,), optional
        Non-negative weights of a weighted mean over samples.

    Returns
    -------
    float
        Binary: in ``[0, 1]``; ``K > 2`` classes: in ``[0, 2]``. 0 for a
        perfect prediction.

    Raises
    ------
    ValueError
        On NaN/inf, probabilities outside [0, 1], rows not summing to 1, labels
        outside ``0 .. K-1``, mismatched lengths or empty input.

    See Also
    --------
    brier_sum : Eq. 10 of the thesis, summed over both classes of a binary problem.
    brier_class_mean : Eq. 10 divided by the number of classes.

    Notes
    -----
    For a binary problem, the mean squared error of the positive-class
    probability (Brier's original score for one event, Phelps & Woolford's
    BS [2]_):

    .. math:: \\mathrm{BS} = \\frac{1}{N} \\sum_{i=1}^N (y_i - P(C_1 \\mid x_i))^2 ;

    for ``K > 2`` classes, the squared error of the probability vector summed
    over the classes (Eq. 10 of [1]_). Both equal scikit-learn's
    ``brier_score_loss(y, proba)`` (default ``scale_by_half="auto"``). For two
    classes the sum over both classes is :func:`brier_sum`, exactly twice
    this value.

    References
    ----------
    .. [1] Alasalmi, T. (2020). Uncertainty of classification on limited data.
       Doctoral dissertation, University of Oulu; Section 2.4, Eq. 10.
    .. [2] Phelps, N., Lizotte, D. J. & Woolford, D. G. (2024). Using Platt's scaling
       for calibration after undersampling: limitations and how to address them.
       arXiv:2410.18144; Section 3.1.3.

    Examples
    --------
    >>> round(brier_score([0, 1], [[0.8, 0.2], [0.4, 0.6]]), 12)
    0.1
    """
    per_sample, w, K = _squared_errors(y, proba, sample_weight)
    return float(np.average(per_sample, weights=w)) / (2.0 if K == 2 else 1.0)


def brier_sum(y: Any, proba: Any, *, sample_weight: Any = None) -> float:
    """Squared error of the probability vector summed over all classes (thesis Eq. 10).

    Parameters
    ----------
    y, proba, sample_weight
        As :func:`brier_score`.

    Returns
    -------
    float
        In ``[0, 2]``; for two classes twice :func:`brier_score`, otherwise equal
        to it.

    Notes
    -----
    Eq. 10 of the small-data calibration thesis [1]_, the "MSE" of its binary
    Tables 3-5:

    .. math:: \\mathrm{MSE} = \\frac{1}{N} \\sum_{i=1}^N \\sum_{j=1}^K
              (y_{i,j} - P(C_j \\mid x_i))^2 ,

    scikit-learn's ``brier_score_loss(y, proba, scale_by_half=False)``.

    References
    ----------
    .. [1] Alasalmi, T. (2020). Uncertainty of classification on limited data.
       Doctoral dissertation, University of Oulu; Section 2.4.

    Examples
    --------
    >>> round(brier_sum([0, 1], [[0.8, 0.2], [0.4, 0.6]]), 12)
    0.2
    """
    per_sample, w, _ = _squared_errors(y, proba, sample_weight)
    return float(np.average(per_sample, weights=w))


def brier_class_mean(y: Any, proba: Any, *, sample_weight: Any = None) -> float:
    """Squared error of the probability vector averaged over classes and samples.

    Parameters
    ----------
    y, proba, sample_weight
        As :func:`brier_score`.

    Returns
    -------
    float
        In ``[0, 2/K]``; :func:`brier_sum` divided by the number of classes K.

    Notes
    -----
    .. math:: \\frac{1}{NK} \\sum_{i=1}^N \\sum_{j=1}^K
              (y_{i,j} - P(C_j \\mid x_i))^2 ,

    the per-class mean of Eq. 10 of the thesis [1]_. Its multi-class Tables 6-7
    print this form: a sum over classes could not give its Abalone and
    Contraceptive values (e.g. MSE 0.233 at log loss 2.35 on three classes).
    For two classes it equals :func:`brier_score`.

    References
    ----------
    .. [1] Alasalmi, T. (2020). Uncertainty of classification on limited data.
       Doctoral dissertation, University of Oulu; Section 2.4 and Tables 6-7.

    Examples
    --------
    >>> round(brier_class_mean([0, 1, 2], [[1, 0, 0], [0, 1, 0], [0, 0.5, 0.5]]), 12)
    0.055555555556
    """
    per_sample, w, K = _squared_errors(y, proba, sample_weight)
    return float(np.average(per_sample, weights=w)) / K


def log_loss(y: Any, proba: Any, *, eps: float | None = None, sample_weight: Any = None) -> float:
    """Logarithmic loss (mean negative log-probability of the true class).

    Parameters
    ----------
    y : array-like of shape (n,)
        True class codes ``0 .. K-1``.
    proba : array-like of shape (n, K) or (n,)
        Predicted class probabilities (rows sum to 1); 1-D means binary
        positive-class probability.
    eps : float, optional
        How a zero probability on the true class is treated. ``None`` (default):
        no clipping — the loss is exactly ``+inf`` and a ``RuntimeWarning`` says
        how many samples caused it. A float in ``(0, 0.5)``: true-class
        probabilities below ``eps`` are replaced by ``eps`` inside the logarithm
        (each sample then contributes at most ``-log(eps)``).
    sample_weight : array-like of shape (n,), optional
        Non-negative weights of a weighted mean over samples.

    Returns
    -------
    float
        In ``[0, inf]``; 0 for a perfect prediction.

    Raises
    ------
    ValueError
        On bad ``y``/``proba`` (see :func:`brier_score`) or ``eps`` outside (0, 0.5).

    Warns
    -----
    RuntimeWarning
        When ``eps=None`` and some true-class probability is exactly zero.

    Notes
    -----
    Eq. 11 of the small-data calibration thesis [1]_:

    .. math:: \\mathrm{logloss} = -\\frac{1}{N} \\sum_{i=1}^N \\sum_{j=1}^K
              y_{i,j} \\log P(C_j \\mid x_i)

    with the natural logarithm. Only the true-class column enters the sum.

    References
    ----------
    .. [1] Alasalmi, T. (2020). Uncertainty of classification on limited data.
       Doctoral dissertation, University of Oulu; Section 2.4.

    Examples
    --------
    >>> round(log_loss([0, 1], [[0.5, 0.5], [0.5, 0.5]]), 6)
    0.693147
    >>> log_loss([1], [[0.0, 1.0]], eps=1e-15)
    0.0
    """
    if eps is not None:
        if isinstance(eps, bool) or not isinstance(eps, int | float | np.floating):
            raise TypeError(f"`eps` must be None or a float; got {eps!r}.")
        if not (0.0 < float(eps) < 0.5):
            raise ValueError(f"`eps` must lie in (0, 0.5) or be None; got {eps!r}.")
    labels, P, w = check_weighted_labels_and_proba(y, proba, sample_weight)
    p_true = P[np.arange(labels.shape[0]), labels]
    if eps is None:
        zero = (p_true == 0.0) & (w > 0)
        if zero.any():
            warnings.warn(
                f"log_loss is infinite: {int(zero.sum())} sample(s) give probability 0 to "
                "their true class. Pass eps (e.g. eps=1e-15) to clip explicitly.",
                RuntimeWarning,
                stacklevel=2,
            )
            return float("inf")
    else:
        p_true = np.maximum(p_true, float(eps))
    with np.errstate(divide="ignore"):
        nll = -np.log(p_true)
    # zero-weight samples with p_true == 0 must not turn the mean into nan
    nll = np.where(w > 0, nll, 0.0)
    return float(np.average(nll, weights=w))


def accuracy(y: Any, proba: Any, *, sample_weight: Any = None) -> float:
    """Classification rate of the most probable class.

    Parameters
    ----------
    y : array-like of shape (n,)
        True class codes ``0 .. K-1``.
    proba : array-like of shape (n, K) or (n,)
        Predicted class probabilities; 1-D means binary positive-class probability.
    sample_weight : array-like of shape (n,), optional
        Non-negative weights.

    Returns
    -------
    float
        In ``[0, 1]``; higher is better (a score, not a loss).

    Notes
    -----
    The predicted class is ``argmax_k proba[:, k]``; ties go to the lowest class
    index (so a binary probability of exactly 0.5 predicts class 0).

    Examples
    --------
    >>> accuracy([0, 1, 1], [0.2, 0.9, 0.4])
    0.6666666666666666
    """
    labels, P, w = check_weighted_labels_and_proba(y, proba, sample_weight)
    return float(np.average(np.argmax(P, axis=1) == labels, weights=w))

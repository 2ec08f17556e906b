"""Multi-label metrics: total and prevalence-weighted ECE, Hamming loss.

In multi-label classification every sample carries ``L`` independent 0/1
labels and the model gives one probability per label (rows need not sum to 1).
The calibration of each label is measured with the binary ECE on its own column
(binary relevance), then combined (Anonymous, TMLR submission, Section 5).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from bayescal.metrics.binning import bin_statistics
from bayescal.validation import (
    check_choice,
    check_consistent_length,
    check_fraction,
    check_indicator_matrix,
    check_probability_columns,
)

__all__ = ["ece_per_label", "ece_total", "ece_weighted", "hamming_loss"]


def _check_pair(
    Y: Any,
    P: Any,
    p_name: str = "P",
    check_p: Callable[..., np.ndarray] = check_probability_columns,
) -> tuple[np.ndarray, np.ndarray]:
    """Validate ``Y`` (indicators) and ``P`` (by ``check_p``) with the same rows and columns."""
    Yv = check_indicator_matrix(Y, "Y")
    Pv = check_p(P, p_name)
    check_consistent_length(Y=Yv, **{p_name: Pv})
    if Yv.shape[1] != Pv.shape[1]:
        raise ValueError(f"`Y` has {Yv.shape[1]} label columns but `{p_name}` has {Pv.shape[1]}.")
    return Yv, Pv


def ece_per_label(Y: Any, P: Any, n_bins: int = 10, strategy: str = "uniform") -> np.ndarray:
    """Binary ECE of every label column.

    Parameters
    ----------
    Y : array-like of shape (n, L)
        0/1 label indicators.
    P : array-like of shape (n, L)
        Predicted probability of each label, in [0, 1].
    n_bins : int, default=10
        Number of bins ``M``.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width or equal-count bins.

    Returns
    -------
    ndarray of shape (L,)
        :math:`\\mathrm{ECE}^{(l)} = \\sum_m \\frac{n_{ml}}{n}
        |\\mathrm{pos}^{(l)}_m - \\mathrm{conf}^{(l)}_m|`.
    """
    Yv, Pv = _check_pair(Y, P)
    return np.array(
        [
            bin_statistics(Pv[:, j], Yv[:, j], n_bins, strategy).expected_gap()
            for j in range(Yv.shape[1])
        ]
    )


def ece_total(Y: Any, P: Any, n_bins: int = 10, strategy: str = "uniform") -> float:
    """Total multi-label ECE: the sum of the per-label ECEs.

    Parameters
    ----------
    Y, P, n_bins, strategy
        As in :func:`ece_per_label`.

    Returns
    -------
    float
        In ``[0, L]``; lower is better.

    Raises
    ------
    ValueError
        On NaN/inf, entries of ``Y`` other than 0/1, probabilities outside
        [0, 1], mismatched shapes or empty input.

    Notes
    -----
    Anonymous (TMLR submission) Eq. 5:

    .. math:: \\mathrm{ECE}_{tot} = \\sum_{l=1}^{L} \\sum_{m=1}^{M}
              \\frac{n_{ml}}{n} |\\mathrm{pos}^{(l)}_m - \\mathrm{conf}^{(l)}_m|

    References
    ----------
    .. [1] Anonymous (under review at TMLR). A theoretical insight of histogram
       binning and extending to multi-label classification, Eq. 5.

    Examples
    --------
    >>> Y = [[0, 1], [1, 1]]
    >>> P = [[0.0, 1.0], [1.0, 0.5]]
    >>> ece_total(Y, P, n_bins=2)
    0.25
    """
    return float(np.sum(ece_per_label(Y, P, n_bins, strategy)))


def ece_weighted(Y: Any, P: Any, n_bins: int = 10, strategy: str = "uniform", *,
                 normalize: str = "positives") -> float:
    """Prevalence-weighted average of the per-label ECEs.

    Parameters
    ----------
    Y, P, n_bins, strategy
        As in :func:`ece_per_label`.
    normalize : {"positives", "samples"}, default="positives"
        Divide the prevalence-weighted sum by the number of positive labels
        :math:`\\sum_l n_l` (a weighted average: equal ECEs give that ECE
        back), or by the number of samples ``n`` as Eq. 6 is printed (each
        label weighted by its share of positive samples :math:`n_l / n`;
        what ``bayescal reproduce seed002_table1`` uses).

    Returns
    -------
    float
        In ``[0, 1]`` (``"positives"``) or ``[0, L]`` (``"samples"``, at most
        :func:`ece_total`); lower is better.

    Raises
    ------
    ValueError
        As :func:`ece_total`, when ``Y`` holds no positive label at all
        (every weight is zero), or when ``normalize`` is unknown.

    Notes
    -----
    Anonymous (TMLR submission) Eq. 6 weights label ``l`` by its number
    of positive samples :math:`n_l = \\sum_i Y_i^{(l)}` ("multiplying weights
    (fractions of each label present in the input) to every label"):

    .. math:: \\mathrm{ECE}_{wavg} = \\frac{\\sum_{l} n_l \\, \\mathrm{ECE}^{(l)}}
              {\\sum_{l} n_l}

    Eq. 6 is printed with the normaliser ``1/n`` (the ``K`` beside it is the
    upper limit of the sum over labels):

    .. math:: \\mathrm{ECE}_{wavg}^{\\text{printed}} = \\frac{1}{n}
              \\sum_{l=1}^{K} n_l \\, \\mathrm{ECE}^{(l)}

    (``normalize="samples"``), whose weights :math:`n_l / n` sum to the mean
    number of labels per sample, not to one. The default normalises by
    :math:`\\sum_l n_l` so that the result is a weighted *average* as the text
    calls it. Either way :math:`\\mathrm{ECE}_{wavg} \\le \\mathrm{ECE}_{tot}`.

    References
    ----------
    .. [1] Anonymous (under review at TMLR). A theoretical insight of histogram
       binning and extending to multi-label classification, Eq. 6.

    Examples
    --------
    >>> Y = [[0, 1], [1, 1]]
    >>> P = [[0.0, 1.0], [1.0, 0.5]]
    >>> round(ece_weighted(Y, P, n_bins=2), 6)
    0.166667
    >>> ece_weighted(Y, P, n_bins=2, normalize="samples")
    0.25
    """
    check_choice(normalize, "normalize", ("positives", "samples"))
    Yv, _ = _check_pair(Y, P)
    weights = Yv.sum(axis=0)
    if not np.any(weights > 0):
        raise ValueError(
            "`Y` holds no positive label, so every prevalence weight is zero and the "
            "weighted ECE is undefined; use ece_total instead."
        )
    per_label = ece_per_label(Yv, P, n_bins, strategy)
    denominator = np.sum(weights) if normalize == "positives" else Yv.shape[0]
    return float(np.sum(weights * per_label) / denominator)


def hamming_loss(Y: Any, Y_pred: Any, *, threshold: float | None = None) -> float:
    """Hamming loss: the fraction of label entries predicted wrongly.

    Parameters
    ----------
    Y : array-like of shape (n, L) or (n,)
        True 0/1 label indicators.
    Y_pred : array-like of shape (n, L) or (n,)
        Predicted 0/1 indicators, or per-label probabilities when ``threshold``
        is given.
    threshold : float, optional
        If given (in (0, 1)), ``Y_pred`` holds probabilities and a label is
        predicted present when its probability is ``>= threshold``.

    Returns
    -------
    float
        In ``[0, 1]``; lower is better.

    Raises
    ------
    ValueError
        On entries of ``Y`` (or of ``Y_pred`` without ``threshold``) other than
        0/1, probabilities outside [0, 1], mismatched shapes or empty input.

    Notes
    -----
    Anonymous (TMLR submission) Eq. 7:

    .. math:: \\mathrm{HL} = \\frac{1}{NL} \\sum_{l=1}^{L} \\sum_{i=1}^{N}
              \\hat{Y}_i^{(l)} \\oplus Y_i^{(l)}

    Examples
    --------
    >>> hamming_loss([[1, 0], [0, 1]], [[1, 1], [0, 1]])
    0.25
    >>> hamming_loss([[1, 0]], [[0.7, 0.2]], threshold=0.5)
    0.0
    """
    if threshold is None:
        Yv, Yp = _check_pair(Y, Y_pred, "Y_pred", check_indicator_matrix)
    else:
        t = check_fraction(threshold, "threshold")
        Yv, Pv = _check_pair(Y, Y_pred, "Y_pred")
        Yp = (Pv >= t).astype(np.float64)
    return float(np.mean(Yv != Yp))

"""Binned calibration errors: expected (ECE) and maximum (MCE).

Three readings of "the event whose probability is calibrated" are offered
through ``kind``:

- ``"binary"``: the positive-class probability ``proba[:, 1]`` against ``y == 1``
  (two classes only).
- ``"top_label"``: the probability of the predicted (most probable) class
  against "the prediction is correct" (Guo et al., 2017; any number of classes).
- ``"classwise"``: every class ``k`` separately, ``proba[:, k]`` against
  ``y == k``; ECE is the mean over classes (Kull et al., 2019), MCE the maximum.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescal.metrics._inputs import check_labels_and_proba
from bayescal.metrics.binning import BinStatistics, bin_statistics, binary_bin_statistics
from bayescal.validation import check_choice, check_positive_int

__all__ = [
    "CALIBRATION_KINDS",
    "event_scores",
    "expected_calibration_error",
    "maximum_calibration_error",
]

#: Names accepted by ``kind``.
CALIBRATION_KINDS = ("binary", "top_label", "classwise")


def event_scores(
    labels: np.ndarray, P: np.ndarray, kind: str = "binary"
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (score, outcome) pairs that a calibration error of ``kind`` bins.

    Parameters
    ----------
    labels : ndarray of shape (n,)
        Validated class codes.
    P : ndarray of shape (n, K)
        Validated probabilities.
    kind : {"binary", "top_label", "classwise"}
        See the module docstring.

    Returns
    -------
    list of (scores, outcomes)
        One pair for ``"binary"`` and ``"top_label"``, K pairs for ``"classwise"``;
        ``outcomes`` are 0/1 floats.

    Raises
    ------
    ValueError
        If ``kind="binary"`` but ``P`` has more than two columns.
    """
    check_choice(kind, "kind", CALIBRATION_KINDS)
    if kind == "binary":
        if P.shape[1] != 2:
            raise ValueError(
                f"kind='binary' needs two classes but `proba` has {P.shape[1]} columns; "
                "use kind='top_label' or kind='classwise' for multi-class probabilities."
            )
        return [(P[:, 1], (labels == 1).astype(np.float64))]
    if kind == "top_label":
        predicted = np.argmax(P, axis=1)
        return [(P[np.arange(P.shape[0]), predicted], (predicted == labels).astype(np.float64))]
    return [(P[:, k], (labels == k).astype(np.float64)) for k in range(P.shape[1])]


def expected_calibration_error(
    y: Any,
    proba: Any,
    n_bins: int = 10,
    strategy: str = "uniform",
    kind: str = "binary",
) -> float:
    """Expected calibration error (ECE) of binned probabilities.

    Parameters
    ----------
    y : array-like of shape (n,)
        True class codes ``0 .. K-1``.
    proba : array-like of shape (n, K) or (n,)
        Predicted class probabilities; 1-D means binary positive-class probability.
    n_bins : int, default=10
        Number of bins ``M``.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width or equal-count bins (see :func:`bayescal.metrics.binning.bin_edges`).
    kind : {"binary", "top_label", "classwise"}, default="binary"
        Which event is calibrated (see the module docstring).

    Returns
    -------
    float
        In ``[0, 1]``; lower is better.

    Raises
    ------
    ValueError
        On bad ``y``/``proba`` (NaN/inf, out of [0, 1], rows not summing to 1,
        labels out of range, length mismatch, empty), on a bad ``n_bins``,
        ``strategy`` or ``kind``, and for ``kind="binary"`` with K > 2.

    Notes
    -----
    Naeini et al.'s estimate, as written in Anonymous (TMLR submission) Eq. 1:

    .. math:: \\mathrm{ECE} = \\sum_{m=1}^M \\frac{n_m}{n} |\\mathrm{pos}_m - \\mathrm{conf}_m|

    with :math:`n_m` samples in bin :math:`B_m = (a_m, a_{m+1}]`,
    :math:`\\mathrm{pos}_m` their observed rate and :math:`\\mathrm{conf}_m` their
    mean score. Empty bins contribute nothing. For ``kind="classwise"`` the
    result is the mean over classes of the per-class ECE.

    References
    ----------
    .. [1] Naeini, M. P., Cooper, G., Hauskrecht, M. (2015). Obtaining well
       calibrated probabilities using Bayesian binning. AAAI.
    .. [2] Anonymous (under review at TMLR). A theoretical insight of histogram
       binning and extending to multi-label classification, Eq. 1.

    Examples
    --------
    >>> y = [0, 0, 1, 1]
    >>> p = [0.1, 0.3, 0.7, 0.75]
    >>> round(expected_calibration_error(y, p, n_bins=2), 4)
    0.2375
    """
    return float(np.mean([b.expected_gap() for b in _binned_events(y, proba, n_bins, strategy, kind)]))


def maximum_calibration_error(
    y: Any,
    proba: Any,
    n_bins: int = 10,
    strategy: str = "uniform",
    kind: str = "binary",
) -> float:
    """Maximum calibration error (MCE): the largest gap over non-empty bins.

    Parameters
    ----------
    y, proba, n_bins, strategy, kind
        As in :func:`expected_calibration_error`.

    Returns
    -------
    float
        In ``[0, 1]``; lower is better. For ``kind="classwise"`` the maximum
        over classes and bins.

    Raises
    ------
    ValueError
        As :func:`expected_calibration_error`.

    Notes
    -----
    .. math:: \\mathrm{MCE} = \\max_{m:\\, n_m > 0} |\\mathrm{pos}_m - \\mathrm{conf}_m|

    (Naeini et al., 2015). Sensitive to sparsely filled bins; read it together
    with the bin counts of :func:`bayescal.metrics.reliability_curve`.

    Examples
    --------
    >>> round(maximum_calibration_error([0, 0, 1, 1], [0.1, 0.3, 0.7, 0.75], n_bins=2), 4)
    0.275
    """
    return float(max(b.maximum_gap() for b in _binned_events(y, proba, n_bins, strategy, kind)))


def _binned_events(
    y: Any, proba: Any, n_bins: int, strategy: str, kind: str
) -> list[BinStatistics]:
    """Bin statistics of each event of ``kind``: the one path of ECE and MCE.

    Large binary inputs in equal-width bins are checked and binned in one
    pass (:func:`bayescal.metrics.binning.binary_bin_statistics`, the same
    statistics); anything else, or any input that fails that pass's checks,
    goes through the full validation, which words the error.
    """
    if kind == "binary" and strategy == "uniform":
        check_positive_int(n_bins, "n_bins")
        fast = binary_bin_statistics(y, proba, n_bins)
        if fast is not None:
            return [fast]
    labels, P = check_labels_and_proba(y, proba)
    return [bin_statistics(s, o, n_bins, strategy) for s, o in event_scores(labels, P, kind)]

"""Per-prediction uncertainty from class probabilities (thesis Eq. 9)."""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescal.validation import check_probability_matrix

__all__ = ["uncertainty"]


def uncertainty(proba: Any) -> np.ndarray:
    """Uncertainty of each prediction, 0 (certain) to 1 (uniform probabilities).

    Parameters
    ----------
    proba : array-like of shape (n, K) or (n,)
        Class probabilities (rows sum to 1); 1-D means binary positive-class
        probability.

    Returns
    -------
    ndarray of shape (n,)
        Values in [0, 1]: 0 when one class has probability 1, 1 when every class
        has probability ``1/K``.

    Raises
    ------
    ValueError
        On NaN/inf, probabilities outside [0, 1], rows not summing to 1 or
        empty input.

    Notes
    -----
    Eq. 9 of the small-data calibration thesis [1]_ (after Gonçalves et al.,
    2009), the form of its Eq. 8 for exhaustive, mutually exclusive classes:

    .. math:: U(x) = 1 - \\frac{\\max_j P(C_j \\mid x) - 1/K}{1 - 1/K}

    For two classes, ``U = 2 (1 - max(p, 1 - p))``.

    References
    ----------
    .. [1] Alasalmi, T. (2020). Uncertainty of classification on limited data.
       Doctoral dissertation, University of Oulu; Section 2.4, Eq. 9.

    Examples
    --------
    >>> uncertainty([[1.0, 0.0, 0.0], [1 / 3, 1 / 3, 1 / 3], [0.5, 0.5, 0.0]]).round(3).tolist()
    [0.0, 1.0, 0.75]
    """
    P = check_probability_matrix(proba, "proba")
    k = P.shape[1]
    u = 1.0 - (P.max(axis=1) - 1.0 / k) / (1.0 - 1.0 / k)
    return np.clip(u, 0.0, 1.0)

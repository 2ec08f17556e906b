"""Distance of a classifier's probabilities from a Bayesian reference probe.

When the true probabilities are unknown, a probe (a Bayesian model such as
:class:`bayescal.probes.BayesianLogisticRegression`) serves as the yard-stick:
its posterior-mean probability and its credible interval say where a
classifier's probability should lie and how sure the probe is of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bayescal.metrics.truth import rmse_true
from bayescal.validation import check_probability_pair
from bayescal.validation.arrays import _as_float_array, _check_finite

__all__ = ["ProbeDistance", "probe_distance"]


@dataclass(frozen=True)
class ProbeDistance:
    """How far probabilities lie from a probe.

    Attributes
    ----------
    rmse : float
        Root mean squared difference to the probe's posterior mean.
    inside : float
        Share of the probabilities inside the probe's credible interval.
    n_samples : int
        Number of samples compared.
    """

    rmse: float
    inside: float
    n_samples: int


def _check_interval(probe_interval: Any, shape: tuple[int, int], binary_1d: bool) -> np.ndarray:
    arr = _as_float_array(probe_interval, "probe_interval")
    if binary_1d and arr.ndim == 2 and arr.shape[1] == 2:
        # (n, 2) bounds of the positive-class probability.
        arr = np.stack([1.0 - arr[:, ::-1], arr], axis=1)
    if arr.shape != (*shape, 2):
        raise ValueError(
            f"`probe_interval` must have shape {(*shape, 2)} (samples, classes, lower/upper) "
            f"to match `proba`; got {arr.shape}."
        )
    _check_finite(arr, "probe_interval")
    if np.any(arr < 0.0) or np.any(arr > 1.0):
        raise ValueError("`probe_interval` bounds must lie in [0, 1].")
    if np.any(arr[..., 0] > arr[..., 1]):
        raise ValueError(
            "`probe_interval` has lower bounds above upper bounds; the last axis must be "
            "(lower, upper)."
        )
    return arr


def probe_distance(proba: Any, probe_proba: Any, probe_interval: Any) -> ProbeDistance:
    """RMSE to a probe's posterior mean and the share inside its credible interval.

    Parameters
    ----------
    proba : array-like of shape (n, K) or (n,)
        Probabilities to judge (1-D: binary positive-class probability).
    probe_proba : array-like of shape (n, K) or (n,)
        The probe's posterior-mean probabilities (``predict_proba``).
    probe_interval : array-like of shape (n, K, 2), or (n, 2) for 1-D input
        The probe's credible intervals (``predict_interval``).

    Returns
    -------
    ProbeDistance
        ``rmse`` (as :func:`bayescal.metrics.rmse_true` with the probe in
        place of the truth), ``inside`` and ``n_samples``.

    Raises
    ------
    ValueError
        On NaN/inf, values outside [0, 1], mismatched shapes or intervals whose
        lower bound exceeds the upper.

    Notes
    -----
    .. math:: \\mathrm{RMSE} = \\sqrt{\\tfrac{1}{nK}\\sum_{i,k} (p_{ik} - \\bar q_{ik})^2},
              \\quad \\mathrm{inside} = \\tfrac{1}{nK}\\sum_{i,k}
              [\\, l_{ik} \\le p_{ik} \\le u_{ik} \\,]

    with :math:`\\bar q` the probe's posterior mean and :math:`[l, u]` its
    credible interval (bounds inclusive). For 1-D binary input only the
    positive class is compared (both classes give the same numbers).

    Examples
    --------
    >>> d = probe_distance([0.2, 0.7], [0.25, 0.5], [[0.1, 0.4], [0.4, 0.6]])
    >>> round(d.rmse, 4), d.inside
    (0.1458, 0.5)
    """
    binary_1d = np.ndim(proba) == 1
    P, Q = check_probability_pair(proba, probe_proba, "proba", "probe_proba")
    interval = _check_interval(probe_interval, P.shape, binary_1d)
    if binary_1d:
        P, interval = P[:, 1:], interval[:, 1:]
    inside = (P >= interval[..., 0]) & (P <= interval[..., 1])
    return ProbeDistance(
        rmse=rmse_true(probe_proba, proba), inside=float(inside.mean()), n_samples=P.shape[0]
    )

"""Smooth ECE: the kernel-smoothed calibration error and its smoothed reliability curve.

Błasiok & Nakkiran (2023) smooth the residuals :math:`r_i = f_i - y_i` with a Gaussian
kernel reflected at 0 and 1 and integrate their absolute value against the smoothed
density of the predictions:

.. math::

    \\hat r_\\sigma(t) = \\frac{\\sum_i K_\\sigma(t, f_i)\\, r_i}{\\sum_i K_\\sigma(t, f_i)},
    \\qquad
    \\hat\\delta_\\sigma(t) = \\frac1n \\sum_i K_\\sigma(t, f_i),
    \\qquad
    \\mathrm{smECE}_\\sigma = \\int_0^1 |\\hat r_\\sigma(t)|\\, \\hat\\delta_\\sigma(t)\\, dt .

The bandwidth is the fixed point :math:`\\sigma^*` with
:math:`\\mathrm{smECE}_{\\sigma^*} = \\sigma^*` (unique, since
:math:`\\mathrm{smECE}_\\sigma` does not increase with :math:`\\sigma`), and
:math:`\\mathrm{smECE} = \\mathrm{smECE}_{\\sigma^*}`.

Discretisation (chosen to agree with the authors' package ``relplot`` 1.0.x to 1e-6):
the predictions are split linearly onto a uniform grid of ``max(2000, round(20 /
sigma)) // 2 + 1`` points on [0, 1]; the grid is reflected about both ends and
convolved with the Gaussian density sampled on the same grid (offsets from -1/2 to
1/2); the smoothed sums are interpolated linearly onto ``max(round(10 / sigma), 200)``
evaluation points, where :math:`\\mathrm{smECE}_\\sigma = \\sum_j |S_r(t_j)| /
\\sum_j (S_1(t_j) + 10^{-4})` (``S_r`` and ``S_1`` the smoothed residuals and
counts). The fixed point is found by 10 bisection steps on (0, 1], returning the
upper end of the last bracket (bandwidths below 0.001 count as below the fixed
point). This discretisation converges to the integral above as the grid grows
(checked in the tests against direct quadrature).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bayescal.metrics._inputs import check_labels_and_proba
from bayescal.metrics.calibration_error import event_scores
from bayescal.validation import check_choice, check_positive_number

__all__ = ["SmoothedReliability", "smooth_ece", "smoothed_reliability"]

#: Event readings accepted by ``kind``.
SMOOTH_ECE_KINDS = ("binary", "top_label")

_MIN_BANDWIDTH = 1e-3
_BISECTION_STEPS = 10
_DENSITY_FLOOR = 1e-4
_MIN_EVALUATION_POINTS = 200


@dataclass(frozen=True)
class SmoothedReliability:
    """A kernel-smoothed reliability curve and the smooth ECE at its bandwidth.

    Attributes
    ----------
    t : ndarray of shape (m,)
        Evaluation points on [0, 1].
    curve : ndarray of shape (m,)
        Smoothed conditional event rate :math:`t - \\hat r_\\sigma(t)`.
    density : ndarray of shape (m,)
        Smoothed density of the predictions :math:`\\hat\\delta_\\sigma(t)`
        (integrates to about one).
    bandwidth : float
        The kernel bandwidth :math:`\\sigma` (the fixed point :math:`\\sigma^*` unless
        one was given).
    smooth_ece : float
        :math:`\\mathrm{smECE}_\\sigma`.
    kind : str
        ``"binary"`` or ``"top_label"``.
    """

    t: np.ndarray
    curve: np.ndarray
    density: np.ndarray
    bandwidth: float
    smooth_ece: float
    kind: str


def _grid_points(sigma: float) -> int:
    return max(2000, round(20.0 / sigma)) // 2 + 1


def _evaluation_points(sigma: float) -> int:
    return max(round(10.0 / sigma), _MIN_EVALUATION_POINTS)


def _linear_binning(f: np.ndarray, weights: np.ndarray, m: int) -> np.ndarray:
    """Split each weight between the two grid points around its prediction."""
    position = f * (m - 1)
    left = np.clip(position.astype(np.int64), 0, m - 2)
    share = position - left
    return np.bincount(left, (1.0 - share) * weights, minlength=m) + np.bincount(
        left + 1, share * weights, minlength=m
    )


def _reflected_smooth(binned: np.ndarray, sigma: float) -> np.ndarray:
    """Convolve grid values with a Gaussian, reflecting them about 0 and 1."""
    from scipy.signal import fftconvolve

    m = binned.shape[0]
    offsets = np.linspace(0.0, 1.0, m) - 0.5
    kernel = np.exp(-(offsets**2) / (2.0 * sigma**2)) / (np.sqrt(2.0 * np.pi) * sigma)
    reflected = np.concatenate([binned[:0:-1], binned, binned[-2::-1]])
    full = fftconvolve(reflected, kernel, mode="valid")
    return full[m // 2 : m // 2 + m]


def _smoothed_sums(
    f: np.ndarray, residual: np.ndarray, sigma: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Evaluation points, smoothed residual sums ``S_r`` and smoothed counts ``S_1``."""
    m = _grid_points(sigma)
    grid = np.linspace(0.0, 1.0, m)
    t = np.linspace(0.0, 1.0, _evaluation_points(sigma))
    s_r = np.interp(t, grid, _reflected_smooth(_linear_binning(f, residual, m), sigma))
    s_1 = np.interp(t, grid, _reflected_smooth(_linear_binning(f, np.ones_like(f), m), sigma))
    return t, s_r, s_1


def _smooth_ece_at(f: np.ndarray, residual: np.ndarray, sigma: float) -> float:
    _, s_r, s_1 = _smoothed_sums(f, residual, sigma)
    return float(np.sum(np.abs(s_r)) / np.sum(s_1 + _DENSITY_FLOOR))


def _fixed_point_bandwidth(f: np.ndarray, residual: np.ndarray) -> float:
    """Bisection for the bandwidth with ``smECE_sigma = sigma`` (see module notes)."""

    def below_fixed_point(sigma: float) -> bool:
        return sigma < _MIN_BANDWIDTH or sigma < _smooth_ece_at(f, residual, sigma)

    if below_fixed_point(1.0):
        return 1.0
    low, high = 0.0, 1.0
    for _ in range(_BISECTION_STEPS):
        middle = (low + high) / 2.0
        if below_fixed_point(middle):
            low = middle
        else:
            high = middle
    return high


def _event_pair(y: Any, proba: Any, kind: str) -> tuple[np.ndarray, np.ndarray]:
    check_choice(kind, "kind", SMOOTH_ECE_KINDS)
    labels, P = check_labels_and_proba(y, proba)
    [(scores, outcomes)] = event_scores(labels, P, kind)
    return scores, outcomes


def _bandwidth_or_fixed_point(bandwidth: Any, f: np.ndarray, residual: np.ndarray) -> float:
    if bandwidth is None:
        return _fixed_point_bandwidth(f, residual)
    sigma = check_positive_number(bandwidth, "bandwidth")
    if sigma > 1.0:
        raise ValueError(
            f"`bandwidth` must lie in (0, 1] (a bandwidth on the probability scale); "
            f"got {bandwidth!r}. Pass None for the fixed-point rule."
        )
    return sigma


def smooth_ece(
    y: Any, proba: Any, *, bandwidth: float | None = None, kind: str = "binary"
) -> float:
    """Smooth expected calibration error (smECE) with the fixed-point bandwidth.

    Parameters
    ----------
    y : array-like of shape (n,)
        True class codes ``0 .. K-1``.
    proba : array-like of shape (n, K) or (n,)
        Predicted class probabilities; 1-D means binary positive-class probability.
    bandwidth : float, optional
        Kernel bandwidth :math:`\\sigma` in (0, 1]. When omitted, the fixed point
        :math:`\\sigma^*` with :math:`\\mathrm{smECE}_{\\sigma^*} = \\sigma^*` is used.
    kind : {"binary", "top_label"}, default="binary"
        ``"binary"``: positive-class probability against ``y == 1``;
        ``"top_label"``: confidence of the predicted class against correctness.

    Returns
    -------
    float
        In ``[0, 1]``; lower is better.

    Raises
    ------
    ValueError
        On bad ``y``/``proba`` (NaN, values outside [0, 1], rows not summing to 1,
        mismatched lengths), an unknown ``kind``, ``kind="binary"`` with more than two
        classes, or ``bandwidth`` outside (0, 1].

    See Also
    --------
    smoothed_reliability : the smoothed curve behind the number.
    expected_calibration_error : the binned ECE.

    Notes
    -----
    :math:`\\mathrm{smECE}_\\sigma = \\int_0^1 |\\hat r_\\sigma(t)|\\,
    \\hat\\delta_\\sigma(t)\\, dt` with the reflected-Gaussian kernel smoothing of the
    residuals :math:`f_i - y_i` and of the prediction density (Błasiok & Nakkiran,
    2023); the discretisation is described in :mod:`bayescal.metrics.smooth_ece`
    and agrees with ``relplot.smECE`` to 1e-6. Unlike the binned ECE it is
    continuous in the predictions and needs no bin count.

    References
    ----------
    .. [1] Błasiok, J. & Nakkiran, P. (2023). Smooth ECE: Principled reliability
       diagrams via kernel smoothing. arXiv:2309.12236 (ICLR 2024).

    Examples
    --------
    >>> round(smooth_ece([0, 1, 1, 0, 1], [0.1, 0.8, 0.7, 0.4, 0.9]), 4)
    0.1639
    """
    f, outcomes = _event_pair(y, proba, kind)
    residual = f - outcomes
    sigma = _bandwidth_or_fixed_point(bandwidth, f, residual)
    return _smooth_ece_at(f, residual, sigma)


def smoothed_reliability(
    y: Any, proba: Any, *, bandwidth: float | None = None, kind: str = "binary"
) -> SmoothedReliability:
    """The kernel-smoothed reliability curve of Błasiok & Nakkiran (2023).

    Parameters
    ----------
    y : array-like of shape (n,)
        True class codes ``0 .. K-1``.
    proba : array-like of shape (n, K) or (n,)
        Predicted class probabilities; 1-D means binary positive-class probability.
    bandwidth : float, optional
        Kernel bandwidth in (0, 1]; the fixed point :math:`\\sigma^*` when omitted.
    kind : {"binary", "top_label"}, default="binary"
        Which event is plotted (see :func:`smooth_ece`).

    Returns
    -------
    SmoothedReliability
        The curve :math:`t - \\hat r_\\sigma(t)`, the density, the bandwidth and
        :math:`\\mathrm{smECE}_\\sigma`.

    Raises
    ------
    ValueError
        As :func:`smooth_ece`.

    Notes
    -----
    The smooth ECE is the density-weighted area between the curve and the diagonal,
    so the diagram and the number agree by construction.

    References
    ----------
    .. [1] Błasiok, J. & Nakkiran, P. (2023). Smooth ECE: Principled reliability
       diagrams via kernel smoothing. arXiv:2309.12236 (ICLR 2024).

    Examples
    --------
    >>> r = smoothed_reliability([0, 1, 1, 0, 1], [0.1, 0.8, 0.7, 0.4, 0.9])
    >>> r.smooth_ece == smooth_ece([0, 1, 1, 0, 1], [0.1, 0.8, 0.7, 0.4, 0.9])
    True
    """
    f, outcomes = _event_pair(y, proba, kind)
    residual = f - outcomes
    sigma = _bandwidth_or_fixed_point(bandwidth, f, residual)
    t, s_r, s_1 = _smoothed_sums(f, residual, sigma)
    dens = s_1 + _DENSITY_FLOOR
    return SmoothedReliability(
        t=t,
        curve=t - s_r / dens,
        density=s_1 / f.shape[0],
        bandwidth=sigma,
        smooth_ece=float(np.sum(np.abs(s_r)) / np.sum(dens)),
        kind=kind,
    )

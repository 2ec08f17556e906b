"""The basis of the Bayesian P-spline calibration map: knots, B-splines, penalty root.

Helpers of :class:`bayescal.probes.calibration_maps.BayesianSplineCalibrator`
(re-exported there): equally spaced cubic B-spline knots whose base interval is
exactly the training range, the B-spline design matrix with a bayescal error
for points outside it, and the mixed-model root of the second-difference
penalty (Eilers & Marx 1996; Wand & Ormerod 2008).
"""

from __future__ import annotations

import numpy as np
from scipy.interpolate import BSpline

__all__ = ["penalised_spline_design", "spline_basis", "spline_knots"]


def penalised_spline_design(n_basis: int) -> np.ndarray:
    """Map iid random effects to B-spline coefficients with a second-difference penalty.

    Parameters
    ----------
    n_basis : int
        Number of B-spline coefficients ``K`` (at least 3).

    Returns
    -------
    ndarray of shape (K, K - 2)
        ``U_+ diag(lambda_+)^{-1/2}`` from the eigen-decomposition of the
        penalty ``P = D^T D`` (``D`` the second-difference matrix), restricted to
        its ``K - 2`` positive eigenvalues.

    Notes
    -----
    With ``c = U_+ diag(lambda_+)^{-1/2} u`` and ``u ~ N(0, tau^2 I)``, the
    prior density of ``c`` on the penalised subspace is proportional to
    ``exp(-c^T P c / (2 tau^2))`` -- the P-spline penalty of Eilers & Marx
    (1996) as a Gaussian prior -- while the null space of ``P`` (constant and
    linear sequences) is left out and modelled by fixed effects (the
    mixed-model representation of penalised splines, Wand & Ormerod 2008).

    Examples
    --------
    >>> root = penalised_spline_design(6)
    >>> D = np.diff(np.eye(6), n=2, axis=0)
    >>> np.allclose(root.T @ D.T @ D @ root, np.eye(4))
    True
    """
    D = np.diff(np.eye(n_basis), n=2, axis=0)
    eigval, eigvec = np.linalg.eigh(D.T @ D)
    keep = eigval > 1e-9 * eigval.max()
    return eigvec[:, keep] / np.sqrt(eigval[keep])


def spline_knots(lo: float, hi: float, n_basis: int, degree: int = 3) -> np.ndarray:
    """Knots of ``n_basis`` equally spaced B-splines whose base interval is exactly ``[lo, hi]``.

    Parameters
    ----------
    lo, hi : float
        Ends of the base interval (``lo < hi``).
    n_basis : int
        Number of basis functions (``> degree``).
    degree : int, default=3
        Spline degree.

    Returns
    -------
    ndarray of shape (n_basis + degree + 1,)
        ``degree`` knots below ``lo`` and above ``hi`` at the interior
        spacing; the inner knots are ``linspace(lo, hi, ...)``, so the base
        interval ends *are* ``lo`` and ``hi`` (no rounding puts a training
        point outside it).

    Examples
    --------
    >>> k = spline_knots(-1.0, 2.0, 6)
    >>> k[3], k[-4], k.size
    (np.float64(-1.0), np.float64(2.0), 10)
    """
    inner = np.linspace(lo, hi, n_basis - degree + 1)
    h = inner[1] - inner[0]
    steps = h * np.arange(degree, 0, -1)
    return np.concatenate([lo - steps, inner, hi + steps[::-1]])


def spline_basis(z: np.ndarray, knots: np.ndarray, degree: int = 3) -> np.ndarray:
    """B-spline design matrix at ``z`` (inside the knots' base interval).

    Parameters
    ----------
    z : ndarray of shape (n,)
        Points in ``[knots[degree], knots[-degree - 1]]``.
    knots : ndarray
        From :func:`spline_knots`.
    degree : int, default=3

    Returns
    -------
    ndarray of shape (n, len(knots) - degree - 1)

    Raises
    ------
    ValueError
        If a point lies outside the base interval (callers clip first and
        decide how to extrapolate).
    """
    lo, hi = knots[degree], knots[-degree - 1]
    z = np.asarray(z, dtype=float)
    outside = ~((z >= lo) & (z <= hi))
    if outside.any():
        raise ValueError(
            f"`z` has {int(outside.sum())} value(s) outside the spline's base interval "
            f"[{lo:.6g}, {hi:.6g}] (first: {z[outside][0]!r}); clip to the interval first."
        )
    return BSpline.design_matrix(z, knots, degree).toarray()

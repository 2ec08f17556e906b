"""Laplace approximation of the Bayesian spline map with its smoothness scale on a grid.

The spline map's posterior (:func:`bayescal.probes.calibration_maps.calibration_map_model`
with a basis) is ``p(beta, tau | y)`` for ``beta = (intercept, slope, u)``,
``u ~ N(0, tau^2 I)`` and ``tau`` half-Student-t. A joint Gaussian in
``(log tau, beta)`` at the joint mode is a poor fit: given ``tau`` the
coefficients are near-Gaussian, but ``tau`` couples to ``u`` as a funnel
(the spread of ``u`` is ``tau``), and ``log tau`` is skewed (its posterior
falls linearly towards ``tau -> 0``, where the map becomes Platt scaling on the
logit). The Pareto-smoothed importance check then failed (``k`` 0.7-1.0 on
ordinary held-out predictions of naive Bayes, random forests and logistic
regression).

This module integrates ``tau`` out on a grid, as the integrated nested
Laplace approximation does (Rue, Martino & Chopin 2009): for each ``log tau``
on the grid the conditional posterior of ``beta`` is approximated by a
Gaussian at its mode (Newton's method in NumPy), the Laplace estimate of
``p(y | tau)`` times the prior of ``log tau`` weighs the grid point, and the
approximation is the mixture: ``log tau`` uniform within the grid cell drawn
by its weight, ``beta`` from a Student-t (4 degrees of freedom) with that
cell's mode and Gaussian scale (heavier tails than the Gaussian's, which the
logistic likelihood under Cauchy priors needs). Its density is exact, so
the draws are checked against the model's exact log density by Pareto-smoothed
importance sampling (:func:`bayescal.inference.importance.pareto_smoothed_check`)
as every other Laplace fit of bayescal is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import expit, gammaln, log_expit

from bayescal.inference.laplace_glm import student_t_terms

__all__ = ["SmoothnessGrid", "SplineLogPosterior", "grid_laplace_fit", "smoothness_grid"]

#: Step of the coarse and the fine grid of ``log tau``.
_COARSE, _FINE = 0.5, 0.1
#: The fine grid covers ``log tau`` where the coarse log weight is within this of its maximum.
_SPAN = 14.0
#: Degrees of freedom of the conditional Student-t proposals (a Gaussian's tails are too
#: light for the logistic likelihood under Cauchy priors: Pareto k up to 0.79 on the
#: shared data sets against at most 0.68 with 4).
_DF = 4.0


@dataclass(frozen=True)
class SmoothnessGrid:
    """The grid approximation of ``p(log tau | y)`` and the conditional Gaussians.

    Attributes
    ----------
    log_tau : ndarray of shape (G,)
        Cell centres (cells of width ``step``).
    log_weight : ndarray of shape (G,)
        Normalised log posterior mass of each cell.
    modes : ndarray of shape (G, p)
        Conditional modes of ``beta`` given ``tau``.
    chol : ndarray of shape (G, p, p)
        Lower Cholesky factors of the conditional negative Hessians.
    step : float
    """

    log_tau: np.ndarray
    log_weight: np.ndarray
    modes: np.ndarray
    chol: np.ndarray
    step: float

    def tau_quantile(self, q: float) -> float:
        """A quantile of ``tau`` under the grid posterior (cell midpoints)."""
        cdf = np.cumsum(np.exp(self.log_weight))
        return float(np.exp(self.log_tau[min(np.searchsorted(cdf, q), cdf.size - 1)]))


class SplineLogPosterior:
    """Log posterior of ``beta`` given ``tau`` and of ``(log tau, beta)``."""

    def __init__(self, X, t, w, *, n_fixed, fixed_scales, prior_df, smoothness_scale,
                 smoothness_df):
        self.X, self.t, self.w = X, t, w
        self.n_fixed = n_fixed
        self.scales = np.asarray(fixed_scales, dtype=float)
        self.nu = float(prior_df)
        self.s_tau, self.nu_tau = float(smoothness_scale), float(smoothness_df)

    # --- priors -------------------------------------------------------------------
    def _t_terms(self, x):
        """Student-t log density, gradient, IRLS and exact curvature (the GLM probes'
        :func:`~bayescal.inference.laplace_glm.student_t_terms`, plus the IRLS weight)."""
        logp, grad, hess = student_t_terms(x, self.nu, self.scales)
        irls = (self.nu + 1.0) / (self.nu * self.scales**2 + x * x)
        return logp, grad, irls, -hess

    def log_tau_prior(self, log_tau):
        """Log density of ``log tau`` (half-Student-t or half-normal of ``tau``, Jacobian)."""
        tau = np.exp(log_tau)
        if np.isinf(self.nu_tau):
            return -0.5 * (tau / self.s_tau) ** 2 + log_tau
        nu = self.nu_tau
        const = (gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu * np.pi)
                 - np.log(self.s_tau) + np.log(2.0))
        return const - 0.5 * (nu + 1) * np.log1p((tau / self.s_tau) ** 2 / nu) + log_tau

    # --- conditional ---------------------------------------------------------------
    def conditional(self, beta, tau):
        """Log density of ``beta`` given ``tau`` (normalised Gaussian part), gradient,
        Newton curvature and exact negative Hessian."""
        eta = self.X @ beta
        p = expit(eta)
        loglik = float(np.sum(self.w * (self.t * log_expit(eta) + (1 - self.t) * log_expit(-eta))))
        grad = self.X.T @ (self.w * (self.t - p))
        info = (self.X * (self.w * p * (1 - p))[:, None]).T @ self.X
        f = self.n_fixed
        lp_t, g_t, irls_t, exact_t = self._t_terms(beta[:f])
        u = beta[f:]
        logp = (loglik + float(lp_t.sum()) - 0.5 * float(u @ u) / tau**2
                - u.size * (np.log(tau) + 0.5 * np.log(2 * np.pi)))
        grad[:f] += g_t
        grad[f:] -= u / tau**2
        newton = info.copy()
        newton[np.arange(f), np.arange(f)] += irls_t
        newton[np.arange(f, beta.size), np.arange(f, beta.size)] += 1.0 / tau**2
        exact = newton.copy()
        exact[np.arange(f), np.arange(f)] += exact_t - irls_t
        return logp, grad, newton, exact

    def mode(self, tau, beta0):
        """Newton's method with step halving for the conditional mode; its negative Hessian."""
        beta = beta0.copy()
        logp, grad, newton, exact = self.conditional(beta, tau)
        for _ in range(100):
            step = np.linalg.solve(newton, grad)
            size = 1.0
            while True:
                trial = beta + size * step
                new = self.conditional(trial, tau)
                if new[0] >= logp - 1e-10 or size < 1e-8:
                    break
                size *= 0.5
            beta, (logp, grad, newton, exact) = trial, new
            if np.max(np.abs(size * step)) < 1e-9 * (1 + np.max(np.abs(beta))):
                break
        return beta, logp, exact, newton

    def joint(self, log_tau, beta):
        """Exact log density of ``(log tau, beta)`` for rows of draws (up to a constant)."""
        out = np.empty(log_tau.size)
        f = self.n_fixed
        for start in range(0, log_tau.size, 200):
            sl = slice(start, start + 200)
            eta = beta[sl] @ self.X.T
            loglik = np.sum(self.w * (self.t * log_expit(eta) + (1 - self.t) * log_expit(-eta)),
                            axis=1)
            lp_t = self._t_terms(beta[sl, :f])[0].sum(axis=1)
            u = beta[sl, f:]
            tau = np.exp(log_tau[sl])
            prior_u = (-0.5 * np.sum(u * u, axis=1) / tau**2
                       - u.shape[1] * (log_tau[sl] + 0.5 * np.log(2 * np.pi)))
            out[sl] = loglik + lp_t + prior_u + self.log_tau_prior(log_tau[sl])
        return out


def _evaluate(problem: SplineLogPosterior, log_taus: np.ndarray, beta0: np.ndarray):
    """Conditional modes, Cholesky factors and Laplace log weights along a grid."""
    order = np.argsort(-log_taus)  # from large tau down: warm starts from the flexible fit
    p = beta0.size
    modes, chols, logw = np.empty((log_taus.size, p)), np.empty((log_taus.size, p, p)), \
        np.empty(log_taus.size)
    beta = beta0
    for i in order:
        tau = float(np.exp(log_taus[i]))
        beta, logp, exact, newton = problem.mode(tau, beta)
        try:
            chol = np.linalg.cholesky(exact)
        except np.linalg.LinAlgError:  # a Student-t prior's curvature turned: its IRLS weight
            chol = np.linalg.cholesky(newton)
        modes[i], chols[i] = beta, chol
        logw[i] = (logp + 0.5 * p * np.log(2 * np.pi) - np.sum(np.log(np.diag(chol)))
                   + problem.log_tau_prior(log_taus[i]))
    return modes, chols, logw


def smoothness_grid(problem: SplineLogPosterior) -> SmoothnessGrid:
    """Coarse grid of ``log tau`` to find its posterior mass, then a fine grid over it."""
    beta0 = np.zeros(problem.X.shape[1])
    centre = np.log(problem.s_tau)
    coarse = np.arange(centre - 12.0, centre + 8.0 + 1e-9, _COARSE)
    _, _, logw = _evaluate(problem, coarse, beta0)
    keep = np.flatnonzero(logw > logw.max() - _SPAN)
    lo, hi = coarse[keep[0]] - _COARSE, coarse[keep[-1]] + _COARSE
    fine = np.arange(lo, hi + 1e-9, _FINE)
    modes, chols, logw = _evaluate(problem, fine, beta0)
    logw = logw - logw.max()
    logw = logw - np.log(np.exp(logw).sum())
    return SmoothnessGrid(fine, logw, modes, chols, _FINE)


def grid_laplace_draws(problem: SplineLogPosterior, grid: SmoothnessGrid, n_draws: int,
                       rng: np.random.Generator):
    """Draws of ``(log tau, beta)`` from the grid mixture and both log densities."""
    cell = rng.choice(grid.log_tau.size, size=n_draws, p=np.exp(grid.log_weight))
    log_tau = grid.log_tau[cell] + grid.step * (rng.random(n_draws) - 0.5)
    n_par = grid.modes.shape[1]
    g = rng.standard_normal((n_draws, n_par))
    # multivariate Student-t with _DF degrees of freedom around each conditional mode
    z = g * np.sqrt(_DF / rng.chisquare(_DF, n_draws))[:, None]
    # beta = mode + L^{-T} z has density N(mode, (L L^T)^{-1})
    beta = np.empty_like(z)
    for j in np.unique(cell):
        rows = cell == j
        beta[rows] = grid.modes[j] + solve_triangular(grid.chol[j], z[rows].T, lower=True,
                                                      trans="T").T
    quad = np.sum(z * z, axis=1)
    kernel = -0.5 * (_DF + n_par) * np.log1p(quad / _DF)
    log_approx = (grid.log_weight[cell] - np.log(grid.step) + kernel
                  + np.sum(np.log(np.diagonal(grid.chol[cell], axis1=1, axis2=2)), axis=1))
    return log_tau, beta, problem.joint(log_tau, beta), log_approx


def grid_laplace_fit(problem: SplineLogPosterior, grid: SmoothnessGrid, information: np.ndarray,
                     *, n_draws: int, random_state) -> Any:
    """Checked draws of the grid approximation in the spline model's variables.

    Returns a :class:`~bayescal.inference.sampling.PosteriorFit` with
    ``intercept``, ``coef``, ``tau``, ``innovations`` (``u_k / tau^(a_k)`` for
    the non-centring powers ``a_k = 1 / (1 + tau^2 d_k)`` of the basis'
    ``information`` ``d_k``) and ``spline_effect`` (``u``),
    resampled by their importance weights where the Pareto shape passes.
    """
    import time

    import xarray as xr

    from bayescal.inference.importance import pareto_smoothed_check
    from bayescal.inference.sampling import PosteriorFit, seed_from_random_state

    start = time.perf_counter()
    rng = np.random.default_rng(seed_from_random_state(random_state))
    log_tau, beta, log_density, log_approx = grid_laplace_draws(problem, grid, n_draws, rng)
    check = pareto_smoothed_check(log_density, log_approx, rng)
    idx = check.indices
    f = problem.n_fixed
    tau = np.exp(log_tau[idx])
    u = beta[idx, f:]
    n_basis = u.shape[1]
    power = 1.0 / (1.0 + tau[:, None] ** 2 * information[None, :])
    posterior = xr.Dataset(
        {
            "intercept": (("chain", "draw"), beta[idx, 0][None]),
            "coef": (("chain", "draw", "feature"), beta[idx, 1:f][None]),
            "tau": (("chain", "draw"), tau[None]),
            "innovations": (("chain", "draw", "basis"),
                            (u / tau[:, None] ** power)[None]),
            "spline_effect": (("chain", "draw", "basis"), u[None]),
        },
        coords={"chain": [0], "draw": np.arange(idx.size), "feature": np.arange(f - 1),
                "basis": np.arange(n_basis)},
    )
    idata = xr.DataTree.from_dict({"posterior": posterior})
    return PosteriorFit(idata=idata, seconds=time.perf_counter() - start, sampler="laplace",
                        compiled=False, mode=None, pareto_k=check.pareto_k)

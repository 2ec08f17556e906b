"""Laplace approximation of Student-t-prior logistic models by Newton's method, in NumPy.

The GLM probes of bayescal -- binary Bayesian logistic regression
(:func:`bayescal.probes.logistic.blr_model`) and the Bayesian Platt and beta
calibration maps (:func:`bayescal.probes.calibration_maps.calibration_map_model`)
-- share one log posterior: a weighted logistic log-likelihood of soft
targets, Student-t (Cauchy) priors on the intercept and coefficients, and for
the beta map half-Student-t priors on coefficients sampled on the log scale
with the intercept taken at the feature centre. :class:`LogisticGLM` writes
that density, its exact gradient and Hessian in NumPy, term for term as the
PyMC builders write it (the same unconstrained parameters, the same
log-Jacobian of the log transform, the same constants), so that
:func:`newton_mode` finds the posterior mode in a handful of
``O(n p^2)`` steps with no graph compilation and the Hessian at the mode is
exact rather than a finite difference. :func:`bayescal.probes.sampling.sample_posterior`
uses it for ``inference="laplace"`` whenever a builder offers a ``glm_problem``.

Notes
-----
With parameters ``phi = (c_0, beta)``, ``eta = c_0 + G beta`` (``G = F - m``,
``m`` the centre; ``m = 0`` without centring) and ``c = c_0 - m^T beta``,

.. math::

    \\log p = \\sum_i w_i [t_i \\log\\sigma(\\eta_i) + (1 - t_i)\\log(1-\\sigma(\\eta_i))]
    + \\log t_\\nu(c; s_0) + \\sum_j \\log t_\\nu(\\beta_j; s)

(half-Student-t, with ``log 2``, for positive coefficients). Positive
coefficients are parameterised as ``beta_j = exp(u_j)``, adding ``u_j`` (the
log-Jacobian). The Cauchy prior is not log-concave, so the negative Hessian
can be indefinite away from the mode: :func:`newton_mode` then adds a
multiple of the identity (Levenberg-Marquardt damping) and backtracks along
the step until the log posterior increases.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import expit, gammaln

__all__ = ["GLMProblem", "LogisticGLM", "gaussian_draws_at_mode", "laplace_glm_draws",
           "newton_mode"]

#: Rows of the design processed at once when the log density is evaluated at many draws.
_CHUNK_ELEMENTS = 4_000_000


def _student_t_terms(x: np.ndarray, nu: float, scale: float) -> tuple:
    """Log density of ``t_nu(0, scale)`` at ``x``, and its first two derivatives."""
    const = gammaln((nu + 1.0) / 2.0) - gammaln(nu / 2.0) - 0.5 * np.log(nu * np.pi) - np.log(scale)
    q = nu * scale * scale + x * x
    value = const - 0.5 * (nu + 1.0) * np.log1p(x * x / (nu * scale * scale))
    grad = -(nu + 1.0) * x / q
    hess = -(nu + 1.0) * (nu * scale * scale - x * x) / (q * q)
    return value, grad, hess


@dataclass(frozen=True)
class LogisticGLM:
    """The log posterior of a Student-t-prior logistic model, with its derivatives.

    Parameters
    ----------
    design : ndarray of shape (n, m)
        Features ``F`` (not centred; the centre is subtracted here).
    targets : ndarray of shape (n,)
        Targets in [0, 1] (labels or soft targets).
    weights : ndarray of shape (n,)
        Non-negative row weights.
    prior_scale, intercept_scale, prior_df : float
        Student-t scales of the coefficients and the intercept, and the
        degrees of freedom (1: Cauchy).
    positive : bool, default=False
        Half-Student-t priors on the coefficients, which are parameterised by
        their logarithms.
    centre : ndarray of shape (m,), optional
        Where the intercept is parameterised (``c_0 = c + m^T beta``); default
        no centring.

    Notes
    -----
    The parameter vector is ``theta = (c_0, u_1, ..., u_m)`` with
    ``u_j = beta_j`` (or ``log beta_j`` when ``positive``).
    """

    design: np.ndarray
    targets: np.ndarray
    weights: np.ndarray
    prior_scale: float
    intercept_scale: float
    prior_df: float
    positive: bool = False
    centre: np.ndarray | None = None
    _centred: np.ndarray = field(init=False, repr=False)
    _b: np.ndarray = field(init=False, repr=False)
    _tw: float = field(init=False, repr=False)
    _gtw: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        m = self.design.shape[1]
        centre = np.zeros(m) if self.centre is None else np.asarray(self.centre, dtype=float)
        centred = np.ascontiguousarray(self.design - centre, dtype=float)
        object.__setattr__(self, "_centred", centred)
        object.__setattr__(self, "_b", np.concatenate([[1.0], -centre]))
        # sufficient statistics of the linear part of the log-likelihood: sum w t eta
        wt = self.weights * self.targets
        object.__setattr__(self, "_tw", float(wt.sum()))
        object.__setattr__(self, "_gtw", centred.T @ wt)

    @property
    def n_params(self) -> int:
        """Length of the parameter vector ``theta``."""
        return 1 + self.design.shape[1]

    def coefficients(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(c, beta)`` (intercept on the uncentred features, coefficients) of ``theta``.

        ``theta`` may be one vector ``(p,)`` or draws ``(S, p)``.
        """
        theta = np.asarray(theta, dtype=float)
        coef = np.exp(theta[..., 1:]) if self.positive else theta[..., 1:]
        c = theta[..., 0] + coef @ self._b[1:]
        return c, coef

    def _prior(self, theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        """Prior log density (with log-Jacobian), ``phi``-gradient and ``phi``-Hessian."""
        c, coef = self.coefficients(theta)
        nu = self.prior_df
        vc, gc, hc = _student_t_terms(np.asarray(c), nu, self.intercept_scale)
        vb, gb, hb = _student_t_terms(coef, nu, self.prior_scale)
        value = float(vc) + float(vb.sum())
        if self.positive:
            value += coef.size * np.log(2.0) + float(theta[1:].sum())
        grad = float(gc) * self._b
        grad[1:] += gb
        hess = float(hc) * np.outer(self._b, self._b)
        hess[np.diag_indices(1 + coef.size)] += np.concatenate([[0.0], hb])
        return value, grad, hess, coef

    def log_density(self, theta: np.ndarray) -> float:
        """The log posterior (unnormalised, PyMC's ``model.logp(jacobian=True)``) at ``theta``."""
        return self.value_grad_hess(theta, derivatives=False)[0]

    def value_grad_hess(
        self, theta: np.ndarray, *, derivatives: bool = True
    ) -> tuple[float, np.ndarray | None, np.ndarray | None]:
        """Log posterior, its gradient and Hessian with respect to ``theta``.

        Parameters
        ----------
        theta : ndarray of shape (p,)
        derivatives : bool, default=True
            False returns ``(value, None, None)``.

        Returns
        -------
        value : float
        grad : ndarray of shape (p,)
        hess : ndarray of shape (p, p)
        """
        theta = np.asarray(theta, dtype=float)
        value, gprior, hprior, coef = self._prior(theta)
        eta = theta[0] + self._centred @ coef
        # sum w [t log sigma(eta) + (1 - t) log(1 - sigma(eta))] = sum w t eta - sum w log1pexp(eta)
        value += theta[0] * self._tw + float(self._gtw @ coef)
        value -= float(self.weights @ np.logaddexp(0.0, eta))
        if not derivatives:
            return value, None, None
        p = expit(eta)
        r = self.weights * (self.targets - p)
        d = self.weights * p * (1.0 - p)
        grad = gprior.copy()
        grad[0] += r.sum()
        grad[1:] += self._centred.T @ r
        G = self._centred
        dG = G * d[:, None]
        hess = hprior.copy()
        hess[0, 0] -= d.sum()
        col = dG.sum(axis=0)
        hess[0, 1:] -= col
        hess[1:, 0] -= col
        hess[1:, 1:] -= G.T @ dG
        if self.positive:  # chain rule through beta = exp(u)
            jac = np.concatenate([[1.0], coef])
            curvature = np.concatenate([[0.0], grad[1:] * coef])
            hess = hess * np.outer(jac, jac) + np.diag(curvature)
            grad = grad * jac
            grad[1:] += 1.0  # the log-Jacobian sum(u)
        return value, grad, hess

    def value_and_grad(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """Log posterior and its gradient at ``theta``, without the Hessian.

        The same density as :meth:`value_grad_hess`, written for NUTS, which
        evaluates it thousands of times: one ``exp`` per row (``e = exp(-|eta|)``
        gives both ``log(1 + exp(eta))`` and ``sigma(eta)``, vectorised by NumPy)
        and two BLAS products with the design.

        Parameters
        ----------
        theta : ndarray of shape (p,)

        Returns
        -------
        value : float
        grad : ndarray of shape (p,)
        """
        theta = np.asarray(theta, dtype=float)
        c, coef = self.coefficients(theta)
        nu = self.prior_df
        vc, gc, _ = _student_t_terms(np.asarray(c), nu, self.intercept_scale)
        vb, gb, _ = _student_t_terms(coef, nu, self.prior_scale)
        eta = self._centred @ coef
        eta += theta[0]
        e = np.exp(-np.abs(eta))
        softplus = np.maximum(eta, 0.0)
        softplus += np.log1p(e)
        # sigma(eta) = where(eta >= 0, 1, e) / (1 + e); max(e, eta >= 0) is the same
        # numbers (e <= 1) at a seventh of np.where's cost on random signs
        p = np.maximum(e, eta >= 0.0)
        p /= 1.0 + e
        value = float(vc) + float(vb.sum()) + theta[0] * self._tw + float(self._gtw @ coef)
        value -= float(self.weights @ softplus)
        r = self.weights * (self.targets - p)
        grad = float(gc) * self._b
        grad[1:] += gb
        grad[0] += r.sum()
        grad[1:] += self._centred.T @ r
        if self.positive:  # chain rule through beta = exp(u), and the log-Jacobian sum(u)
            value += coef.size * np.log(2.0) + float(theta[1:].sum())
            grad[1:] = grad[1:] * coef + 1.0
        return value, grad

    def log_density_many(self, thetas: np.ndarray) -> np.ndarray:
        """The log posterior at each row of ``thetas`` ``(S, p)``, shape ``(S,)``.

        Evaluated in chunks of rows so that memory stays bounded.
        """
        thetas = np.atleast_2d(np.asarray(thetas, dtype=float))
        c0 = thetas[:, 0]
        coef = np.exp(thetas[:, 1:]) if self.positive else thetas[:, 1:]
        c = c0 + coef @ self._b[1:]
        nu = self.prior_df
        out = _student_t_terms(c, nu, self.intercept_scale)[0]
        out = out + _student_t_terms(coef, nu, self.prior_scale)[0].sum(axis=1)
        if self.positive:
            out = out + coef.shape[1] * np.log(2.0) + thetas[:, 1:].sum(axis=1)
        out = out + c0 * self._tw + coef @ self._gtw
        n = self._centred.shape[0]
        step = max(1, _CHUNK_ELEMENTS // max(thetas.shape[0], 1))
        softplus = np.zeros(thetas.shape[0])
        for start in range(0, n, step):
            rows = slice(start, start + step)
            eta = self._centred[rows] @ coef.T
            eta += c0
            softplus += self.weights[rows] @ np.logaddexp(0.0, eta)
        return out - softplus

    def start(self) -> np.ndarray:
        """The starting point of Newton's method (coefficients 0, or 1 when positive)."""
        return np.zeros(self.n_params)


def newton_mode(
    value_grad_hess: Callable[[np.ndarray], tuple[float, np.ndarray, np.ndarray]],
    x0: np.ndarray,
    *,
    max_iter: int = 200,
    gtol: float = 1e-10,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Maximise a smooth log density by damped Newton steps with backtracking.

    Parameters
    ----------
    value_grad_hess : callable
        ``theta -> (log density, gradient, Hessian)``.
    x0 : ndarray of shape (p,)
        Starting point.
    max_iter : int, default=200
        Largest number of Newton steps.
    gtol : float, default=1e-10
        Converged when the Newton decrement ``g^T H^{-1} g / 2`` falls below
        ``gtol`` (and the negative Hessian is positive definite).

    Returns
    -------
    mode : ndarray of shape (p,)
    neg_hessian : ndarray of shape (p, p)
        The negative Hessian of the log density at ``mode``.
    n_iter : int
        Newton steps taken.

    Raises
    ------
    RuntimeError
        When no step increases the log density before convergence, or the
        iteration limit is reached, or the negative Hessian at the end is not
        positive definite.
    """
    x = np.asarray(x0, dtype=float).copy()
    value, grad, hess = value_grad_hess(x)
    for it in range(1, max_iter + 1):
        neg = -hess
        damping = 0.0
        scale = max(1.0, float(np.abs(np.diag(neg)).max()))
        while True:  # Levenberg-Marquardt: make the system positive definite
            try:
                chol = np.linalg.cholesky(neg + damping * np.eye(x.size))
                break
            except np.linalg.LinAlgError:
                damping = max(1e-8 * scale, 10.0 * damping)
                if damping > 1e12 * scale:
                    raise RuntimeError("Newton's method found no ascent direction.") from None
        step = np.linalg.solve(chol.T, np.linalg.solve(chol, grad))
        decrement = 0.5 * float(grad @ step)
        if damping == 0.0 and decrement < gtol:
            # one last full step: quadratic convergence makes the gradient negligible
            candidate = x + step
            new_value, _, new_hess = value_grad_hess(candidate)
            if np.isfinite(new_value) and new_value >= value - 1e-12 * abs(value):
                return candidate, -new_hess, it
            return x, neg, it - 1
        t = 1.0
        while True:  # backtracking (Armijo) line search
            candidate = x + t * step
            new_value, new_grad, new_hess = value_grad_hess(candidate)
            if np.isfinite(new_value) and new_value >= value + 1e-4 * t * float(grad @ step):
                break
            t *= 0.5
            if t < 1e-12:
                if damping == 0.0 and decrement < 1e3 * gtol:
                    return x, neg, it - 1  # at the mode to rounding
                raise RuntimeError("Newton's line search failed to increase the log posterior.")
        x, value, grad, hess = candidate, new_value, new_grad, new_hess
    raise RuntimeError(f"Newton's method did not converge in {max_iter} steps.")


@dataclass(frozen=True)
class GLMProblem:
    """A model's log posterior as a :class:`LogisticGLM` and how to name its draws.

    Returned by a builder's ``glm_problem(data, **hyper)`` (``None`` when the
    model is not of this form).

    Attributes
    ----------
    glm : LogisticGLM
    outputs : callable
        ``thetas (S, p) -> {name: (values of shape (S, ...), dims)}``: the
        posterior variables the PyMC builder's model would report.
    coords : mapping
        Coordinates of the named dims.
    """

    glm: LogisticGLM
    outputs: Callable[[np.ndarray], dict[str, tuple[np.ndarray, tuple[str, ...]]]]
    coords: Mapping[str, Any]


def _tree(problem: GLMProblem, thetas: np.ndarray) -> Any:
    import xarray as xr

    data_vars = {
        name: (("chain", "draw", *dims), values[None])
        for name, (values, dims) in problem.outputs(thetas).items()
    }
    coords = {**problem.coords, "chain": [0], "draw": np.arange(thetas.shape[0])}
    return xr.DataTree.from_dict({"posterior": xr.Dataset(data_vars, coords=coords)})


def laplace_glm_draws(
    problem: GLMProblem, *, n_draws: int, seed: int
) -> tuple[Any, dict[str, np.ndarray], float]:
    """Laplace approximation of a :class:`GLMProblem`, checked by importance sampling.

    Parameters
    ----------
    problem : GLMProblem
    n_draws : int
        Draws from the Gaussian approximation.
    seed : int

    Returns
    -------
    idata : xarray.DataTree
        ``posterior`` group with one chain of ``n_draws`` draws: resampled by
        their Pareto-smoothed importance weights when the Pareto shape is
        acceptable, the approximation's own draws otherwise.
    mode : dict of str to ndarray
        The posterior variables at the mode.
    pareto_k : float
        The Pareto shape (:func:`bayescal.probes.importance.pareto_smoothed_check`).

    Raises
    ------
    RuntimeError
        When Newton's method fails or the Hessian at the mode is not positive
        definite (the message says to use ``inference='nuts'``).
    """
    from bayescal.probes.importance import pareto_smoothed_check

    glm = problem.glm
    try:
        mode, neg_hessian, _ = newton_mode(glm.value_grad_hess, glm.start())
    except RuntimeError as err:
        raise RuntimeError(
            f"Laplace approximation failed: {err} Use inference='nuts'."
        ) from None
    rng, z, thetas = gaussian_draws_at_mode(mode, neg_hessian, n_draws, seed)
    check = pareto_smoothed_check(glm.log_density_many(thetas), -0.5 * (z * z).sum(axis=1), rng)
    at_mode = {name: values[0] for name, (values, _) in problem.outputs(mode[None]).items()}
    return _tree(problem, thetas[check.indices]), at_mode, check.pareto_k


def gaussian_draws_at_mode(
    mode: np.ndarray, neg_hessian: np.ndarray, n_draws: int, seed: int
) -> tuple[np.random.Generator, np.ndarray, np.ndarray]:
    """Draws of the Laplace approximation ``N(mode, H^{-1})`` (``H`` the negative Hessian).

    Returns the generator (for the importance check that follows), the standard
    normal ``z`` of shape ``(n_draws, d)`` and the draws ``mode + V diag(1/sqrt(lambda)) z``
    (covariance ``H^{-1}``). Raises ``RuntimeError`` naming the remedy when ``H``
    is not positive definite at the mode. Shared by the NumPy GLM path and the
    compiled PyMC path (:mod:`bayescal.probes.sampling`).
    """
    eigval, eigvec = np.linalg.eigh(neg_hessian)
    if not np.all(np.isfinite(eigval)) or eigval.min() <= 0:
        raise RuntimeError(
            "Laplace approximation failed: the Hessian of the negative log-posterior at the "
            f"mode is not positive definite (smallest eigenvalue {eigval.min():.3g}). "
            "Use inference='nuts'."
        )
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n_draws, mode.size))
    return rng, z, mode + (z / np.sqrt(eigval)) @ eigvec.T

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
exact rather than a finite difference. :func:`bayescal.inference.sampling.sample_posterior`
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
from scipy.special import gammaln

__all__ = ["GLMProblem", "LogisticGLM", "gaussian_draws_at_mode", "laplace_glm_draws",
           "newton_mode", "student_t_terms"]

#: Elements (rows x draws) of the linear-predictor block evaluated at once when the log
#: density is evaluated at many draws: 2^17 (512 KiB in single precision, the check's)
#: stay in a core's L2 cache between the matrix product that writes them and the pass
#: that reads them.
_CHUNK_ELEMENTS = 131_072

#: From this many rows, Newton's method takes its first steps (until the Newton
#: decrement falls below :data:`_SINGLE_NEWTON_DECREMENT`) in single precision and
#: finishes in double precision, which gives the mode and the Hessian at it: an
#: iterate's Hessian only sets the direction of the next step (:func:`_posterior_mode`).
_SINGLE_NEWTON_ROWS = 2_000

#: Rows of the scaled design ``G diag(root)`` formed at once for the Hessian's product
#: (:meth:`LogisticGLM._scaled_products`): 4096 x 20 doubles (640 KiB) stay in cache.
_HESSIAN_BLOCK_ROWS = 4096

#: The Newton decrement at which the single-precision steps hand over to double
#: precision (:func:`_posterior_mode`): below it one chord step in double precision
#: reaches a decrement below 1e-12 (at 10^-3 it did not on rare-event posteriors).
_SINGLE_NEWTON_DECREMENT = 1e-4

#: Below this Newton decrement the mode is taken one Newton step beyond the last point
#: evaluated in double precision, and the Hessian at that point is returned
#: (:func:`_posterior_mode`): the step's Mahalanobis length is below 1.5e-6.
_UNEVALUATED_STEP_DECREMENT = 1e-12

#: Factors ``1 + exp(-|eta|)``, each in (1, 2], multiplied before one logarithm: at most
#: 2^120, inside single precision's range (2^128).
_PRODUCT_ROWS = 120


#: Rows x draws from which :meth:`LogisticGLM.log_density_many` (single precision,
#: equal weights) takes ``prod(1 + exp(-zeta))`` in the compiled kernel
#: :func:`bayescal._kernels.softplus.exp_plus_one_products` (one pass instead of
#: NumPy's exp, add and multiply-reduce: 1.4x as fast at 10^3 rows x 2000 draws, 1.6x at
#: 5 x 10^4 x 256): from 10^3 rows at 2000 draws. Below it, small calibration maps
#: included, NumPy, so that a process that fits only those never starts numba (its
#: first kernel call loads the cached kernel and numba's CPU target, about 0.3 CPU-s).
_COMPILED_MIN_ELEMENTS = 2_000_000


def _use_compiled_products(n_rows: int, n_draws: int) -> bool:
    """Whether the single-precision log density takes its products in the numba kernel."""
    return n_rows * n_draws >= _COMPILED_MIN_ELEMENTS


def student_t_terms(x: np.ndarray, nu: float, scale: float | np.ndarray) -> tuple:
    """Log density of ``t_nu(0, scale)`` at ``x``, and its first two derivatives
    (``scale`` may be an array broadcasting with ``x``)."""
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
    _wsum: float = field(init=False, repr=False)
    _gw: np.ndarray = field(init=False, repr=False)
    _cache: dict = field(init=False, repr=False)

    def __post_init__(self) -> None:
        m = self.design.shape[1]
        centre = np.zeros(m) if self.centre is None else np.asarray(self.centre, dtype=float)
        if self.centre is None:  # no copy of a design that is already C-ordered doubles
            centred = np.ascontiguousarray(self.design, dtype=float)
        else:
            centred = np.ascontiguousarray(self.design - centre, dtype=float)
        object.__setattr__(self, "_centred", centred)
        object.__setattr__(self, "_b", np.concatenate([[1.0], -centre]))
        # sufficient statistics of the linear part of the log-likelihood: sum w t eta
        wt = self.weights * self.targets
        object.__setattr__(self, "_tw", float(wt.sum()))
        object.__setattr__(self, "_gtw", centred.T @ wt)
        # and of sum w eta (half of sum w max(eta, 0) = (sum w eta + sum w |eta|) / 2)
        object.__setattr__(self, "_wsum", float(np.sum(self.weights)))
        object.__setattr__(self, "_gw", centred.T @ self.weights)
        object.__setattr__(self, "_cache", {})

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
        vc, gc, hc = student_t_terms(np.asarray(c), nu, self.intercept_scale)
        vb, gb, hb = student_t_terms(coef, nu, self.prior_scale)
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
        self, theta: np.ndarray, *, derivatives: bool = True, single: bool = False
    ) -> tuple[float, np.ndarray | None, np.ndarray | None]:
        """Log posterior, its gradient and Hessian with respect to ``theta``.

        Parameters
        ----------
        theta : ndarray of shape (p,)
        derivatives : bool, default=True
            False returns ``(value, None, None)``.
        single : bool, default=False
            The gradient's and the Hessian's products with the design in single
            precision (the value, the linear predictors and the element-wise
            terms in double): 1.5x as fast at n = 5 x 10^4, for the Newton
            steps before the last (:func:`_posterior_mode`).

        Returns
        -------
        value : float
        grad : ndarray of shape (p,)
        hess : ndarray of shape (p, p)

        Notes
        -----
        The row-wise terms go into buffers kept with the instance (allocated at
        the first call): one instance is not to be evaluated from two threads
        at once.
        """
        theta = np.asarray(theta, dtype=float)
        value, gprior, hprior, coef = self._prior(theta)
        design = self._centred if not single else self._design_single()
        work = self._workspace(design.dtype)
        # the linear predictor in double precision whatever ``single`` says: rounding
        # the intercept to single precision alone would move the value by n * 2^-24 |c_0|
        # (1e-3 at n = 10^4, c_0 = -6), more than a Newton step near the mode gains
        eta = np.matmul(self._centred, coef, out=work["eta"])
        eta += theta[0]
        # sum w [t log sigma(eta) + (1 - t) log(1 - sigma(eta))] = sum w t eta - sum w log1pexp(eta),
        # log1pexp(eta) = max(eta, 0) + log1p(exp(-|eta|)): one vectorised exp and log1p per row,
        # in double precision, into buffers kept with the problem (no allocation per step)
        e, one_plus, r = work["a"], work["b"], work["c"]
        np.abs(eta, out=e)
        value += theta[0] * self._tw + float(self._gtw @ coef)
        value -= 0.5 * (theta[0] * self._wsum + float(self._gw @ coef) + float(self.weights @ e))
        np.negative(e, out=e)
        np.exp(e, out=e)
        value -= float(self.weights @ np.log1p(e, out=one_plus))
        if not derivatives:
            return value, None, None
        np.add(e, 1.0, out=one_plus)
        # sigma(eta) = where(eta >= 0, 1, e) / (1 + e), then r = w (t - sigma)
        np.maximum(e, eta >= 0.0, out=r)
        r /= one_plus
        np.subtract(self.targets, r, out=r)
        r *= self.weights
        # w sigma (1 - sigma) = w e / (1 + e)^2 = root^2: the Hessian's likelihood part is
        # (1, G)^T diag(root^2) (1, G)
        root = e
        root *= self.weights
        np.sqrt(root, out=root)
        root /= one_plus
        grad = gprior.copy()
        grad[0] += r.sum()
        hess = hprior.copy()
        hess[0, 0] -= float(root @ root)
        if design.dtype == np.float64:
            grad[1:] += design.T @ r
        else:
            cast = work["cast"]  # the single-precision products take single-precision vectors
            np.copyto(cast, r, casting="same_kind")
            grad[1:] += design.T @ cast
            np.copyto(cast, root, casting="same_kind")
            root = cast
        column, block_hess = self._scaled_products(design, root, work["block"])
        hess[0, 1:] -= column
        hess[1:, 0] -= column
        hess[1:, 1:] -= block_hess
        if self.positive:  # chain rule through beta = exp(u)
            jac = np.concatenate([[1.0], coef])
            curvature = np.concatenate([[0.0], grad[1:] * coef])
            hess = hess * np.outer(jac, jac) + np.diag(curvature)
            grad = grad * jac
            grad[1:] += 1.0  # the log-Jacobian sum(u)
        return value, grad, hess

    @staticmethod
    def _scaled_products(
        design: np.ndarray, root: np.ndarray, buffer: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``G^T root^2`` and ``(G root)^T (G root)``, a block of rows at a time.

        Each block of ``G root`` (rows scaled) is written into ``buffer`` and
        stays in cache for its symmetric product (BLAS ``syrk``), so no
        ``n x m`` temporary is allocated: as fast as one product on the whole
        scaled design, and no fresh memory for the system to fault in.
        """
        n_rows, m = design.shape
        column, product = np.zeros(m), np.zeros((m, m))
        step = buffer.shape[0]
        for start in range(0, n_rows, step):
            stop = min(start + step, n_rows)
            scaled = buffer[: stop - start]
            np.multiply(design[start:stop], root[start:stop, None], out=scaled)
            column += scaled.T @ root[start:stop]
            product += scaled.T @ scaled
        return column, product

    def _workspace(self, dtype: np.dtype) -> dict[str, np.ndarray]:
        """Buffers of :meth:`value_grad_hess` for a design of ``dtype``, allocated once."""
        key = ("workspace", np.dtype(dtype))
        if key not in self._cache:
            n_rows, m = self._centred.shape
            work = {name: np.empty(n_rows) for name in ("a", "b", "c")}
            work["eta"] = np.empty(n_rows)
            work["cast"] = np.empty(n_rows, dtype=dtype)
            work["block"] = np.empty((min(n_rows, _HESSIAN_BLOCK_ROWS), m), dtype=dtype)
            self._cache[key] = work
        return self._cache[key]

    def _design_single(self) -> np.ndarray:
        """``G`` in single precision, built once."""
        if "design_single" not in self._cache:
            self._cache["design_single"] = self._centred.astype(np.float32)
        return self._cache["design_single"]

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
        vc, gc, _ = student_t_terms(np.asarray(c), nu, self.intercept_scale)
        vb, gb, _ = student_t_terms(coef, nu, self.prior_scale)
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

    def log_density_many(self, thetas: np.ndarray, *, single: bool = False) -> np.ndarray:
        """The log posterior at each row of ``thetas`` ``(S, p)``, shape ``(S,)``.

        Parameters
        ----------
        thetas : ndarray of shape (S, p) or (p,)
        single : bool, default=False
            Evaluate the linear predictors and their ``log1pexp`` in single
            precision (large sums in double precision), 1.6x as fast; see Notes.

        Notes
        -----
        The cost is ``O(n S p)``: the linear predictors of all draws are one
        matrix product ``G B`` (``B`` the draws' coefficients, ``(p, S)``),
        taken a block of rows at a time so that the block stays in cache
        and memory stays bounded. Of
        ``sum_i w_i log1pexp(eta_is) = (sum_i w_i eta_is + sum_i w_i |eta_is|) / 2
        + sum_i w_i log1p(exp(-|eta_is|))`` the first sum is linear in the
        parameters (sufficient statistics ``G^T w``), the others take one
        absolute value, one ``exp`` and one ``log1p`` per element, which NumPy
        evaluates with SIMD instructions (about 1 ns each, against tens for
        ``np.logaddexp``'s scalar loop); with equal weights the ``log1p`` of
        120 rows are one ``log`` of the product of their ``1 + exp(-|eta|)``. ``log1p(exp(-|eta|))`` is exact to
        rounding for every ``eta``, tiny ``exp(-|eta|)`` included
        (``tests/probes/test_laplace_glm.py`` compares it with the
        double-precision ``logaddexp``).

        With ``single=True`` the linear predictors are computed in single
        precision *relative to the draws' mean* and signed by the sign of the
        mean's predictor (:meth:`_softplus_sums_single`), so that every sum
        single precision must hold is one of small terms: the large, linear
        part (``sum w eta`` over the rows whose predictor is positive) is taken
        in double precision. Rounding a draw's offset from the mean moves its
        log density by about ``|grad| * 6e-8 * |offset|`` and each element's
        rounding adds a random ``sqrt(n) * 1e-7``: 2e-4 at most at
        n = 5 x 10^4 for draws of a Laplace approximation
        (``tests/probes/test_laplace_glm.py``), against the 1e-3 that would
        move an importance weight by 0.1 %.
        """
        thetas = np.atleast_2d(np.asarray(thetas, dtype=float))
        c0 = thetas[:, 0]
        coef = np.exp(thetas[:, 1:]) if self.positive else thetas[:, 1:]
        c = c0 + coef @ self._b[1:]
        nu = self.prior_df
        out = student_t_terms(c, nu, self.intercept_scale)[0]
        out = out + student_t_terms(coef, nu, self.prior_scale)[0].sum(axis=1)
        if self.positive:
            out = out + coef.shape[1] * np.log(2.0) + thetas[:, 1:].sum(axis=1)
        out = out + c0 * self._tw + coef @ self._gtw
        if single:
            return out - self._softplus_sums_single(c0, coef)
        out -= 0.5 * (c0 * self._wsum + coef @ self._gw)
        return out - self._nonlinear_sums(c0, coef)

    def _nonlinear_sums(self, c0: np.ndarray, coef: np.ndarray) -> np.ndarray:
        """``sum_i w_i (|eta_is| / 2 + log1p(exp(-|eta_is|)))`` for each draw ``s``.

        With equal weights, ``sum_i log1p(e_i)`` is taken as the log of products
        of ``1 + e_i`` over :data:`_PRODUCT_ROWS` rows (each factor in (1, 2], so
        no product overflows): one ``log`` per block instead of one per element.
        """
        design, weights = self._augmented(np.float64)
        params = np.vstack([c0, coef.T])
        uniform = bool(np.all(weights == weights[0]))
        half_abs = np.zeros(c0.size)
        log_terms = np.zeros(c0.size)
        for rows, eta in self._blocks(design, params, uniform):
            w = weights[rows]
            np.abs(eta, out=eta)
            half_abs += w @ eta
            np.negative(eta, out=eta)
            np.exp(eta, out=eta)
            log_terms += self._log1p_sum(eta, w, uniform)
        return 0.5 * half_abs + log_terms

    def _softplus_sums_single(self, c0: np.ndarray, coef: np.ndarray) -> np.ndarray:
        """``sum_i w_i log1pexp(eta_is)`` for each draw, in single precision (see Notes).

        Notes
        -----
        With ``eta_bar`` the linear predictor at the draws' mean, ``s_i`` its
        sign and ``zeta_is = s_i eta_is = |eta_bar_i| + s_i (1, G_i) delta_s``
        (``delta_s`` the draw's offset from the mean; one single-precision
        matrix product with the signed design and ``|eta_bar|`` as a column, or
        with equal weights from :data:`_COMPILED_MIN_ELEMENTS` on the product
        of the design and the offsets, moved and signed in the compiled kernel
        of :meth:`_log1p_exp_sums_compiled`),
        ``log1pexp(eta) = [s = +1] zeta + log1p(exp(-zeta))`` holds for every
        ``zeta``. The first sum is linear in ``delta`` and taken in double
        precision; the second has terms below ``log 2`` except on rows whose
        sign flips (``zeta < 0``), so single precision holds it. Equal weights
        take products of ``1 + exp(-zeta)``; a block where one overflows (a
        draw far from the mean) is evaluated again in double precision.
        """
        design, weights64 = self._centred, self.weights
        c0_bar, coef_bar = c0.mean(), coef.mean(axis=0)
        eta_bar = c0_bar + design @ coef_bar
        sign = np.where(eta_bar >= 0.0, 1.0, -1.0)
        delta = np.vstack([c0 - c0_bar, (coef - coef_bar).T])  # (p, S), double
        upper = weights64 * (sign > 0)
        out = float(upper @ eta_bar) + np.concatenate([[upper.sum()], upper @ design]) @ delta
        uniform = bool(np.all(weights64 == weights64[0]))
        if uniform and _use_compiled_products(design.shape[0], c0.size):
            sums = self._log1p_exp_sums_compiled(eta_bar, sign, delta, c0, coef)
            return out + float(weights64[0]) * sums
        # rows s_i (|eta_bar_i|, 1, G_i) in single precision, built in one pass
        signed = np.empty((design.shape[0], design.shape[1] + 2), dtype=np.float32)
        signed[:, 0] = np.abs(eta_bar)
        signed[:, 1] = sign
        np.multiply(design, sign[:, None], out=signed[:, 2:], casting="same_kind")
        weights32 = weights64.astype(np.float32)
        params = np.empty((signed.shape[1], c0.size), dtype=np.float32)
        params[0] = -1.0  # the product gives -zeta: no negation pass
        params[1:] = -delta
        with np.errstate(over="ignore"):  # an overflow is caught below
            for rows, minus_zeta in self._blocks(signed, params, uniform):
                np.exp(minus_zeta, out=minus_zeta)
                block = self._log1p_sum(minus_zeta, weights32[rows], uniform)
                if not np.all(np.isfinite(block)):  # overflow: this block in double precision
                    eta = design[rows] @ coef.T + c0
                    block = weights64[rows] @ np.logaddexp(0.0, -sign[rows, None] * eta)
                out += block
        return out

    def _log1p_exp_sums_compiled(
        self, eta_bar: np.ndarray, sign: np.ndarray, delta: np.ndarray, c0: np.ndarray,
        coef: np.ndarray,
    ) -> np.ndarray:
        """``sum_i log1p(exp(-zeta_is))`` for each draw, the products in the numba kernel.

        The single-precision design ``G`` (the one Newton's first steps use)
        times the draws' coefficient offsets, a block of rows at a time; the
        kernel (:func:`bayescal._kernels.softplus.exp_plus_one_products`) moves
        each row by ``|eta_bar_i|`` and the draw's intercept offset, signs it,
        and multiplies ``1 + exp(-zeta)`` over :data:`_PRODUCT_ROWS` rows in
        the same pass. A block whose product overflows (a draw far from the
        mean) is evaluated again in double precision.
        """
        from bayescal._kernels.softplus import exp_plus_one_products

        design = self._design_single()
        offset = np.negative(np.abs(eta_bar), dtype=np.float32)
        flip = np.negative(sign, dtype=np.float32)
        shift = delta[0].astype(np.float32)
        params = delta[1:].astype(np.float32)
        total = np.zeros(c0.size)
        products = None
        for rows, block in self._blocks(design, params, True):
            if products is None:
                products = np.empty((-(-block.shape[0] // _PRODUCT_ROWS), c0.size),
                                    dtype=np.float32)
            groups = products[: -(-(rows.stop - rows.start) // _PRODUCT_ROWS)]
            exp_plus_one_products(block, offset[rows], flip[rows], shift, _PRODUCT_ROWS, groups)
            sums = np.log(groups).sum(axis=0, dtype=float)
            if not np.all(np.isfinite(sums)):  # overflow: this block in double precision
                eta = self._centred[rows] @ coef.T + c0
                sums = np.logaddexp(0.0, -sign[rows, None] * eta).sum(axis=0)
            total += sums
        return total

    def _blocks(self, design: np.ndarray, params: np.ndarray, uniform: bool):
        """Yield ``(rows, design[rows] @ params)`` block by block (one reused buffer)."""
        n_rows, n_draws = design.shape[0], params.shape[1]
        block_rows = _PRODUCT_ROWS if uniform else 1
        step = max(1, _CHUNK_ELEMENTS // (n_draws * block_rows)) * block_rows
        buffer = np.empty((min(step, n_rows), n_draws), dtype=design.dtype)
        for start in range(0, n_rows, step):
            rows = slice(start, min(start + step, n_rows))
            out = buffer[: rows.stop - start]
            np.matmul(design[rows], params, out=out)
            yield rows, out

    @staticmethod
    def _log1p_sum(e: np.ndarray, w: np.ndarray, uniform: bool) -> np.ndarray:
        """``sum_i w_i log1p(e_is)`` over a block's rows (overwrites ``e``)."""
        if not uniform:
            np.log1p(e, out=e)
            return w @ e
        e += 1.0
        full = (e.shape[0] // _PRODUCT_ROWS) * _PRODUCT_ROWS
        products = np.multiply.reduce(e[:full].reshape(-1, _PRODUCT_ROWS, e.shape[1]), axis=1)
        total = np.log(products).sum(axis=0, dtype=float)
        if full < e.shape[0]:
            total += np.log(np.multiply.reduce(e[full:], axis=0))
        return float(w[0]) * total

    def _augmented(self, dtype: type) -> tuple[np.ndarray, np.ndarray]:
        """The design with a leading column of ones, ``(n, p)``, and the weights, in ``dtype``.

        Built once per precision and kept (the Laplace check evaluates it at many draws).
        """
        cache = self._cache
        if dtype not in cache:
            augmented = np.empty((self._centred.shape[0], self.n_params), dtype=dtype)
            augmented[:, 0] = 1.0
            augmented[:, 1:] = self._centred
            cache[dtype] = (augmented, self.weights.astype(dtype))
        return cache[dtype]

    def start(self) -> np.ndarray:
        """The starting point of Newton's method (coefficients 0, or 1 when positive)."""
        return np.zeros(self.n_params)


def newton_mode(
    value_grad_hess: Callable[[np.ndarray], tuple[float, np.ndarray, np.ndarray]],
    x0: np.ndarray,
    *,
    max_iter: int = 200,
    gtol: float = 1e-10,
    polish: bool = True,
    initial: tuple[float, np.ndarray, np.ndarray] | None = None,
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
    polish : bool, default=True
        At convergence, take one last full Newton step and evaluate the
        Hessian there. False returns the point after that step without
        evaluating it, with the negative Hessian of the point before it (a
        warm start for a more precise evaluation, :func:`_posterior_mode`).
    initial : tuple, optional
        ``value_grad_hess(x0)`` when the caller has it (saves one evaluation).

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
    value, grad, hess = value_grad_hess(x) if initial is None else initial
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
            if not polish:
                return candidate, neg, it
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
        ``posterior`` group with one chain of ``n_draws`` draws: a resample of
        the checked draws by their Pareto-smoothed importance weights when the
        Pareto shape is acceptable, the approximation's own draws otherwise.
        On more than 2000 rows the check evaluates the exact log density at
        the first 256-400 draws, and at every draw only when their shape
        exceeds 0.4 (:func:`bayescal.inference.importance.staged_check`, whose
        Notes say why).
    mode : dict of str to ndarray
        The posterior variables at the mode.
    pareto_k : float
        The Pareto shape of the checked draws' importance weights.

    Raises
    ------
    RuntimeError
        When Newton's method fails or the Hessian at the mode is not positive
        definite (the message says to use ``inference='nuts'``).
    """
    from bayescal.inference.importance import staged_check

    glm = problem.glm
    try:
        mode, neg_hessian = _posterior_mode(glm)
    except RuntimeError as err:
        raise RuntimeError(
            f"Laplace approximation failed: {err} Use inference='nuts'."
        ) from None
    rng, z, thetas = gaussian_draws_at_mode(mode, neg_hessian, n_draws, seed)
    check, n_checked = staged_check(
        lambda draws: glm.log_density_many(thetas[draws], single=True),
        -0.5 * np.einsum("ij,ij->i", z, z),
        rng,
        n_rows=glm.design.shape[0],
    )
    at_mode = {name: values[0] for name, (values, _) in problem.outputs(mode[None]).items()}
    return _tree(problem, thetas[:n_checked][check.indices]), at_mode, check.pareto_k


def _posterior_mode(glm: LogisticGLM, *, gtol: float = 1e-10) -> tuple[np.ndarray, np.ndarray]:
    """The mode of ``glm``'s log posterior and its negative Hessian there (double precision).

    Below :data:`_SINGLE_NEWTON_ROWS` rows, :func:`newton_mode` in double
    precision. From there on Newton's method takes its steps with the
    products of the design in single precision (the value, the linear
    predictors and the row-wise terms in double) until the Newton decrement
    falls below :data:`_SINGLE_NEWTON_DECREMENT`; then one step from the
    exact double-precision gradient with the last single-precision Hessian
    (a chord step: that Hessian is within about 1e-4 to 1e-3 of the exact
    one, so the step leaves a decrement of about 1e-8 to 1e-6 times the one
    it starts from), and the exact value, gradient and Hessian at its end.
    When their decrement is below ``gtol`` and
    :data:`_UNEVALUATED_STEP_DECREMENT` (in practice it is below 1e-13), the
    mode is that point plus the Newton step from it and the Hessian is the
    one at that point, a step of Mahalanobis length below 1.5e-6 away:
    :func:`newton_mode` in double precision throughout takes the same last
    step and evaluates the Hessian at its end (mode and Hessian equal to
    1e-8 in ``tests/inference/test_laplace_glm.py``). Otherwise
    double-precision Newton continues from there. Four single-precision
    evaluations, one gradient and one full evaluation in double precision at
    n = 5 x 10^4, against four and three full ones for the former
    double-precision finish and six for double precision throughout.
    """
    if glm.design.shape[0] < _SINGLE_NEWTON_ROWS:
        return newton_mode(glm.value_grad_hess, glm.start(), gtol=gtol)[:2]
    try:
        near, neg_single, _ = newton_mode(
            lambda theta: glm.value_grad_hess(theta, single=True),
            glm.start(),
            gtol=_SINGLE_NEWTON_DECREMENT,
            polish=False,
        )
    except RuntimeError:  # single precision could not get there: double throughout
        return newton_mode(glm.value_grad_hess, glm.start(), gtol=gtol)[:2]
    _, grad = glm.value_and_grad(near)
    mode = near + np.linalg.solve(neg_single, grad)
    evaluated = glm.value_grad_hess(mode)
    _, grad, hess = evaluated
    neg = -hess
    try:
        chol = np.linalg.cholesky(neg)
    except np.linalg.LinAlgError:
        chol = None
    if chol is not None:
        half = np.linalg.solve(chol, grad)
        if 0.5 * float(half @ half) < min(gtol, _UNEVALUATED_STEP_DECREMENT):
            # newton_mode's last full step (g^T H^-1 g / 2 is the decrement), not evaluated
            return mode + np.linalg.solve(chol.T, half), neg
    return newton_mode(glm.value_grad_hess, mode, gtol=gtol, initial=evaluated)[:2]


def gaussian_draws_at_mode(
    mode: np.ndarray, neg_hessian: np.ndarray, n_draws: int, seed: int
) -> tuple[np.random.Generator, np.ndarray, np.ndarray]:
    """Draws of the Laplace approximation ``N(mode, H^{-1})`` (``H`` the negative Hessian).

    Returns the generator (for the importance check that follows), the standard
    normal ``z`` of shape ``(n_draws, d)`` and the draws ``mode + V diag(1/sqrt(lambda)) z``
    (covariance ``H^{-1}``). Raises ``RuntimeError`` naming the remedy when ``H``
    is not positive definite at the mode. Shared by the NumPy GLM path and the
    compiled PyMC path (:mod:`bayescal.inference.sampling`).
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

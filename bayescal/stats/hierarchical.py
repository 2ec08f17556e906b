"""Hierarchical Bayesian comparison of two methods over datasets x folds.

Corani, Benavoli, Demšar, Mangili and Zaffalon (2017) model the
cross-validation differences of two methods on each dataset as correlated
normal noise around a dataset mean, and the dataset means as draws from a
Student-t population. The posterior of that population gives the
probabilities that, on a *new* dataset, the difference falls left of, inside
or right of the region of practical equivalence; the dataset means are shrunk
towards each other, which makes per-dataset estimates more accurate than the
separate correlated t-tests.

baycomp implements the model in Stan; here it is a PyMC model sampled through
bayescal's sampling layer (:func:`bayescal.inference.sampling.sample_posterior`,
nutpie compiled once per structure), with the posterior diagnostics of
:mod:`bayescal.inference.posterior`.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from bayescal._compat.param_validation import Interval, StrOptions, validate_params
from bayescal.inference.posterior import record_diagnostics, stack_draws
from bayescal.inference.sampling import (
    INFERENCES,
    SAMPLERS,
    sample_posterior,
    seed_from_random_state,
)
from bayescal.stats.bayesian_tests import (
    BayesianComparisonResult,
    _paired_differences,
    posterior_winner_probabilities,
)

__all__ = ["HierarchicalComparison", "draw_dataset_means", "hierarchical_model"]

#: Variables whose convergence the diagnostics check.
_DIAGNOSED = ["delta0", "std0", "nu", "sigma", "mixing_z"]


def hierarchical_model(
    data: dict[str, np.ndarray],
    *,
    n_datasets: int,
    rho: float,
    alpha_bounds: tuple[float, float] = (1.0, 2.0),
    beta_bounds: tuple[float, float] = (0.01, 0.1),
) -> Any:
    """Build the hierarchical model of Corani et al. (2017) as a ``pm.Model``.

    Parameters
    ----------
    data : dict
        ``x``: the standardised differences, shape ``(n_datasets, n_folds)``;
        ``bounds``: ``[delta_max, sigma_max, std0_max]``, the upper ends of
        the uniform priors on ``|delta0|``, the ``sigma_i`` and ``std0``.
    n_datasets : int
        Rows of ``x`` (part of the compiled structure).
    rho : float
        Correlation of the fold differences within a dataset.
    alpha_bounds, beta_bounds : tuple of float
        Uniform priors of the shape and rate of the Gamma prior on ``nu - 1``.

    Returns
    -------
    pymc.Model
        Free variables ``delta0``, ``std0``, ``sigma``, ``nu_minus_one``,
        ``gamma_alpha``, ``gamma_beta`` and ``mixing_z`` (the standardised
        log mixing weights of the Student-t, one per dataset); deterministic
        ``nu``. The dataset means ``delta`` are integrated out (see Notes) and
        drawn afterwards from their exact conditional by
        :func:`draw_dataset_means`.

    Notes
    -----
    The model is

    .. math::

        x_i &\\sim \\mathrm{MVN}(\\delta_i 1, \\sigma_i^2 M), \\quad
            M = (1 - \\rho) I + \\rho 1 1^T \\\\
        \\delta_i &\\sim t_\\nu(\\delta_0, \\sigma_0), \\quad
        \\sigma_i \\sim U(0, \\bar\\sigma), \\quad
        \\delta_0 \\sim U(-\\bar\\delta, \\bar\\delta), \\quad
        \\sigma_0 \\sim U(0, \\bar\\sigma_0) \\\\
        \\nu - 1 &\\sim \\mathrm{Gamma}(a, b), \\quad a \\sim U(1, 2), \\quad
            b \\sim U(0.01, 0.1).

    It is sampled in an exactly equivalent form that NUTS explores without
    funnels. The Student-t is written as a scale mixture of normals,
    :math:`\\delta_i \\mid w_i \\sim N(\\delta_0, \\sigma_0^2 / w_i)`,
    :math:`w_i \\sim \\mathrm{Gamma}(\\nu/2, \\nu/2)`; given :math:`w_i` the
    dataset mean is normal and is integrated out in closed form, so
    :math:`x_i \\sim \\mathrm{MVN}(\\delta_0 1, a_i I + b_i 1 1^T)` with
    :math:`a_i = \\sigma_i^2 (1 - \\rho)` and
    :math:`b_i = \\sigma_i^2 \\rho + \\sigma_0^2 / w_i`, whose inverse and
    determinant are closed-form (compound symmetry):
    :math:`r^T C^{-1} r = [\\sum r^2 - b (\\sum r)^2 / (a + n b)] / a` and
    :math:`\\log|C| = (n - 1) \\log a + \\log(a + n b)`. The mixing weights
    are non-centred on the scale their prior has, :math:`\\log w_i =
    \\sqrt{2/\\nu}\\, z_i` (``mixing_z``; the Jacobian is included), so their
    geometry does not change with :math:`\\nu`.

    The centred form (and the non-centred :math:`\\delta_i = \\delta_0 +
    \\sigma_0 z_i` used before) left NUTS with divergences and R-hat up to
    1.03-1.11 on two-dataset comparisons, where :math:`\\sigma_0` is barely
    identified and ranges over two orders of magnitude (``benchmarks/hierarchical.py``).
    """
    import pymc as pm
    import pytensor.tensor as pt

    with pm.Model(coords={"dataset": np.arange(n_datasets)}) as model:
        x = pm.Data("x", data["x"])
        bounds = pm.Data("bounds", data["bounds"])
        delta0 = pm.Uniform("delta0", -bounds[0], bounds[0])
        std0 = pm.Uniform("std0", 0.0, bounds[2])
        gamma_alpha = pm.Uniform("gamma_alpha", *alpha_bounds)
        gamma_beta = pm.Uniform("gamma_beta", *beta_bounds)
        nu_minus_one = pm.Gamma("nu_minus_one", alpha=gamma_alpha, beta=gamma_beta)
        nu = pm.Deterministic("nu", nu_minus_one + 1.0)
        # log w = c z with c = sqrt(2 / nu), the prior standard deviation of log w
        # for large nu; density of z = Gamma(w; nu/2, nu/2) * |dw/dz| = ... * c w.
        mixing_z = pm.Flat("mixing_z", dims="dataset")
        c = pt.sqrt(2.0 / nu)
        log_w = c * mixing_z
        w = pt.exp(log_w)
        half_nu = nu / 2.0
        log_prior_w = (
            half_nu * pt.log(half_nu) - pt.gammaln(half_nu) + (half_nu - 1.0) * log_w - half_nu * w
        )
        pm.Potential("mixing_prior", pt.sum(log_prior_w + pt.log(c) + log_w))
        sigma = pm.Uniform("sigma", 0.0, bounds[1], dims="dataset")
        # n is fixed by the compiled structure (the trailing shape of x); the
        # constant n log(2 pi) / 2 is left out.
        n = data["x"].shape[1]
        a = sigma**2 * (1.0 - rho)
        b = sigma**2 * rho + std0**2 / w
        r = x - delta0
        s1 = pt.sum(r, axis=1)
        s2 = pt.sum(r**2, axis=1)
        quad = (s2 - b / (a + n * b) * s1**2) / a
        log_det = (n - 1) * pt.log(a) + pt.log(a + n * b)
        pm.Potential("likelihood", pt.sum(-0.5 * log_det - 0.5 * quad))
    return model


def draw_dataset_means(
    idata: Any, x: np.ndarray, rho: float, rng: np.random.Generator
) -> np.ndarray:
    """Draw the dataset means ``delta_i`` integrated out of :func:`hierarchical_model`.

    Given the other parameters the mean of dataset ``i`` is normal: its prior
    :math:`N(\\delta_0, \\sigma_0^2 / w_i)` times the likelihood of the fold
    differences, whose generalised-least-squares estimate under compound
    symmetry is the fold mean :math:`\\bar x_i` with variance
    :math:`s_i^2 = \\sigma_i^2 (1 + (n - 1)\\rho) / n`. One draw per posterior
    draw gives exact draws of :math:`\\delta_i` from the joint posterior.

    Parameters
    ----------
    idata : xarray.DataTree
        The posterior of :func:`hierarchical_model`.
    x : ndarray of shape (n_datasets, n_folds)
        The standardised differences it was fitted to.
    rho : float
        Their within-dataset correlation.
    rng : numpy.random.Generator
        Source of the draws.

    Returns
    -------
    ndarray of shape (n_draws, n_datasets)
        In the units of ``x``, draws in :func:`~bayescal.inference.posterior.stack_draws` order.
    """
    n = x.shape[1]
    delta0 = stack_draws(idata, "delta0")[:, None]
    std0 = stack_draws(idata, "std0")[:, None]
    nu = stack_draws(idata, "nu")[:, None]
    sigma = stack_draws(idata, "sigma")
    w = np.exp(np.sqrt(2.0 / nu) * stack_draws(idata, "mixing_z"))
    prior_precision = w / std0**2
    data_precision = n / (sigma**2 * (1.0 + (n - 1) * rho))
    variance = 1.0 / (prior_precision + data_precision)
    mean = variance * (prior_precision * delta0 + data_precision * x.mean(axis=1)[None, :])
    return mean + np.sqrt(variance) * rng.standard_normal(mean.shape)


class HierarchicalComparison(BaseEstimator):
    """Hierarchical Bayesian comparison of two methods on many datasets.

    Parameters
    ----------
    rope : float, default=0.01
        Half-width of the region of practical equivalence, in the metric's
        units.
    rho : float, optional
        Correlation of the fold differences within a dataset,
        ``n_test / n_total`` (1/K for K-fold CV, repeated or not). Default:
        ``1 / n_folds`` (one run of K-fold CV).
    draws, tune, chains : int, default=2000, 1000, 4
        NUTS draws and tuning steps per chain, chains. 4 x 2000 draws because the
        population scale ``std0`` mixes slowest: on a thesis-shaped cube (7 datasets
        x 10 folds, one dataset far from the others) 4 x 1000 draws left its bulk
        ESS at 590-830 and R-hat reached 1.0115 at one of six seeds; with 2000 draws
        per chain every comparison of the quick-start cube (12), of a 2-dataset x
        3-fold thesis cube (19) and of the 7 x 10 cube (10) converged at three seeds
        each (R-hat <= 1.0064, no divergence, bulk ESS >= 1069), for about 30 % more
        sampling time per comparison.
    sampler : {"auto", "nutpie", "nutpie-c", "pymc", "numpyro", "blackjax"}, default="auto"
        NUTS implementation (see :mod:`bayescal.inference.sampling`); ``"auto"``
        is ``"nutpie"`` here (the model has no NumPy log posterior, so
        ``"nutpie-glm"`` raises).
    target_accept : float, default=0.98
        NUTS target acceptance rate. High because the posterior of two or three
        datasets spans orders of magnitude in ``std0``: on the quick-start cube's
        twelve comparisons, four seeds each, 0.9 left 1-8 divergences in a few fits,
        0.95 one in 48, 0.98 none; sampling stays under a second per comparison.
    random_state : None, int or numpy Generator
        Seed of the sampler.

    Attributes
    ----------
    idata_ : xarray.DataTree
        The posterior (standardised units; see ``scale_``).
    diagnostics_ : PosteriorDiagnostics
        R-hat, ESS, divergences, sampler, seconds, ``converged`` and
        ``failures`` (:func:`bayescal.inference.posterior.record_diagnostics`;
        the typed object every Bayesian estimator keeps, readable as a mapping).
    samples_ : ndarray of shape (n_draws, 3)
        Per posterior draw, the probabilities that the difference on a new
        dataset lies left of, inside or right of the ROPE.
    p_left_, p_rope_, p_right_ : float
        Share of draws each region wins (as baycomp reports).
    dataset_differences_ : ndarray of shape (n_datasets,)
        Posterior means of the shrunk per-dataset differences ``delta_i``.
    dataset_intervals_ : ndarray of shape (n_datasets, 2)
        Their 90% equal-tailed credible intervals.
    mean_difference_ : float
        Posterior mean of the population mean ``delta0``.
    scale_ : float
        The differences were divided by this (the mean over datasets of the
        folds' standard deviation) before sampling; reported quantities are
        in the metric's units.
    n_datasets_, n_folds_ : int
        Shape of the differences.

    Notes
    -----
    The differences are ``b - a`` (left: ``a`` higher, right: ``b`` higher),
    as in :mod:`bayescal.stats.bayesian_tests`. The model is
    :func:`hierarchical_model`, with the data-dependent prior bounds of
    Corani et al. (2017): :math:`\\bar\\delta = \\max|x|`,
    :math:`\\bar\\sigma = 1000 \\cdot` mean within-dataset standard deviation,
    :math:`\\bar\\sigma_0 = 1000 \\cdot` standard deviation of the dataset
    means. For each posterior draw the difference on a new dataset is
    :math:`t_\\nu(\\delta_0, \\sigma_0)`; its masses left of, inside and right
    of the ROPE form ``samples_``.

    A dataset whose fold differences are all equal (zero variance) has no
    defined likelihood in this model and raises a ``ValueError`` (baycomp
    replaces such rows by random noise; bayescal does not alter data).

    References
    ----------
    G. Corani, A. Benavoli, J. Demšar, F. Mangili and M. Zaffalon,
    "Statistical comparison of classifiers through Bayesian hierarchical
    modelling", Machine Learning 106:1817-1837, 2017.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> d = rng.normal(0.02, 0.01, size=(8, 10))
    >>> model = HierarchicalComparison(rope=0.005, draws=300, tune=300, chains=2,
    ...                                random_state=0).fit(d)  # doctest: +SKIP
    >>> model.p_right_ > 0.9  # doctest: +SKIP
    True
    """

    _parameter_constraints: dict = {
        "rope": [Interval(Real, 0, None, closed="left")],
        "rho": [None, Interval(Real, 0, 1, closed="neither")],
        "draws": [Interval(Integral, 1, None, closed="left")],
        "tune": [Interval(Integral, 1, None, closed="left")],
        "chains": [Interval(Integral, 1, None, closed="left")],
        "sampler": [StrOptions(set(SAMPLERS))],
        "target_accept": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        rope: float = 0.01,
        rho: float | None = None,
        draws: int = 2000,
        tune: int = 1000,
        chains: int = 4,
        sampler: str = "auto",
        target_accept: float = 0.98,
        random_state: Any = None,
    ) -> None:
        self.rope = rope
        self.rho = rho
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.sampler = sampler
        self.target_accept = target_accept
        self.random_state = random_state

    def fit(self, a: Any, b: Any = None) -> HierarchicalComparison:
        """Sample the posterior of the hierarchical model.

        Parameters
        ----------
        a, b : array-like of shape (n_datasets, n_folds)
            Paired per-fold scores of the two methods (rows: datasets), or
            with ``b=None`` the differences ``b - a``. At least 2 datasets
            and 2 folds, all finite.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For fewer than 2 datasets or folds, NaN scores, or a dataset
            whose differences are all equal.

        Warns
        -----
        PosteriorDiagnosticsWarning
            When the posterior fails its diagnostics (``diagnostics_``
            records it).
        """
        from scipy import stats

        validate_params(self)
        d = _paired_differences(a, b, 2, "one row of fold scores per dataset")
        q, n = d.shape
        if q < 2:
            raise ValueError(
                f"`a` has {q} dataset(s) (rows); the hierarchical model needs at least 2 "
                "(use correlated_ttest for one dataset)."
            )
        if n < 2:
            raise ValueError(f"`a` has {n} fold(s) (columns); the model needs at least 2.")
        stds = d.std(axis=1)
        flat = np.flatnonzero(stds <= 1e-12 * np.maximum(1.0, np.abs(d).max(axis=1)))
        if flat.size:
            raise ValueError(
                f"datasets (rows) {flat.tolist()} of `a` have identical differences on every "
                "fold (zero variance), which the hierarchical model cannot fit; exclude them "
                "explicitly or compare on a metric that varies across folds."
            )
        rho = 1.0 / n if self.rho is None else float(self.rho)
        seed = seed_from_random_state(self.random_state)
        scale = float(stds.mean())
        x = d / scale
        rope = float(self.rope) / scale
        std_within = float(x.std(axis=1).mean())
        std_among = float(x.mean(axis=1).std())
        bounds = np.array(
            [np.abs(x).max(), 1000.0 * std_within, 1000.0 * max(std_among, std_within)]
        )
        fit = sample_posterior(
            hierarchical_model,
            {"x": x, "bounds": bounds},
            hyper={"n_datasets": q, "rho": rho},
            inference=INFERENCES[0],
            sampler=self.sampler,
            draws=self.draws,
            tune=self.tune,
            chains=self.chains,
            random_state=seed,
            target_accept=self.target_accept,
        )
        self.idata_ = fit.idata
        record_diagnostics(
            self, fit.idata, sampler=fit.sampler, seconds=fit.seconds, var_names=_DIAGNOSED
        )
        mu = stack_draws(fit.idata, "delta0")
        std0 = stack_draws(fit.idata, "std0")
        nu = stack_draws(fit.idata, "nu")
        left = stats.t.cdf(-rope, nu, mu, std0)
        right = stats.t.sf(rope, nu, mu, std0)
        self.samples_ = np.column_stack([left, np.clip(1.0 - left - right, 0.0, 1.0), right])
        self.p_left_, self.p_rope_, self.p_right_ = posterior_winner_probabilities(self.samples_)
        delta = draw_dataset_means(fit.idata, x, rho, np.random.default_rng(seed + 1))
        delta = delta * scale
        self.dataset_differences_ = delta.mean(axis=0)
        self.dataset_intervals_ = np.quantile(delta, [0.05, 0.95], axis=0).T
        self.mean_difference_ = float(mu.mean() * scale)
        self.scale_ = scale
        self.n_datasets_, self.n_folds_ = q, n
        return self

    def result(self) -> BayesianComparisonResult:
        """The probabilities as a :class:`BayesianComparisonResult` (metric units)."""
        check_is_fitted(self, "samples_")
        return BayesianComparisonResult(
            self.p_left_,
            self.p_rope_,
            self.p_right_,
            self.samples_,
            self.mean_difference_,
            float(self.rope),
        )

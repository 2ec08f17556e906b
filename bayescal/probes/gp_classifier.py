"""Gaussian-process classifier probe: MCMC, Hilbert-space GP or EP inference.

:class:`BayesianGPClassifier` puts a latent Gaussian process with a
squared-exponential (RBF) kernel, one length-scale per input (ARD) and an
amplitude, under a probit (or logit) link. Three inferences share the model:

* ``"ep"`` -- expectation propagation (:mod:`bayescal.probes.gp_ep`, NumPy/SciPy),
  hyper-parameters at their type-II MAP;
* ``"sparse"`` -- EP under the FITC inducing-point prior
  (:mod:`bayescal.probes.gp_sparse`), ``O(n m^2)``, for n in the thousands to
  tens of thousands; ``"auto"`` (default) picks ``"ep"`` up to
  ``AUTO_EXACT_MAX_ROWS`` rows and ``"sparse"`` above;
* ``"mcmc"`` -- PyMC's latent GP (``pm.gp.Latent``) sampled by NUTS with the
  hyper-parameters, the gold standard for small n;
* ``"hsgp"`` -- PyMC's Hilbert-space approximation (``pm.gp.HSGP``), ``n_basis``
  basis functions per input, for larger n with few inputs.
"""

from __future__ import annotations

import time
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.special import expit, ndtr, ndtri
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from bayescal._compat.param_validation import Interval, StrOptions, validate_params
from bayescal.inference.posterior import (
    PosteriorDiagnosticsWarning,
    PosteriorPredictiveMixin,
    credible_interval,
    record_diagnostics,
)
from bayescal.probes.gp_ep import (
    EPConvergenceWarning,
    EPFit,
    HyperPrior,
    fit_ep_hyperparameters,
    predictive_probability,
    rbf_kernel,
)
from bayescal.probes.gp_hyper import (
    ARD_MAX_RATIO,
    collapse_failures,
    dimension_scaled_prior,
    initial_lengthscale,
    select_kernel,
)
from bayescal.threads import limit_blas_threads
from bayescal.validation import (
    check_choice,
    check_classification_data,
    check_features,
    check_fraction,
)

__all__ = ["BayesianGPClassifier", "gp_classifier_model"]

INFERENCES = ("auto", "ep", "sparse", "mcmc", "hsgp")
#: ``inference="auto"`` runs exact EP up to this many rows and sparse (FITC) EP above.
AUTO_EXACT_MAX_ROWS = 2000
#: Rows of the random subsample on which sparse EP searches its hyper-parameters.
SPARSE_HYPER_ROWS = 500
#: ``n_restarts="auto"``: extra L-BFGS starts of the hyper-parameter search, by inference
#: (exact EP: one per further mode of the screened log posterior, see
#: :func:`bayescal.probes.gp_hyper.fit_with_restarts`; sparse EP: none).
EXACT_N_RESTARTS = "auto"
SPARSE_N_RESTARTS = 0
JITTER = 1e-6


def gp_classifier_model(data: dict[str, np.ndarray], *, n_obs: int, n_latent: int,
                        n_inputs: int, inference: str, likelihood: str, ard: bool,
                        lengthscale: float | None, amplitude: float | None,
                        ls_alpha: float, ls_beta: float, amp_sigma: float,
                        n_basis: int, boundary: tuple[float, ...] | None):
    """Pure builder of the PyMC latent-GP classification model.

    Parameters
    ----------
    data : dict
        ``X`` (standardised inputs, ``(n, D)``) and ``y`` (labels ``0..K-1``).
    n_obs : int
        Number of rows (the latent GP has one value per row, so it is part of
        the model's structure).
    n_latent : int
        Latent functions: 1 for two classes (probit/logit link), ``K`` for a
        softmax over ``K >= 3`` classes.
    inference : {"mcmc", "hsgp"}
        ``pm.gp.Latent`` or ``pm.gp.HSGP``.
    lengthscale, amplitude : float or None
        Fixed values, or None for the priors ``InverseGamma(ls_alpha, ls_beta)``
        and ``HalfNormal(amp_sigma)``.

    Returns
    -------
    pymc.Model
    """
    import pymc as pm

    with pm.Model() as model:
        X = pm.Data("X", data["X"])
        y = pm.Data("y", data["y"])
        n_ls = n_inputs if ard else 1
        if lengthscale is None:
            ls = pm.InverseGamma("lengthscale", alpha=ls_alpha, beta=ls_beta, shape=n_ls)
        else:
            ls = np.full(n_ls, float(lengthscale))
        if amplitude is None:
            eta = pm.HalfNormal("amplitude", sigma=amp_sigma)
        else:
            eta = float(amplitude)
        ls_full = ls if ard else ls * np.ones(n_inputs)
        cov = eta**2 * pm.gp.cov.ExpQuad(n_inputs, ls=ls_full)
        latents = []
        for k in range(n_latent):
            name = "f" if n_latent == 1 else f"f_{k}"
            if inference == "mcmc":
                gp = pm.gp.Latent(cov_func=cov)
                latents.append(gp.prior(name, X=X, jitter=JITTER))
            else:
                gp = pm.gp.HSGP(m=[n_basis] * n_inputs, L=list(boundary), cov_func=cov)
                phi, sqrt_psd = gp.prior_linearized(X)
                beta = pm.Normal(f"beta_{k}", 0.0, 1.0, shape=n_basis**n_inputs)
                if k == 0:
                    pm.Deterministic("sqrt_psd", sqrt_psd)
                latents.append(pm.Deterministic(name, phi @ (beta * sqrt_psd)))
        if n_latent == 1:
            link = pm.math.invprobit if likelihood == "probit" else pm.math.sigmoid
            pm.Bernoulli("obs", p=link(latents[0]), observed=y)
        else:
            logits = pm.math.stack(latents, axis=1)
            pm.Categorical("obs", p=pm.math.softmax(logits, axis=1), observed=y)
    return model


class BayesianGPClassifier(PosteriorPredictiveMixin, ClassifierMixin, BaseEstimator):
    """Gaussian-process classifier with a posterior (MCMC, HSGP or EP).

    Parameters
    ----------
    kernel : {"rbf"}, default="rbf"
        Squared-exponential covariance ``sigma_f^2 exp(-0.5 sum_d (x_d - x'_d)^2 / l_d^2)``.
    ard : bool or "auto", default="auto"
        One length-scale per input (True) or one shared length-scale (False).
        ``"auto"``: EP fits the shared kernel and keeps ARD only when its EP
        marginal likelihood beats the shared one by more than Akaike's penalty
        ``D - 1`` (:func:`bayescal.probes.gp_hyper.ard_penalty`, which gives
        the measurements), and tries ARD only while ``D / n <= 0.05``
        (:data:`bayescal.probes.gp_hyper.ARD_MAX_RATIO`); MCMC/HSGP use ARD
        exactly when ``D / n <= 0.05``.
    inference : {"auto", "ep", "sparse", "mcmc", "hsgp"}, default="auto"
        Exact expectation propagation (probit; NumPy/SciPy), sparse EP with
        ``n_inducing`` FITC inducing inputs, NUTS on PyMC's latent GP, or NUTS
        on PyMC's Hilbert-space approximation. ``"auto"``: ``"ep"`` while
        ``n <= 2000`` (``AUTO_EXACT_MAX_ROWS``; exact EP costs ``O(n^3)`` per
        sweep), ``"sparse"`` above. The choice is kept in ``inference_``.
    n_inducing : int, default=400
        Inducing inputs of ``"sparse"`` (k-means centres of the standardised
        inputs). Its hyper-parameters are the exact-EP type-II MAP on a random
        subsample of 500 rows (``SPARSE_HYPER_ROWS``); EP then runs on all rows.
    likelihood : {"probit", "logit"}, default="probit"
        Link of the binary likelihood for ``mcmc``/``hsgp`` (EP is probit only;
        multi-class MCMC/HSGP use a softmax).
    draws, tune, chains : int, default=500, 500, 2
        NUTS draws and tuning steps per chain and chains (``mcmc``/``hsgp``);
        for ``ep``, ``draws * chains`` draws of the Gaussian approximation are
        kept in ``idata_``.
    n_basis : int, default=12
        HSGP basis functions per input (``m``; ``m^D`` in all).
    hsgp_c : float, default=1.5
        HSGP boundary factor ``c``: ``L_d = c max|x_d - centre_d|``.
    lengthscale, amplitude : float or None, default=None
        Fix the hyper-parameters (on standardised inputs) instead of giving
        them priors (``mcmc``/``hsgp``) or fitting them (``ep``).
    lengthscale_prior : (float, float), default=(3.0, 3.0)
        ``InverseGamma(alpha, beta)`` prior of each length-scale divided by
        ``sqrt(D)`` (the length-scale itself is ``InverseGamma(alpha, beta sqrt(D))``;
        see Notes).
    amplitude_prior : float, default=2.0
        ``HalfNormal(sigma)`` prior of the amplitude ``sigma_f``.
    sampler : {"nutpie", "pymc"}, default="pymc"
        NUTS implementation (see :func:`bayescal.inference.sampling.sample_posterior`).
    cores : int, default=1
        Chains run at once. One by default: PyMC's multi-process sampling
        recompiles the model in every child process (measured here, n=30 latent
        GP, 2 chains x 600 steps: 182 s with 2 processes, 28 s with 1).
    ep_mode : {"parallel", "sequential"}, default="parallel"
        Site update schedule of EP (:func:`bayescal.probes.gp_ep.run_ep`).
    ep_tol : float, default=1e-4
        EP convergence tolerance on the site parameters.
    max_sweeps : int, default=200
        Most EP sweeps.
    n_restarts : int or "auto", default="auto"
        Extra L-BFGS starts of the EP hyper-parameter search. Five
        length-scales around the data's median inter-row distance are screened
        by one EP run each; L-BFGS starts from the best, and from the next
        ``n_restarts`` best, keeping the best optimum
        (:func:`bayescal.probes.gp_hyper.fit_with_restarts`). ``"auto"``:
        exact EP restarts from each other local maximum of the screened log
        posterior along the grid and not at all when it has one mode (on the
        twelve shared data sets of ``benchmarks/gpc_shared.py``, n = 500, three
        splits, a restart from the runner-up never reached another optimum: the
        log evidence moved by under 0.002 nats and the held-out Brier score by
        under 1e-4, at 25-60 % more CPU); sparse EP none
        (``SPARSE_N_RESTARTS``), whose search runs on a
        ``SPARSE_HYPER_ROWS``-row subsample.
    blas_threads : int or None, default=1
        BLAS threads during fit and predict.
    random_state : int, Generator or None, default=None
        Seed of every random step (sampling, posterior draws).

    Attributes
    ----------
    classes_ : ndarray
        Class labels.
    idata_ : xarray.DataTree
        ``mcmc``/``hsgp``: the NUTS posterior (``lengthscale``, ``amplitude``,
        latent ``f`` at the training inputs, HSGP coefficients). ``ep``: a
        ``posterior`` group of draws of the latent ``f`` at the training inputs
        from the EP Gaussian approximation (dims ``chain, draw, latent, obs``),
        and an ``ep`` group with the EP mean and marginal variance of ``f``, the
        site parameters and the fitted ``lengthscale``/``amplitude`` per latent.
    diagnostics_ : PosteriorDiagnostics
        Max R-hat, min bulk/tail ESS, divergences, sampler, seconds, failures
        (:mod:`bayescal.inference.diagnostics`). ``ep``: ``sampler="ep"``, NaN
        R-hat/ESS, ``extra`` holds ``ep_sweeps``, ``ep_converged``, the
        kernel choice and the optimiser's message; a non-converged EP fails and
        warns (:class:`~bayescal.probes.gp_ep.EPConvergenceWarning`, a
        :class:`~bayescal.inference.diagnostics.PosteriorDiagnosticsWarning`).
        ``pareto_k`` checks the EP Gaussian against the exact latent posterior
        at the fitted hyper-parameters (the full GP, or the FITC model for
        ``sparse``): the Pareto-smoothed importance weights of the stored
        latent draws (:func:`~bayescal.probes.gp_ep.ep_importance_log_ratios`,
        the largest over one-vs-rest latents); above 0.7 the fit is not
        converged. Measured on five shared data sets (n = 300 and 1000):
        converged EP 0.17-0.52, except banknote and spambase (0.76-1.04,
        near-separable classes, a skewed latent posterior; on banknote,
        n = 200, EP's test Brier 0.0072 against MCMC's 0.0081, so a
        conservative flag there); EP stopped after two sweeps 1.1-2.4 on
        three of them (0.07-0.17 on the other two; EP's own convergence check
        flags all five).
    theta_ : ndarray of shape (n_latent, D + 1)
        ``ep`` only: fitted log length-scales and log amplitude per latent.
    ard_ : ndarray of bool, shape (n_latent,)
        Whether each latent's kernel has one length-scale per input (the
        outcome of ``ard="auto"``).
    ep_results_ : list of EPResult
        ``ep`` only: the converged EP state per latent (sites, Cholesky factor).
    x_mean_, x_scale_ : ndarray of shape (D,)
        Standardisation of the inputs; ``X_train_`` the standardised training inputs.
    seed_ : int
        Integer seed drawn from ``random_state`` at fit; seeds the sampler and
        the predictive draws, so one fit always gives the same draws.
    hsgp_centre_, hsgp_boundary_ : ndarray, tuple
        ``hsgp`` only: centre of the inputs and the boundary ``L`` per input.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of ``X`` when fit was given a DataFrame (only then).

    Notes
    -----
    *Inputs* are standardised with the training mean and standard deviation;
    the priors are on that scale. Length-scales: ``InverseGamma(3, 3 sqrt(D))``,
    i.e. ``l / sqrt(D)`` has mode 0.75 and most mass in 0.4-4: the squared
    distance between two standardised rows grows like ``2 D``, so a prior that
    does not grow with ``D`` makes all rows look unrelated on wide data and the
    fit collapses to probability 0.5 everywhere (Hvarfner et al. 2024).
    Amplitude ``HalfNormal(2)``: a probit latent beyond +-4 is saturated.

    *Collapse detection* (EP): when the leave-one-out (cavity) predictive
    log-odds span less than 0.2 while both classes occur, or the leave-one-out
    log predictive density is no better than that of the class frequency, the
    fit is marked failed in ``diagnostics_`` and a
    :class:`~bayescal.inference.posterior.PosteriorDiagnosticsWarning` is raised
    (:func:`bayescal.probes.gp_hyper.collapse_failures`). With ``K >= 3``
    classes the check runs on each one-vs-rest latent and the message names
    the class; a class the model does discriminate out of sample is never
    reported.

    *EP* (Rasmussen & Williams 2006, Algorithms 3.5-3.6): the hyper-parameters
    maximise ``log Z_EP + log p(theta)`` (Eq. 3.65 plus the priors above, in
    log space) by L-BFGS with the gradient of Eq. 5.27. The predictive
    probability is ``Phi(mu* / sqrt(1 + s2*))`` (Eq. 3.82 for the probit
    likelihood), computed exactly. The latent predictive is Gaussian,
    ``f* ~ N(mu*, s2*)``, and ``Phi`` is monotone, so the equal-tailed interval
    of the latent probability ``Phi(f*)`` is exactly
    ``[Phi(mu* - z s*), Phi(mu* + z s*)]``: ``predict_interval`` returns these
    exact quantiles (binary case); ``_proba_draws`` draws ``f*`` from the
    same Gaussian, so draw-based intervals (``kind="hdi"``) are consistent
    with it. Multi-class EP is one-vs-rest: one binary EP classifier (with its
    own hyper-parameters) per class, probabilities divided by their sum; its
    intervals come from draws normalised the same way.

    *MCMC/HSGP*: NUTS on the joint posterior of hyper-parameters and latent
    values; predictions at new inputs use the GP conditional of ``f*`` given
    each draw (``mcmc``) or the HSGP basis at the new inputs (``hsgp``).
    Binary problems have one latent GP and a probit/logit link; ``K >= 3``
    classes have ``K`` independent latent GPs (shared hyper-parameters) under a
    softmax.

    References
    ----------
    Rasmussen, C. E. & Williams, C. K. I. (2006). Gaussian Processes for
    Machine Learning. MIT Press, ch. 3 and 5.
    Kuss, M. & Rasmussen, C. E. (2005). Assessing approximate inference for
    binary Gaussian process classification. JMLR 6, 1679-1704.
    Riutort-Mayol, G. et al. (2023). Practical Hilbert space approximate
    Bayesian Gaussian processes for probabilistic programming. Stat. Comput. 33.
    Hvarfner, C., Hellsten, E. O. & Nardi, L. (2024). Vanilla Bayesian
    optimization performs great in high dimensions. ICML.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)); y = (X[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(int)
    >>> clf = BayesianGPClassifier(inference="ep", random_state=0).fit(X, y)
    >>> clf.predict_proba(X[:3]).shape
    (3, 2)
    """

    _parameter_constraints: dict = {
        "kernel": [StrOptions({"rbf"})],
        "ard": ["boolean", StrOptions({"auto"})],
        "inference": [StrOptions(set(INFERENCES))],
        "likelihood": [StrOptions({"probit", "logit"})],
        "draws": [Interval(Integral, 1, None, closed="left")],
        "tune": [Interval(Integral, 0, None, closed="left")],
        "chains": [Interval(Integral, 1, None, closed="left")],
        "n_basis": [Interval(Integral, 1, None, closed="left")],
        "hsgp_c": [Interval(Real, 1, None, closed="neither")],
        "lengthscale": [Interval(Real, 0, None, closed="neither"), None],
        "amplitude": [Interval(Real, 0, None, closed="neither"), None],
        "lengthscale_prior": ["array-like"],
        "amplitude_prior": [Interval(Real, 0, None, closed="neither")],
        "sampler": [StrOptions({"nutpie", "pymc"})],
        "cores": [Interval(Integral, 1, None, closed="left")],
        "ep_mode": [StrOptions({"parallel", "sequential"})],
        "ep_tol": [Interval(Real, 0, 1, closed="neither")],
        "max_sweeps": [Interval(Integral, 1, None, closed="left")],
        "n_restarts": [Interval(Integral, 0, None, closed="left"), StrOptions({"auto"})],
        "n_inducing": [Interval(Integral, 1, None, closed="left")],
        "blas_threads": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
    }

    def __init__(self, *, kernel: str = "rbf", ard: bool | str = "auto", inference: str = "auto",
                 n_inducing: int = 400, likelihood: str = "probit", draws: int = 500, tune: int = 500,
                 chains: int = 2, n_basis: int = 12, hsgp_c: float = 1.5,
                 lengthscale: float | None = None, amplitude: float | None = None,
                 lengthscale_prior: tuple[float, float] = (3.0, 3.0),
                 amplitude_prior: float = 2.0, sampler: str = "pymc", cores: int = 1,
                 ep_mode: str = "parallel", ep_tol: float = 1e-4, max_sweeps: int = 200,
                 n_restarts: int | str = "auto", blas_threads: int | None = 1, random_state: Any = None) -> None:
        self.kernel = kernel
        self.ard = ard
        self.inference = inference
        self.likelihood = likelihood
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.n_basis = n_basis
        self.hsgp_c = hsgp_c
        self.lengthscale = lengthscale
        self.amplitude = amplitude
        self.lengthscale_prior = lengthscale_prior
        self.amplitude_prior = amplitude_prior
        self.sampler = sampler
        self.cores = cores
        self.ep_mode = ep_mode
        self.ep_tol = ep_tol
        self.max_sweeps = max_sweeps
        self.n_restarts = n_restarts
        self.n_inducing = n_inducing
        self.blas_threads = blas_threads
        self.random_state = random_state

    # ------------------------------------------------------------------ validation

    def _check_param_combinations(self) -> None:
        """Rules across parameters, after ``_validate_params`` (``_parameter_constraints``)."""
        if self.inference in ("auto", "ep", "sparse") and self.likelihood != "probit":
            raise ValueError(
                f"`likelihood` must be 'probit' with inference={self.inference!r} (EP is "
                f"probit-only); got {self.likelihood!r}. Use inference='mcmc' for a logit link.")
        alpha_beta = np.asarray(self.lengthscale_prior, dtype=float)
        if alpha_beta.shape != (2,) or not np.all(np.isfinite(alpha_beta) & (alpha_beta > 0)):
            raise ValueError(
                "`lengthscale_prior` must be two positive numbers (alpha, beta) of an "
                f"InverseGamma; got {self.lengthscale_prior!r}."
            )

    def _standardise(self, X: Any) -> np.ndarray:
        Xv = check_features(self, X, reset=False)
        return (Xv - self.x_mean_) / self.x_scale_

    # ------------------------------------------------------------------ fit

    def fit(self, X: Any, y: Any) -> BayesianGPClassifier:
        """Fit the posterior.

        Parameters
        ----------
        X : array-like of shape (n, D)
            Inputs.
        y : array-like of shape (n,)
            Class labels (any sortable labels; coded ``0..K-1`` internally).

        Returns
        -------
        self
        """
        validate_params(self)
        self._check_param_combinations()
        Xv, self.classes_, codes = check_classification_data(self, X, y, min_samples=2)
        self.x_mean_ = Xv.mean(axis=0)
        scale = Xv.std(axis=0)
        self.x_scale_ = np.where(scale > 0, scale, 1.0)
        Xs = (Xv - self.x_mean_) / self.x_scale_
        self.X_train_ = Xs
        self.seed_ = _seed(self.random_state)
        start = time.perf_counter()
        with limit_blas_threads(self.blas_threads):
            self.inference_ = self.inference
            if self.inference == "auto":
                self.inference_ = "ep" if Xs.shape[0] <= AUTO_EXACT_MAX_ROWS else "sparse"
            record = self._fit_ep(Xs, codes) if self._is_ep() else self._fit_mcmc(Xs, codes)
        record_diagnostics(self, self.idata_, seconds=time.perf_counter() - start,
                           model=f"BayesianGPClassifier({self.inference_})", stacklevel=4,
                           **record)
        return self

    def _is_ep(self) -> bool:
        return getattr(self, "inference_", self.inference) in ("ep", "sparse")

    def _prior(self, n_inputs: int) -> HyperPrior:
        a, b = (float(v) for v in self.lengthscale_prior)
        return dimension_scaled_prior(HyperPrior(a, b, float(self.amplitude_prior)), n_inputs)

    def _use_ard(self, n: int, d: int) -> bool:
        """ARD for MCMC/HSGP: as given, or (``"auto"``) while ``D / n <= ARD_MAX_RATIO``."""
        if self.ard == "auto":
            return bool(d > 1 and d / n <= ARD_MAX_RATIO)
        return bool(self.ard)

    def _fit_ep(self, Xs: np.ndarray, codes: np.ndarray) -> dict[str, Any]:
        import xarray as xr

        n, d = Xs.shape
        n_classes = self.classes_.size
        targets = [codes == 1] if n_classes == 2 else [codes == k for k in range(n_classes)]
        fits, notes, ards, collapse = [], [], [], []
        if self.inference_ == "sparse":
            from bayescal.probes.gp_sparse import choose_inducing_inputs

            self.inducing_inputs_ = choose_inducing_inputs(Xs, int(self.n_inducing), self.seed_)
        for k, target in enumerate(targets):
            yk = np.where(target, 1.0, -1.0)
            fit, note, ard = self._fit_one_ep(Xs, yk)
            fits.append(fit)
            ards.append(ard)
            notes.append(note)
            label = self.classes_[k] if n_classes > 2 else None
            label = label.item() if isinstance(label, np.generic) else label  # object labels stay
            collapse += collapse_failures(yk, fit.result, label=label)
        thetas = [f.theta_full for f in fits]
        self.ard_ = np.array(ards)
        self.theta_ = np.array(thetas)
        self.ep_results_ = [f.result for f in fits]
        converged = all(f.result.converged for f in fits)
        rng = np.random.default_rng(self.seed_)
        n_draws = int(self.draws) * int(self.chains)
        draws = np.empty((n_draws, len(fits), n))
        for k, f in enumerate(fits):
            if self.inference_ == "sparse":
                from bayescal.probes.gp_sparse import sparse_ep_draws

                draws[:, k, :] = sparse_ep_draws(Xs, f.theta_full, f.result, n_draws, rng)
            else:
                draws[:, k, :] = _draw_ep_posterior(Xs, f, n_draws, rng)
        # the check against the exact latent posterior (at the fitted hyper-parameters):
        # Pareto-smoothed importance weights of the draws, the worst one-vs-rest latent
        from bayescal.inference.importance import pareto_shape
        from bayescal.probes.gp_ep import ep_importance_log_ratios

        pareto_k = max(
            pareto_shape(ep_importance_log_ratios(
                draws[:, k, :], np.where(target, 1.0, -1.0), f.result.tau, f.result.nu),
                np.zeros(n_draws))
            for k, (f, target) in enumerate(zip(fits, targets, strict=True))
        )
        post = xr.Dataset(
            {"f": (("chain", "draw", "latent", "obs"),
                   draws.reshape(int(self.chains), int(self.draws), len(fits), n))},
            coords={"chain": np.arange(int(self.chains)), "draw": np.arange(int(self.draws))},
        )
        ep = xr.Dataset(
            {
                "f_mean": (("latent", "obs"), np.array([f.result.mean for f in fits])),
                "f_var": (("latent", "obs"), np.array([f.result.var for f in fits])),
                "site_precision": (("latent", "obs"), np.array([f.result.tau for f in fits])),
                "site_nu": (("latent", "obs"), np.array([f.result.nu for f in fits])),
                "lengthscale": (("latent", "input"), np.exp(self.theta_[:, :-1])),
                "amplitude": ("latent", np.exp(self.theta_[:, -1])),
                "log_marginal_likelihood": (
                    "latent", np.array([f.result.log_marginal_likelihood for f in fits])),
                "sweeps": ("latent", np.array([f.result.n_sweeps for f in fits])),
            }
        )
        self.idata_ = xr.DataTree.from_dict({"posterior": post, "ep": ep})
        ep_failure = [] if converged else [
            f"EP did not converge within max_sweeps={self.max_sweeps} sweeps "
            f"(tolerance {self.ep_tol})"]
        remedies = ([] if converged else [
            "Increase `max_sweeps`, loosen `ep_tol` or use ep_mode='sequential'."]) + ([
            "The latent GP explains the labels no better than a constant: check the inputs' "
            "scaling, try ard=False, more `n_restarts`, or fixed `lengthscale`."] if collapse
            else [])
        return {
            "sampler": "ep",
            "pareto_k": pareto_k,
            "failures": ep_failure + collapse,
            "extra": {
                "ep_sweeps": int(max(f.result.n_sweeps for f in fits)),
                "ep_converged": bool(converged),
                "ep_evaluations": int(sum(f.n_evaluations for f in fits)),
                "kernel_choice": "; ".join(notes),
                "optimizer_message": "; ".join(f.optimizer_message for f in fits),
            },
            "category": PosteriorDiagnosticsWarning if converged else EPConvergenceWarning,
            "remedy": " ".join(remedies) or None,
        }

    def _fit_one_ep(self, Xs: np.ndarray, yk: np.ndarray):
        """One binary EP latent GP: ``(EPFit, note, ard)``; kernel search unless fixed.

        Sparse: the hyper-parameters come from exact EP on a random subsample of
        ``SPARSE_HYPER_ROWS`` rows, then FITC EP runs on all rows.
        """
        if self.inference_ == "sparse":
            from bayescal.probes.gp_sparse import run_sparse_ep

            n = Xs.shape[0]
            rows = np.sort(np.random.default_rng(self.seed_).permutation(n)[:SPARSE_HYPER_ROWS])
            rows = _both_classes(rows, yk)
            fit, note, ard = self._fit_exact_ep(Xs[rows], yk[rows])
            result = run_sparse_ep(Xs, yk, fit.theta_full, self.inducing_inputs_,
                                   tol=float(self.ep_tol), max_sweeps=int(self.max_sweeps))
            note += (f"; hyper-parameters from exact EP on {rows.size} of {n} rows, FITC EP "
                     f"with {self.inducing_inputs_.shape[0]} inducing inputs on all rows")
            fit.n_evaluations += 1
            return (EPFit(fit.theta, fit.theta_full, result, None, fit.log_posterior,
                          fit.n_evaluations, fit.optimizer_success, fit.optimizer_message),
                    note, ard)
        return self._fit_exact_ep(Xs, yk)

    def _n_restarts(self) -> int | str:
        """``n_restarts`` as given, or (``"auto"``) by inference (exact: by the screened modes)."""
        if self.n_restarts == "auto":
            return SPARSE_N_RESTARTS if self.inference_ == "sparse" else EXACT_N_RESTARTS
        return int(self.n_restarts)

    def _fit_exact_ep(self, Xs: np.ndarray, yk: np.ndarray):
        n, d = Xs.shape
        prior = self._prior(d)
        options = {"mode": self.ep_mode, "tol": float(self.ep_tol),
                   "max_sweeps": int(self.max_sweeps)}
        if self.lengthscale is None and self.amplitude is None:
            ard = self.ard if isinstance(self.ard, str) else bool(self.ard)
            choice = select_kernel(Xs, yk, prior=prior, ard=ard,
                                   n_restarts=self._n_restarts(), **options)
            choice.fit.n_evaluations = choice.n_evaluations
            return choice.fit, "; ".join(choice.notes), choice.ard
        ard = not isinstance(self.ard, str) and bool(self.ard)
        n_ls = d if ard else 1
        theta0 = np.zeros(n_ls + 1)
        ls0 = initial_lengthscale(Xs) if self.lengthscale is None else float(self.lengthscale)
        theta0[:-1] = np.log(ls0)
        if self.amplitude is not None:
            theta0[-1] = np.log(self.amplitude)
        fixed = self.lengthscale is not None and self.amplitude is not None
        fit = fit_ep_hyperparameters(
            Xs, yk, theta0, prior=prior, optimize=not fixed, ard=ard,
            fixed=_fixed_mask(self.lengthscale, self.amplitude, n_ls), **options,
        )
        return fit, "fixed hyper-parameter(s)", ard

    def _fit_mcmc(self, Xs: np.ndarray, codes: np.ndarray) -> dict[str, Any]:
        from bayescal.inference.sampling import sample_posterior

        n, d = Xs.shape
        n_classes = self.classes_.size
        n_latent = 1 if n_classes == 2 else n_classes
        if self.inference == "hsgp":
            centre = 0.5 * (Xs.max(axis=0) + Xs.min(axis=0))
            half_range = np.max(np.abs(Xs - centre), axis=0)
            boundary = tuple(float(v) for v in float(self.hsgp_c) * np.maximum(half_range, 1e-3))
            self.hsgp_centre_ = centre
        else:
            boundary = None
        prior = self._prior(d)
        self.ard_ = np.array([self._use_ard(n, d)] * n_latent)
        hyper = {
            "n_obs": n, "n_latent": n_latent, "n_inputs": d, "inference": self.inference,
            "likelihood": self.likelihood, "ard": bool(self.ard_[0]),
            "lengthscale": self.lengthscale, "amplitude": self.amplitude,
            "ls_alpha": prior.ls_alpha, "ls_beta": prior.ls_beta, "amp_sigma": prior.amp_sigma,
            "n_basis": int(self.n_basis), "boundary": boundary,
        }
        data = {"X": Xs - (self.hsgp_centre_ if self.inference == "hsgp" else 0.0),
                "y": codes.astype(np.int64)}
        fit = sample_posterior(
            gp_classifier_model, data, hyper=hyper, inference="nuts", sampler=self.sampler,
            draws=int(self.draws), tune=int(self.tune), chains=int(self.chains),
            random_state=self.seed_, cores=int(self.cores), blas_threads=self.blas_threads,
        )
        self.idata_ = fit.idata
        self.hsgp_boundary_ = boundary
        names = [v for v in ("lengthscale", "amplitude") if v in fit.idata["posterior"].data_vars]
        latent = [v for v in fit.idata["posterior"].data_vars if v.startswith("f")]
        return {"sampler": fit.sampler, "var_names": names + latent}

    # ------------------------------------------------------------------ prediction

    def _latent_predictive(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance of the latent ``f*``: shape ``(S, n, L)`` each.

        ``S = 1`` for EP (one Gaussian), the posterior draws for MCMC/HSGP.
        """
        check_is_fitted(self, "idata_")
        Xn = self._standardise(X)
        if self._is_ep():
            from bayescal.probes.gp_ep import ep_predict_latent
            from bayescal.probes.gp_sparse import sparse_ep_predict_latent

            means, vars_ = [], []
            with limit_blas_threads(self.blas_threads):
                for theta, res in zip(self.theta_, self.ep_results_, strict=True):
                    if self.inference_ == "sparse":
                        m, v = sparse_ep_predict_latent(Xn, theta, res)
                    else:
                        m, v = ep_predict_latent(self.X_train_, Xn, theta, res)
                    means.append(m)
                    vars_.append(v)
            return np.stack(means, -1)[None], np.stack(vars_, -1)[None]
        post = self.idata_["posterior"]
        n_latent = 1 if self.classes_.size == 2 else self.classes_.size
        names = ["f"] if n_latent == 1 else [f"f_{k}" for k in range(n_latent)]
        if self.inference == "hsgp":
            return self._hsgp_predictive(Xn, post, names)
        return self._latent_gp_predictive(Xn, post, names)

    def _hyper_draws(self, post, n_draws: int) -> tuple[np.ndarray, np.ndarray]:
        d = self.n_features_in_
        if "lengthscale" in post.data_vars:
            ls = np.asarray(post["lengthscale"]).reshape(n_draws, -1)
        else:
            ls = np.full((n_draws, d if self.ard_[0] else 1), float(self.lengthscale))
        if ls.shape[1] == 1:
            ls = np.repeat(ls, d, axis=1)
        if "amplitude" in post.data_vars:
            amp = np.asarray(post["amplitude"]).reshape(n_draws)
        else:
            amp = np.full(n_draws, float(self.amplitude))
        return ls, amp

    def _latent_gp_predictive(self, Xn, post, names):
        from scipy.linalg import cho_solve, cholesky

        f = np.stack([np.asarray(post[v]) for v in names], axis=-1)  # chain, draw, n, L
        n_draws = f.shape[0] * f.shape[1]
        f = f.reshape(n_draws, f.shape[2], f.shape[3])
        ls, amp = self._hyper_draws(post, n_draws)
        means = np.empty((n_draws, Xn.shape[0], len(names)))
        vars_ = np.empty((n_draws, Xn.shape[0], len(names)))
        with limit_blas_threads(self.blas_threads):
            for s in range(n_draws):
                theta = np.append(np.log(ls[s]), np.log(amp[s]))
                K = rbf_kernel(self.X_train_, self.X_train_, theta)
                K[np.diag_indices_from(K)] += JITTER
                chol = cholesky(K, lower=True, check_finite=False)
                Ks = rbf_kernel(self.X_train_, Xn, theta)
                A = cho_solve((chol, True), Ks, check_finite=False)
                means[s] = A.T @ f[s]
                var = amp[s] ** 2 - np.einsum("ij,ij->j", Ks, A)
                vars_[s] = np.maximum(var, 1e-12)[:, None]
        return means, vars_

    def _hsgp_predictive(self, Xn, post, names):
        from pymc.gp.hsgp_approx import calc_eigenvalues, calc_eigenvectors

        m = [int(self.n_basis)] * self.n_features_in_
        L = np.asarray(self.hsgp_boundary_)
        eig = calc_eigenvalues(L, m)
        eig = eig.eval() if hasattr(eig, "eval") else np.asarray(eig)
        phi = calc_eigenvectors(Xn - self.hsgp_centre_, L, eig, m)
        phi = phi.eval() if hasattr(phi, "eval") else np.asarray(phi)
        sqrt_psd = np.asarray(post["sqrt_psd"])
        n_draws = sqrt_psd.shape[0] * sqrt_psd.shape[1]
        sqrt_psd = sqrt_psd.reshape(n_draws, -1)
        means = []
        for k in range(len(names)):
            beta = np.asarray(post[f"beta_{k}"]).reshape(n_draws, -1)
            means.append((beta * sqrt_psd) @ phi.T)
        mean = np.stack(means, axis=-1)
        return mean, np.zeros_like(mean)

    def _link(self, f: np.ndarray) -> np.ndarray:
        return ndtr(f) if self.likelihood == "probit" else expit(f)

    def _proba_draws(self, X: Any) -> np.ndarray:
        """Draws of the class probabilities, shape ``(n_draws, n, K)``.

        EP: ``draws * chains`` draws of ``f* ~ N(mu*, s2*)`` through ``Phi``;
        MCMC: one draw of ``f*`` from its GP conditional per posterior draw;
        HSGP: the basis expansion at each posterior draw. Seeded by
        ``random_state`` (the same fit gives the same draws).
        """
        mean, var = self._latent_predictive(X)
        rng = np.random.default_rng(self.seed_ + 1)
        if self._is_ep():
            n_draws = int(self.draws) * int(self.chains)
            f = mean + np.sqrt(var) * rng.standard_normal((n_draws, *mean.shape[1:]))
        else:
            f = mean + np.sqrt(var) * rng.standard_normal(mean.shape)
        return self._to_proba(f)

    def _to_proba(self, f: np.ndarray) -> np.ndarray:
        if self.classes_.size == 2:
            p = self._link(f[..., 0])
            return np.stack([1.0 - p, p], axis=-1)
        if self._is_ep():
            p = ndtr(f)
            return p / p.sum(axis=-1, keepdims=True)
        z = f - f.max(axis=-1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=-1, keepdims=True)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Posterior-mean class probabilities, shape ``(n, K)``; rows sum to 1.

        EP: ``Phi(mu* / sqrt(1 + s2*))`` exactly (one-vs-rest, normalised, for
        ``K >= 3``). MCMC/HSGP with a probit link: the same closed form averaged
        over posterior draws; otherwise the average of :meth:`_proba_draws`.
        """
        mean, var = self._latent_predictive(X)
        if self.classes_.size == 2 and self.likelihood == "probit":
            p = predictive_probability(mean[..., 0], var[..., 0]).mean(axis=0)
            return np.column_stack([1.0 - p, p])
        if self._is_ep():
            p = predictive_probability(mean[0], var[0])
            return p / p.sum(axis=1, keepdims=True)
        proba = self._proba_draws(X).mean(axis=0)
        return proba / proba.sum(axis=1, keepdims=True)

    def predict_interval(self, X: Any, prob: float = 0.9, *, kind: str = "eti") -> np.ndarray:
        """Credible interval of each class probability, shape ``(n, K, 2)``.

        Binary EP with ``kind="eti"``: the exact quantiles
        ``Phi(mu* -+ z s*)`` of the latent probability. Otherwise quantiles
        (or HDI) of :meth:`_proba_draws`.
        """
        prob = check_fraction(prob, "prob")
        check_choice(kind, "kind", ("eti", "hdi"))
        if self._is_ep() and kind == "eti" and getattr(self, "classes_", np.zeros(0)).size == 2:
            mean, var = self._latent_predictive(X)
            z = ndtri(0.5 + prob / 2.0)
            sd = np.sqrt(var[0, :, 0])
            lo = ndtr(mean[0, :, 0] - z * sd)
            hi = ndtr(mean[0, :, 0] + z * sd)
            return np.stack([np.column_stack([1.0 - hi, 1.0 - lo]), np.column_stack([lo, hi])],
                            axis=1)
        draws = self._proba_draws(X)
        lower, upper = credible_interval(draws, prob, kind=kind, axis=0)
        return np.stack([lower, upper], axis=-1)


def _seed(random_state: Any) -> int:
    from bayescal.inference.sampling import seed_from_random_state

    return seed_from_random_state(random_state)


def _both_classes(rows: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``rows`` with one row of each missing class of ``y`` added."""
    extra = [np.flatnonzero(y == c)[0] for c in np.unique(y) if not np.any(y[rows] == c)]
    return np.sort(np.append(rows, extra).astype(int))


def _fixed_mask(lengthscale, amplitude, n_ls: int) -> np.ndarray:
    mask = np.zeros(n_ls + 1, dtype=bool)
    mask[:-1] = lengthscale is not None
    mask[-1] = amplitude is not None
    return mask


def _draw_ep_posterior(Xs, fit, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Draws of latent f at the training inputs from the EP Gaussian ``N(mu, Sigma)``."""
    from scipy.linalg import cholesky, solve_triangular

    res = fit.result
    sw = res.sqrt_tau
    V = solve_triangular(res.L, sw[:, None] * fit.K, lower=True, check_finite=False)
    Sigma = fit.K - V.T @ V
    Sigma[np.diag_indices_from(Sigma)] += JITTER
    try:  # Cholesky: several times cheaper than an eigendecomposition at n in the thousands
        root = cholesky(Sigma, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        w, U = np.linalg.eigh(Sigma)
        root = U * np.sqrt(np.maximum(w, 0.0))
    return res.mean + rng.standard_normal((n_draws, res.mean.size)) @ root.T

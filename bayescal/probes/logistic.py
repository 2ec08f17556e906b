"""Bayesian logistic regression with weakly informative Student-t (Cauchy) priors.

The linear reference probe of bayescal (Alasalmi 2020,
§2.1.1): logistic regression whose coefficients carry the weakly informative
priors of Gelman, Jakulin, Pittau & Su (2008). Unlike maximum likelihood it
stays finite under complete separation and collinearity, and its posterior
gives every predicted probability a credible interval.

Layers: :func:`scale_inputs` (NumPy, the Gelman et al. input scaling),
:func:`blr_model` (a pure builder returning a ``pm.Model``), and the estimator
:class:`BayesianLogisticRegression`, which fits through
:func:`bayescal.inference.sampling.sample_posterior` and predicts through
:class:`bayescal.inference.posterior.PosteriorPredictiveMixin`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from bayescal._compat.param_validation import StrOptions, validate_params
from bayescal.clipping import bounded_expit, bounded_softmax
from bayescal.inference.posterior import (
    POINT_ESTIMATES,
    PosteriorPredictiveMixin,
    record_diagnostics,
    stack_draws,
)
from bayescal.inference.sampling import (
    SAMPLER_CONSTRAINTS,
    STUDENT_T_PRIOR_CONSTRAINTS,
    sample_posterior,
    sampler_settings,
    student_t_prior_hyper,
)
from bayescal.validation import check_classification_data, check_features

__all__ = ["BayesianLogisticRegression", "blr_model", "scale_inputs"]


def scale_inputs(
    X: np.ndarray, *, centred: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Centre and scale inputs as Gelman et al. (2008) recommend.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Finite inputs.
    centred : ndarray of shape (n, d), optional
        ``X - X.mean(axis=0)`` when the caller has it (saves a pass over ``X``).

    Returns
    -------
    center, scale : ndarray of shape (d,)
        The scaled inputs are ``(X - center) / scale``.

    Notes
    -----
    A column with exactly two distinct values (a binary input) is centred at
    its mean and divided by the difference of its two levels, so the levels
    differ by one. Any other column is centred and divided by twice its
    standard deviation (mean 0, sd 0.5), which puts continuous inputs on the
    scale of a balanced binary one. A constant column is only centred.

    References
    ----------
    Gelman, A., Jakulin, A., Pittau, M. G. & Su, Y.-S. (2008). A weakly
    informative default prior distribution for logistic and other regression
    models. *Annals of Applied Statistics* 2(4), 1360-1383.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.column_stack([[0, 1, 1, 0], [1.0, 2.0, 3.0, 4.0]])
    >>> center, scale = scale_inputs(X)
    >>> np.round((X - center) / scale, 3)[:, 0]
    array([-0.5,  0.5,  0.5, -0.5])
    """
    center = X.mean(axis=0)
    scale = np.ones(X.shape[1])
    if X.shape[0] == 0:
        return center, scale
    # at most two levels: every value is the column's minimum or maximum (O(n d), no sort);
    # a continuous column shows a third level within its first rows, so only the
    # columns with at most two levels there are checked in full
    head = X[:64]
    few = ((head == head.min(axis=0)) | (head == head.max(axis=0))).all(axis=0)
    two_or_fewer = np.zeros(X.shape[1], dtype=bool)
    if few.any():
        columns = X[:, few]
        low, high = columns.min(axis=0), columns.max(axis=0)
        levels = ((columns == low) | (columns == high)).all(axis=0)
        two_or_fewer[few] = levels
        binary = np.flatnonzero(few)[levels & (high > low)]
        scale[binary] = (high - low)[levels & (high > low)]
    if not two_or_fewer.all():
        if centred is None:
            centred = X - center
        sd = np.sqrt(np.einsum("ij,ij->j", centred, centred) / X.shape[0])
        scale[~two_or_fewer] = 2.0 * sd[~two_or_fewer]
    return center, scale


def _scaled_inputs(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`scale_inputs` and the scaled inputs, from one centred copy of ``X``."""
    centred = X - X.mean(axis=0)
    center, scale = scale_inputs(X, centred=centred)
    centred /= scale
    return center, scale, centred


def blr_model(
    data: dict[str, np.ndarray],
    *,
    prior_scale: float,
    intercept_scale: float,
    prior_df: float,
    n_outputs: int,
    likelihood: str,
) -> Any:
    """The PyMC model of Bayesian logistic regression (a pure builder).

    Parameters
    ----------
    data : dict
        ``"X"``: scaled inputs ``(n, d)``; ``"y"``: integer labels ``(n,)``
        (0/1 for ``likelihood="bernoulli"``; ``0..n_outputs`` for
        ``"categorical"``, class 0 the reference).
    prior_scale, intercept_scale : float
        Scales of the Student-t priors of the coefficients and the intercepts.
    prior_df : float
        Degrees of freedom of the priors (1: Cauchy).
    n_outputs : int
        Number of linear predictors: 1 (binary) or K-1 (multinomial).
    likelihood : {"bernoulli", "categorical"}

    Returns
    -------
    pymc.Model
        Free variables ``intercept`` (dims ``output``) and ``beta`` (dims
        ``feature``, ``output``); ``pm.Data`` containers ``X`` and ``y`` with no
        named dim on the observation axis (so that new data can be swapped in).

    Notes
    -----
    ``eta = intercept + X @ beta``; ``y ~ Bernoulli(logistic(eta))`` or
    ``y ~ Categorical(softmax([0, eta]))`` with the first class as reference,
    which identifies the multinomial model without relying on the prior. The
    priors then act on contrasts with the first class: a contrast between two
    other classes is the difference of two Cauchy coefficients (scale twice
    ``prior_scale``), so with little data the posterior depends somewhat on
    which class is listed first (Gaussian priors can be made symmetric by a
    zero-sum parametrisation, as :class:`~bayescal.probes.BayesianDirichletCalibrator`
    does; Cauchy ones cannot).
    """
    import pymc as pm

    n_features = data["X"].shape[1]
    coords = {"feature": np.arange(n_features), "output": np.arange(n_outputs)}
    with pm.Model(coords=coords) as model:
        X = pm.Data("X", data["X"])
        y = pm.Data("y", data["y"])
        intercept = pm.StudentT(
            "intercept", nu=prior_df, mu=0.0, sigma=intercept_scale, dims="output"
        )
        beta = pm.StudentT(
            "beta", nu=prior_df, mu=0.0, sigma=prior_scale, dims=("feature", "output")
        )
        eta = intercept + X @ beta
        if likelihood == "bernoulli":
            pm.Bernoulli("obs", logit_p=eta[:, 0], observed=y)
        else:
            import pytensor.tensor as pt

            logits = pt.concatenate([pt.zeros((eta.shape[0], 1)), eta], axis=1)
            pm.Categorical("obs", logit_p=logits, observed=y)
    return model


def _blr_glm_problem(
    data: dict[str, np.ndarray],
    *,
    prior_scale: float,
    intercept_scale: float,
    prior_df: float,
    n_outputs: int,
    likelihood: str,
) -> Any:
    """:func:`blr_model` as a NumPy :class:`~bayescal.inference.laplace_glm.GLMProblem`.

    The binary model only (``None`` for the multinomial one, which keeps the
    compiled PyMC path of :func:`bayescal.inference.sampling.sample_posterior`).
    """
    if likelihood != "bernoulli" or n_outputs != 1:
        return None
    from bayescal.inference.laplace_glm import GLMProblem, LogisticGLM

    X = np.asarray(data["X"], dtype=float)
    glm = LogisticGLM(
        design=X,
        targets=np.asarray(data["y"], dtype=float),
        weights=np.ones(X.shape[0]),
        prior_scale=prior_scale,
        intercept_scale=intercept_scale,
        prior_df=prior_df,
    )

    def outputs(thetas: np.ndarray) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
        return {
            "intercept": (thetas[:, :1], ("output",)),
            "beta": (thetas[:, 1:, None], ("feature", "output")),
        }

    coords = {"feature": np.arange(X.shape[1]), "output": np.arange(1)}
    return GLMProblem(glm, outputs, coords)


#: Laplace fits of the binary model use Newton's method in NumPy (no PyMC graph).
blr_model.glm_problem = _blr_glm_problem  # type: ignore[attr-defined]


class BayesianLogisticRegression(PosteriorPredictiveMixin, ClassifierMixin, BaseEstimator):
    """Logistic regression with Student-t priors (Cauchy by default), fitted by MCMC.

    Parameters
    ----------
    prior_scale : float, default=2.5
        Scale of the Student-t prior of each coefficient, on the scaled
        inputs (Gelman et al. 2008).
    intercept_scale : float, default=10.0
        Scale of the Student-t prior of the intercept(s).
    prior_df : float, default=1
        Degrees of freedom of the priors; 1 gives the Cauchy prior.
    multi_class : {"multinomial", "ovr"}, default="multinomial"
        For K > 2 classes: one softmax model with the first class as
        reference, or K binary models whose probabilities are normalised to
        sum to one. Ignored for two classes.
    inference : {"nuts", "advi", "laplace"}, default="nuts"
        Posterior by NUTS, mean-field ADVI or a Laplace approximation. For
        two classes (and one-vs-rest) Laplace finds the mode by Newton's
        method on the exact log posterior with its analytic gradient and
        Hessian in NumPy (:mod:`bayescal.inference.laplace_glm`; at n = 10^4 and
        5 x 10^4, d = 20, the mode and Hessian cost 1.6x and 3.3x
        scikit-learn's ``LogisticRegression``, ``benchmarks/laplace.py``).
        Laplace and ADVI draws are checked against the exact posterior by
        Pareto-smoothed importance sampling, whose cost grows as
        ``n * draws * chains`` (90x and 156x scikit-learn at those sizes with
        the default 2 x 1000 draws): ``diagnostics_.pareto_k`` above 0.7
        means not converged (a warning says to use NUTS), at or below it the
        draws are importance-resampled to the posterior.
    sampler : {"auto", "nutpie", "nutpie-c", "nutpie-glm", "pymc", "numpyro", "blackjax"}, default="auto"
        NUTS implementation. The default ``"auto"`` runs ``"nutpie-glm"`` for
        the binary and one-vs-rest models from
        :data:`~bayescal.inference.sampling.GLM_SAMPLER_MIN_ROWS` (2000) rows and
        ``"nutpie"`` otherwise (the multinomial model, which has no NumPy log
        posterior, and smaller data sets); ``diagnostics_.sampler`` says which
        ran. ``"nutpie-glm"`` runs nutpie's NUTS on the NumPy log posterior of
        :mod:`bayescal.inference.laplace_glm` (:mod:`bayescal.inference.nutpie_glm`):
        no compilation and a gradient a third of the compiled graph's at
        n = 10^4, but a Python call per gradient. At n = 10^4 and 5 x 10^4
        (d = 20, second fit, ``benchmarks/nuts_ess.py``) it reaches 1.7x and
        1.2x numpyro's bulk ESS per CPU-second, where ``"nutpie"`` reaches
        0.5x and 0.4x; at n = 300 it costs 2.5x ``"nutpie"``'s refit (see
        :mod:`bayescal.inference.sampling`). A multinomial model with
        ``sampler="nutpie-glm"`` raises. ``"nutpie"`` compiles the PyMC
        model once per process and model structure and refits new data
        (``benchmarks/blr.py``: 10-fold BLR, n=1000, d=20, 2 chains x
        1000 + 1000, one BLAS thread, 2 shared cores): 30.9 s in all (20.6 s
        for the first fold, compilation included, then 1.1 s per fold)
        against 148.8 s for ``pm.sample(nuts_sampler="pymc")`` (12.8 s per
        fold) and 120.0 s for ``pm.sample`` with PyMC's defaults (which pick
        nutpie but recompile on every call), at a higher smallest bulk ESS
        (3192 against 2895 and 3073): 4.8x and 4.1x the bulk ESS per second.
        The compilation is shared by every fold, class (one-vs-rest) and
        repeat of one model structure in a process. ``"nutpie-c"`` runs
        nutpie on PyTensor's C backend, whose compiled modules are cached on
        disk (PyTensor's per-user ``compiledir``), so a *new process* fitting
        the same structure starts sampling after 0.9-1.3 CPU-s instead of
        7.5-11 CPU-s of nutpie's Numba compilation
        (``benchmarks/compile_cache.py``); but each gradient is a Python
        call, so its sampling costs 1.5-4.7x the CPU of ``"nutpie"`` at
        n = 300-2000 (the same at n = 10,000;
        ``benchmarks/sampler_choice.py``): the choice for one-off fits of
        small models in fresh processes. ``"pymc"`` needs no nutpie
        compilation step and suits a single small fit. ``"numpyro"`` and
        ``"blackjax"`` run NUTS on JAX (optional ``bayescal[jax]``; on a GPU
        where JAX has one), on this model's JAX log posterior with the data
        as arguments, compiled once per shape and setting (binary and
        one-vs-rest models; :mod:`bayescal.inference.jax_glm`); the
        multinomial model through PyMC's JAX translation, compiling on every
        fit (:mod:`bayescal.inference.jax_nuts`); ``benchmarks/nuts_gpu.py``.
    draws, tune, chains : int, default=1000, 1000, 2
        Posterior draws and tuning steps per chain, and chains.
    point_estimate : {"mean", "median"}, default="mean"
        What ``predict_proba`` returns: the posterior mean of each class
        probability (the posterior predictive probability, which minimises the
        expected Brier score and log loss, hence the default) or its posterior
        median (inside every equal-tailed interval of ``predict_interval``;
        see Notes).
    random_state : None, int or numpy Generator
        Seed of the sampler; the same int gives the same draws.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
        Class labels.
    idata_ : xarray.DataTree
        The posterior; ``intercept`` (dims ``output``) and ``beta`` (dims
        ``feature``, ``output``) on the scaled inputs. ``output`` indexes the
        linear predictors: 1 for two classes, K-1 (multinomial; class 0 the
        reference) or K (one-vs-rest).
    diagnostics_ : PosteriorDiagnostics
        R-hat, bulk/tail ESS, divergences, sampler, seconds, failures; see
        :mod:`bayescal.inference.diagnostics`.
    x_center_, x_scale_ : ndarray of shape (d,)
        Input scaling (:func:`scale_inputs`).
    posterior_mode_ : dict or None
        ``inference="laplace"`` only: the posterior mode of ``intercept`` and
        ``beta`` (scaled inputs); for one-vs-rest stacked over classes.
    coef_, intercept_ : ndarray
        Posterior means on the original input scale, shapes ``(outputs, d)``
        and ``(outputs,)``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of ``X`` when fit was given a DataFrame (only then).

    Raises
    ------
    ValueError
        From ``fit`` for NaN/inf in ``X`` (impute first, e.g. with
        :mod:`bayescal.missing`), a single class, mismatched lengths or bad
        parameters.

    Notes
    -----
    With inputs scaled by :func:`scale_inputs`,

    .. math::

        \\eta = \\alpha + x^\\top \\beta, \\quad
        \\beta_j \\sim t_\\nu(0, s), \\quad \\alpha \\sim t_\\nu(0, s_0),

    with ``s = prior_scale``, ``s_0 = intercept_scale`` and ``nu = prior_df``
    (Gelman et al. 2008 use ``nu = 1``, ``s = 2.5``, ``s_0 = 10``). The heavy
    Cauchy tails let strong effects through while keeping coefficients finite
    when the classes are completely separable, where maximum likelihood
    diverges, and stable under collinearity (Alasalmi 2020, §2.1.1).
    ``predict_proba`` is the posterior mean of the class probabilities
    (``point_estimate="mean"``) and ``predict_interval`` their equal-tailed
    (or HDI) credible interval, both from the same posterior draws and both in
    probability space. The mean is the posterior *predictive* probability
    ``P(y | x, data)``, the number a proper scoring rule rewards; but with
    Cauchy priors on wide data the posterior of ``p(x)`` can be bimodal near 0
    and 1 (linear predictors with posterior standard deviations of 3-9 on a
    400-row subsample of spambase, 57 inputs), and a tail of fewer than 5 % of
    the draws then carries the mean beyond the 90 % interval: 2.5 % of held-out
    rows under Laplace, 34 % under a NUTS run whose R-hat was 1.12 (flagged). A
    mean outside its interval is a property of that posterior, not an
    inconsistency between two computations. ``point_estimate="median"`` gives
    the posterior median, which lies inside every equal-tailed interval (with
    ``K > 2`` classes the per-class medians are renormalised to sum to one,
    see :func:`bayescal.inference.posterior.point_estimate_of_draws`).
    Multinomial probabilities use :func:`bayescal.clipping.bounded_softmax`
    (log space; never exactly 0 or 1).
    All posterior draws are used for prediction, so memory grows as
    ``draws * chains * n * K``.

    References
    ----------
    Gelman, A., Jakulin, A., Pittau, M. G. & Su, Y.-S. (2008). A weakly
    informative default prior distribution for logistic and other regression
    models. *Annals of Applied Statistics* 2(4), 1360-1383.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 2))
    >>> y = (X[:, 0] + rng.logistic(size=80) > 0).astype(int)
    >>> blr = BayesianLogisticRegression(inference="laplace", draws=200, random_state=0)
    >>> proba = blr.fit(X, y).predict_proba(X)
    >>> proba.shape, bool(np.allclose(proba.sum(axis=1), 1.0))
    ((80, 2), True)
    """

    _parameter_constraints: dict = {
        **STUDENT_T_PRIOR_CONSTRAINTS,
        "multi_class": [StrOptions({"multinomial", "ovr"})],
        "point_estimate": [StrOptions(set(POINT_ESTIMATES))],
        **SAMPLER_CONSTRAINTS,
    }

    def __init__(
        self,
        *,
        prior_scale: float = 2.5,
        intercept_scale: float = 10.0,
        prior_df: float = 1,
        multi_class: str = "multinomial",
        inference: str = "nuts",
        sampler: str = "auto",
        draws: int = 1000,
        tune: int = 1000,
        chains: int = 2,
        point_estimate: str = "mean",
        random_state: Any = None,
    ) -> None:
        self.prior_scale = prior_scale
        self.intercept_scale = intercept_scale
        self.prior_df = prior_df
        self.multi_class = multi_class
        self.inference = inference
        self.sampler = sampler
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.point_estimate = point_estimate
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> BayesianLogisticRegression:
        """Sample the posterior of the coefficients.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Finite inputs (impute missing values first).
        y : array-like of shape (n,)
            Class labels (at least two classes).

        Returns
        -------
        self
        """
        validate_params(self)
        hyper, settings = student_t_prior_hyper(self), sampler_settings(self)
        X, self.classes_, codes = check_classification_data(self, X, y)
        n_classes = self.classes_.size
        self.x_center_, self.x_scale_, Xs = _scaled_inputs(X)
        if n_classes == 2 or self.multi_class == "multinomial":
            binary = n_classes == 2
            fit = sample_posterior(
                blr_model,
                {"X": Xs, "y": codes.astype(np.int64)},
                hyper={
                    **hyper,
                    "n_outputs": 1 if binary else n_classes - 1,
                    "likelihood": "bernoulli" if binary else "categorical",
                },
                random_state=self.random_state,
                **settings,
            )
            self.idata_ = fit.idata
            mode = fit.mode
            seconds, used, pareto_k = fit.seconds, fit.sampler, fit.pareto_k
        else:
            self.idata_, mode, seconds, used, pareto_k = self._fit_ovr(
                Xs, codes, n_classes, hyper, settings
            )
        self.posterior_mode_ = (
            None if mode is None else {k: np.asarray(mode[k]) for k in ("intercept", "beta")}
        )
        record_diagnostics(
            self,
            self.idata_,
            sampler=used,
            seconds=seconds,
            var_names=["intercept", "beta"],
            pareto_k=pareto_k,
        )
        intercepts, coefs = self.original_scale_draws()
        self.intercept_ = intercepts.mean(axis=0)
        self.coef_ = coefs.mean(axis=0)
        return self

    def _fit_ovr(self, Xs, codes, n_classes, hyper, settings):
        """One binary model per class; all share one compiled model structure."""
        import xarray as xr

        from bayescal.inference.sampling import seed_from_random_state

        base_seed = seed_from_random_state(self.random_state)
        trees, modes, seconds, khats = [], [], 0.0, []
        for k in range(n_classes):
            fit = sample_posterior(
                blr_model,
                {"X": Xs, "y": (codes == k).astype(np.int64)},
                hyper={**hyper, "n_outputs": 1, "likelihood": "bernoulli"},
                random_state=(base_seed + k) % (2**31),
                **settings,
            )
            trees.append(fit.idata)
            modes.append(fit.mode)
            seconds += fit.seconds
            khats.append(fit.pareto_k)
            used = fit.sampler
        groups = {}
        for group in ("posterior", "sample_stats"):
            if all(group in tree.children for tree in trees):
                parts = [tree[group].to_dataset() for tree in trees]
                if group == "posterior":
                    parts = [p.isel(output=0, drop=True) for p in parts]
                    combined = xr.concat(parts, dim="output", coords="minimal", compat="override")
                    combined = combined.assign_coords(output=np.arange(n_classes))
                    combined = combined.transpose("chain", "draw", "feature", "output", ...)
                else:
                    combined = xr.concat(parts, dim="output", coords="minimal", compat="override")
                groups[group] = combined
        mode = None
        if all(m is not None for m in modes):
            mode = {
                "intercept": np.concatenate([np.ravel(m["intercept"]) for m in modes]),
                "beta": np.column_stack([np.ravel(m["beta"]) for m in modes]),
            }
        # the worst class's check (NaN for NUTS)
        pareto_k = float(np.nanmax(khats)) if not np.all(np.isnan(khats)) else float("nan")
        return xr.DataTree.from_dict(groups), mode, seconds, used, pareto_k

    def original_scale_draws(self) -> tuple[np.ndarray, np.ndarray]:
        """Posterior draws of intercepts and coefficients on the original inputs.

        Returns
        -------
        intercepts : ndarray of shape (n_draws, outputs)
        coefs : ndarray of shape (n_draws, outputs, d)

        Notes
        -----
        ``alpha + ((x - c) / s) @ beta = (alpha - (c / s) @ beta) + x @ (beta / s)``.
        """
        check_is_fitted(self, "idata_")
        alpha = stack_draws(self.idata_, "intercept")  # (S, outputs)
        beta = stack_draws(self.idata_, "beta")  # (S, d, outputs)
        coefs = beta / self.x_scale_[None, :, None]
        intercepts = alpha - np.einsum("d,sdo->so", self.x_center_, coefs)
        return intercepts, np.transpose(coefs, (0, 2, 1))

    def _proba_draws(self, X: Any) -> np.ndarray:
        """Class probabilities under each posterior draw, shape ``(S, n, K)``."""
        check_is_fitted(self, "idata_")
        X = check_features(self, X, reset=False)
        Xs = (X - self.x_center_) / self.x_scale_
        alpha = stack_draws(self.idata_, "intercept")
        beta = stack_draws(self.idata_, "beta")
        eta = alpha[:, None, :] + np.einsum("nd,sdo->sno", Xs, beta)
        n_classes = self.classes_.size
        if n_classes == 2:
            p1 = bounded_expit(eta[..., 0])
            return np.stack([1.0 - p1, p1], axis=-1)
        if eta.shape[-1] == n_classes:  # one-vs-rest: normalise the K sigmoids
            p = bounded_expit(eta)
            return p / p.sum(axis=-1, keepdims=True)
        logits = np.concatenate([np.zeros((*eta.shape[:2], 1)), eta], axis=-1)
        return bounded_softmax(logits, axis=-1)

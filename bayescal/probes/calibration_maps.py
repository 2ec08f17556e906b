"""Bayesian calibration maps: Platt, beta and penalised-spline calibration with posteriors.

The Bayesian twins of three frequentist calibrators: each learns the map
score -> probability with a posterior, so every calibrated probability has a
credible interval (``predict_interval``) and the whole map a credible band
(``map_band``).

* :class:`BayesianPlattCalibrator`: ``logit p = a + b * logit(s)`` (Platt on
  the logit, which Phelps et al. (2024) Eq. 4 shows is the right
  feature after undersampling) or ``a + b * s`` (Platt 1999).
* :class:`BayesianBetaCalibrator`: ``logit p = c + a log s - b log(1 - s)``
  with ``a, b >= 0`` (Kull, Silva Filho & Flach 2017).
* :class:`BayesianSplineCalibrator`: ``logit p = a + b z + f(z)`` on
  ``z = logit(s)`` with ``f`` a cubic B-spline whose coefficients follow a
  second-order random walk with a half-Student-t smoothness scale (a Bayesian
  P-spline, Lang & Brezger 2004) -- the Bayesian twin of the logistic GAM
  that Phelps et al. (2024) recommends after undersampling.

Undersampling (Phelps et al. 2024, Eq. 1)
-----------------------------------
A base model trained on data whose negatives were kept with probability
``pi0`` outputs ``gamma = P(Y=1 | x, S=1)``, and the calibration data are
from the same undersampled distribution. With ``pi0`` set, each map is
fitted to that data as usual (its posterior is the map score -> gamma) and
then composed with the analytical correction

.. math:: \\kappa(\\gamma) = \\frac{\\gamma \\pi_0}{1 - \\gamma + \\gamma \\pi_0},
          \\qquad \\operatorname{logit} \\kappa(\\gamma) = \\operatorname{logit}
          \\gamma + \\log \\pi_0 ,

draw by draw: ``log(pi0)`` is added to every posterior draw of the linear
predictor before the inverse logit. Since ``kappa`` is increasing, the
credible intervals of the corrected map are the corrected intervals.

Fractional targets and weights
------------------------------
The likelihood is the weighted Bernoulli log-likelihood
``sum_i w_i [t_i log p_i + (1 - t_i) log(1 - p_i)]`` added to the model with
``pm.Potential``, so fractional targets ``t_i`` in [0, 1] (DGG groups,
Platt's smoothed targets) and sample weights ``w_i`` enter exactly as in
the frequentist calibrators.

Inputs and clipping
-------------------
The maps follow bayescal's one ``input`` vocabulary (:mod:`bayescal.contracts`)
and clip rule (:mod:`bayescal.clipping`): probabilities are clipped to
``[clip, 1 - clip]`` (``clip=1e-12`` by default; ``n_clipped_`` counts them,
``clip=None`` raises on a score of exactly 0 or 1) before logs and logits -- the only change made
to the input. The Platt and spline maps also read decision values
(``input="decision"``, any real number) as they are.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.special import expit, logit
from sklearn.utils.validation import check_is_fitted

from bayescal._compat.param_validation import Interval
from bayescal.calibration._logistic import fit_logistic, intercept_design
from bayescal.calibration.base import BinaryCalibrator
from bayescal.calibration.undersampling import undersampling_correction  # noqa: F401
from bayescal.clipping import DEFAULT_CLIP, bounded_expit, clip_constraint, clip_probabilities
from bayescal.contracts import input_constraint
from bayescal.inference.posterior import (
    PosteriorPredictiveMixin,
    credible_interval,
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
from bayescal.probes.pspline import penalised_spline_design, spline_basis, spline_knots
from bayescal.probes.spline_laplace import SplineLogPosterior, grid_laplace_fit, smoothness_grid

__all__ = [
    "BayesianBetaCalibrator",
    "BayesianPlattCalibrator",
    "BayesianSplineCalibrator",
    "calibration_map_model",
    "penalised_spline_design",
    "spline_basis",
    "spline_knots",
]


def calibration_map_model(
    data: dict[str, np.ndarray],
    *,
    coef_prior: str,
    prior_scale: float,
    intercept_scale: float,
    prior_df: float,
    smoothness_scale: float,
    smoothness_df: float = 3.0,
) -> Any:
    """The PyMC model of a Bayesian calibration map (a pure builder).

    Parameters
    ----------
    data : dict
        ``"F"``: parametric features ``(n, m)``; ``"t"``: targets in [0, 1];
        ``"w"``: weights; and for the spline ``"B"``: penalised basis ``(n, K)``
        and either ``"d"``: the Fisher information ``d_k >= 0`` of each basis
        coefficient, giving the non-centring powers
        ``a_k = 1 / (1 + tau^2 d_k)`` at each ``tau``, or ``"a"``: fixed
        powers ``(K,)`` in [0, 1].
    coef_prior : {"real", "positive"}
        Student-t or half-Student-t prior on the feature coefficients.
    prior_scale, intercept_scale, prior_df : float
        Student-t scales of the coefficients and the intercept, and its
        degrees of freedom.
    smoothness_scale : float
        Scale of the half-Student-t prior on the random-walk standard
        deviation ``tau`` of the spline (used only when ``"B"`` is present).
    smoothness_df : float, default=3.0
        Its degrees of freedom (``inf``: half-normal).

    Returns
    -------
    pymc.Model
        Variables ``intercept``, ``coef`` (dims ``feature``) and, for the
        spline, ``tau``, ``innovations`` and ``spline_effect`` (dims ``basis``).

    Notes
    -----
    ``eta = intercept + F @ coef (+ B @ u)`` with ``u ~ N(0, tau^2 I)``
    written partially non-centred (Papaspiliopoulos, Roberts & Skold 2007):
    ``u_k = tau^(a_k) e_k``, ``e_k ~ N(0, tau^(2 (1 - a_k)))`` (``a_k = 1``:
    non-centred, ``a_k = 0``: centred), the same prior on ``u`` for every
    ``a``. For the spline, ``B`` is the mixed-model form of a cubic
    B-spline basis under a second-difference penalty (see
    :func:`penalised_spline_design`): the penalty's null space (constant and
    linear functions of ``z``) is carried by ``intercept`` and ``coef`` and
    left unpenalised, and ``tau -> 0`` gives Bayesian Platt scaling on the
    logit.
    """
    import pymc as pm
    import pytensor.tensor as pt

    n_features = data["F"].shape[1]
    coords: dict[str, Any] = {"feature": np.arange(n_features)}
    spline = "B" in data
    if spline:
        coords["basis"] = np.arange(data["B"].shape[1])
    with pm.Model(coords=coords) as model:
        F = pm.Data("F", data["F"])
        t = pm.Data("t", data["t"])
        w = pm.Data("w", data["w"])
        centring = "centre" in data
        if not centring:  # created first: the order of the sampler's parameter vector
            intercept = pm.StudentT("intercept", nu=prior_df, mu=0.0, sigma=intercept_scale)
        if coef_prior == "positive":
            coef = pm.HalfStudentT("coef", nu=prior_df, sigma=prior_scale, dims="feature")
        else:
            coef = pm.StudentT("coef", nu=prior_df, mu=0.0, sigma=prior_scale, dims="feature")
        if centring:
            # sample the intercept at the feature centre, c0 = c + centre @ coef, and
            # keep the Student-t prior on c itself (a shear: unit Jacobian)
            centre = pm.Data("centre", data["centre"])
            centred = pm.Flat("intercept_centred")
            intercept = pm.Deterministic("intercept", centred - centre @ coef)
            prior = pm.StudentT.dist(nu=prior_df, mu=0.0, sigma=intercept_scale)
            pm.Potential("intercept_prior", pm.logp(prior, intercept))
            eta = centred + (F - centre) @ coef
        else:
            eta = intercept + F @ coef
        if spline:
            B = pm.Data("B", data["B"])
            if np.isinf(smoothness_df):
                tau = pm.HalfNormal("tau", sigma=smoothness_scale)
            else:
                tau = pm.HalfStudentT("tau", nu=smoothness_df, sigma=smoothness_scale)
            if "d" in data:  # the power of the Gaussian case at each tau (see Notes)
                a = 1.0 / (1.0 + tau**2 * pm.Data("d", data["d"]))
            else:  # fixed powers
                a = pm.Data("a", data["a"])
            innovations = pm.Normal("innovations", 0.0, tau ** (1.0 - a), dims="basis")
            effect = pm.Deterministic("spline_effect", tau**a * innovations, dims="basis")
            eta = eta + B @ effect
        # log sigmoid(eta) = -log1pexp(-eta), log(1 - sigmoid(eta)) = -log1pexp(eta)
        loglik = -w * (t * pt.log1pexp(-eta) + (1.0 - t) * pt.log1pexp(eta))
        pm.Potential("loglik", loglik.sum())
    return model


def _map_glm_problem(
    data: dict[str, np.ndarray],
    *,
    coef_prior: str,
    prior_scale: float,
    intercept_scale: float,
    prior_df: float,
    smoothness_scale: float,
    smoothness_df: float = 3.0,
) -> Any:
    """:func:`calibration_map_model` as a NumPy :class:`~bayescal.inference.laplace_glm.GLMProblem`.

    The Platt and beta maps only (``None`` for the spline, whose smoothing
    variance keeps the compiled PyMC path of
    :func:`bayescal.inference.sampling.sample_posterior`).
    """
    if "B" in data:
        return None
    from bayescal.inference.laplace_glm import GLMProblem, LogisticGLM

    F = np.asarray(data["F"], dtype=float)
    centre = np.asarray(data["centre"], dtype=float) if "centre" in data else None
    glm = LogisticGLM(
        design=F,
        targets=np.asarray(data["t"], dtype=float),
        weights=np.asarray(data["w"], dtype=float),
        prior_scale=prior_scale,
        intercept_scale=intercept_scale,
        prior_df=prior_df,
        positive=coef_prior == "positive",
        centre=centre,
    )

    def outputs(thetas: np.ndarray) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
        intercept, coef = glm.coefficients(thetas)
        out = {"coef": (coef, ("feature",)), "intercept": (intercept, ())}
        if centre is not None:
            out["intercept_centred"] = (thetas[:, 0], ())
        return out

    return GLMProblem(glm, outputs, {"feature": np.arange(F.shape[1])})


#: Laplace fits of the Platt and beta maps use Newton's method in NumPy (no PyMC graph).
calibration_map_model.glm_problem = _map_glm_problem  # type: ignore[attr-defined]


#: ``_parameter_constraints`` entries shared by the three maps (``input`` differs).
_COMMON_CONSTRAINTS: dict[str, list] = {
    "clip": clip_constraint(),
    "pi0": [Interval(Real, 0, 1, closed="right"), None],
    **STUDENT_T_PRIOR_CONSTRAINTS,
    **SAMPLER_CONSTRAINTS,
}


class _BayesianCalibrationMap(PosteriorPredictiveMixin, BinaryCalibrator):
    """Shared fitting and prediction of the Bayesian calibration maps.

    Subclasses define ``_coef_prior`` and ``_features(s)`` (and the spline
    its basis). ``predict_proba`` (posterior mean) and ``predict_interval``
    come from :class:`PosteriorPredictiveMixin` through ``_proba_draws``,
    which validates the scores as :class:`BinaryCalibrator` does.
    """

    _coef_prior = "real"
    _min_samples = 3

    def _on_logit_scale(self) -> bool:
        """Whether the map takes logs of the scores (probability input)."""
        return self._input_kind() == "logit"

    def _logit(self, s: np.ndarray) -> np.ndarray:
        """The scores on the log-odds scale (one clip rule), or decision values as given."""
        if self._input_kind() == "decision":
            return s
        return logit(clip_probabilities(s, self.clip, owner=type(self).__name__)[0])

    def _hyper(self) -> dict[str, Any]:
        return {
            "coef_prior": self._coef_prior,
            **student_t_prior_hyper(self),
            "smoothness_scale": 1.0,
        }

    def _design(self, s: np.ndarray) -> dict[str, np.ndarray]:
        return {"F": self._features(s)}

    def _fit(self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> None:
        settings = sampler_settings(self)  # checked by ``_validate_params`` in ``fit``
        self.n_clipped_ = (
            clip_probabilities(scores, self.clip, owner=type(self).__name__)[1]
            if self._on_logit_scale()
            else 0
        )
        self._prepare(scores, targets, weights)
        failures, remedy = self._data_failures(scores, targets, weights)
        data = {**self._design(scores), **self._model_data(), "t": targets, "w": weights}
        fit = self._posterior(data, settings)
        self.idata_ = fit.idata
        names = [n for n in ("intercept", "intercept_centred", "coef", "tau", "innovations")
                 if n in fit.idata["posterior"]]
        record_diagnostics(
            self,
            fit.idata,
            sampler=fit.sampler,
            seconds=fit.seconds,
            var_names=names,
            stacklevel=5,
            pareto_k=fit.pareto_k,
            failures=failures,
            remedy=remedy,
        )

    def _data_failures(
        self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray
    ) -> tuple[tuple[str, ...], str | None]:
        """Failures of the fit that the data cause whatever the inference, and their remedy."""
        return (), None

    def _posterior(self, data: dict[str, np.ndarray], settings: dict[str, Any]) -> Any:
        """The posterior fit (:class:`~bayescal.inference.sampling.PosteriorFit`) of ``data``."""
        return sample_posterior(
            calibration_map_model,
            data,
            hyper=self._hyper(),
            random_state=self.random_state,
            **settings,
            **self._sampler_options(),
        )

    def _prepare(self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> None:
        """Learn data-dependent feature settings (the spline's knots and basis)."""

    def _model_data(self) -> dict[str, np.ndarray]:
        """Further arrays of the model that do not depend on the rows (the spline's)."""
        return {}

    def _sampler_options(self) -> dict[str, Any]:
        """Further keyword arguments of :func:`sample_posterior` (``target_accept``)."""
        accept = getattr(self, "target_accept", None)
        return {} if accept is None else {"target_accept": accept}

    def _linear_predictor_draws(self, s: np.ndarray) -> np.ndarray:
        design = self._design(s)
        eta = (
            stack_draws(self.idata_, "intercept")[:, None]
            + stack_draws(self.idata_, "coef") @ design["F"].T
        )
        if "B" in design:
            eta = eta + stack_draws(self.idata_, "spline_effect") @ design["B"].T
        if self.pi0 is not None:
            eta = eta + np.log(self.pi0)  # kappa of Phelps et al. (2024) Eq. 1, on the logit scale
        return eta

    def _proba_draws(self, X: Any) -> np.ndarray:
        """Probabilities under each posterior draw, shape ``(S, n, 2)``."""
        check_is_fitted(self, "idata_")
        s = self._validate_scores(X)
        p = bounded_expit(self._linear_predictor_draws(s))
        return np.stack([1.0 - p, p], axis=-1)

    def _predict_positive(self, scores: np.ndarray) -> np.ndarray:
        return bounded_expit(self._linear_predictor_draws(scores)).mean(axis=0)

    def map_band(
        self, grid: Any, prob: float = 0.9, *, kind: str = "eti"
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Posterior-mean calibration map and its credible band on ``grid``.

        Parameters
        ----------
        grid : array-like of shape (m,)
            Scores in [0, 1].
        prob : float, default=0.9
            Credible mass of the band.
        kind : {"eti", "hdi"}, default="eti"
            Equal-tailed or highest-density band.

        Returns
        -------
        mean, lower, upper : ndarray of shape (m,)
            Posterior mean of the calibrated probability and the band.
        """
        draws = self._proba_draws(grid)[..., 1]
        lower, upper = credible_interval(draws, prob, kind=kind, axis=0)
        return draws.mean(axis=0), lower, upper


_COMMON_PARAMS = """pi0 : float or None, default=None
        Rate at which negatives were kept when the base model's training data
        were undersampled; the fitted map is composed with
        ``kappa(gamma) = gamma pi0 / (1 - gamma + gamma pi0)`` (Phelps et al. 2024,
        Eq. 1) by adding ``log(pi0)`` to each posterior draw of the linear
        predictor. None: no correction.
    prior_scale : float, default=2.5
        Student-t scale of the coefficients.
    intercept_scale : float, default=10.0
        Student-t scale of the intercept.
    prior_df : float, default=1
        Degrees of freedom of the priors (1: Cauchy).
    inference : {"nuts", "advi", "laplace"}, default="nuts"
        Posterior by NUTS, ADVI or a Laplace approximation
        (:func:`bayescal.inference.sampling.sample_posterior`; the Platt and beta
        maps' Laplace mode by Newton's method in NumPy). Laplace and ADVI are
        checked against the exact posterior by Pareto-smoothed importance
        sampling: ``diagnostics_.pareto_k`` above 0.7 means not converged (a
        warning says to use NUTS); at or below it the draws are
        importance-resampled to the posterior. On small calibration sets the
        beta map's Laplace approximation often fails the check.
    sampler : {"auto", "nutpie", "nutpie-c", "nutpie-glm", "pymc", "numpyro", "blackjax"}, default="auto"
        NUTS implementation (:mod:`bayescal.inference.sampling`). ``"auto"``
        runs the Platt and beta maps by ``"nutpie-glm"`` (nutpie's NUTS on
        their NumPy log posterior, :mod:`bayescal.inference.nutpie_glm`; no
        compilation) from :data:`~bayescal.inference.sampling.GLM_SAMPLER_MIN_ROWS`
        (2000) calibration rows, and by ``"nutpie"`` below that and for the
        spline map (whose smoothing variance has no NumPy log posterior;
        ``"nutpie-glm"`` raises there): nutpie compiles once per process and
        refits, at a third of ``"nutpie-glm"``'s cost per fit at n = 300.
        ``diagnostics_.sampler`` says which ran. ``"nutpie-c"`` starts faster
        in a new process (disk-cached C modules) but samples these maps with
        1.8-7x the CPU (``benchmarks/sampler_choice.py``).
    draws, tune, chains : int, default=1000, 1000, 2
        Posterior draws and tuning steps per chain, and chains.
    random_state : None, int or numpy Generator
        Seed; the same int gives the same draws.
"""


def _with_common_parameters(cls: type) -> type:
    """Insert the parameters shared by every Bayesian map into the docstring."""
    cls.__doc__ = cls.__doc__.replace("<common parameters>", _COMMON_PARAMS.rstrip("\n") + "\n")
    return cls


@_with_common_parameters
class BayesianPlattCalibrator(_BayesianCalibrationMap):
    """Platt scaling with a posterior: ``logit p = a + b * feature(s)``.

    Parameters
    ----------
    input : {"logit", "score", "decision"}, default="logit"
        What the scores are and the feature: probabilities read as
        ``logit(s)`` (Platt on the logit; exact for a perfect base model after
        undersampling, Phelps et al. (2024) Eq. 4), probabilities ``s`` used as they
        are (Platt 1999), or decision values (any real number) used as they are.
        The default differs from :class:`~bayescal.calibration.PlattCalibrator`'s
        ``"score"`` on purpose: a reference probe's map family must contain the
        identity (``a = 0, b = 1`` on the logit), so that a calibrated
        classifier's probabilities are reproduced and the credible band shows
        only the data's uncertainty; Platt on raw scores cannot express it.
        ``PlattCalibrator`` keeps Platt's (1999) raw-score default, which the
        thesis's and scikit-learn's sigmoid calibration use.
    clip : float or None, default=1e-12
        bayescal's one clip rule for ``input="logit"``
        (:func:`bayescal.clipping.clip_probabilities`); ``n_clipped_``
        counts the clipped calibration scores, ``None`` is strict.
    <common parameters>
    Attributes
    ----------
    idata_ : xarray.DataTree
        Posterior of ``intercept`` (a) and ``coef`` (b, dims ``feature``).
    diagnostics_ : PosteriorDiagnostics
        See :mod:`bayescal.inference.diagnostics`.

    Notes
    -----
    ``y_i ~ Bernoulli(p_i)`` weighted by ``w_i`` (fractional targets
    allowed), ``a ~ t_nu(0, intercept_scale)``, ``b ~ t_nu(0, prior_scale)``.
    See the module docstring for the undersampling correction.

    References
    ----------
    Platt, J. (1999). Probabilistic outputs for support vector machines.
    Phelps, N., Lizotte, D. J. & Woolford, D. G. (2024). Using Platt's scaling for
    calibration after undersampling: limitations and how to address them.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(0.05, 0.95, 300)
    >>> y = (rng.random(300) < s).astype(int)
    >>> cal = BayesianPlattCalibrator(inference="laplace", draws=200, random_state=0)
    >>> mean, lower, upper = cal.fit(s, y).map_band([0.2, 0.5, 0.8])
    >>> bool(np.all(lower <= mean) and np.all(mean <= upper))
    True
    """

    def __init__(
        self,
        *,
        input: str = "logit",
        clip: float | None = DEFAULT_CLIP,
        pi0: float | None = None,
        prior_scale: float = 2.5,
        intercept_scale: float = 10.0,
        prior_df: float = 1,
        inference: str = "nuts",
        sampler: str = "auto",
        draws: int = 1000,
        tune: int = 1000,
        chains: int = 2,
        random_state: Any = None,
    ) -> None:
        self.input = input
        self.clip = clip
        self.pi0 = pi0
        self.prior_scale = prior_scale
        self.intercept_scale = intercept_scale
        self.prior_df = prior_df
        self.inference = inference
        self.sampler = sampler
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.random_state = random_state

    _parameter_constraints: dict = {
        "input": input_constraint("logit", "score", "decision"),
        **_COMMON_CONSTRAINTS,
    }

    def _features(self, s: np.ndarray) -> np.ndarray:
        if self.input == "score":
            return s[:, None]
        return self._logit(s)[:, None]


@_with_common_parameters
class BayesianBetaCalibrator(_BayesianCalibrationMap):
    """Beta calibration with a posterior: ``logit p = c + a log s - b log(1 - s)``.

    Parameters
    ----------
    clip : float or None, default=1e-12
        bayescal's one clip rule (:func:`bayescal.clipping.clip_probabilities`)
        before ``log s`` and ``log(1 - s)``; ``n_clipped_`` counts the clipped
        calibration scores, ``None`` is strict. The map needs probabilities:
        decision values are rejected (use :class:`BayesianPlattCalibrator`
        with ``input="decision"``).
    target_accept : float in (0, 1), default=0.95
        NUTS target acceptance rate (``inference="nuts"``). Higher than
        PyMC's 0.8: on scores piled up near 0 or 1 (GaussianNB) the 0.8 step
        sizes gave 1-8 divergent transitions per fit (see Notes).
    <common parameters>
    Attributes
    ----------
    idata_ : xarray.DataTree
        Posterior of ``intercept`` (c) and ``coef`` (a, b; dims ``feature``).
    diagnostics_ : PosteriorDiagnostics

    feature_centre_ : ndarray of shape (2,)
        Weighted mean ``m`` of ``(log s, -log(1 - s))`` over the calibration
        scores, where the intercept is sampled (see Notes).
    clip_sensitivity_ : float
        Mean absolute change of the maximum-likelihood beta map's
        probabilities on the calibration scores between ``clip`` and the other
        clip convention (see Notes); 0 when no score is near 0 or 1.

    Notes
    -----
    The three-parameter beta map of Kull et al. (2017) with ``a, b >= 0``
    (half-Student-t priors of scale ``prior_scale``), which keeps the map
    monotone; ``c ~ t_nu(0, intercept_scale)``. ``a = b = 1, c = 0`` is the
    identity map.

    NUTS samples ``(c_0, a, b)`` with ``c_0 = c + m^T (a, b)``, the log-odds
    at the feature mean ``m``, and ``logit p = c_0 + (a, b)^T (f(s) - m)``;
    the prior is the Student-t density of ``c = c_0 - m^T (a, b)`` (a shear
    with unit Jacobian, so the prior on ``c, a, b`` is unchanged). On scores
    in a narrow range ``c`` is pinned only in combination with ``a - b``,
    ``c ~ c_0 + 0.69 (a - b)`` near ``s = 0.5``: a curved ridge on the
    sampler's ``(c, log a, log b)`` that no mass matrix straightens (R-hat
    1.08-1.65, bulk ESS 3-22 on 300 scores in [0.495, 0.506]); ``c_0`` is
    identified on its own. ``intercept`` in ``idata_`` is ``c``.
    ``benchmarks/beta_map_mixing.py`` (25 fits: that set, synthetic and
    GaussianNB scores, n = 300 and 2000, seeds 0-5) measured min bulk ESS
    22-435, R-hat up to 1.090 and divergences in 5 fits before; 256-1259,
    R-hat up to 1.019 (above 1.01 in 4 fits) and none with the centring and
    ``target_accept=0.95``.

    **Saturated scores.** A score of exactly 0 or 1 enters at the clip,
    ``log(clip)``, a convention (bayescal ``1e-12``, ``betacal`` machine
    epsilon); when most calibration scores are saturated (naive Bayes on many
    features) the posterior depends on it as the maximum-likelihood map does
    (:class:`~bayescal.calibration.BetaCalibrator`, same likelihood). ``fit``
    refits the maximum-likelihood map at the other convention
    (:func:`~bayescal.calibration.beta.beta_clip_sensitivity`); when its
    probabilities move by more than
    :data:`~bayescal.calibration.clip_sensitivity.CLIP_SENSITIVITY_MAX` on
    average, ``diagnostics_`` records the failure (``converged`` False) and
    the warning names the cause and what to do, whatever the inference. On
    spambase naive-Bayes scores (333 rows, 92 % saturated) the Laplace map's
    test Brier score moved by 0.009-0.016 between clips 1e-12 and 1e-16.

    References
    ----------
    Kull, M., Silva Filho, T. & Flach, P. (2017). Beta calibration: a
    well-founded and easily implemented improvement on logistic calibration
    for binary classifiers. *AISTATS*.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(0.05, 0.95, 300)
    >>> y = (rng.random(300) < s).astype(int)
    >>> cal = BayesianBetaCalibrator(inference="laplace", draws=200, random_state=0).fit(s, y)
    >>> cal.predict_interval([0.5]).shape
    (1, 2, 2)
    """

    _coef_prior = "positive"
    _parameter_constraints: dict = {
        "target_accept": [Interval(Real, 0, 1, closed="neither")],
        **_COMMON_CONSTRAINTS,
    }
    _decision_remedy = (
        "Beta calibration needs probabilities (it takes log s and log(1 - s)); for decision "
        "values use BayesianPlattCalibrator(input='decision')."
    )

    def __init__(
        self,
        *,
        clip: float | None = DEFAULT_CLIP,
        target_accept: float = 0.95,
        pi0: float | None = None,
        prior_scale: float = 2.5,
        intercept_scale: float = 10.0,
        prior_df: float = 1,
        inference: str = "nuts",
        sampler: str = "auto",
        draws: int = 1000,
        tune: int = 1000,
        chains: int = 2,
        random_state: Any = None,
    ) -> None:
        self.clip = clip
        self.target_accept = target_accept
        self.pi0 = pi0
        self.prior_scale = prior_scale
        self.intercept_scale = intercept_scale
        self.prior_df = prior_df
        self.inference = inference
        self.sampler = sampler
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.random_state = random_state

    def _on_logit_scale(self) -> bool:
        return True

    def _features(self, s: np.ndarray) -> np.ndarray:
        s = clip_probabilities(s, self.clip, owner=type(self).__name__)[0]
        return np.column_stack([np.log(s), -np.log1p(-s)])

    def _data_failures(
        self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray
    ) -> tuple[tuple[str, ...], str | None]:
        """The clip check of the beta map (see Notes): its likelihood's fit at two clips."""
        from bayescal.calibration.beta import beta_clip_sensitivity

        sensitivity = beta_clip_sensitivity(scores, targets, weights, self.clip)
        self.clip_sensitivity_ = 0.0 if sensitivity is None else sensitivity.mean_change
        if sensitivity is None or not sensitivity.material:
            return (), None
        remedy = sensitivity.remedy + (
            " Switch to MCMC (inference='nuts') for any other failure listed, or inspect "
            "`idata_`." if self.inference != "nuts" else
            " For any other failure listed: increase `tune`/`draws` or inspect `idata_`."
        )
        return (sensitivity.describe(type(self).__name__).replace(
            "on average", "on average (maximum-likelihood beta map)"),), remedy

    #: Sample the intercept at the weighted feature mean (the same prior on c, a, b).
    _centre_features = True

    def _prepare(self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> None:
        self.feature_centre_ = np.average(self._features(scores), axis=0, weights=weights)

    def _model_data(self) -> dict[str, np.ndarray]:
        return {"centre": self.feature_centre_} if self._centre_features else {}


@_with_common_parameters
class BayesianSplineCalibrator(_BayesianCalibrationMap):
    """Penalised spline on the logit with a smoothing prior (Bayesian logistic GAM).

    Parameters
    ----------
    input : {"logit", "decision"}, default="logit"
        What the scores are: probabilities, modelled on ``z = logit(s)``, or
        decision values (any real number) used as ``z`` directly.
    clip : float or None, default=1e-12
        bayescal's one clip rule for ``input="logit"``
        (:func:`bayescal.clipping.clip_probabilities`); ``n_clipped_``
        counts the clipped calibration scores, ``None`` is strict.
    n_basis : int, default=10
        Number of cubic B-spline basis functions on ``z = logit(s)`` (at
        least 4); equally spaced knots over the range of the training ``z``.
    smoothness_scale : float, default=1.0
        Scale of the half-Student-t prior on the random-walk standard
        deviation ``tau``: smaller values pull the map towards Platt on the
        logit.
    smoothness_df : float, default=3.0
        Degrees of freedom of that prior; ``float("inf")`` gives the
        half-normal prior of bayescal before issue 27 (see Notes: on scores
        with many exact 0/1 it held the map near-linear against the data).
    target_accept : float in (0, 1), default=0.95
        NUTS target acceptance rate (``inference="nuts"``). Higher than
        PyMC's 0.8 against the funnel between ``tau`` and the coefficients
        (see Notes). On tied, saturated scores (random-forest votes) the
        curvature along ``log tau`` still varies by an order of magnitude
        over its posterior, and 0.99 removes most of the divergences left
        there; on well-spread scores it lowers the ESS (see Notes).
    <common parameters>
    Attributes
    ----------
    idata_ : xarray.DataTree
        Posterior of ``intercept``, ``coef`` (the slope in the standardised
        logit ``(z - z_center_) / z_scale_``), ``tau``, ``innovations`` and
        ``spline_effect`` (dims ``basis``: the coefficients ``u`` of the
        Demmler-Reinsch basis, ``u ~ N(0, tau^2 I)``).
    diagnostics_ : PosteriorDiagnostics
    knots_ : ndarray
        Knot vector of the basis; its base interval is exactly ``z_range_``.
    z_range_ : tuple of float
        Range of the training logits. Outside it the B-spline part is held at
        its boundary value, so the map extrapolates linearly in ``z`` (the
        fixed effects and the linear shift of the basis continue).
    z_center_, z_scale_ : float
        Mean and standard deviation of the training logits.
    penalty_root_ : ndarray of shape (n_basis, n_basis - 2)
        :func:`penalised_spline_design`.
    basis_shift_ : ndarray of shape (2, n_basis - 2)
        Weighted least-squares coefficients of the penalised basis on
        ``[1, z~]`` at the training scores (weights ``basis_weights_``),
        subtracted from the basis.
    basis_weights_ : ndarray of shape (n,)
        Fisher weights ``w p (1 - p)`` of the basis (Notes, step 2): ``p`` of
        the spline's conditional posterior mode at the median ``tau`` of a
        first pass whose basis used a pilot Platt fit's weights.
    basis_rotation_ : ndarray of shape (n_basis - 2, n_basis - 2)
        Orthogonal rotation to the Demmler-Reinsch basis (eigenvectors of the
        shifted basis' weighted Gram matrix).
    basis_information_ : ndarray of shape (n_basis - 2,)
        Fisher information ``d_k`` of each Demmler-Reinsch coefficient under
        ``basis_weights_``.
    smoothness_grid_ : bayescal.probes.spline_laplace.SmoothnessGrid
        The posterior of ``log tau`` on a grid with the conditional Laplace
        approximations (:mod:`bayescal.probes.spline_laplace`): the Laplace
        fit's proposal, and the median ``tau`` at which the basis is weighted.

    Notes
    -----
    ``logit p = a + b z~ + sum_k c_k B_k(z)`` on ``z = logit(s)``,
    ``z~ = (z - mean z) / sd z``, with a second-order random-walk prior on
    ``c`` (a Bayesian P-spline; the prior penalises second differences as
    the P-spline penalty of Eilers & Marx 1996 does, with the smoothing
    parameter ``tau`` given a half-Student-t prior instead of being chosen by
    UBRE/GCV/REML). Written with PyMC by hand: no library offers a Bayesian
    P-spline calibrator. See :func:`calibration_map_model`.

    The smoothness prior has 3 degrees of freedom, a heavy tail as Gelman
    (2006) recommends for hierarchical scales: near zero it shrinks towards
    Platt on the logit as a half-normal does, but it lets the data choose a
    large ``tau`` when they demand a bent map. The half-normal prior used
    before could not: on random-forest votes, whose exact 0 and 1 are
    clipped to logits of +-27.6, the equally spaced knots leave the other
    scores in one or two knot intervals, and the saturating map they need
    (slope near 1 in the middle, flat towards +-27.6) has second differences
    near 5, four prior standard deviations out. The map stayed nearly linear
    on the logit, with its slope set by the clipped rows, and NUTS agreed
    with Laplace on it: 0.045 and 0.026 Brier worse than scikit-learn's
    spline-logistic fit of the same basis (5 knots on the logit) on two
    folds of QSAR biodegradation and breast cancer (300 rows). With 3
    degrees of freedom the posterior median of ``tau`` there is 4-28 and
    every cell of the test suite's peer sweep is within 0.004 Brier of that
    peer (``tests/calibration/test_sweep.py``); where the data are near-linear
    the posterior of ``tau`` stays near 1 as before.

    Parameterised for NUTS (issue 11: the plain basis mixed with a min bulk
    ESS of 6-49 in 2 x 1000 draws at n=1000). Steps 1, 3 and 4 change the
    parameterisation only (the prior on the map is the same); step 2 changes
    which linear trend the smooth's identifiability constraint removes (it
    moves to the intercept and slope, whose priors are wide):

    1. Mixed-model form: ``c = U diag(lambda)^(-1/2) u`` with
       ``u ~ N(0, tau^2 I)`` (:func:`penalised_spline_design`); the penalty's
       null space is carried by the intercept and slope of the centred and
       scaled logit ``z~`` (Student-t priors there, as rstanarm puts its prior
       on the intercept of centred predictors).
    2. The penalised basis is orthogonalised to ``[1, z~]`` in the Fisher
       inner product ``sum_i w_i p_i (1 - p_i) x_i y_i``, so that intercept,
       slope and smooth are nearly uncorrelated in the posterior (mgcv's
       identifiability constraint of smooths, weighted as in IRLS). The
       weights are those of the spline's own conditional posterior mode at
       the median ``tau`` of the grid posterior (below), computed on a first
       basis weighted by a pilot Platt fit (a ridge-penalised Newton fit).
       The pilot alone (before issue 27) gives near-zero weight to rows that
       a bent map fits away from 0 and 1, where random-forest and naive-Bayes
       scores need the bend (see the measurements below).
    3. The basis is rotated to its Demmler-Reinsch form (Demmler & Reinsch
       1975; Ruppert, Wand & Carroll 2003, Sec. 3.12): an orthogonal rotation
       diagonalising that Fisher information ``d_k`` while the prior
       stays isotropic, so that given ``tau`` the coefficients are nearly
       independent a posteriori and each is informed by the data to a known
       degree ``d_k``.
    4. Each coefficient is then partially non-centred (Papaspiliopoulos,
       Roberts & Skold 2007): ``u_k = tau^(a_k) e_k``,
       ``e_k ~ N(0, tau^(2 (1 - a_k)))``, with the power of the Gaussian case
       at the current ``tau``, ``a_k(tau) = 1 / (1 + tau^2 d_k)``: where
       ``tau^2 d_k`` is small (the prior dominates) the coefficient is
       non-centred, where it is large (the data pin it down) centred, so that
       ``tau`` does not move against a coefficient the data fix at either end
       of its range. For each ``tau`` the map ``e -> u`` is linear, so the
       prior ``u ~ N(0, tau^2 I)`` is the same for any ``a``. Before issue 27
       the powers were fixed at ``tau_r = 0.1 smoothness_scale``; fixed at the
       posterior median of ``tau`` they centred too much at small ``tau`` (53
       divergences, R-hat 1.07 on well-specified scores), fixed at 0.1 too
       little at the large ``tau`` of bent maps.

    Laplace (``inference="laplace"``) integrates ``tau`` on a grid
    (:mod:`bayescal.probes.spline_laplace`, after the integrated nested
    Laplace approximation of Rue, Martino & Chopin 2009): given ``tau`` the
    coefficients are near-Gaussian, but jointly with ``log tau`` they are
    not (a funnel, and ``log tau``'s posterior is skewed), and the joint
    Gaussian of before issue 27 failed its Pareto-smoothed importance check
    (k 0.72-1.03) on 13 of 18 held-out predictions of naive Bayes, random
    forests and logistic regression on six data sets. The grid mixture with
    Student-t conditionals passes it on all 18 (k 0.16-0.68); its cost per
    fit is of the order of the joint Laplace fit's (tenths of a second at
    10^3 rows).

    Measured on held-out predictions of naive Bayes, random forests and
    logistic regression on six shared data sets (18 cases; 50/50 stratified
    split, NUTS 2 x 1000 draws, seed 0), before -> after issue 27's steps
    (spline weights in step 2, ``a_k(tau)`` in step 4): NUTS failed its
    diagnostics in 8 -> 5 cases at ``target_accept=0.95`` (divergences in
    6 -> 5, all random forests but one; R-hat/ESS in 4 -> 1) and in 6 -> 4 at
    0.99; the slowest fit, spambase random forest, took 88 -> 4 CPU-seconds.
    The divergences left come from ``log tau``, whose curvature on tied,
    saturated scores varies by an order of magnitude over its posterior
    (measured with the Hessian at posterior draws); 0.99 with 2000 tuning
    steps removes them on titanic random forest, and
    :func:`bayescal.assessment.bayesian_curve.bayesian_calibration_curve`
    samples so. The posterior-mean Brier score moved by at most 0.0001.

    NUTS runs with ``target_accept=0.95``. ``benchmarks/spline_map.py``
    measures the mixing on n=1000 well-specified scores (2 x 1000 draws,
    seeds 0-5): the smallest bulk ESS went from 14-168 (13-113
    divergences; plain basis) and 345-864 (steps 1-2 unweighted, fully
    non-centred; ``tau`` the bottleneck) to about 500-1000, with no
    divergences and R-hat <= 1.01, under the half-normal smoothness prior;
    under the half-Student-t(3) prior 329-1209 (median 648), no divergences,
    R-hat <= 1.008 (the worst seed, 5, fell from 400 to 329 and warns); with
    issue 27's steps 601-751 (median 644), no divergences, R-hat <= 1.006.

    References
    ----------
    Lang, S. & Brezger, A. (2004). Bayesian P-splines. *Journal of
    Computational and Graphical Statistics* 13(1), 183-212.
    Demmler, A. & Reinsch, C. (1975). Oscillation matrices with spline
    smoothing. *Numerische Mathematik* 24, 375-382.
    Ruppert, D., Wand, M. P. & Carroll, R. J. (2003). *Semiparametric
    Regression*. Cambridge University Press.
    Rue, H., Martino, S. & Chopin, N. (2009). Approximate Bayesian inference
    for latent Gaussian models by using integrated nested Laplace
    approximations. *Journal of the Royal Statistical Society B* 71(2),
    319-392.
    Gelman, A. (2006). Prior distributions for variance parameters in
    hierarchical models. *Bayesian Analysis* 1(3), 515-534.
    Papaspiliopoulos, O., Roberts, G. O. & Skold, M. (2007). A general
    framework for the parametrization of hierarchical models. *Statistical
    Science* 22(1), 59-73.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(0.05, 0.95, 300)
    >>> y = (rng.random(300) < s ** 2).astype(int)
    >>> cal = BayesianSplineCalibrator(inference="laplace", draws=200, random_state=0)
    >>> cal.fit(s, y).predict_proba([0.5]).shape
    (1, 2)
    """

    _parameter_constraints: dict = {
        "input": input_constraint("logit", "decision"),
        "n_basis": [Interval(Integral, 4, None, closed="left")],
        "smoothness_scale": [Interval(Real, 0, None, closed="neither")],
        "smoothness_df": [Interval(Real, 0, None, closed="neither")],
        "target_accept": [Interval(Real, 0, 1, closed="neither")],
        **_COMMON_CONSTRAINTS,
    }

    def __init__(
        self,
        *,
        input: str = "logit",
        clip: float | None = DEFAULT_CLIP,
        n_basis: int = 10,
        smoothness_scale: float = 1.0,
        smoothness_df: float = 3.0,
        target_accept: float = 0.95,
        pi0: float | None = None,
        prior_scale: float = 2.5,
        intercept_scale: float = 10.0,
        prior_df: float = 1,
        inference: str = "nuts",
        sampler: str = "auto",
        draws: int = 1000,
        tune: int = 1000,
        chains: int = 2,
        random_state: Any = None,
    ) -> None:
        self.input = input
        self.clip = clip
        self.n_basis = n_basis
        self.smoothness_scale = smoothness_scale
        self.smoothness_df = smoothness_df
        self.target_accept = target_accept
        self.pi0 = pi0
        self.prior_scale = prior_scale
        self.intercept_scale = intercept_scale
        self.prior_df = prior_df
        self.inference = inference
        self.sampler = sampler
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.random_state = random_state

    def _hyper(self) -> dict[str, Any]:
        return {**super()._hyper(), "smoothness_scale": float(self.smoothness_scale),
                "smoothness_df": float(self.smoothness_df)}

    def _prepare(self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> None:
        n_basis = int(self.n_basis)
        z = self._logit(scores)
        lo, hi = float(z.min()), float(z.max())
        if hi - lo < 1e-8:
            raise ValueError(
                "`scores` are all equal; a spline calibration map needs distinct scores."
            )
        self.knots_ = spline_knots(lo, hi, n_basis)
        self.z_range_ = (lo, hi)
        self.z_center_ = float(z.mean())
        self.z_scale_ = float(z.std())
        self.penalty_root_ = penalised_spline_design(n_basis)
        # Orthogonalise the penalised basis to the fixed effects [1, z] in the
        # likelihood's (Fisher) inner product on the training scores, so that
        # intercept, slope and spline do not trade off in the posterior; the
        # shift is linear in z and is kept for prediction. Then rotate it to the
        # Demmler-Reinsch basis, in which the prior stays N(0, tau^2 I) and the
        # Fisher information is diagonal (``basis_information_``).
        fixed = self._fixed_effects(z)
        basis = self._penalised_basis(z)
        # Two passes: the weights of the pilot Platt fit first, then those of the spline's
        # own conditional mode at the grid's median tau (the pilot's Platt fit puts near-zero
        # weight on rows that a bent map fits at p(1 - p) far from 0, and the information
        # d_k, the powers a_k and the funnel follow the weights).
        fisher = self._fisher_weights(fixed, targets, weights)
        for _ in range(2):
            self.basis_weights_ = fisher
            root_info = np.sqrt(fisher)[:, None]
            self.basis_shift_ = np.linalg.lstsq(root_info * fixed, root_info * basis,
                                                rcond=None)[0]
            resid = root_info * (basis - fixed @ self.basis_shift_)
            information, self.basis_rotation_ = np.linalg.eigh(resid.T @ resid)
            self.basis_information_ = np.clip(information, 0.0, None)
            self._log_posterior = self._grid_problem(z, targets, weights)
            self.smoothness_grid_ = smoothness_grid(self._log_posterior)
            reference = self.smoothness_grid_.tau_quantile(0.5)
            mode = self.smoothness_grid_.modes[
                np.argmin(np.abs(self.smoothness_grid_.log_tau - np.log(reference)))]
            p = expit(self._log_posterior.X @ mode)
            fisher = weights * p * (1.0 - p)

    def _grid_problem(self, z: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> Any:
        """The model's log posterior on the training rows for :mod:`~bayescal.probes.spline_laplace`."""
        fixed = self._fixed_effects(z)
        basis = (self._penalised_basis(z) - fixed @ self.basis_shift_) @ self.basis_rotation_
        return SplineLogPosterior(
            np.column_stack([fixed, basis]), np.asarray(targets, float), np.asarray(weights, float),
            n_fixed=2, fixed_scales=(float(self.intercept_scale), float(self.prior_scale)),
            prior_df=float(self.prior_df), smoothness_scale=float(self.smoothness_scale),
            smoothness_df=float(self.smoothness_df),
        )

    def _posterior(self, data: dict[str, np.ndarray], settings: dict[str, Any]) -> Any:
        problem = self.__dict__.pop("_log_posterior")  # holds the rows: not kept after fit
        if settings["inference"] != "laplace":
            return super()._posterior(data, settings)
        return grid_laplace_fit(
            problem, self.smoothness_grid_, self.basis_information_,
            n_draws=settings["draws"] * settings["chains"], random_state=self.random_state,
        )

    def _fisher_weights(
        self, fixed: np.ndarray, targets: np.ndarray, weights: np.ndarray
    ) -> np.ndarray:
        """``w_i p_i (1 - p_i)`` at a pilot Platt fit on ``fixed`` (ridge: the priors' scales)."""
        ridge = np.diag([float(self.intercept_scale) ** -2, float(self.prior_scale) ** -2])
        pilot = fit_logistic(
            intercept_design(fixed[:, 1]), targets, weights, penalty=ridge, warn=False
        )
        p = expit(fixed @ pilot.coef)
        return weights * p * (1.0 - p)

    def _model_data(self) -> dict[str, np.ndarray]:
        return {"d": self.basis_information_}

    def _data_failures(
        self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray
    ) -> tuple[tuple[str, ...], str | None]:
        """No data failure; under NUTS the remedy names ``target_accept`` (class Notes)."""
        if self.inference != "nuts" or float(self.target_accept) >= 0.99:
            return (), None
        return (), ("Refit with target_accept=0.99 and tune=2000 (smaller steps, longer "
                    "adaptation: they remove the divergences of this map on tied, saturated "
                    "scores such as random-forest votes), or inspect `idata_` with ArviZ.")


    def _fixed_effects(self, z: np.ndarray) -> np.ndarray:
        """``[1, (z - centre) / scale]``: the intercept's and the slope's columns."""
        return np.column_stack([np.ones_like(z), (z - self.z_center_) / self.z_scale_])

    def _penalised_basis(self, z: np.ndarray) -> np.ndarray:
        """B-spline basis times the penalty root; constant outside the training range."""
        lo, hi = self.z_range_
        return spline_basis(np.clip(z, lo, hi), self.knots_) @ self.penalty_root_

    def _design(self, s: np.ndarray) -> dict[str, np.ndarray]:
        z = self._logit(s)
        fixed = self._fixed_effects(z)
        basis = (self._penalised_basis(z) - fixed @ self.basis_shift_) @ self.basis_rotation_
        return {"F": fixed[:, 1:], "B": basis}

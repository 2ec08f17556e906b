"""Bayesian calibration maps: Platt, beta and penalised-spline calibration with posteriors.

The Bayesian twins of three frequentist calibrators: each learns the map
score -> probability with a posterior, so every calibrated probability has a
credible interval (``predict_interval``) and the whole map a credible band
(``map_band``).

* :class:`BayesianPlattCalibrator`: ``logit p = a + b * logit(s)`` (Platt on
  the logit, which seed ``004_bfebc07763fe5d27.txt`` Eq. 4 shows is the right
  feature after undersampling) or ``a + b * s`` (Platt 1999).
* :class:`BayesianBetaCalibrator`: ``logit p = c + a log s - b log(1 - s)``
  with ``a, b >= 0`` (Kull, Silva Filho & Flach 2017).
* :class:`BayesianSplineCalibrator`: ``logit p = a + b z + f(z)`` on
  ``z = logit(s)`` with ``f`` a cubic B-spline whose coefficients follow a
  second-order random walk with a half-normal smoothness scale (a Bayesian
  P-spline, Lang & Brezger 2004) -- the Bayesian twin of the logistic GAM
  that seed ``004`` recommends after undersampling.

Undersampling (seed ``004``, Eq. 1)
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
The maps follow bayescal's one ``input`` vocabulary and clip rule
(:mod:`bayescal.validation`): probabilities are clipped to ``[clip, 1 - clip]``
(``clip=1e-12`` by default; ``n_clipped_`` counts them, ``clip=None`` raises
on a score of exactly 0 or 1) before logs and logits -- the only change made
to the input. The Platt and spline maps also read decision values
(``input="decision"``, any real number) as they are.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.interpolate import BSpline
from scipy.special import logit
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from bayescal.calibration.base import BinaryCalibrator
from bayescal.probes.posterior import (
    PosteriorPredictiveMixin,
    credible_interval,
    record_diagnostics,
    stack_draws,
)
from bayescal.probes.sampling import (
    SAMPLER_CONSTRAINTS,
    STUDENT_T_PRIOR_CONSTRAINTS,
    sample_posterior,
    sampler_settings,
    student_t_prior_hyper,
)
from bayescal.validation import (
    DEFAULT_CLIP,
    bounded_expit,
    clip_constraint,
    clip_probabilities,
)

__all__ = [
    "BayesianBetaCalibrator",
    "BayesianPlattCalibrator",
    "BayesianSplineCalibrator",
    "calibration_map_model",
    "penalised_spline_design",
    "spline_basis",
    "spline_knots",
    "undersampling_correction",
]


def undersampling_correction(gamma: np.ndarray, pi0: float) -> np.ndarray:
    """The analytical correction ``kappa(gamma)`` of seed ``004``, Eq. 1.

    Parameters
    ----------
    gamma : ndarray
        Probabilities under the undersampled distribution.
    pi0 : float
        Rate at which negatives were kept, in (0, 1].

    Returns
    -------
    ndarray
        ``gamma * pi0 / (1 - gamma + gamma * pi0)``.

    Examples
    --------
    >>> float(undersampling_correction(np.array(0.5), 0.1))
    0.09090909090909091
    """
    gamma = np.asarray(gamma, dtype=float)
    return gamma * pi0 / (1.0 - gamma + gamma * pi0)


def calibration_map_model(
    data: dict[str, np.ndarray],
    *,
    coef_prior: str,
    prior_scale: float,
    intercept_scale: float,
    prior_df: float,
    smoothness_scale: float,
) -> Any:
    """The PyMC model of a Bayesian calibration map (a pure builder).

    Parameters
    ----------
    data : dict
        ``"F"``: parametric features ``(n, m)``; ``"t"``: targets in [0, 1];
        ``"w"``: weights; and for the spline ``"B"``: B-spline basis ``(n, K)``.
    coef_prior : {"real", "positive"}
        Student-t or half-Student-t prior on the feature coefficients.
    prior_scale, intercept_scale, prior_df : float
        Student-t scales of the coefficients and the intercept, and its
        degrees of freedom.
    smoothness_scale : float
        Scale of the half-normal prior on the random-walk standard deviation
        ``tau`` of the spline (used only when ``"B"`` is present).

    Returns
    -------
    pymc.Model
        Variables ``intercept``, ``coef`` (dims ``feature``) and, for the
        spline, ``tau``, ``innovations`` and ``spline_effect`` (dims ``basis``).

    Notes
    -----
    ``eta = intercept + F @ coef (+ B @ (tau * e))``, ``e ~ N(0, I)``
    (non-centred). For the spline, ``B`` is the mixed-model form of a cubic
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
        intercept = pm.StudentT("intercept", nu=prior_df, mu=0.0, sigma=intercept_scale)
        if coef_prior == "positive":
            coef = pm.HalfStudentT("coef", nu=prior_df, sigma=prior_scale, dims="feature")
        else:
            coef = pm.StudentT("coef", nu=prior_df, mu=0.0, sigma=prior_scale, dims="feature")
        eta = intercept + F @ coef
        if spline:
            B = pm.Data("B", data["B"])
            tau = pm.HalfNormal("tau", sigma=smoothness_scale)
            innovations = pm.Normal("innovations", 0.0, 1.0, dims="basis")
            effect = pm.Deterministic("spline_effect", tau * innovations, dims="basis")
            eta = eta + B @ effect
        # log sigmoid(eta) = -log1pexp(-eta), log(1 - sigmoid(eta)) = -log1pexp(eta)
        loglik = -w * (t * pt.log1pexp(-eta) + (1.0 - t) * pt.log1pexp(eta))
        pm.Potential("loglik", loglik.sum())
    return model


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
    _score_inputs: tuple[str, ...] = ("logit", "decision")

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
        self._prepare(scores)
        data = {**self._design(scores), "t": targets, "w": weights}
        fit = sample_posterior(
            calibration_map_model,
            data,
            hyper=self._hyper(),
            random_state=self.random_state,
            **settings,
            **self._sampler_options(),
        )
        self.idata_ = fit.idata
        names = [n for n in ("intercept", "coef", "tau") if n in fit.idata["posterior"]]
        record_diagnostics(
            self,
            fit.idata,
            sampler=fit.sampler,
            seconds=fit.seconds,
            var_names=names,
            stacklevel=5,
        )

    def _prepare(self, scores: np.ndarray) -> None:
        """Learn data-dependent feature settings (the spline's knots)."""

    def _sampler_options(self) -> dict[str, Any]:
        """Further keyword arguments of :func:`sample_posterior` (the spline's)."""
        return {}

    def _linear_predictor_draws(self, s: np.ndarray) -> np.ndarray:
        design = self._design(s)
        eta = (
            stack_draws(self.idata_, "intercept")[:, None]
            + stack_draws(self.idata_, "coef") @ design["F"].T
        )
        if "B" in design:
            eta = eta + stack_draws(self.idata_, "spline_effect") @ design["B"].T
        if self.pi0 is not None:
            eta = eta + np.log(self.pi0)  # kappa of seed 004 Eq. 1, on the logit scale
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
        ``kappa(gamma) = gamma pi0 / (1 - gamma + gamma pi0)`` (seed ``004``,
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
        (:func:`bayescal.probes.sampling.sample_posterior`).
    sampler : {"nutpie", "pymc"}, default="nutpie"
        NUTS implementation; nutpie compiles once per process and refits.
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
        undersampling, seed ``004`` Eq. 4), probabilities ``s`` used as they
        are (Platt 1999), or decision values (any real number) used as they are.
    clip : float or None, default=1e-12
        bayescal's one clip rule for ``input="logit"``
        (:func:`bayescal.validation.clip_probabilities`); ``n_clipped_``
        counts the clipped calibration scores, ``None`` is strict.
    <common parameters>
    Attributes
    ----------
    idata_ : xarray.DataTree
        Posterior of ``intercept`` (a) and ``coef`` (b, dims ``feature``).
    diagnostics_ : PosteriorDiagnostics
        See :mod:`bayescal.probes.diagnostics`.

    Notes
    -----
    ``y_i ~ Bernoulli(p_i)`` weighted by ``w_i`` (fractional targets
    allowed), ``a ~ t_nu(0, intercept_scale)``, ``b ~ t_nu(0, prior_scale)``.
    See the module docstring for the undersampling correction.

    References
    ----------
    Platt, J. (1999). Probabilistic outputs for support vector machines.
    Phelps, N. et al. Using Platt's scaling for calibration after
    undersampling (seed ``004_bfebc07763fe5d27.txt``).

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
        sampler: str = "nutpie",
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

    _score_inputs = ("logit", "score", "decision")
    _parameter_constraints: dict = {
        "input": [StrOptions(set(_score_inputs))],
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
        bayescal's one clip rule (:func:`bayescal.validation.clip_probabilities`)
        before ``log s`` and ``log(1 - s)``; ``n_clipped_`` counts the clipped
        calibration scores, ``None`` is strict. The map needs probabilities:
        decision values are rejected (use :class:`BayesianPlattCalibrator`
        with ``input="decision"``).
    <common parameters>
    Attributes
    ----------
    idata_ : xarray.DataTree
        Posterior of ``intercept`` (c) and ``coef`` (a, b; dims ``feature``).
    diagnostics_ : PosteriorDiagnostics

    Notes
    -----
    The three-parameter beta map of Kull et al. (2017) with ``a, b >= 0``
    (half-Student-t priors of scale ``prior_scale``), which keeps the map
    monotone; ``c ~ t_nu(0, intercept_scale)``. ``a = b = 1, c = 0`` is the
    identity map.

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
    _score_inputs = ("score",)
    _parameter_constraints: dict = dict(_COMMON_CONSTRAINTS)
    _decision_remedy = (
        "Beta calibration needs probabilities (it takes log s and log(1 - s)); for decision "
        "values use BayesianPlattCalibrator(input='decision')."
    )

    def __init__(
        self,
        *,
        clip: float | None = DEFAULT_CLIP,
        pi0: float | None = None,
        prior_scale: float = 2.5,
        intercept_scale: float = 10.0,
        prior_df: float = 1,
        inference: str = "nuts",
        sampler: str = "nutpie",
        draws: int = 1000,
        tune: int = 1000,
        chains: int = 2,
        random_state: Any = None,
    ) -> None:
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

    def _on_logit_scale(self) -> bool:
        return True

    def _features(self, s: np.ndarray) -> np.ndarray:
        s = clip_probabilities(s, self.clip, owner=type(self).__name__)[0]
        return np.column_stack([np.log(s), -np.log1p(-s)])


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
        (:func:`bayescal.validation.clip_probabilities`); ``n_clipped_``
        counts the clipped calibration scores, ``None`` is strict.
    n_basis : int, default=10
        Number of cubic B-spline basis functions on ``z = logit(s)`` (at
        least 4); equally spaced knots over the range of the training ``z``.
    smoothness_scale : float, default=1.0
        Scale of the half-normal prior on the random-walk standard deviation
        ``tau``: smaller values pull the map towards Platt on the logit.
    target_accept : float in (0, 1), default=0.95
        NUTS target acceptance rate (``inference="nuts"``). Higher than
        PyMC's 0.8: the smoothness scale ``tau`` has funnel-shaped posteriors
        with its innovations where the data pin the smooth part down, and the
        smaller steps remove the divergences there (see Notes).
    <common parameters>
    Attributes
    ----------
    idata_ : xarray.DataTree
        Posterior of ``intercept``, ``coef`` (the slope in the standardised
        logit ``(z - z_center_) / z_scale_``), ``tau``, ``innovations`` and
        ``spline_effect`` (dims ``basis``).
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
        Least-squares coefficients of the penalised basis on ``[1, z]`` at
        the training scores, subtracted from the basis.

    Notes
    -----
    ``logit p = a + b z~ + sum_k c_k B_k(z)`` on ``z = logit(s)``,
    ``z~ = (z - mean z) / sd z``, with a second-order random-walk prior on
    ``c`` (a Bayesian P-spline; the prior penalises second differences as
    the P-spline penalty of Eilers & Marx 1996 does, with the smoothing
    parameter ``tau`` given a half-normal prior instead of being chosen by
    UBRE/GCV/REML). Written with PyMC by hand: no library offers a Bayesian
    P-spline calibrator. See :func:`calibration_map_model`.

    Parameterised for NUTS (issue 11: the plain basis mixed with a min bulk
    ESS of 6-49 in 2 x 1000 draws at n=1000): the smooth part is written in
    the mixed-model form ``c = U diag(lambda)^(-1/2) tau e``, ``e ~ N(0, I)``
    (non-centred in ``tau``; :func:`penalised_spline_design`); the logit is
    centred and scaled, with the Student-t priors on the intercept and slope
    of the standardised logit (as rstanarm puts its prior on the intercept of
    centred predictors); and the penalised basis is orthogonalised to
    ``[1, z~]`` on the training scores (the smooth part sums to zero and has
    no linear trend there, the identifiability constraint of mgcv's smooths),
    so that intercept, slope and smooth do not trade off in the posterior;
    NUTS runs with ``target_accept=0.95``. ``benchmarks/spline_map.py``
    measures the mixing: on n=1000 well-specified scores (2 x 1000 draws)
    the smallest bulk ESS went from 14-168 (13-113 divergences) to about
    350-860 with no divergences; the remaining bottleneck is ``tau``.

    References
    ----------
    Lang, S. & Brezger, A. (2004). Bayesian P-splines. *Journal of
    Computational and Graphical Statistics* 13(1), 183-212.

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
        "input": [StrOptions({"logit", "decision"})],
        "n_basis": [Interval(Integral, 4, None, closed="left")],
        "smoothness_scale": [Interval(Real, 0, None, closed="neither")],
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
        target_accept: float = 0.95,
        pi0: float | None = None,
        prior_scale: float = 2.5,
        intercept_scale: float = 10.0,
        prior_df: float = 1,
        inference: str = "nuts",
        sampler: str = "nutpie",
        draws: int = 1000,
        tune: int = 1000,
        chains: int = 2,
        random_state: Any = None,
    ) -> None:
        self.input = input
        self.clip = clip
        self.n_basis = n_basis
        self.smoothness_scale = smoothness_scale
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
        return {**super()._hyper(), "smoothness_scale": float(self.smoothness_scale)}

    def _prepare(self, scores: np.ndarray) -> None:
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
        # Orthogonalise the penalised basis to the fixed effects [1, z] on the
        # training scores (a sum-to-zero and zero-slope constraint on the smooth
        # part), so that intercept, slope and spline do not trade off in the
        # posterior; the shift is linear in z and is kept for prediction.
        fixed = self._fixed_effects(z)
        basis = self._penalised_basis(z)
        self.basis_shift_ = np.linalg.lstsq(fixed, basis, rcond=None)[0]

    def _sampler_options(self) -> dict[str, Any]:
        return {"target_accept": self.target_accept}

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
        basis = self._penalised_basis(z) - fixed @ self.basis_shift_
        return {"F": fixed[:, 1:], "B": basis}

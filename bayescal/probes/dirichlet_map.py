"""Bayesian Dirichlet calibration: the multi-class map ``softmax(W ln q + b)`` with priors.

The Bayesian twin of :class:`bayescal.calibration.DirichletCalibrator`
(Kull et al. 2019): the same map over the paper's full ``K x K`` matrix and
``K`` intercepts, with Gaussian priors centred on the identity map,

.. math::

    W_{ij} \\sim \\mathcal N\\big(\\delta_{ij},\\ \\sigma_W^2\\big), \\qquad
    b_i \\sim \\mathcal N(0, \\sigma_b^2) \\qquad (i, j = 1 \\dots K),

so that the prior mean leaves the classifier's probabilities unchanged and
the prior scales play the part of the frequentist penalty's strengths (the
MAP estimate is the fit penalised by ``sum (w_ij - delta_ij)^2 / (2 sigma_W^2)
+ sum b_i^2 / (2 sigma_b^2)``, an L2 penalty towards the identity). Softmax
is unchanged when the same row is added to every row of ``[W, b]``; the
likelihood does not identify that direction and the prior does, so the
posterior is proper, and the prior, like the frequentist calibrator's
penalty, treats every class alike: the calibrated probabilities do not
depend on the order in which the classes are listed. The model samples the
part of that posterior the likelihood sees, each column of ``[W, b]`` summed to
zero over the classes (PyMC's ``ZeroSumNormal`` with the same ``sigma``: the
prior's projection, exact, and better conditioned for NUTS than the full
parameters, whose common shift only the prior bounds); ``weights`` in
``idata_`` is that centred ``W``. (A reference-class
parametrisation -- the last row fixed to zero, priors on the others -- does
not: it gives the contrasts between two non-reference classes twice the
prior variance of those with the reference, and on 30 rows of three classes
reordering the classes moved its posterior-mean probabilities by up to 0.11,
against a Monte-Carlo error of 0.008; see the tests.) The likelihood is the
weighted multinomial log-likelihood ``sum_i w_i log softmax(z_i)[y_i]``.
Each calibrated class probability gets a posterior mean and a credible
interval: a multi-class calibration probe.

The posterior is log-concave (a Gaussian prior times a multinomial-logistic
likelihood), hence unimodal, which is why the default inference is the
Laplace approximation (:func:`bayescal.inference.sampling.sample_posterior`);
NUTS (nutpie, compiled once per process per ``K``) is one parameter away.
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from bayescal._compat.param_validation import Interval, StrOptions
from bayescal.calibration.base import MultiClassCalibrator
from bayescal.calibration.dirichlet import DIRICHLET_INPUTS, dirichlet_log_probabilities
from bayescal.clipping import DEFAULT_CLIP, bounded_softmax, clip_constraint
from bayescal.contracts import input_constraint
from bayescal.inference.posterior import (
    PosteriorPredictiveMixin,
    point_estimate_of_draws,
    record_diagnostics,
    stack_draws,
)
from bayescal.inference.sampling import SAMPLER_CONSTRAINTS, sample_posterior, sampler_settings

__all__ = ["BayesianDirichletCalibrator", "dirichlet_map_model"]


def dirichlet_map_model(
    data: dict[str, np.ndarray], *, matrix: str, prior_scale: float, intercept_scale: float
) -> Any:
    """The PyMC model of a Bayesian Dirichlet calibration map (a pure builder).

    Parameters
    ----------
    data : dict
        ``"L"``: log-probabilities ``(n, K)``; ``"Y"``: one-hot labels
        ``(n, K)``; ``"w"``: weights ``(n,)``.
    matrix : {"full", "diagonal"}
        The full ``K x K`` matrix ``W`` (dims ``class x input_class``) or its
        diagonal (dims ``input_class``).
    prior_scale, intercept_scale : float
        Standard deviations of the Gaussian priors of ``W`` (around the
        identity map) and of ``b`` (around 0).

    Returns
    -------
    pymc.Model
        Free variables ``weights`` and ``intercept`` (dims ``class``);
        the observation axis has no named dim, so folds of any size share one
        compiled model.
    """
    import pymc as pm
    import pytensor.tensor as pt

    k = data["L"].shape[1]
    coords = {"class": np.arange(k), "input_class": np.arange(k)}
    centre = np.eye(k) - 1.0 / k  # the identity map, centred over the classes
    with pm.Model(coords=coords) as model:
        L = pm.Data("L", data["L"])
        Y = pm.Data("Y", data["Y"])
        w = pm.Data("w", data["w"])
        b = pm.ZeroSumNormal("intercept", sigma=intercept_scale, dims="class")
        if matrix == "diagonal":
            a = pm.Normal("weights", 1.0, prior_scale, dims="input_class")
            eta = L * a + b
        else:
            # zero sum over the classes (ZeroSumNormal's zero-sum axis is the last)
            deviation = pm.ZeroSumNormal("weights_deviation", sigma=prior_scale,
                                         dims=("input_class", "class"))
            W = pm.Deterministic("weights", centre + deviation.T, dims=("class", "input_class"))
            eta = pt.dot(L, W.T) + b
        log_p = eta - pt.logsumexp(eta, axis=1, keepdims=True)
        pm.Potential("loglik", pt.sum(w * pt.sum(Y * log_p, axis=1)))
    return model


class BayesianDirichletCalibrator(PosteriorPredictiveMixin, MultiClassCalibrator):
    """Dirichlet calibration with a posterior: ``softmax(W ln q + b)``, Gaussian priors.

    Parameters
    ----------
    matrix : {"full", "diagonal"}, default="full"
        Full weight matrix or its diagonal.
    prior_scale : float, default=1.0
        Prior standard deviation of each weight around the identity map.
    intercept_scale : float, default=2.5
        Prior standard deviation of each intercept around 0.
    input : {"score", "decision"}, default="score"
        Probabilities (1-D: class-1 probability of a binary problem) or logits
        / decision values, as :class:`~bayescal.calibration.DirichletCalibrator`.
    clip : float or None, default=1e-12
        bayescal's clip rule, as :class:`~bayescal.calibration.DirichletCalibrator`:
        probabilities below ``clip`` are raised to it before the log
        (``n_clipped_``); ``None`` raises on a probability of 0.
    inference : {"laplace", "nuts", "advi"}, default="laplace"
        Posterior by a Laplace approximation (the posterior is log-concave),
        NUTS or ADVI (:func:`bayescal.inference.sampling.sample_posterior`).
    sampler : {"nutpie", "nutpie-c", "nutpie-glm", "pymc", "numpyro", "blackjax"}, default="nutpie"
        NUTS implementation.
    draws, tune, chains : int, default=1000, 1000, 2
        Posterior draws and tuning steps per chain, and chains.
    random_state : None, int or numpy Generator
        Seed; the same int gives the same draws.

    Attributes
    ----------
    idata_ : xarray.DataTree
        Posterior of ``weights`` and ``intercept``.
    diagnostics_ : PosteriorDiagnostics
        See :mod:`bayescal.inference.diagnostics`.
    n_clipped_ : int
        Entries clipped in ``fit``.
    classes_ : ndarray of shape (K,)
        ``0 .. K-1``.
    n_features_in_ : int
        ``K``.

    Raises
    ------
    ValueError
        As :class:`~bayescal.calibration.DirichletCalibrator` (single class,
        NaN, rows not summing to one, ``K`` differing between fit and predict).

    Notes
    -----
    See the module docstring for the model. ``predict_proba`` is the
    posterior mean of ``softmax(W ln q + b)`` (rows renormalised), the
    softmax computed in log space and kept off exact 0 and 1 by
    :func:`bayescal.clipping.bounded_softmax` (every probability in
    ``[1e-15, 1 - (K - 1) 1e-15]``, as the sigmoid maps' ``bounded_expit``);
    ``predict_interval(scores, prob)`` the equal-tailed (or HDI) credible
    interval of each class probability, shape ``(n, K, 2)``.

    References
    ----------
    Kull, M., Perello-Nieto, M., Kängsepp, M., Silva Filho, T., Song, H. &
    Flach, P. (2019). Beyond temperature scaling: obtaining well-calibrated
    multi-class probabilities with Dirichlet calibration. *NeurIPS* 32.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> q = rng.dirichlet(np.ones(3), size=300)
    >>> y = np.array([rng.choice(3, p=p) for p in q])
    >>> cal = BayesianDirichletCalibrator(draws=200, random_state=0).fit(q, y)
    >>> cal.predict_interval(q[:2], prob=0.9).shape
    (2, 3, 2)
    """

    _parameter_constraints: dict = {
        "matrix": [StrOptions({"full", "diagonal"})],
        "prior_scale": [Interval(Real, 0, None, closed="neither")],
        "intercept_scale": [Interval(Real, 0, None, closed="neither")],
        "input": input_constraint(*DIRICHLET_INPUTS),
        "clip": clip_constraint(),
        **SAMPLER_CONSTRAINTS,
    }

    def __init__(
        self,
        *,
        matrix: str = "full",
        prior_scale: float = 1.0,
        intercept_scale: float = 2.5,
        input: str = "score",
        clip: float | None = DEFAULT_CLIP,
        inference: str = "laplace",
        sampler: str = "nutpie",
        draws: int = 1000,
        tune: int = 1000,
        chains: int = 2,
        random_state: Any = None,
    ) -> None:
        self.matrix = matrix
        self.prior_scale = prior_scale
        self.intercept_scale = intercept_scale
        self.input = input
        self.clip = clip
        self.inference = inference
        self.sampler = sampler
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.random_state = random_state

    def _transform_scores(
        self, scores: Any, n_classes: int | None
    ) -> tuple[np.ndarray, int]:
        """``(ln q, n_clipped)``, shape ``(n, K)``, as :class:`DirichletCalibrator`'s."""
        return dirichlet_log_probabilities(
            scores, self.input, self.clip, n_classes, owner=type(self).__name__
        )

    def _fit(self, log_q: np.ndarray, labels: np.ndarray, w: np.ndarray) -> None:
        """Sample the posterior of the map (``fit``: :class:`MultiClassCalibrator`)."""
        k = log_q.shape[1]
        data = {"L": log_q, "Y": np.eye(k)[labels], "w": w}
        fit = sample_posterior(
            dirichlet_map_model,
            data,
            hyper={
                "matrix": self.matrix,
                "prior_scale": float(self.prior_scale),
                "intercept_scale": float(self.intercept_scale),
            },
            random_state=self.random_state,
            **sampler_settings(self),
        )
        self.idata_ = fit.idata
        record_diagnostics(
            self,
            fit.idata,
            sampler=fit.sampler,
            seconds=fit.seconds,
            var_names=["weights", "intercept"],
            pareto_k=fit.pareto_k,
            stacklevel=5,
        )

    def _proba_draws(self, X: Any) -> np.ndarray:
        """Calibrated probabilities under each posterior draw, shape ``(S, n, K)``."""
        check_is_fitted(self, "idata_")
        log_q, _ = self._transform_scores(X, self.n_features_in_)
        return self._draws_of_transformed(log_q)

    def _predict_transformed(self, log_q: np.ndarray) -> np.ndarray:
        return point_estimate_of_draws(self._draws_of_transformed(log_q),
                                       getattr(self, "point_estimate", "mean"))

    def _draws_of_transformed(self, log_q: np.ndarray) -> np.ndarray:
        weights = stack_draws(self.idata_, "weights")
        b = stack_draws(self.idata_, "intercept")
        if self.matrix == "diagonal":
            eta = log_q[None] * weights[:, None, :]
        else:
            eta = np.einsum("nj,sij->sni", log_q, weights)
        return bounded_softmax(eta + b[:, None, :], axis=2)

"""Hyper-parameter search for EP Gaussian-process classification on any width of data.

The pieces :class:`bayescal.probes.BayesianGPClassifier` uses to choose its
kernel before inference, so that its defaults work on wide data (many inputs,
few rows) as well as on narrow data:

* a **dimension-scaled length-scale prior** (:func:`dimension_scaled_prior`): on
  standardised inputs the squared distance between two rows grows like ``2 D``,
  so a prior (and a start) that puts length-scales near 1 makes every pair of
  rows look unrelated when ``D`` is large: the latent function collapses to its
  prior mean and every probability to about 0.5. Scaling the prior's scale by
  ``sqrt(D)`` keeps the prior correlation of two typical rows the same for any
  ``D`` (the argument of Hvarfner, Hellsten & Nardi 2024 for Bayesian
  optimisation);
* a **data-driven start** (:func:`initial_lengthscale`): the median distance
  between rows divided by ``sqrt(2)``, then **restarts** of L-BFGS from the best
  of a grid of starting length-scales around it (:func:`fit_with_restarts`);
* **ARD only where it helps** (:func:`select_kernel`): a shared length-scale is
  always fitted; one length-scale per input is tried only while
  ``D / n <= ARD_MAX_RATIO`` and kept only when its EP log marginal likelihood
  beats the shared one by more than Akaike's (1974) penalty ``D - 1``, one nat
  per extra parameter (:func:`ard_penalty`);
* **collapse detection** (:func:`collapse_failures`): a fit whose leave-one-out
  predictive probabilities barely move on the log-odds scale while the labels
  vary, or whose leave-one-out predictions are no better than the class
  frequency's, is reported as failed (per one-vs-rest class, naming it).

References
----------
Hvarfner, C., Hellsten, E. O. & Nardi, L. (2024). Vanilla Bayesian optimization
performs great in high dimensions. ICML.
Akaike, H. (1974). A new look at the statistical model identification. IEEE
Trans. Automat. Control 19, 716-723.
Schwarz, G. (1978). Estimating the dimension of a model. Ann. Statist. 6, 461-464.
Rasmussen, C. E. & Williams, C. K. I. (2006). Gaussian Processes for Machine
Learning. MIT Press, sec. 3.6 and 5.4.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bayescal.probes.gp_ep import (
    EPFit,
    EPResult,
    HyperPrior,
    fit_ep_hyperparameters,
    predictive_probability,
)

__all__ = [
    "ARD_MAX_RATIO",
    "COLLAPSE_LOGIT_SPREAD",
    "KernelChoice",
    "ard_penalty",
    "collapse_failures",
    "constant_model_log_likelihood",
    "constant_model_loo_log_likelihood",
    "dimension_scaled_prior",
    "fit_with_restarts",
    "initial_lengthscale",
    "loo_probabilities",
    "screened_modes",
    "select_kernel",
]

#: ARD (one length-scale per input) is tried only while ``D / n`` is at most this.
ARD_MAX_RATIO = 0.05
#: A fit whose leave-one-out predictive log-odds span less than this has collapsed
#: (0.2 is a spread of 0.05 in probability around 0.5; on the log-odds scale the
#: rule is the same for a rare class, whose probabilities all lie near 0).
COLLAPSE_LOGIT_SPREAD = 0.2
#: Multipliers of the data-driven length-scale screened for L-BFGS starting points.
START_GRID = (0.25, 0.5, 1.0, 2.0, 4.0)
#: Rows used for the median-distance heuristic (an even subsample beyond this).
MEDIAN_ROWS = 500
#: Above this many rows the kernel search runs on a random subsample of this size
#: and only its winner is refined on all rows (see :func:`select_kernel`).
SEARCH_ROWS = 500


def dimension_scaled_prior(prior: HyperPrior, n_inputs: int) -> HyperPrior:
    """Scale the length-scale prior's scale ``beta`` by ``sqrt(n_inputs)``.

    ``l ~ InverseGamma(alpha, beta sqrt(D))`` is ``l / sqrt(D) ~
    InverseGamma(alpha, beta)``: the prior of the length-scale relative to the
    typical distance ``sqrt(2 D)`` between standardised rows does not depend on ``D``.
    """
    return HyperPrior(prior.ls_alpha, prior.ls_beta * float(np.sqrt(n_inputs)), prior.amp_sigma)


def initial_lengthscale(X: np.ndarray) -> float:
    """Median distance between rows of ``X`` over ``sqrt(2)`` (``sqrt(D)`` for white inputs).

    Uses an evenly spaced subsample of at most ``MEDIAN_ROWS`` rows; falls back
    to ``sqrt(D)`` when every row is the same.
    """
    n, d = X.shape
    rows = X[np.linspace(0, n - 1, min(n, MEDIAN_ROWS)).astype(int)]
    sq = (rows * rows).sum(1)
    dist2 = sq[:, None] + sq[None, :] - 2.0 * rows @ rows.T
    iu = np.triu_indices(rows.shape[0], 1)
    positive = dist2[iu][dist2[iu] > 1e-12]
    if positive.size == 0:
        return float(np.sqrt(d))
    return float(np.sqrt(np.median(positive) / 2.0))


def screened_modes(values: list[float] | np.ndarray) -> list[int]:
    """Indices of the local maxima of a profile along an ordered grid, best first.

    A grid point is a local maximum when its value is above both neighbours'
    (one neighbour at the ends). The screened log posterior of the
    length-scale grid (:data:`START_GRID`) with one mode means that L-BFGS from
    the best point and from its runner-up climb the same hill; two modes are
    the data's sign of two optima, worth a second start.

    Examples
    --------
    >>> screened_modes([-5.0, -3.0, -4.0, -2.0, -6.0])
    [3, 1]
    >>> screened_modes([-5.0, -3.0, -2.0, -4.0, -6.0])
    [2]
    """
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return []
    left = np.concatenate([[-np.inf], v[:-1]])
    right = np.concatenate([v[1:], [-np.inf]])
    peaks = np.flatnonzero((v > left) & (v > right))
    if peaks.size == 0:  # a flat profile: its first best point
        peaks = np.array([int(np.argmax(v))])
    return [int(i) for i in peaks[np.argsort(-v[peaks], kind="stable")]]


def fit_with_restarts(
    X: np.ndarray,
    y: np.ndarray,
    *,
    prior: HyperPrior,
    ard: bool,
    n_restarts: int | str,
    theta0: np.ndarray | None = None,
    **ep_options,
) -> tuple[EPFit, int]:
    """Type-II MAP fit started from the best ``1 + n_restarts`` screened points.

    The starting points are the data-driven length-scale
    (:func:`initial_lengthscale`) times ``START_GRID`` at unit amplitude (plus
    ``theta0`` when given, tried first). Each is screened by one EP run
    (no optimisation), from the middle of the grid outwards, each run
    warm-started from the converged sites of its screened neighbour; L-BFGS
    then starts from the ``1 + n_restarts`` best (its first EP run from the
    screened sites) and the fit with the highest log posterior is kept.
    Warm starts change the number of sweeps, not the EP fixed point.

    Parameters
    ----------
    X : ndarray of shape (n, D)
        Standardised inputs.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    prior : HyperPrior
        Hyper-prior.
    ard : bool
        One length-scale per input, or one shared.
    n_restarts : int or "auto"
        Optimised starts beyond the best screened one. ``"auto"``: one more
        start from each other local maximum of the screened log posterior
        along the grid (:func:`screened_modes`), none when it has one mode.
    theta0 : ndarray, optional
        An extra starting point, screened first.
    **ep_options
        Passed to :func:`bayescal.probes.gp_ep.fit_ep_hyperparameters`.

    Returns
    -------
    fit : EPFit
        The best fit.
    n_evaluations : int
        EP objective evaluations spent in total (screening included).
    """
    n_ls = X.shape[1] if ard else 1
    ls0 = initial_lengthscale(X)
    log_m = np.log(np.asarray(START_GRID, dtype=float))
    starts = [np.append(np.full(n_ls, np.log(ls0) + lm), 0.0) for lm in log_m]
    # screen from the middle of the grid outwards, each EP run warm-started from the
    # converged sites of its screened neighbour (the same fixed point in fewer sweeps)
    order = np.argsort(np.abs(log_m), kind="stable")
    if theta0 is not None:
        starts.insert(0, np.asarray(theta0, dtype=float))
        order = np.concatenate([[0], order + 1])
        log_m = np.concatenate([[np.nan], log_m])
    screened: dict[int, EPFit] = {}
    n_eval = 0
    for i in order:
        done = [j for j in screened if np.isfinite(log_m[j]) and np.isfinite(log_m[i])]
        near = min(done, key=lambda j: abs(log_m[j] - log_m[i]), default=None)
        init = None if near is None else (screened[near].result.tau, screened[near].result.nu)
        fit = fit_ep_hyperparameters(X, y, starts[i], prior=prior, ard=ard, optimize=False,
                                     init=init, **ep_options)
        n_eval += fit.n_evaluations
        screened[int(i)] = fit
    ranked = sorted(screened, key=lambda i: -screened[i].log_posterior)
    if n_restarts == "auto":
        grid = [i for i in range(len(starts)) if np.isfinite(log_m[i])]
        modes = screened_modes([screened[i].log_posterior for i in grid])
        chosen = [ranked[0]] + [grid[j] for j in modes if grid[j] != ranked[0]]
    else:
        chosen = ranked[: 1 + int(n_restarts)]
    best = None
    for i in chosen:
        sites = (screened[i].result.tau, screened[i].result.nu)
        fit = fit_ep_hyperparameters(X, y, starts[i], prior=prior, ard=ard, init=sites,
                                     **ep_options)
        n_eval += fit.n_evaluations
        if best is None or fit.log_posterior > best.log_posterior:
            best = fit
    return best, n_eval


@dataclass
class KernelChoice:
    """The kernel chosen by :func:`select_kernel`.

    Attributes
    ----------
    fit : EPFit
        The kept fit.
    ard : bool
        Whether the kept kernel has one length-scale per input.
    log_ml_shared, log_ml_ard : float
        EP log marginal likelihoods of the shared and ARD fits (NaN when not fitted).
    n_evaluations : int
        EP objective evaluations in total.
    notes : list of str
        Why ARD was or was not kept.
    """

    fit: EPFit
    ard: bool
    log_ml_shared: float
    log_ml_ard: float
    n_evaluations: int
    notes: list[str] = field(default_factory=list)


def select_kernel(
    X: np.ndarray,
    y: np.ndarray,
    *,
    prior: HyperPrior,
    ard: bool | str,
    n_restarts: int | str,
    **ep_options,
) -> KernelChoice:
    """Fit the shared-length-scale kernel, then ARD where it helps.

    Parameters
    ----------
    X : ndarray of shape (n, D)
        Standardised inputs.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    prior : HyperPrior
        Hyper-prior (already dimension-scaled).
    ard : bool or "auto"
        True or False force the kernel. ``"auto"``: the shared kernel, replaced
        by ARD (started from the shared fit and its EP sites) when ``D > 1``,
        ``D / n <= ARD_MAX_RATIO`` and
        ``log Z_ARD - log Z_shared > D - 1`` (:func:`ard_penalty`).
    n_restarts : int or "auto"
        Extra L-BFGS starts of the shared fit (:func:`fit_with_restarts`).
        Above ``SEARCH_ROWS`` rows the screening, restarts and ARD choice run on
        a random subsample of ``SEARCH_ROWS`` rows (seed 0) and the winner is
        refined by one L-BFGS run on all rows, so that the ``O(n^3)`` EP runs
        on all rows are few.
    **ep_options
        Passed to :func:`bayescal.probes.gp_ep.fit_ep_hyperparameters`.

    Returns
    -------
    KernelChoice
    """
    n = X.shape[0]
    if n > SEARCH_ROWS:
        rows = np.sort(np.random.default_rng(0).permutation(n)[:SEARCH_ROWS])
        while np.unique(y[rows]).size < 2:  # keep both classes in the subsample
            rows = np.sort(np.append(rows[1:], np.flatnonzero(y != y[rows[0]])[0]))
        coarse = _select_kernel(X[rows], y[rows], prior=prior, ard=ard, n_restarts=n_restarts,
                                **ep_options)
        fine = fit_ep_hyperparameters(X, y, coarse.fit.theta, prior=prior, ard=coarse.ard,
                                      **ep_options)
        lz = fine.result.log_marginal_likelihood
        return KernelChoice(
            fine, coarse.ard, lz if not coarse.ard else float("nan"),
            lz if coarse.ard else float("nan"), coarse.n_evaluations + fine.n_evaluations,
            [*coarse.notes, f"searched on {SEARCH_ROWS} of {n} rows, refined on all"])
    return _select_kernel(X, y, prior=prior, ard=ard, n_restarts=n_restarts, **ep_options)


def _select_kernel(X, y, *, prior, ard, n_restarts, **ep_options) -> KernelChoice:
    n, d = X.shape
    if ard is True:
        fit, n_eval = fit_with_restarts(X, y, prior=prior, ard=True, n_restarts=n_restarts,
                                        **ep_options)
        return KernelChoice(fit, True, float("nan"), fit.result.log_marginal_likelihood, n_eval,
                            ["ARD forced"])
    shared, n_eval = fit_with_restarts(X, y, prior=prior, ard=False, n_restarts=n_restarts,
                                       **ep_options)
    lz_shared = shared.result.log_marginal_likelihood
    if ard is False or d == 1:
        return KernelChoice(shared, False, lz_shared, float("nan"), n_eval, ["shared length-scale"])
    if d / n > ARD_MAX_RATIO:
        return KernelChoice(shared, False, lz_shared, float("nan"), n_eval, [
            f"ARD not tried: D/n = {d}/{n} = {d / n:.3f} > ARD_MAX_RATIO = {ARD_MAX_RATIO}"])
    start = np.append(np.full(d, shared.theta[0]), shared.theta[-1])
    ard_fit = fit_ep_hyperparameters(X, y, start, prior=prior, ard=True,
                                     init=(shared.result.tau, shared.result.nu), **ep_options)
    n_eval += ard_fit.n_evaluations
    lz_ard = ard_fit.result.log_marginal_likelihood
    penalty = ard_penalty(d)
    keep = lz_ard - lz_shared > penalty
    note = (f"ARD {'kept' if keep else 'dropped'}: log Z gain {lz_ard - lz_shared:.2f} "
            f"{'>' if keep else '<='} AIC penalty {penalty:.2f}")
    return KernelChoice(ard_fit if keep else shared, bool(keep), lz_shared, lz_ard, n_eval, [note])


def ard_penalty(n_inputs: int) -> float:
    """Nats of EP evidence ARD must gain over one shared length-scale to be kept: ``D - 1``.

    Akaike's (1974) penalty, one nat per extra hyper-parameter: the criterion of
    expected predictive log density (asymptotically leave-one-out
    cross-validation), which is what a probability probe is judged by.

    Notes
    -----
    Measured on the shared data sets (``benchmarks/gpc_shared.py``, n = 500,
    three random splits of twelve two- and three-class sets, held-out Brier
    score of forced ARD minus the shared length-scale): ARD paid on
    mammographic mass (-0.001 to -0.010), mushroom (-0.003 to -0.005),
    contraceptive method choice (-0.013 to -0.015) and cardiotocography
    (-0.009 to -0.014), and did not on banknote, blood transfusion, breast
    cancer (original), German credit, titanic and waveform (-0.001 to +0.011).
    Schwarz's (1978) BIC penalty ``(D - 1) log(n) / 2``, bayescal's rule before,
    kept ARD in none of the 36 fits; this rule keeps it on every split of
    mammographic mass and mushroom, on one or two of the three latents of
    contraceptive method choice, and on one banknote split (+0.0003), misses
    cardiotocography (a gain of 7-16 nats per latent against 20), and is never
    worse than the shared length-scale by more than 0.0002 on a split: mean
    Brier 0.1427 against 0.1445.
    """
    return float(n_inputs - 1)


def constant_model_log_likelihood(y: np.ndarray) -> float:
    """Maximised log-likelihood of a constant probability: ``n1 log(n1/n) + n0 log(n0/n)``."""
    n1 = float(np.sum(y > 0))
    n0 = float(y.size) - n1
    return float(sum(k * np.log(k / y.size) for k in (n0, n1) if k > 0))


def loo_probabilities(result: EPResult) -> np.ndarray:
    """EP leave-one-out predictive probabilities of class +1 from the cavities.

    The cavity ``N(mu_-i, s2_-i)`` (site ``i`` removed) is EP's approximation
    to the leave-one-out latent predictive (Rasmussen & Williams 2006, sec.
    5.4.3), so ``P(y_i = +1 | y_-i) ~ Phi(mu_-i / sqrt(1 + s2_-i))``.
    """
    tau_c = 1.0 / result.var - result.tau
    nu_c = result.mean / result.var - result.nu
    return predictive_probability(nu_c / tau_c, 1.0 / tau_c)


def constant_model_loo_log_likelihood(y: np.ndarray) -> float:
    """Leave-one-out log predictive density of a constant probability.

    Row ``i`` is predicted by the class frequency of the other rows with one
    pseudo-count per class, ``(n1 - [y_i = +1] + 1) / (n + 1)``, so that it
    is comparable with a model's leave-one-out predictions (both out of sample).
    """
    n = float(y.size)
    n1 = float(np.sum(y > 0))
    n0 = n - n1
    return float(n1 * np.log(n1 / (n + 1.0)) + n0 * np.log(n0 / (n + 1.0)))


def collapse_failures(y: np.ndarray, result: EPResult, label: object = None) -> list[str]:
    """Reasons a fitted latent GP has collapsed to a constant (empty when it has not).

    Parameters
    ----------
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    result : EPResult
        The fitted EP state.
    label : object, optional
        The class this latent separates from the rest (one-vs-rest); named in
        every message, with its count.

    Returns
    -------
    list of str
        ``"collapsed: ..."`` entries when the leave-one-out predictive
        probabilities (:func:`loo_probabilities`; what the model says about a
        row it has not seen) span less than ``COLLAPSE_LOGIT_SPREAD`` in
        log-odds while both labels occur, or when their log predictive density
        is no better than the class frequency's
        (:func:`constant_model_loo_log_likelihood`).

    Notes
    -----
    Both checks compare out-of-sample predictions. Comparing the EP marginal
    likelihood (which pays an Occam factor for the latent function) with the
    constant model's *maximised* likelihood (which pays none), as bayescal did
    before, fires on one-vs-rest fits that do discriminate: on subsamples of
    the heart-disease and yeast sets it flagged classes whose leave-one-out
    AUC was 0.6-0.8 and whose leave-one-out log density beat the constant's
    by 3 nats. An absolute spread of the probabilities, likewise, cannot tell
    a rare class predicted at 0.01-0.05 from a collapsed fit.
    """
    if np.unique(y).size < 2:
        return []
    where = "" if label is None else (
        f"class {label!r} ({int(np.sum(y > 0))} of {y.size} rows) against the rest: ")
    failures = []
    p = loo_probabilities(result)
    log_odds = np.log(p) - np.log1p(-p)
    spread = float(np.max(log_odds) - np.min(log_odds))
    if not spread >= COLLAPSE_LOGIT_SPREAD:
        failures.append(
            f"{where}collapsed: leave-one-out log-odds span only {spread:.3f} < "
            f"{COLLAPSE_LOGIT_SPREAD} although both classes occur")
    loo = float(np.sum(np.where(y > 0, np.log(p), np.log1p(-p))))
    constant = constant_model_loo_log_likelihood(y)
    if not loo > constant:
        failures.append(
            f"{where}collapsed: leave-one-out log predictive density {loo:.2f} is no better "
            f"than the class frequency's {constant:.2f}")
    return failures

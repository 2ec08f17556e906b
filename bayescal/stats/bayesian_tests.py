"""Bayesian comparisons of two methods with a region of practical equivalence.

Benavoli, Corani, Demšar and Zaffalon (2017) replace the p-value by the
posterior probability that one method is practically better, that the two are
practically equivalent (the difference lies in the ROPE ``[-rope, rope]``), or
that the other is better: P(left), P(rope), P(right).

- :func:`correlated_ttest`: one dataset, its cross-validation folds
  (Corani & Benavoli 2015), closed form;
- :func:`signed_rank_test`: many datasets, one mean score each (Bayesian
  signed-rank test with a Dirichlet-process prior), Monte Carlo;
- the hierarchical model over datasets x folds is
  :class:`bayescal.stats.hierarchical.HierarchicalComparison`.

Orientation (the convention of baycomp): the difference is ``b - a``;
*left* means ``b - a < -rope`` (``a`` scores higher), *right* means
``b - a > rope`` (``b`` scores higher). Whether higher is better depends on the
metric; :func:`bayescal.stats.methods.compare_methods` orients the difference
so that *right* means "the method beats the control".
"""

from __future__ import annotations

from numbers import Real
from typing import Any, NamedTuple

import numpy as np

from bayescal.datasets._rng import as_generator
from bayescal.stats.significance import _as_scores
from bayescal.validation import check_fraction, check_positive_int

__all__ = [
    "BayesianComparisonResult",
    "correlated_ttest",
    "posterior_winner_probabilities",
    "signed_rank_test",
]


class BayesianComparisonResult(NamedTuple):
    """Posterior probabilities of a Bayesian comparison.

    Attributes
    ----------
    p_left : float
        P(difference < -rope): ``a`` practically higher.
    p_rope : float
        P(-rope <= difference <= rope): practically equivalent (0 when
        ``rope = 0``).
    p_right : float
        P(difference > rope): ``b`` practically higher.
    samples : ndarray of shape (n_samples, 3) or None
        Monte-Carlo samples of the (left, rope, right) probabilities
        (signed-rank and hierarchical tests; None for the closed-form
        correlated t-test).
    mean_difference : float
        Posterior mean (t-test, hierarchical) or sample mean (signed-rank) of
        ``b - a``.
    rope : float
        Half-width of the region of practical equivalence.
    """

    p_left: float
    p_rope: float
    p_right: float
    samples: np.ndarray | None
    mean_difference: float
    rope: float


def _check_rope(rope: Any) -> float:
    if isinstance(rope, bool) or not isinstance(rope, Real) or not np.isfinite(rope) or rope < 0:
        raise ValueError(
            f"`rope` must be a finite number >= 0 (half-width of the region of practical "
            f"equivalence, in the metric's units); got {rope!r}."
        )
    return float(rope)


def _paired_differences(a: Any, b: Any, ndim: int, what: str) -> np.ndarray:
    """Validated ``b - a`` (or ``a`` itself when ``b`` is None) of dimension ``ndim``."""
    d = _as_scores(a, "a")
    if b is not None:
        bb = _as_scores(b, "b")
        if bb.shape != d.shape:
            raise ValueError(
                f"`a` and `b` must have the same shape (paired scores); got {d.shape} and "
                f"{bb.shape}."
            )
        d = bb - d
    if d.ndim != ndim:
        raise ValueError(f"`a` must hold {what} ({ndim}-D); got an array of shape {d.shape}.")
    return d


def posterior_winner_probabilities(samples: Any) -> tuple[float, float, float]:
    """P(left), P(rope), P(right) as the share of samples each region wins.

    Parameters
    ----------
    samples : array-like of shape (n_samples, 3)
        Posterior samples of the (left, rope, right) probabilities.

    Returns
    -------
    tuple of float
        For each region, the fraction of samples in which it has the largest
        probability (ties go to the first, as ``numpy.argmax``): the
        posterior probability that the region is the most probable one, the
        summary Benavoli et al. (2017) report and baycomp computes.
    """
    arr = np.asarray(samples, dtype=float)
    if arr.ndim != 2 or arr.shape[1] != 3 or arr.shape[0] == 0:
        raise ValueError(f"`samples` must have shape (n_samples, 3); got {arr.shape}.")
    winners = np.bincount(np.argmax(arr, axis=1), minlength=3) / arr.shape[0]
    return float(winners[0]), float(winners[1]), float(winners[2])


def correlated_ttest(
    a: Any, b: Any = None, *, rope: float = 0.0, rho: float | None = None
) -> BayesianComparisonResult:
    """Bayesian correlated t-test of two methods on one dataset's folds.

    Parameters
    ----------
    a, b : array-like of shape (n_folds,)
        Paired per-fold scores of the two methods (``b=None``: ``a`` holds the
        differences ``b - a``). Repeated cross-validation: all folds of all
        runs, in any order. At least 2 folds.
    rope : float, default=0
        Half-width of the region of practical equivalence (metric units).
    rho : float, optional
        Correlation between the folds' differences, ``n_test / n_total`` of
        the protocol (1/K for K-fold CV, repeated or not). Default:
        ``1 / n_folds`` (one run of K-fold CV).

    Returns
    -------
    BayesianComparisonResult
        ``samples`` is None (the probabilities are closed form).

    Raises
    ------
    ValueError
        For fewer than 2 folds, NaN scores, a negative ``rope`` or ``rho``
        outside (0, 1).

    Notes
    -----
    With :math:`\\bar d` and :math:`s^2` the mean and sample variance of the
    n differences, the posterior of the mean difference under the
    correlated normal model with the non-informative prior of Corani &
    Benavoli (2015) is a Student t with n - 1 degrees of freedom,
    location :math:`\\bar d` and scale

    .. math:: s \\sqrt{1/n + \\rho / (1 - \\rho)}

    (Nadeau and Bengio's correction). P(left) is its mass below -rope,
    P(right) above rope. When every difference is equal the posterior is a
    point mass at :math:`\\bar d` (as baycomp treats it).

    References
    ----------
    G. Corani and A. Benavoli, "A Bayesian approach for comparing
    cross-validated algorithms on multiple data sets", Machine Learning
    100:285-304, 2015.
    A. Benavoli, G. Corani, J. Demšar and M. Zaffalon, "Time for a change: a
    tutorial for comparing multiple classifiers through Bayesian analysis",
    JMLR 18(77):1-36, 2017.

    Examples
    --------
    >>> a = [0.80, 0.82, 0.79, 0.81, 0.80, 0.83, 0.78, 0.80, 0.82, 0.81]
    >>> b = [0.84, 0.85, 0.83, 0.86, 0.82, 0.86, 0.83, 0.84, 0.85, 0.86]
    >>> result = correlated_ttest(a, b, rope=0.03)
    >>> round(result.p_rope, 3), round(result.p_right, 3)
    (0.063, 0.937)
    """
    from scipy import stats

    d = _paired_differences(a, b, 1, "one score per fold")
    n = d.size
    if n < 2:
        raise ValueError(f"`a` has {n} fold(s); the correlated t-test needs at least 2.")
    rope = _check_rope(rope)
    rho = 1.0 / n if rho is None else check_fraction(rho, "rho")
    mean = float(d.mean())
    var = float(d.var(ddof=1)) * (1.0 / n + rho / (1.0 - rho))
    if var == 0.0:
        left = float(mean < -rope)
        right = float(mean > rope) if rope > 0 else float(mean > 0) + 0.5 * float(mean == 0)
        if rope == 0:
            left = 1.0 - right
    else:
        scale = np.sqrt(var)
        left = float(stats.t.cdf(-rope, n - 1, mean, scale))
        right = float(stats.t.sf(rope, n - 1, mean, scale))
    return BayesianComparisonResult(left, max(0.0, 1.0 - left - right), right, None, mean, rope)


def _signed_rank_samples(d: np.ndarray, weights: np.ndarray, rope: float) -> np.ndarray:
    """(left, rope, right) probabilities for each Dirichlet weight vector.

    ``weights`` has shape ``(n_samples, n + 1)``: column 0 weighs the prior
    pseudo-observation at 0, the others the n differences ``d``.
    """
    z = np.concatenate(([0.0], d))
    sums = z[:, None] + z[None, :]

    def step(values: np.ndarray) -> np.ndarray:  # Heaviside with H(0) = 1/2
        return (values > 0).astype(float) + 0.5 * (values == 0)

    out = np.empty((weights.shape[0], 3))
    above = step(sums - 2 * rope)
    out[:, 2] = np.einsum("si,ij,sj->s", weights, above, weights, optimize=True)
    if rope > 0:
        below = step(-sums - 2 * rope)
        out[:, 0] = np.einsum("si,ij,sj->s", weights, below, weights, optimize=True)
        out[:, 1] = 1.0 - out[:, 0] - out[:, 2]
    else:
        out[:, 0] = 1.0 - out[:, 2]
        out[:, 1] = 0.0
    return out


def signed_rank_test(
    a: Any,
    b: Any = None,
    *,
    rope: float = 0.0,
    prior_strength: float = 0.5,
    n_samples: int = 50000,
    random_state: Any = None,
) -> BayesianComparisonResult:
    """Bayesian signed-rank test of two methods over many datasets.

    Parameters
    ----------
    a, b : array-like of shape (n_datasets,)
        Paired scores of the two methods, one per dataset (usually the mean
        over folds); ``b=None``: ``a`` holds the differences ``b - a``.
        At least 2 datasets.
    rope : float, default=0
        Half-width of the region of practical equivalence (metric units).
    prior_strength : float, default=0.5
        Weight s of the Dirichlet process's prior pseudo-observation at 0
        (baycomp's ``prior``).
    n_samples : int, default=50000
        Monte-Carlo samples of the Dirichlet posterior.
    random_state : None, int or numpy Generator
        Seed of the Monte-Carlo draws.

    Returns
    -------
    BayesianComparisonResult
        ``samples`` holds the (left, rope, right) probabilities of each
        Monte-Carlo sample; the reported probabilities are the share of
        samples each region wins (:func:`posterior_winner_probabilities`).

    Raises
    ------
    ValueError
        For fewer than 2 datasets, NaN scores, a negative ``rope`` or
        non-positive ``prior_strength``.

    Notes
    -----
    The distribution of the difference z gets a Dirichlet-process prior
    with strength s concentrated at :math:`z_0 = 0`; its posterior given the
    differences :math:`z_1 \\dots z_n` is a Dirichlet process whose
    weights are :math:`w \\sim \\mathrm{Dir}(s, 1, \\dots, 1)` on
    :math:`z_0 \\dots z_n`. For each weight vector,

    .. math::

        \\theta_r = \\sum_{i,j} w_i w_j H(z_i + z_j - 2 r), \\quad
        \\theta_l = \\sum_{i,j} w_i w_j H(-z_i - z_j - 2 r), \\quad
        \\theta_e = 1 - \\theta_l - \\theta_r,

    with H the Heaviside step (H(0) = 1/2), i.e. the posterior
    probabilities that the average of two differences, the quantity behind
    Wilcoxon's statistic, lies right of, left of or inside the ROPE
    (Benavoli et al. 2014; 2017, Section 4.2). With ``rope = 0`` the rope
    column is 0.

    References
    ----------
    A. Benavoli, G. Corani, F. Mangili, M. Zaffalon and F. Ruggeri, "A
    Bayesian Wilcoxon signed-rank test based on the Dirichlet process",
    ICML 2014.
    A. Benavoli, G. Corani, J. Demšar and M. Zaffalon, "Time for a change",
    JMLR 18(77):1-36, 2017.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a = rng.uniform(0.10, 0.20, size=15)
    >>> result = signed_rank_test(a, a - 0.03, rope=0.01, n_samples=2000, random_state=0)
    >>> result.p_left
    1.0
    """
    d = _paired_differences(a, b, 1, "one score per dataset")
    if d.size < 2:
        raise ValueError(
            f"`a` has {d.size} dataset(s); the signed-rank test needs at least 2."
        )
    rope = _check_rope(rope)
    if isinstance(prior_strength, bool) or not isinstance(prior_strength, Real) or not (
        np.isfinite(prior_strength) and prior_strength > 0
    ):
        raise ValueError(f"`prior_strength` must be a positive number; got {prior_strength!r}.")
    n_samples = check_positive_int(n_samples, "n_samples")
    rng = as_generator(random_state)
    alpha = np.ones(d.size + 1)
    alpha[0] = float(prior_strength)
    samples = np.empty((n_samples, 3))
    chunk = max(1, 2_000_000 // (d.size + 1) ** 2)
    for start in range(0, n_samples, chunk):
        stop = min(n_samples, start + chunk)
        weights = rng.dirichlet(alpha, stop - start)
        samples[start:stop] = _signed_rank_samples(d, weights, rope)
    left, equal, right = posterior_winner_probabilities(samples)
    return BayesianComparisonResult(left, equal, right, samples, float(d.mean()), rope)

"""Synthetic datasets with known true probabilities.

Every generator returns ``(X, y, p_true)`` where ``p_true[i] = P(y = 1 | X[i])``
is computed exactly from the generating model (``make_multilabel`` returns one
such column per label). They reproduce the simulations of the source papers:

* :func:`make_thesis_synthetic`: the small-data calibration thesis
  (Alasalmi 2020, §3.1.1): three overlapping 2-D normals, derived features.
* :func:`make_undersampling_simulation`, :func:`undersample`,
  :func:`undersampled_probability` and :func:`base_model_scores`: the
  Platt-after-undersampling simulation (Phelps et al. 2024, §3.1 and Appendix).
* :func:`make_gmm`: the two-class 2-D Gaussian mixtures of the
  boundary-uncertainty paper (Ha et al. 2021, §6.2, §6.8, §6.9).
* :func:`make_multilabel`: independent logistic labels of shared features.

The papers do not publish the means and covariances of their normals; the
values used here are listed in each docstring (and in the module-level tables)
and were chosen to match the papers' descriptions.
"""

from __future__ import annotations

from numbers import Real
from typing import Any, NamedTuple

import numpy as np

from bayescal.datasets._rng import as_generator
from bayescal.validation import (
    check_array_1d,
    check_choice,
    check_consistent_length,
    check_fraction,
    check_labels,
    check_matrix,
    check_positive_int,
    check_positive_number,
)

__all__ = [
    "BASE_MODEL_KINDS",
    "GMM_KINDS",
    "UndersampledData",
    "base_model_scores",
    "gaussian_mixture_logpdf",
    "make_gmm",
    "make_multilabel",
    "make_thesis_synthetic",
    "make_undersampling_simulation",
    "undersample",
    "undersampled_probability",
]


def _expit(x: np.ndarray) -> np.ndarray:
    """Logistic function ``1 / (1 + exp(-x))`` (NumPy only; +-inf map to 1 and 0)."""
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=np.float64)))


def _logit(p: np.ndarray) -> np.ndarray:
    """Log-odds ``log(p / (1 - p))`` (NumPy only; 0 and 1 map to -inf and +inf)."""
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.log(p) - np.log1p(-p)


#: A mixture component: (weight, mean, covariance).
Component = tuple[float, tuple[float, float], tuple[tuple[float, float], tuple[float, float]]]


# --------------------------------------------------------------------------- #
# Gaussian mixtures: sampling and exact log-densities
# --------------------------------------------------------------------------- #


def gaussian_mixture_logpdf(X: np.ndarray, components: list[Component]) -> np.ndarray:
    """Log-density of a Gaussian mixture at the rows of ``X``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Points.
    components : list of (weight, mean, covariance)
        Mixture weights (summing to one), means of length ``d`` and ``(d, d)``
        covariance matrices.

    Returns
    -------
    ndarray of shape (n,)
        ``log sum_c w_c N(x; mu_c, Sigma_c)``, computed with a Cholesky factor
        per component and log-sum-exp, so far tails do not underflow.

    Notes
    -----
    Written with NumPy (no SciPy object per component) because the generators
    call it on large samples; ``scipy.stats.multivariate_normal`` is its test
    oracle.
    """
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    terms = []
    for weight, mean, cov in components:
        chol = np.linalg.cholesky(np.asarray(cov, dtype=np.float64))
        z = np.linalg.solve(chol, (X - np.asarray(mean, dtype=np.float64)).T)
        log_det = 2.0 * np.log(np.diag(chol)).sum()
        terms.append(
            np.log(weight) - 0.5 * (d * np.log(2 * np.pi) + log_det + (z * z).sum(axis=0))
        )
    return np.logaddexp.reduce(np.asarray(terms), axis=0)


def _sample_mixture(components: list[Component], n: int, rng: np.random.Generator) -> np.ndarray:
    """Draw ``n`` points from a Gaussian mixture (component chosen per point)."""
    weights = np.array([c[0] for c in components])
    which = rng.choice(len(components), size=n, p=weights / weights.sum())
    d = len(components[0][1])
    out = np.empty((n, d))
    for k, (_, mean, cov) in enumerate(components):
        rows = which == k
        out[rows] = rng.multivariate_normal(mean, cov, size=int(rows.sum()))
    return out


def _two_class_sample(
    negative: list[Component],
    positive: list[Component],
    n_negative: int,
    n_positive: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw both classes, shuffle, and compute the exact posterior of class 1.

    ``p_true = pi1 f1 / (pi0 f0 + pi1 f1)`` with the class priors equal to the
    class fractions ``n_positive / n`` of the generating design.
    """
    X = np.vstack(
        [_sample_mixture(negative, n_negative, rng), _sample_mixture(positive, n_positive, rng)]
    )
    y = np.r_[np.zeros(n_negative, dtype=np.int64), np.ones(n_positive, dtype=np.int64)]
    order = rng.permutation(y.size)
    X, y = X[order], y[order]
    log_prior_ratio = np.log(n_positive) - np.log(n_negative)
    p_true = _expit(
        gaussian_mixture_logpdf(X, positive)
        - gaussian_mixture_logpdf(X, negative)
        + log_prior_ratio
    )
    return X, y, p_true


# --------------------------------------------------------------------------- #
# Alasalmi (2020) §3.1.1: the thesis' synthetic set
# --------------------------------------------------------------------------- #

#: Positive class of :func:`make_thesis_synthetic`: one normal.
THESIS_POSITIVE: list[Component] = [(1.0, (0.0, 0.0), ((1.0, 0.3), (0.3, 1.0)))]
#: Negative class: two normals in different regions, equally likely.
THESIS_NEGATIVE: list[Component] = [
    (0.5, (2.6, 0.4), ((0.8, -0.2), (-0.2, 0.7))),
    (0.5, (-0.6, 2.8), ((0.9, 0.25), (0.25, 0.6))),
]
#: Names of the derived features of :func:`make_thesis_synthetic`.
THESIS_FEATURE_NAMES = (
    "exp(x1/2)",
    "x2^3",
    "x1*x2",
    "x1^2",
    "x2^2",
    "log(1+x1^2+x2^2)",
)


def _thesis_features(Z: np.ndarray) -> np.ndarray:
    x1, x2 = Z[:, 0], Z[:, 1]
    return np.column_stack([np.exp(x1 / 2), x2**3, x1 * x2, x1**2, x2**2, np.log1p(x1**2 + x2**2)])


def make_thesis_synthetic(
    n_per_class: int = 100,
    random_state: Any = None,
    *,
    derived: bool = True,
    mean_scale: float = 1.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The thesis' synthetic set: three 2-D normals, true probabilities known.

    Parameters
    ----------
    n_per_class : int, default=100
        Samples drawn for each class (the thesis used 100 + 100, prior 0.5).
    random_state : None, int or numpy Generator, default=None
        Seed or generator.
    derived : bool, default=True
        Return the six derived features (as in the thesis) instead of the two
        original coordinates.
    mean_scale : float > 0, default=1.0
        Factor on every component's mean: below 1 the two negative components
        move towards the positive one at the origin (more overlap, true
        probabilities away from 0 and 1 over a wider region), above 1 apart.
        The covariances are unchanged. Alasalmi (2020) Table 5 is reproduced with a
        value found by a search (see ``models/reproductions/seed000_table5``).

    Returns
    -------
    X : ndarray of shape (2 * n_per_class, 6) or (2 * n_per_class, 2)
        Derived features ``[exp(x1/2), x2^3, x1*x2, x1^2, x2^2,
        log(1 + x1^2 + x2^2)]`` (names in ``THESIS_FEATURE_NAMES``), or the
        original ``(x1, x2)`` when ``derived=False``. Rows are shuffled.
    y : ndarray of shape (2 * n_per_class,), int64
        1 for the positive class.
    p_true : ndarray of shape (2 * n_per_class,)
        ``P(y = 1 | x)``.

    Raises
    ------
    TypeError, ValueError
        If ``n_per_class`` is not an integer >= 1, ``derived`` is not a bool,
        or ``mean_scale`` is not a positive number.

    Notes
    -----
    Alasalmi (2020) §3.1.1: "Three two-dimensional normal distributions with a
    slight overlap were used. One of the distributions was used to draw samples
    for the positive class and the other two, each occupying a different part of
    the feature space, were used to draw samples for the negative class. ... The
    true probabilities were then calculated for each instance as the ratio of the
    probability density functions ... derivative features [were engineered and]
    the original features [dropped]." The thesis gives no parameters; here the
    positive class is ``N((0, 0), [[1, .3], [.3, 1]])`` and the negative class the
    equal mixture of ``N((2.6, 0.4), [[.8, -.2], [-.2, .7]])`` and
    ``N((-0.6, 2.8), [[.9, .25], [.25, .6]])`` (Bayes error about 8 %). With equal
    priors

    .. math:: p(x) = \\frac{f_+(x)}{f_+(x) + \\tfrac12 f_A(x) + \\tfrac12 f_B(x)}.

    The derived map is one-to-one (``exp(x1/2)`` gives ``x1``, ``x2^3`` gives
    ``x2``), so ``p_true`` is also ``P(y = 1 | derived features)``. The thesis'
    table lists the set with 200 samples and 6 features, as here by default.

    References
    ----------
    Alasalmi, T. (2020). Uncertainty of classification on limited data. Doctoral
    dissertation, University of Oulu; §3.1.1.

    Examples
    --------
    >>> X, y, p = make_thesis_synthetic(random_state=0)
    >>> X.shape, y.sum(), bool(((p > 0) & (p < 1)).all())
    ((200, 6), np.int64(100), True)
    """
    n_per_class = check_positive_int(n_per_class, "n_per_class")
    if not isinstance(derived, bool):
        raise TypeError(f"`derived` must be True or False; got {derived!r}.")
    mean_scale = check_positive_number(mean_scale, "mean_scale")
    rng = as_generator(random_state)
    negative, positive = (
        [(w, tuple(mean_scale * np.asarray(m)), c) for w, m, c in comps]
        for comps in (THESIS_NEGATIVE, THESIS_POSITIVE)
    )
    Z, y, p_true = _two_class_sample(negative, positive, n_per_class, n_per_class, rng)
    return (_thesis_features(Z) if derived else Z), y, p_true


# --------------------------------------------------------------------------- #
# Phelps et al. (2024): Platt's scaling after undersampling
# --------------------------------------------------------------------------- #

#: Table A1 of Phelps et al. (2024): (minimum, maximum) of the 10 uniform covariates.
UNDERSAMPLING_COVARIATE_RANGES: tuple[tuple[float, float], ...] = (
    (-0.4, 0.6),
    (-0.2, 0.8),
    (-0.4, 1.0),
    (-0.1, 0.9),
    (0.0, 5.0),
    (0.0, 3.0),
    (1.0, 4.0),
    (1.0, 7.0),
    (1.0, 3.0),
    (0.0, 2.0),
)


def undersampling_log_odds(X: np.ndarray, b: float) -> np.ndarray:
    """Eq. A1 of Phelps et al. (2024): the log-odds of success from the 10 covariates."""
    x = [X[:, j] for j in range(10)]
    linear = sum(x)
    interactions = (
        x[0] * x[2]
        + x[1] * x[4]
        + x[3] * x[8]
        + x[5] * x[6]
        + x[7] * x[9]
        + x[0] * x[1] * x[2] * x[3]
        + x[0] * x[1] * x[8] * x[9]
    )
    return np.log(99.0) / 40.0 * (linear + interactions) - b * np.log(99.0)


def make_undersampling_simulation(
    n: int, b: float, random_state: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The imbalanced simulation of Phelps et al. (2024) (Table A1 covariates, Eq. A1).

    Parameters
    ----------
    n : int
        Number of observations.
    b : float
        Rate parameter of Eq. A1: the paper's ``b = 2, 1.5, 1.1`` give mean
        probabilities of about 0.0022, 0.0208 and 0.1109.
    random_state : None, int or numpy Generator, default=None
        Seed or generator.

    Returns
    -------
    X : ndarray of shape (n, 10)
        Covariate ``j`` uniform on the range of Table A1
        (``UNDERSAMPLING_COVARIATE_RANGES``).
    y : ndarray of shape (n,), int64
        Outcomes drawn as Bernoulli(``p_true``).
    p_true : ndarray of shape (n,)
        Success probabilities of Eq. A1.

    Raises
    ------
    TypeError, ValueError
        If ``n`` is not an integer >= 1 or ``b`` is not a finite real number.

    Notes
    -----
    Eq. A1 of Phelps et al. (2024):

    .. math:: \\operatorname{logit} p = \\frac{\\log 99}{40}\\Big(\\sum_{j=1}^{10} x_j
              + x_1x_3 + x_2x_5 + x_4x_9 + x_6x_7 + x_8x_{10} + x_1x_2x_3x_4
              + x_1x_2x_9x_{10}\\Big) - b \\log 99.

    The paper undersamples with ``pi0 = 0.0023, 0.02125, 0.125`` for the three
    values of ``b`` (see :func:`undersample`).

    References
    ----------
    Phelps, N., Lizotte, D. J. & Woolford, D. G. (2024). Using Platt's scaling for
    calibration after undersampling: limitations and how to address them;
    §3.1.1 and Appendix.

    Examples
    --------
    >>> X, y, p = make_undersampling_simulation(100_000, b=1.1, random_state=0)
    >>> round(float(p.mean()), 2)
    0.11
    """
    n = check_positive_int(n, "n")
    if isinstance(b, bool) or not isinstance(b, Real):
        raise TypeError(f"`b` must be a real number; got {b!r} of type {type(b).__name__}.")
    if not np.isfinite(b):
        raise ValueError(f"`b` must be finite; got {b!r}.")
    rng = as_generator(random_state)
    low = np.array([r[0] for r in UNDERSAMPLING_COVARIATE_RANGES])
    high = np.array([r[1] for r in UNDERSAMPLING_COVARIATE_RANGES])
    X = rng.uniform(low, high, size=(n, 10))
    p_true = _expit(undersampling_log_odds(X, float(b)))
    y = (rng.random(n) < p_true).astype(np.int64)
    return X, y, p_true


class UndersampledData(NamedTuple):
    """Result of :func:`undersample`.

    Attributes
    ----------
    X : ndarray of shape (m, d)
        Kept rows of ``X``.
    y : ndarray of shape (m,)
        Kept labels.
    indices : ndarray of shape (m,), int64
        Positions of the kept rows in the input (increasing).
    p_true : ndarray of shape (m,) or None
        Kept true probabilities ``P(y = 1 | x)`` (when given).
    gamma_true : ndarray of shape (m,) or None
        True probabilities in the undersampled population,
        ``P(y = 1 | x, S = 1)`` (when ``p_true`` was given).
    """

    X: np.ndarray
    y: np.ndarray
    indices: np.ndarray
    p_true: np.ndarray | None
    gamma_true: np.ndarray | None


def undersampled_probability(p: Any, pi0: float) -> np.ndarray:
    """True probability after undersampling: ``gamma = p / (p + pi0 (1 - p))``.

    Parameters
    ----------
    p : array-like of shape (n,)
        True probabilities ``P(y = 1 | x)`` in the full population.
    pi0 : float in (0, 1]
        Probability with which a negative is kept (positives are all kept).

    Returns
    -------
    ndarray of shape (n,)
        ``gamma(x) = P(y = 1 | x, S = 1)``, what a perfect base model fitted to
        the undersampled data predicts.

    Raises
    ------
    ValueError
        If ``p`` is not a 1-D array in [0, 1] or ``pi0`` is outside (0, 1].

    Notes
    -----
    By Bayes' rule, ``gamma = p / (p + pi0 (1 - p))``; it is the inverse of the
    analytical correction of Phelps et al. (2024) Eq. 1 (Dal Pozzolo et al. 2015),
    ``kappa(gamma) = gamma pi0 / (1 - gamma + gamma pi0) = p``.

    Examples
    --------
    >>> undersampled_probability([0.01, 0.5], pi0=0.1).round(4)
    array([0.0917, 0.9091])
    """
    p = check_array_1d(p, "p", low=0.0, high=1.0)
    pi0 = check_fraction(pi0, "pi0", inclusive_high=True)
    return p / (p + pi0 * (1.0 - p))


def undersample(
    X: Any,
    y: Any,
    pi0: float,
    random_state: Any = None,
    *,
    p_true: Any = None,
) -> UndersampledData:
    """Keep every positive and each negative with probability ``pi0``.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Features (``NaN`` allowed).
    y : array-like of shape (n,)
        Binary labels 0/1.
    pi0 : float in (0, 1]
        Probability of keeping a negative (Phelps et al.'s (2024) sampling rate; the paper
        uses 0.0023, 0.02125 and 0.125 to get roughly balanced training sets).
    random_state : None, int or numpy Generator, default=None
        Seed or generator.
    p_true : array-like of shape (n,), optional
        True probabilities of the full population; the result then carries the
        kept ``p_true`` and ``gamma_true`` (see :func:`undersampled_probability`).

    Returns
    -------
    UndersampledData
        Named tuple ``(X, y, indices, p_true, gamma_true)``.

    Raises
    ------
    ValueError
        If ``y`` is not binary 0/1, lengths differ, ``pi0`` is outside (0, 1] or
        ``p_true`` is not in [0, 1].

    Notes
    -----
    Each negative is kept independently (Bernoulli(``pi0``)), as in Phelps et al. (2024) §2:
    ``S = 1`` for every positive and ``P(S = 1 | y = 0) = pi0``, so the kept
    sample follows ``P(y = 1 | x, S = 1) = gamma(x)``.

    Examples
    --------
    >>> X, y, p = make_undersampling_simulation(10_000, b=1.1, random_state=0)
    >>> kept = undersample(X, y, 0.125, p_true=p, random_state=0)
    >>> bool(kept.y.sum() == y.sum()), bool(abs(kept.y.mean() - 0.5) < 0.1)
    (True, True)
    """
    X = check_matrix(X, "X", allow_nan=True)
    y = check_labels(y, "y", n_classes=2)
    pi0 = check_fraction(pi0, "pi0", inclusive_high=True)
    check_consistent_length(X=X, y=y)
    p = None
    if p_true is not None:
        p = check_array_1d(p_true, "p_true", low=0.0, high=1.0)
        check_consistent_length(y=y, p_true=p)
    rng = as_generator(random_state)
    keep = (y == 1) | (rng.random(y.size) < pi0)
    idx = np.flatnonzero(keep).astype(np.int64)
    if p is None:
        return UndersampledData(X[idx], y[idx], idx, None, None)
    return UndersampledData(X[idx], y[idx], idx, p[idx], undersampled_probability(p[idx], pi0))


#: Kinds of hypothetical base model of Phelps et al. (2024) §3.1.2.
BASE_MODEL_KINDS = ("perfect", "toward_half", "toward_extremes", "noisy")


def base_model_scores(
    gamma: Any,
    kind: str = "perfect",
    random_state: Any = None,
    *,
    noise_sd: float = 0.2,
) -> np.ndarray:
    """Scores of Phelps et al.'s (2024) hypothetical base models, given the true ``gamma``.

    Parameters
    ----------
    gamma : array-like of shape (n,)
        True probability in the undersampled population,
        ``gamma(x) = P(y = 1 | x, S = 1)`` (see :func:`undersampled_probability`)
        for the rows to score (calibration or test rows of the full population:
        the base model was trained on undersampled data, so a perfect one outputs
        ``gamma`` everywhere).
    kind : {"perfect", "toward_half", "toward_extremes", "noisy"}, default="perfect"
        The base model (Phelps et al. 2024 §3.1.2):

        * ``"perfect"``: ``gamma_hat = gamma``;
        * ``"toward_half"`` (Eq. 7): ``gamma_hat = min(max(-log(1/gamma - 1)/10
          + 0.5, 0), 1)``, estimates pushed towards 0.5;
        * ``"toward_extremes"`` (Eq. 8): ``gamma_hat = 1 / (1 + exp(-10 (gamma -
          0.5)))``, estimates pushed towards 0 and 1;
        * ``"noisy"``: ``gamma_hat = expit(logit(gamma) + e)``,
          ``e ~ N(0, noise_sd)``: nearly perfect in expectation with occasional
          larger errors.
    random_state : None, int or numpy Generator, default=None
        Seed or generator (used by ``"noisy"`` only).
    noise_sd : float, default=0.2
        Standard deviation of the log-odds noise of ``"noisy"`` (0.2 in the paper).

    Returns
    -------
    ndarray of shape (n,)
        Scores ``gamma_hat`` in [0, 1].

    Raises
    ------
    ValueError
        If ``gamma`` is not a 1-D array in [0, 1], ``kind`` is unknown or
        ``noise_sd`` is negative or not finite.

    Notes
    -----
    Eq. 7 is the inverse of the sigmoid ``gamma = 1 / (1 + exp(-k (gamma_hat -
    m)))`` of the paper's Eq. 5 with ``k = 10`` and ``m = 0.5``, which Theorem 2
    shows ordinary Platt scaling can calibrate exactly after undersampling.

    References
    ----------
    Phelps et al. (2024), §3.1.2, Eqs. 5, 7 and 8.

    Examples
    --------
    >>> base_model_scores([0.1, 0.5, 0.9], "toward_half").round(4)
    array([0.2803, 0.5   , 0.7197])
    >>> base_model_scores([0.1, 0.5, 0.9], "toward_extremes").round(4)
    array([0.018, 0.5  , 0.982])
    """
    gamma = check_array_1d(gamma, "gamma", low=0.0, high=1.0)
    check_choice(kind, "kind", BASE_MODEL_KINDS)
    if isinstance(noise_sd, bool) or not isinstance(noise_sd, Real):
        raise TypeError(f"`noise_sd` must be a real number; got {noise_sd!r}.")
    if not (np.isfinite(noise_sd) and noise_sd >= 0):
        raise ValueError(f"`noise_sd` must be finite and >= 0; got {noise_sd!r}.")
    if kind == "perfect":
        return gamma
    if kind == "toward_extremes":
        return _expit(10.0 * (gamma - 0.5))
    log_odds = _logit(gamma)
    if kind == "toward_half":
        return np.clip(log_odds / 10.0 + 0.5, 0.0, 1.0)
    rng = as_generator(random_state)
    return _expit(log_odds + rng.normal(0.0, float(noise_sd), size=gamma.size))


# --------------------------------------------------------------------------- #
# Ha et al. (2021): two-class 2-D Gaussian mixtures
# --------------------------------------------------------------------------- #

#: Components (negative class 0, positive class 1) of each :func:`make_gmm` kind.
GMM_DESIGNS: dict[str, tuple[list[Component], list[Component]]] = {
    # Four overlapping normals, two per class; curved Bayes boundary, Bayes error ~14 %.
    "overlap": (
        [
            (0.6, (0.0, 0.0), ((1.0, 0.5), (0.5, 1.0))),
            (0.4, (2.5, -1.5), ((0.5, 0.0), (0.0, 0.5))),
        ],
        [
            (0.6, (1.5, 1.0), ((1.0, -0.3), (-0.3, 0.8))),
            (0.4, (-1.5, 2.0), ((0.6, 0.0), (0.0, 0.6))),
        ],
    ),
    # Two compact crowds per class, left and right of a wide empty band; Bayes error < 1e-8.
    "separable": (
        [
            (0.5, (-4.0, 0.0), ((0.4, 0.0), (0.0, 0.8))),
            (0.5, (-3.0, 2.5), ((0.3, 0.0), (0.0, 0.3))),
        ],
        [
            (0.5, (4.0, 0.0), ((0.4, 0.0), (0.0, 0.8))),
            (0.5, (3.0, -2.5), ((0.3, 0.0), (0.0, 0.3))),
        ],
    ),
    # Class 0: a broad crowd on the left plus a dense small crowd inside class 1's
    # region on the right. The Bayes boundary has two fragments: a gentle curve
    # between the left and right crowds, and an ellipse around the dense crowd.
    "inclusion": (
        [
            (0.75, (-2.0, 0.0), ((1.0, 0.4), (0.4, 1.5))),
            (0.25, (2.5, 0.5), ((0.08, 0.0), (0.0, 0.05))),
        ],
        [(1.0, (2.5, 0.0), ((1.2, 0.0), (0.0, 1.5)))],
    ),
}

GMM_KINDS = tuple(GMM_DESIGNS)


def make_gmm(
    kind: str, n: int, random_state: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two-class 2-D Gaussian-mixture sets of the boundary-uncertainty paper.

    Parameters
    ----------
    kind : {"overlap", "separable", "inclusion"}
        ``"overlap"``: the paper's *GMM* set, overlapping classes with a curved
        Bayes boundary (Bayes error about 14 %). ``"separable"``: *GMM_separable*,
        classes separated by an empty region (§6.8). ``"inclusion"``:
        *GMM_inclusion*, whose Bayes boundary has two fragments, a gentle curve
        between the left (class 0) and right (class 1) crowds and an ellipse
        around a dense class-0 crowd inside the class-1 region (§6.9).
    n : int
        Number of samples; ``n // 2`` of class 0 and ``n - n // 2`` of class 1.
    random_state : None, int or numpy Generator, default=None
        Seed or generator.

    Returns
    -------
    X : ndarray of shape (n, 2)
        Points (rows shuffled).
    y : ndarray of shape (n,), int64
        Labels 0/1.
    p_true : ndarray of shape (n,)
        Exact posterior of class 1 from the mixture densities and the class
        fractions: ``pi1 f1(x) / (pi0 f0(x) + pi1 f1(x))``.

    Raises
    ------
    ValueError
        If ``kind`` is unknown or ``n`` < 2.

    Notes
    -----
    The paper shows these sets only as scatter plots (its Figs. 10, 14, 15); the
    components used here are in ``GMM_DESIGNS``.

    References
    ----------
    Ha, D., Katagiri, S., Watanabe, H. & Ohsaki, M. (2021). An improved boundary
    uncertainty-based estimation for classifier evaluation. *Journal of Signal
    Processing Systems*; §6.2, §6.8, §6.9.

    Examples
    --------
    >>> X, y, p = make_gmm("inclusion", 1000, random_state=0)
    >>> X.shape, int(y.sum())
    ((1000, 2), 500)
    """
    check_choice(kind, "kind", GMM_KINDS)
    n = check_positive_int(n, "n", minimum=2)
    negative, positive = GMM_DESIGNS[kind]
    return _two_class_sample(negative, positive, n // 2, n - n // 2, as_generator(random_state))


# --------------------------------------------------------------------------- #
# Multi-label
# --------------------------------------------------------------------------- #


def make_multilabel(
    n: int,
    n_labels: int,
    random_state: Any = None,
    *,
    n_features: int = 5,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Multi-label data whose labels are logistic functions of shared features.

    Parameters
    ----------
    n : int
        Number of samples.
    n_labels : int
        Number of labels.
    random_state : None, int or numpy Generator, default=None
        Seed or generator; it draws the model first, then the data, so the same
        seed gives the same model and sample.
    n_features : int, default=5
        Number of features.

    Returns
    -------
    X : ndarray of shape (n, n_features)
        Standard-normal features shared by all labels.
    Y : ndarray of shape (n, n_labels), int64
        Label indicators, ``Y[:, l] ~ Bernoulli(P_true[:, l])`` independently
        given ``X``.
    P_true : ndarray of shape (n, n_labels)
        ``P(Y_l = 1 | x) = expit(b_l + w_l . x)``.

    Raises
    ------
    ValueError
        If ``n``, ``n_labels`` or ``n_features`` is not an integer >= 1.

    Notes
    -----
    Each label ``l`` has weights ``w_l ~ N(0, 1.5^2 / n_features I)`` (so the
    log-odds have standard deviation about 1.5 whatever ``n_features``) and an
    intercept ``b_l ~ Uniform(-2, 0.5)``, giving labels of different base rates
    (roughly 0.15 to 0.6) that share the same features; labels are conditionally
    independent given ``x`` and correlated through it. Used to test per-label
    calibration (the multi-label ECE of Anonymous, TMLR submission).

    Examples
    --------
    >>> X, Y, P = make_multilabel(500, 3, random_state=0)
    >>> X.shape, Y.shape, P.shape
    ((500, 5), (500, 3), (500, 3))
    """
    n = check_positive_int(n, "n")
    n_labels = check_positive_int(n_labels, "n_labels")
    n_features = check_positive_int(n_features, "n_features")
    rng = as_generator(random_state)
    weights = rng.normal(0.0, 1.5 / np.sqrt(n_features), size=(n_features, n_labels))
    intercepts = rng.uniform(-2.0, 0.5, size=n_labels)
    X = rng.standard_normal((n, n_features))
    P_true = _expit(intercepts + X @ weights)
    Y = (rng.random((n, n_labels)) < P_true).astype(np.int64)
    return X, Y, P_true

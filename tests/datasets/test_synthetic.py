"""Tests of bayescal.datasets.synthetic: true probabilities are true."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import ndimage, stats
from scipy.special import expit, logit

from bayescal.datasets import (
    BASE_MODEL_KINDS,
    GMM_KINDS,
    base_model_scores,
    make_gmm,
    make_multilabel,
    make_thesis_synthetic,
    make_undersampling_simulation,
    undersample,
    undersampled_probability,
)
from bayescal.datasets.synthetic import (
    GMM_DESIGNS,
    THESIS_NEGATIVE,
    THESIS_POSITIVE,
    gaussian_mixture_logpdf,
    undersampling_log_odds,
)


def binned_truth_gaps(p: np.ndarray, y: np.ndarray, n_bins: int = 10) -> np.ndarray:
    """Per quantile bin of ``p``: |observed - expected positives| in binomial units.

    Given true probabilities, the number of positives in a bin is a sum of
    independent Bernoulli(p_i), with mean sum p_i and variance sum p_i (1 - p_i).
    The gap is |obs - mean| / (sqrt(variance) + 0.5): a z-score with a small
    continuity slack so that bins whose expected count is near zero do not
    produce huge values from a single event.
    """
    edges = np.quantile(p, np.linspace(0, 1, n_bins + 1))
    bins = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, n_bins - 1)
    gaps = []
    for k in range(n_bins):
        m = bins == k
        if not m.any():
            continue
        expected = p[m].sum()
        sd = np.sqrt((p[m] * (1 - p[m])).sum())
        gaps.append(abs(y[m].sum() - expected) / (sd + 0.5))
    return np.asarray(gaps)


def assert_truth(p: np.ndarray, y: np.ndarray) -> None:
    gaps = binned_truth_gaps(p, y)
    assert gaps.max() < 4.0, f"observed frequencies disagree with p_true: {gaps.round(2)}"


def assert_not_truth(p_wrong: np.ndarray, y: np.ndarray) -> None:
    """The same check must reject a wrong probability (shows the test has power)."""
    assert binned_truth_gaps(p_wrong, y).max() > 6.0


def _scale_cov(components, factor):
    return [(w, m, tuple(tuple(factor * v for v in row) for row in c)) for w, m, c in components]


# --------------------------------------------------------------------------- #
# Gaussian-mixture log-density against scipy
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("kind", GMM_KINDS)
def test_mixture_logpdf_matches_scipy(kind):
    X = np.random.default_rng(0).normal(0, 3, size=(200, 2))
    for components in GMM_DESIGNS[kind]:
        expected = np.log(
            sum(w * stats.multivariate_normal(m, c).pdf(X) for w, m, c in components)
        )
        np.testing.assert_allclose(gaussian_mixture_logpdf(X, components), expected, rtol=1e-10)


# --------------------------------------------------------------------------- #
# Thesis synthetic set (seed 000 §3.1.1)
# --------------------------------------------------------------------------- #


def test_thesis_shapes_and_balance():
    X, y, p = make_thesis_synthetic(random_state=0)
    assert X.shape == (200, 6) and y.shape == p.shape == (200,)
    assert y.sum() == 100 and y.dtype == np.int64
    assert ((p > 0) & (p < 1)).all()


def test_thesis_p_true_is_the_density_ratio():
    Z, y, p = make_thesis_synthetic(n_per_class=50, random_state=3, derived=False)
    f_pos = stats.multivariate_normal(*THESIS_POSITIVE[0][1:]).pdf(Z)
    f_neg = sum(w * stats.multivariate_normal(m, c).pdf(Z) for w, m, c in THESIS_NEGATIVE)
    np.testing.assert_allclose(p, f_pos / (f_pos + f_neg), rtol=1e-10)


@pytest.mark.parametrize("scale", [0.5, 1.0, 1.7])
def test_thesis_mean_scale_moves_the_means_and_keeps_the_density_ratio(scale):
    Z, y, p = make_thesis_synthetic(n_per_class=50, random_state=3, derived=False,
                                    mean_scale=scale)
    f_pos = stats.multivariate_normal(*THESIS_POSITIVE[0][1:]).pdf(Z)
    f_neg = sum(w * stats.multivariate_normal(scale * np.asarray(m), c).pdf(Z)
                for w, m, c in THESIS_NEGATIVE)
    np.testing.assert_allclose(p, f_pos / (f_pos + f_neg), rtol=1e-10)
    if scale == 1.0:  # the default is the unscaled set, draw for draw
        Z1, y1, p1 = make_thesis_synthetic(n_per_class=50, random_state=3, derived=False)
        np.testing.assert_array_equal(Z, Z1)


def test_thesis_mean_scale_below_one_overlaps_more():
    # closer components: more true probabilities away from 0 and 1
    _, _, p_far = make_thesis_synthetic(2000, random_state=0, mean_scale=1.0)
    _, _, p_near = make_thesis_synthetic(2000, random_state=0, mean_scale=0.5)
    assert np.mean(np.minimum(p_near, 1 - p_near)) > np.mean(np.minimum(p_far, 1 - p_far))


def test_thesis_derived_features_are_the_documented_functions():
    Z, y0, p0 = make_thesis_synthetic(30, random_state=5, derived=False)
    X, y1, p1 = make_thesis_synthetic(30, random_state=5)
    np.testing.assert_array_equal(y0, y1)
    np.testing.assert_array_equal(p0, p1)
    x1, x2 = Z.T
    expected = np.column_stack(
        [np.exp(x1 / 2), x2**3, x1 * x2, x1**2, x2**2, np.log(1 + x1**2 + x2**2)]
    )
    np.testing.assert_allclose(X, expected)
    # the map is one-to-one: the originals come back from two derived columns
    np.testing.assert_allclose(2 * np.log(X[:, 0]), x1)
    np.testing.assert_allclose(np.cbrt(X[:, 1]), x2)


def test_thesis_truth():
    Z, y, p = make_thesis_synthetic(n_per_class=40_000, random_state=1, derived=False)
    assert_truth(p, y)
    assert_not_truth(1 - p, y)
    wrong = expit(
        gaussian_mixture_logpdf(Z, _scale_cov(THESIS_POSITIVE, 2.0))
        - gaussian_mixture_logpdf(Z, THESIS_NEGATIVE)
    )
    assert_not_truth(wrong, y)
    # slight overlap: the Bayes error is small but not zero
    bayes_error = np.minimum(p, 1 - p).mean()
    assert 0.03 < bayes_error < 0.15


# --------------------------------------------------------------------------- #
# Undersampling simulation (seed 004)
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("b, paper_mean", [(2.0, 0.0022), (1.5, 0.0208), (1.1, 0.1109)])
def test_undersampling_base_rates_match_paper(b, paper_mean):
    X, y, p = make_undersampling_simulation(400_000, b, random_state=0)
    assert abs(p.mean() - paper_mean) / paper_mean < 0.15
    assert abs(y.mean() - paper_mean) / paper_mean < 0.15


def test_undersampling_covariates_follow_table_a1():
    X, _, _ = make_undersampling_simulation(50_000, 1.5, random_state=1)
    low = np.array([-0.4, -0.2, -0.4, -0.1, 0, 0, 1, 1, 1, 0])
    high = np.array([0.6, 0.8, 1, 0.9, 5, 3, 4, 7, 3, 2])
    assert (X.min(axis=0) >= low).all() and (X.max(axis=0) <= high).all()
    assert (X.min(axis=0) - low < 0.01 * (high - low)).all()
    assert (high - X.max(axis=0) < 0.01 * (high - low)).all()
    for j in range(10):  # uniform on [low, high]
        ks = stats.kstest(X[:, j], stats.uniform(low[j], high[j] - low[j]).cdf)
        assert ks.pvalue > 1e-4


def test_eq_a1_by_hand():
    x = np.array([[0.1, 0.2, 0.3, 0.4, 1.0, 2.0, 3.0, 4.0, 2.0, 1.0]])
    s = x.sum() + 0.1 * 0.3 + 0.2 * 1.0 + 0.4 * 2.0 + 2.0 * 3.0 + 4.0 * 1.0
    s += 0.1 * 0.2 * 0.3 * 0.4 + 0.1 * 0.2 * 2.0 * 1.0
    expected = np.log(99) / 40 * s - 1.5 * np.log(99)
    np.testing.assert_allclose(undersampling_log_odds(x, 1.5), [expected])


@pytest.mark.parametrize("b", [2.0, 1.1])
def test_undersampling_truth(b):
    X, y, p = make_undersampling_simulation(300_000, b, random_state=3)
    assert_truth(p, y)
    assert_not_truth(expit(logit(p) + 0.5), y)  # 65 % more positives


def test_undersample_keeps_positives_and_pi0_of_negatives():
    X, y, p = make_undersampling_simulation(200_000, 1.5, random_state=4)
    pi0 = 0.02125
    kept = undersample(X, y, pi0, p_true=p, random_state=0)
    assert kept.y.sum() == y.sum()
    np.testing.assert_array_equal(kept.X, X[kept.indices])
    np.testing.assert_array_equal(kept.y, y[kept.indices])
    np.testing.assert_array_equal(kept.p_true, p[kept.indices])
    assert (np.diff(kept.indices) > 0).all()
    n_neg = (y == 0).sum()
    kept_neg = (kept.y == 0).sum()
    assert abs(kept_neg - pi0 * n_neg) < 4 * np.sqrt(n_neg * pi0 * (1 - pi0))
    # the paper's rate gives a roughly balanced training set
    assert 0.35 < kept.y.mean() < 0.65


def test_gamma_true_is_the_truth_after_undersampling():
    X, y, p = make_undersampling_simulation(1_000_000, 1.5, random_state=5)
    kept = undersample(X, y, 0.02125, p_true=p, random_state=6)
    assert_truth(kept.gamma_true, kept.y)
    assert_not_truth(kept.p_true, kept.y)  # the full-population p is biased here


def test_undersampled_probability_inverts_eq1():
    p = np.linspace(0, 1, 101)
    for pi0 in (0.0023, 0.125, 1.0):
        gamma = undersampled_probability(p, pi0)
        kappa = gamma * pi0 / (1 - gamma + gamma * pi0)  # seed 004 Eq. 1
        np.testing.assert_allclose(kappa, p, atol=1e-12)
    np.testing.assert_allclose(undersampled_probability(p, 1.0), p)


def test_undersample_without_p_and_reproducible():
    X = np.arange(20.0).reshape(10, 2)
    y = np.array([0, 1] * 5)
    a = undersample(X, y, 0.5, random_state=7)
    b = undersample(X, y, 0.5, 7)  # random_state is the 4th argument
    assert a.p_true is None and a.gamma_true is None
    np.testing.assert_array_equal(a.indices, b.indices)
    Xk, yk, idx, pk, gk = a  # a plain tuple too
    assert set(np.flatnonzero(y == 1)) <= set(idx.tolist())


# --------------------------------------------------------------------------- #
# Base model scores (seed 004 §3.1.2)
# --------------------------------------------------------------------------- #


def test_base_models_by_hand():
    g = np.array([0.001, 0.1, 0.5, 0.9, 0.999, 0.0, 1.0])
    np.testing.assert_array_equal(base_model_scores(g, "perfect"), g)
    half = np.array([0.0, 0.5 - np.log(9) / 10, 0.5, 0.5 + np.log(9) / 10, 1.0, 0.0, 1.0])
    np.testing.assert_allclose(base_model_scores(g, "toward_half"), half)
    extremes = 1 / (1 + np.exp(-10 * (g - 0.5)))
    np.testing.assert_allclose(base_model_scores(g, "toward_extremes"), extremes)
    np.testing.assert_allclose(
        base_model_scores([0.9], "toward_extremes"), [0.98201379], rtol=1e-7
    )


def test_noisy_base_model_has_normal_log_odds_noise():
    g = np.random.default_rng(0).uniform(0.01, 0.99, 20_000)
    s = base_model_scores(g, "noisy", random_state=1)
    noise = logit(s) - logit(g)
    assert abs(noise.mean()) < 0.01 and abs(noise.std() - 0.2) < 0.01
    assert stats.kstest(noise, stats.norm(0, 0.2).cdf).pvalue > 1e-3
    np.testing.assert_array_equal(s, base_model_scores(g, "noisy", random_state=1))
    assert not np.array_equal(s, base_model_scores(g, "noisy", random_state=2))
    s2 = base_model_scores(g, "noisy", random_state=1, noise_sd=0.5)
    assert abs((logit(s2) - logit(g)).std() - 0.5) < 0.02
    # seed 004: imbalanced data makes the noisy scores' mean slightly larger
    X, y, p = make_undersampling_simulation(100_000, 1.5, random_state=2)
    gamma = undersampled_probability(p, 0.02125)
    assert base_model_scores(gamma, "noisy", random_state=3).mean() > gamma.mean() - 0.002


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.integers(2, 30), elements=st.floats(0.0, 1.0)))
def test_base_model_properties(g):
    order = np.argsort(g, kind="stable")
    for kind in ("perfect", "toward_half", "toward_extremes"):
        s = base_model_scores(g, kind)
        assert ((s >= 0) & (s <= 1)).all()
        assert (np.diff(s[order]) >= -1e-12).all()  # monotone in gamma
    half = base_model_scores(g, "toward_half")
    # Eq. 7 pulls towards 0.5 between its crossings with the identity,
    # logit(g) / 10 + 0.5 = g at g ~ 0.0066 and ~ 0.9934 (just inside the clipping
    # points expit(+-5)); beyond them, up to the clip, it pushes slightly outwards
    inner = (g >= expit(-4.5)) & (g <= expit(4.5))
    assert (np.abs(half - 0.5)[inner] <= np.abs(g - 0.5)[inner] + 1e-12).all()
    assert (half[g < expit(-5)] == 0).all() and (half[g > expit(5)] == 1).all()
    mid = (g > 0.01) & (g < 0.99)
    ext = base_model_scores(g, "toward_extremes")
    assert (np.abs(ext - 0.5)[mid] >= np.abs(g - 0.5)[mid] - 1e-12).all()


# --------------------------------------------------------------------------- #
# Gaussian mixtures of seed 003
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("kind", GMM_KINDS)
def test_gmm_truth(kind):
    X, y, p = make_gmm(kind, 100_000, random_state=2)
    assert X.shape == (100_000, 2) and y.sum() == 50_000
    assert_truth(p, y)
    assert_not_truth(1 - p, y)
    if kind != "separable":  # a wrong density is visible where classes overlap
        negative, positive = GMM_DESIGNS[kind]
        wrong = expit(
            gaussian_mixture_logpdf(X, _scale_cov(positive, 2.0))
            - gaussian_mixture_logpdf(X, negative)
        )
        assert_not_truth(wrong, y)


def test_gmm_p_true_is_exact_posterior():
    X, y, p = make_gmm("overlap", 301, random_state=0)
    assert y.sum() == 151
    negative, positive = GMM_DESIGNS["overlap"]
    f0 = sum(w * stats.multivariate_normal(m, c).pdf(X) for w, m, c in negative)
    f1 = sum(w * stats.multivariate_normal(m, c).pdf(X) for w, m, c in positive)
    np.testing.assert_allclose(p, 151 * f1 / (150 * f0 + 151 * f1), rtol=1e-9)


def test_gmm_kinds_have_the_described_geometry():
    X, y, p = make_gmm("overlap", 20_000, random_state=0)
    assert 0.08 < np.minimum(p, 1 - p).mean() < 0.25
    X, y, p = make_gmm("separable", 20_000, random_state=0)
    assert np.minimum(p, 1 - p).max() < 1e-3  # no sample near the Bayes boundary
    # an empty band: the classes' x-coordinates do not interleave
    assert X[y == 0, 0].max() < X[y == 1, 0].min()
    # inclusion: class-0 region in two pieces, one an island inside class 1
    grid = np.linspace(-6, 7, 300)
    G = np.stack(np.meshgrid(grid, grid), axis=-1).reshape(-1, 2)
    negative, positive = GMM_DESIGNS["inclusion"]
    log_ratio = gaussian_mixture_logpdf(G, positive) - gaussian_mixture_logpdf(G, negative)
    labels, count = ndimage.label(log_ratio.reshape(300, 300) < 0)
    assert count == 2
    border = np.unique(np.r_[labels[0], labels[-1], labels[:, 0], labels[:, -1]])
    island = [k for k in (1, 2) if k not in border]
    assert len(island) == 1  # a bounded (elliptic) fragment around the dense crowd
    assert ndimage.label(log_ratio.reshape(300, 300) > 0)[1] == 1


# --------------------------------------------------------------------------- #
# Multi-label
# --------------------------------------------------------------------------- #


def test_multilabel_truth_per_label():
    X, Y, P = make_multilabel(100_000, 4, random_state=0)
    assert X.shape == (100_000, 5) and Y.shape == P.shape == (100_000, 4)
    for label in range(4):
        assert_truth(P[:, label], Y[:, label])
        assert_not_truth(1 - P[:, label], Y[:, label])
    # log-odds are linear in X (logistic model of shared features)
    coef, *_ = np.linalg.lstsq(np.c_[np.ones(len(X)), X], logit(P), rcond=None)
    np.testing.assert_allclose(np.c_[np.ones(len(X)), X] @ coef, logit(P), atol=1e-8)
    # different base rates
    assert np.ptp(P.mean(axis=0)) > 0.05


def test_multilabel_seed_fixes_model_and_sample():
    a = make_multilabel(50, 3, random_state=9, n_features=2)
    b = make_multilabel(50, 3, random_state=9, n_features=2)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    assert a[0].shape == (50, 2)


@pytest.mark.parametrize(
    "make",
    [
        lambda s: make_thesis_synthetic(20, random_state=s),
        lambda s: make_undersampling_simulation(50, 1.5, random_state=s),
        lambda s: make_gmm("inclusion", 50, random_state=s),
        lambda s: make_multilabel(50, 2, random_state=s),
    ],
)
def test_same_seed_same_numbers(make):
    for u, v in zip(make(4), make(4), strict=True):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(make(4)[0], make(5)[0])
    g = np.random.default_rng(11)
    assert make(g)[0].shape == make(4)[0].shape


# --------------------------------------------------------------------------- #
# Bad input
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: make_thesis_synthetic(0), ValueError, r"`n_per_class` must be >= 1"),
        (lambda: make_thesis_synthetic(2.5), TypeError, r"`n_per_class` must be an integer"),
        (lambda: make_thesis_synthetic(5, derived="no"), TypeError, r"`derived`"),
        (lambda: make_thesis_synthetic(5, random_state="x"), TypeError, r"`random_state`"),
        (lambda: make_thesis_synthetic(5, random_state=-1), ValueError, r"`random_state`"),
        (lambda: make_thesis_synthetic(5, mean_scale=0.0), ValueError, r"`mean_scale` must be a "
         "positive finite number; got 0.0"),
        (lambda: make_thesis_synthetic(5, mean_scale="1"), TypeError, r"`mean_scale` must be"),
        (lambda: make_undersampling_simulation(0, 2.0), ValueError, r"`n` must be >= 1"),
        (lambda: make_undersampling_simulation(10, np.nan), ValueError, r"`b` must be finite"),
        (lambda: make_undersampling_simulation(10, "2"), TypeError, r"`b` must be a real"),
        (lambda: make_gmm("blobs", 10), ValueError, r"`kind` must be one of"),
        (lambda: make_gmm("overlap", 1), ValueError, r"`n` must be >= 2"),
        (lambda: make_multilabel(10, 0), ValueError, r"`n_labels` must be >= 1"),
        (lambda: make_multilabel(10, 2, n_features=0), ValueError, r"`n_features` must be >= 1"),
        (lambda: base_model_scores([0.2, 1.2]), ValueError, r"`gamma` must be <= 1"),
        (lambda: base_model_scores([0.2, np.nan]), ValueError, r"`gamma` contains NaN"),
        (lambda: base_model_scores([]), ValueError, r"`gamma` is empty"),
        (lambda: base_model_scores([0.2], "sigmoid"), ValueError, r"`kind` must be one of"),
        (lambda: base_model_scores([0.2], "noisy", noise_sd=-1), ValueError, r"`noise_sd`"),
        (lambda: base_model_scores([0.2], "noisy", noise_sd="a"), TypeError, r"`noise_sd`"),
        (
            lambda: undersample(np.ones((3, 1)), [0, 1, 2], 0.5),
            ValueError,
            r"`y` must hold class codes 0..1",
        ),
        (
            lambda: undersample(np.ones((3, 1)), [0, 1], 0.5),
            ValueError,
            r"inconsistent numbers of samples",
        ),
        (
            lambda: undersample(np.ones((2, 1)), [0, 1], 0.0),
            ValueError,
            r"`pi0` must lie in \(0, 1\]",
        ),
        (lambda: undersample(np.ones((2, 1)), [0, 1], 1.5), ValueError, r"`pi0` must lie in"),
        (lambda: undersample(np.ones(2), [0, 1], 0.5), ValueError, r"`X` must be 2-D"),
        (
            lambda: undersample(np.ones((2, 1)), [0, 1], 0.5, p_true=[0.1]),
            ValueError,
            r"`p_true` has 1",
        ),
        (
            lambda: undersample(np.ones((2, 1)), [0, 1], 0.5, p_true=[0.1, 2]),
            ValueError,
            r"`p_true` must be <= 1",
        ),
        (lambda: undersampled_probability([0.1], 0), ValueError, r"`pi0`"),
        (lambda: undersampled_probability([-0.1], 0.5), ValueError, r"`p` must be >= 0"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_base_model_kinds_constant():
    assert BASE_MODEL_KINDS == ("perfect", "toward_half", "toward_extremes", "noisy")

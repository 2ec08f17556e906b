"""Multi-label ECE (seed 002 Eqs. 5-6) and Hamming loss (Eq. 7)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import hamming_loss as sk_hamming_loss

from bayescal.metrics import (
    ece_per_label,
    ece_total,
    ece_weighted,
    expected_calibration_error,
    hamming_loss,
)


def _problem(seed=0, n=300, labels=4):
    rng = np.random.default_rng(seed)
    P = rng.uniform(size=(n, labels))
    Y = rng.binomial(1, P**1.3)
    return Y, P


def test_per_label_equals_binary_ece():
    Y, P = _problem()
    per = ece_per_label(Y, P, 10, "quantile")
    for j in range(Y.shape[1]):
        assert per[j] == pytest.approx(
            expected_calibration_error(Y[:, j], P[:, j], 10, "quantile")
        )


def test_total_is_sum_and_weighted_is_prevalence_average():
    Y, P = _problem(1)
    per = ece_per_label(Y, P)
    assert ece_total(Y, P) == pytest.approx(per.sum())
    prevalence = Y.sum(axis=0)
    assert ece_weighted(Y, P) == pytest.approx(np.sum(prevalence * per) / prevalence.sum())
    assert per.min() <= ece_weighted(Y, P) <= per.max()


def test_hand_computed():
    Y = [[0, 1], [1, 1]]
    P = [[0.0, 1.0], [1.0, 0.5]]
    assert ece_total(Y, P, n_bins=2) == pytest.approx(0.25)
    assert ece_weighted(Y, P, n_bins=2) == pytest.approx(0.5 / 3)


def test_weighted_needs_a_positive():
    with pytest.raises(ValueError, match="no positive label"):
        ece_weighted([[0, 0], [0, 0]], [[0.1, 0.2], [0.3, 0.4]])


def test_hamming_equals_sklearn():
    rng = np.random.default_rng(2)
    Y = rng.integers(0, 2, size=(50, 5))
    Yp = rng.integers(0, 2, size=(50, 5))
    assert hamming_loss(Y, Yp) == pytest.approx(sk_hamming_loss(Y, Yp))
    P = rng.uniform(size=(50, 5))
    assert hamming_loss(Y, P, threshold=0.3) == pytest.approx(
        sk_hamming_loss(Y, (P >= 0.3).astype(int))
    )


def test_order_invariance():
    Y, P = _problem(3)
    perm = np.random.default_rng(3).permutation(Y.shape[0])
    assert ece_total(Y[perm], P[perm]) == pytest.approx(ece_total(Y, P))
    assert ece_weighted(Y[perm], P[perm]) == pytest.approx(ece_weighted(Y, P))


@pytest.mark.parametrize(
    ("Y", "P", "match"),
    [
        ([[0, 2]], [[0.1, 0.2]], "`Y` must hold 0/1"),
        ([[0, 1]], [[0.1, 1.2]], "`P` must be <= 1"),
        ([[0, 1]], [[0.1, np.nan]], "`P` contains NaN"),
        ([[0, 1]], [[0.1, 0.2, 0.3]], "label columns"),
        ([[0, 1], [1, 0]], [[0.1, 0.2]], "inconsistent numbers of samples"),
        (np.zeros((0, 2)), np.zeros((0, 2)), "`Y` is empty"),
    ],
)
def test_bad_input(Y, P, match):
    with pytest.raises(ValueError, match=match):
        ece_total(Y, P)


def test_hamming_bad_input():
    with pytest.raises(ValueError, match="`Y_pred` must hold 0/1"):
        hamming_loss([[0, 1]], [[0.3, 0.9]])
    with pytest.raises(ValueError, match="`threshold`"):
        hamming_loss([[0, 1]], [[0.3, 0.9]], threshold=1.5)
    with pytest.raises(ValueError, match="`Y` has 2 label columns but `Y_pred` has 3"):
        hamming_loss([[0, 1]], [[0, 1, 1]])
    with pytest.raises(ValueError, match="`Y` has 1, `Y_pred` has 2"):
        hamming_loss([[0, 1]], [[0, 1], [1, 1]])


def test_weighted_as_printed_divides_by_samples():
    # Eq. 6 as printed: (1/n) sum_l n_l ECE_l. Hand-computed: label 0 is perfect
    # (ECE 0, one positive), label 1 puts both rows (two positives) in the upper bin
    # of two with confidence 0.75 and rate 1 (ECE 0.25): (1 * 0 + 2 * 0.25) / 2.
    Y = [[0, 1], [1, 1]]
    P = [[0.0, 1.0], [1.0, 0.5]]
    assert ece_weighted(Y, P, n_bins=2, normalize="samples") == pytest.approx(0.25)
    Y, P = _problem(4)
    per = ece_per_label(Y, P)
    printed = ece_weighted(Y, P, normalize="samples")
    assert printed == pytest.approx(np.sum(Y.mean(axis=0) * per))
    assert ece_weighted(Y, P) <= ece_total(Y, P) and printed <= ece_total(Y, P)


def test_weighted_bad_normalize():
    with pytest.raises(ValueError, match=r"`normalize` must be one of \['positives', 'samples'\]"):
        ece_weighted([[0, 1]], [[0.1, 0.2]], normalize="labels")

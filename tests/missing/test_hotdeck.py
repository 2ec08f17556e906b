"""Random hot-deck imputation (draws from each column's observed values)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.naive_bayes import CategoricalNB

from bayescal.missing import HotDeckImputer, MultipleImputationClassifier


def test_draws_follow_the_observed_frequencies():
    # oracle: under MCAR a draw from the observed values has the column's
    # empirical distribution, here codes 0, 1, 2 with frequencies 0.6, 0.3, 0.1
    observed = np.repeat([0.0, 1.0, 2.0], [600, 300, 100])
    X = np.concatenate([observed, np.full(20000, np.nan)])[:, None]
    filled = HotDeckImputer(random_state=0).fit_transform(X)
    drawn = filled[1000:, 0]
    freq = np.bincount(drawn.astype(int), minlength=3) / drawn.size
    assert freq == pytest.approx([0.6, 0.3, 0.1], abs=0.015)


def test_observed_cells_kept_and_only_observed_values_drawn():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(200, 3)).astype(float)
    X[rng.random(X.shape) < 0.4] = np.nan
    imp = HotDeckImputer(random_state=1).fit(X)
    filled = imp.transform(X)
    seen = ~np.isnan(X)
    assert np.array_equal(filled[seen], X[seen]) and not np.isnan(filled).any()
    for j in range(3):
        assert set(np.unique(filled[:, j])) <= set(np.unique(X[seen[:, j], j]))
    # successive calls draw anew; a copy of the fitted imputer repeats its draws
    assert not np.array_equal(imp.transform(X), filled)


def test_multiple_imputations_differ_and_feed_categorical_nb():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 3, size=(120, 4)).astype(float)
    y = (X[:, 0] + rng.integers(0, 2, 120) > 1).astype(int)
    X[rng.random(X.shape) < 0.3] = np.nan
    clf = MultipleImputationClassifier(CategoricalNB(min_categories=3), n_imputations=4,
                                       imputer=HotDeckImputer(), random_state=0).fit(X, y)
    layers = clf.impute(X)
    assert not np.array_equal(layers[0], layers[1])
    assert np.array_equal(clf.impute(X)[0], layers[0])  # same rows, same draws
    assert clf.predict_uncertainty(X).shape == (120,)


@pytest.mark.parametrize(("X", "fit_X", "match"), [
    (None, [[1.0, np.nan], [2.0, np.nan]], r"no observed value in column\(s\) \[1\]"),
    ([[1.0, 2.0, 3.0]], [[1.0, 2.0], [2.0, 1.0]], "has 3 features but the imputer was fitted with 2"),
    (None, [[1.0, np.inf]], "inf"),
])
def test_bad_input(X, fit_X, match):
    with pytest.raises(ValueError, match=match):
        imp = HotDeckImputer().fit(fit_X)
        imp.transform(X)


def test_bad_random_state():
    with pytest.raises(ValueError, match="random_state"):
        HotDeckImputer(random_state="seed").fit([[1.0]])

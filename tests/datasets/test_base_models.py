"""Tests of bayescal.datasets.base_models: seed 004's hypothetical base models."""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.datasets import (
    HypotheticalBaseModel,
    base_model_scores,
    make_undersampling_simulation,
)


@pytest.fixture(scope="module")
def sim():
    return make_undersampling_simulation(5000, 1.5, random_state=3)


def test_perfect_model_inverts_with_the_analytical_correction(sim):
    X, y, p = sim
    pi0 = 0.02125
    gamma = HypotheticalBaseModel(b=1.5, pi0=pi0).fit(X, y).predict_proba(X)[:, 1]
    # seed 004 Eq. 1: kappa(gamma) = gamma pi0 / (1 - gamma + gamma pi0) recovers p
    np.testing.assert_allclose(gamma * pi0 / (1 - gamma + gamma * pi0), p, rtol=1e-10)
    assert gamma.mean() > 10 * p.mean()


@pytest.mark.parametrize("kind", ["toward_half", "toward_extremes"])
def test_systematic_models_follow_equations_7_and_8(sim, kind):
    X, y, _ = sim
    perfect = HypotheticalBaseModel(b=1.5, pi0=0.02125).fit(X, y).predict_proba(X)[:, 1]
    model = HypotheticalBaseModel(b=1.5, pi0=0.02125, kind=kind).fit(X, y)
    P = model.predict_proba(X)
    np.testing.assert_allclose(P[:, 1], base_model_scores(perfect, kind))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)


def test_noisy_model_is_deterministic_per_row_set(sim):
    X, y, _ = sim
    a = HypotheticalBaseModel(kind="noisy", random_state=1).fit(X, y)
    b = HypotheticalBaseModel(kind="noisy", random_state=1).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    c = HypotheticalBaseModel(kind="noisy", random_state=2).fit(X, y)
    assert not np.allclose(a.predict_proba(X), c.predict_proba(X))
    perfect = HypotheticalBaseModel().fit(X, y).predict_proba(X)[:, 1]
    logit = np.log(perfect / (1 - perfect))
    noisy = a.predict_proba(X)[:, 1]
    noise = np.log(noisy / (1 - noisy)) - logit
    assert abs(noise.std() - 0.2) < 0.02 and abs(noise.mean()) < 0.02


@pytest.mark.parametrize(("kwargs", "X_cols", "match"), [
    ({"kind": "awful"}, 10, "kind"),
    ({"pi0": 1.5}, 10, "pi0"),
    ({}, 3, "10 covariates"),
])
def test_bad_input(sim, kwargs, X_cols, match):
    X, y, _ = sim
    with pytest.raises(ValueError, match=match):
        HypotheticalBaseModel(**kwargs).fit(X[:, :X_cols], y)

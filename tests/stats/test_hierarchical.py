"""Hierarchical Bayesian comparison (Corani et al. 2017) on simulated cubes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bayescal.probes.posterior import PosteriorDiagnosticsWarning
from bayescal.stats.hierarchical import HierarchicalComparison

ROPE = 0.01


def simulated_differences(true_difference: float, seed: int) -> np.ndarray:
    """10 datasets x 10 folds: dataset means around the truth, correlated fold noise."""
    rng = np.random.default_rng(seed)
    means = rng.normal(true_difference, 0.002, size=10)
    shared = rng.normal(0, 0.003, size=(10, 1))  # fold noise shares a training-set component
    return means[:, None] + shared + rng.normal(0, 0.008, size=(10, 10))


def fit(d: np.ndarray) -> HierarchicalComparison:
    with warnings.catch_warnings():
        warnings.simplefilter("error", PosteriorDiagnosticsWarning)
        return HierarchicalComparison(rope=ROPE, draws=500, tune=500, chains=4,
                                      random_state=3).fit(d)


@pytest.mark.slow
def test_true_difference_of_two_ropes_is_found_right():
    model = fit(simulated_differences(2 * ROPE, 0))
    assert model.p_right_ > 0.9
    assert model.diagnostics_["rhat_max"] <= 1.01
    assert model.diagnostics_["converged"]
    assert model.mean_difference_ == pytest.approx(2 * ROPE, abs=ROPE)
    # shrinkage: per-dataset estimates lie closer to the population mean than raw means
    raw = simulated_differences(2 * ROPE, 0).mean(axis=1)
    assert np.abs(model.dataset_differences_ - model.mean_difference_).sum() < np.abs(
        raw - raw.mean()).sum()
    assert model.samples_.shape == (2000, 3)
    np.testing.assert_allclose(model.samples_.sum(axis=1), 1.0)


@pytest.mark.slow
def test_no_difference_is_found_in_rope_and_orientation_flips():
    d = simulated_differences(0.0, 1)
    model = fit(d)
    assert model.p_rope_ > 0.8
    assert model.diagnostics_["rhat_max"] <= 1.01
    flipped = fit(-simulated_differences(2 * ROPE, 0))
    assert flipped.p_left_ > 0.9
    result = flipped.result()
    assert (result.p_left, result.p_rope, result.p_right) == (
        flipped.p_left_, flipped.p_rope_, flipped.p_right_)


@pytest.mark.slow
def test_failed_fit_is_flagged():
    d = simulated_differences(2 * ROPE, 0)
    with pytest.warns(PosteriorDiagnosticsWarning, match="HierarchicalComparison"):
        model = HierarchicalComparison(rope=ROPE, draws=5, tune=5, chains=2,
                                       random_state=0).fit(d)
    assert not model.diagnostics_["converged"]
    assert model.diagnostics_["failures"]


@pytest.mark.parametrize(
    ("kwargs", "data", "error", "match"),
    [
        ({}, np.ones((1, 10)), ValueError, "1 dataset.*at least 2"),
        ({}, np.ones((3, 1)), ValueError, "1 fold"),
        ({}, np.array([[0.1, 0.2], [np.nan, 0.1]]), ValueError, "NaN"),
        ({}, np.array([[0.1, 0.1, 0.1], [0.1, 0.2, 0.3]]), ValueError,
         r"datasets \(rows\) \[0\].*zero variance"),
        ({}, np.ones(5), ValueError, "2-D"),
        ({"rope": -1.0}, np.ones((2, 3)), ValueError, "rope"),
        ({"rho": 1.0}, np.ones((2, 3)), ValueError, "rho"),
        ({"sampler": "stan"}, np.ones((2, 3)), ValueError, "sampler"),
    ],
)
def test_bad_input(kwargs, data, error, match):
    with pytest.raises(error, match=match):
        HierarchicalComparison(**kwargs).fit(data)


def test_not_fitted():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        HierarchicalComparison().result()

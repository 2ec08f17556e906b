"""Tests of the sampling layer (compile-once nutpie, PyMC NUTS, ADVI, Laplace)."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pymc as pm
import pytest

from bayescal.inference.sampling import (  # noqa: E402
    compiled_cache_size,
    model_structure_key,
    sample_posterior,
    sampler_settings,
    seed_from_random_state,
    student_t_prior_hyper,
)

PRIOR_SD = 3.0


def normal_mean(data, *, prior_sd):
    """y_i ~ N(mu, 1), mu ~ N(0, prior_sd^2): a conjugate model with a closed form."""
    with pm.Model() as model:
        y = pm.Data("y", data["y"])
        mu = pm.Normal("mu", 0.0, prior_sd)
        pm.Normal("obs", mu, 1.0, observed=y)
    return model


def closed_form(y, prior_sd=PRIOR_SD):
    var = 1.0 / (len(y) + 1.0 / prior_sd**2)
    return var * np.sum(y), np.sqrt(var)


def half_normal_scale(data, *, scale):
    """y_i ~ N(0, sigma^2), sigma ~ HalfNormal(scale): a transformed parameter."""
    with pm.Model() as model:
        y = pm.Data("y", data["y"])
        sigma = pm.HalfNormal("sigma", scale)
        pm.Normal("obs", 0.0, sigma, observed=y)
    return model


@pytest.fixture(scope="module")
def y_data():
    return np.random.default_rng(0).normal(1.5, 1.0, size=40)


@pytest.mark.parametrize("shift", [0.0, 5.0])
def test_laplace_matches_conjugate_posterior(y_data, shift):
    # shift=5 refits the cached program on new data of another length.
    y = y_data if shift == 0.0 else y_data[:10] + shift
    fit = sample_posterior(
        normal_mean,
        {"y": y},
        hyper={"prior_sd": PRIOR_SD},
        inference="laplace",
        draws=2000,
        chains=2,
        random_state=0,
    )
    mean, sd = closed_form(y)
    mu = fit.idata["posterior"]["mu"]
    assert dict(mu.sizes) == {"chain": 1, "draw": 4000}
    np.testing.assert_allclose(float(fit.mode["mu"]), mean, rtol=1e-5)
    np.testing.assert_allclose(float(mu.mean()), mean, atol=4 * sd / np.sqrt(4000))
    np.testing.assert_allclose(float(mu.std()), sd, rtol=0.05)
    assert fit.sampler == "laplace"


def test_nutpie_c_samples_a_transformed_scale_in_its_constrained_space():
    # sigma ~ HalfNormal is sampled as log(sigma); the trace must hold sigma > 0
    # and its posterior concentrate near the sample sd (as the Laplace test).
    y = np.random.default_rng(1).normal(0.0, 2.0, size=60)
    fit = sample_posterior(
        half_normal_scale, {"y": y}, hyper={"scale": 5.0}, sampler="nutpie-c",
        draws=300, tune=300, chains=2, random_state=0, cores=1,
    )
    sigma = np.asarray(fit.idata["posterior"]["sigma"])
    assert sigma.shape == (2, 300) and np.all(sigma > 0)
    assert abs(np.median(sigma) - y.std()) < 0.4


def test_laplace_keeps_scale_parameters_finite():
    y = np.random.default_rng(1).normal(0.0, 2.0, size=60)
    fit = sample_posterior(
        half_normal_scale,
        {"y": y},
        hyper={"scale": 5.0},
        inference="laplace",
        draws=500,
        random_state=0,
    )
    sigma = np.asarray(fit.idata["posterior"]["sigma"])
    assert np.all(np.isfinite(sigma)) and np.all(sigma > 0)
    # The posterior of sigma concentrates near the sample sd.
    assert abs(np.median(sigma) - y.std()) < 0.4


@pytest.mark.parametrize("sampler", ["nutpie", "nutpie-c", "pymc"])
def test_nuts_agrees_with_closed_form_and_is_reproducible(y_data, sampler):
    kwargs = dict(
        hyper={"prior_sd": PRIOR_SD},
        sampler=sampler,
        draws=300,
        tune=300,
        chains=2,
        random_state=7,
        cores=1,
    )
    first = sample_posterior(normal_mean, {"y": y_data}, **kwargs)
    again = sample_posterior(normal_mean, {"y": y_data}, **kwargs)
    other = sample_posterior(normal_mean, {"y": y_data}, **{**kwargs, "random_state": 8})
    mu = np.asarray(first.idata["posterior"]["mu"])
    assert mu.shape == (2, 300)
    np.testing.assert_array_equal(mu, np.asarray(again.idata["posterior"]["mu"]))
    assert not np.array_equal(mu, np.asarray(other.idata["posterior"]["mu"]))
    mean, sd = closed_form(y_data)
    assert abs(mu.mean() - mean) < 4 * sd / np.sqrt(100)
    assert abs(mu.std() - sd) < 0.25 * sd
    assert first.sampler == sampler
    assert "sample_stats" in first.idata.children


def test_nutpie_compiles_once_and_refits_new_data(y_data):
    hyper = {"prior_sd": PRIOR_SD}
    kwargs = dict(hyper=hyper, draws=200, tune=200, chains=2, cores=1, random_state=3)
    sample_posterior(normal_mean, {"y": y_data}, **kwargs)
    size = compiled_cache_size()
    shorter = y_data[:15] + 10.0  # new length and new values, same structure
    fit = sample_posterior(normal_mean, {"y": shorter}, **kwargs)
    assert not fit.compiled
    assert compiled_cache_size() == size
    mean, sd = closed_form(shorter)
    assert abs(float(fit.idata["posterior"]["mu"].mean()) - mean) < 4 * sd / np.sqrt(80)


def test_advi_close_to_conjugate_posterior(y_data):
    fit = sample_posterior(
        normal_mean,
        {"y": y_data},
        hyper={"prior_sd": PRIOR_SD},
        inference="advi",
        draws=1000,
        chains=1,
        random_state=0,
        advi_iterations=3000,
    )
    mean, sd = closed_form(y_data)
    mu = np.asarray(fit.idata["posterior"]["mu"])
    assert mu.shape == (1, 1000)
    assert abs(mu.mean() - mean) < 0.5 * sd
    assert 0.5 * sd < mu.std() < 1.5 * sd
    # a Gaussian posterior in the mean-field family: the PSIS check passes and the
    # importance-resampled draws have the exact mean and sd to Monte Carlo error
    assert fit.pareto_k < 0.7
    assert abs(mu.mean() - mean) < 0.15 * sd and 0.85 * sd < mu.std() < 1.15 * sd


def test_structure_key_ignores_rows_but_not_shape_or_hyper():
    a = {"X": np.zeros((10, 3)), "y": np.zeros(10, dtype=int)}
    b = {"X": np.ones((25, 3)), "y": np.ones(25, dtype=int)}
    c = {"X": np.ones((25, 4)), "y": np.ones(25, dtype=int)}
    assert model_structure_key(normal_mean, a, {"s": 1}) == model_structure_key(
        normal_mean, b, {"s": 1}
    )
    assert model_structure_key(normal_mean, a, {"s": 1}) != model_structure_key(
        normal_mean, c, {"s": 1}
    )
    assert model_structure_key(normal_mean, a, {"s": 1}) != model_structure_key(
        normal_mean, a, {"s": 2}
    )
    assert model_structure_key(normal_mean, a, {}) != model_structure_key(half_normal_scale, a, {})


def test_seed_from_random_state():
    assert seed_from_random_state(5) == 5
    g1, g2 = np.random.default_rng(1), np.random.default_rng(1)
    assert seed_from_random_state(g1) == seed_from_random_state(g2)
    assert 0 <= seed_from_random_state(None) < 2**31


def _sample_in_daemon(y, queue):
    fit = sample_posterior(
        normal_mean,
        {"y": y},
        hyper={"prior_sd": PRIOR_SD},
        sampler="pymc",
        draws=50,
        tune=50,
        chains=2,
        cores=2,
        random_state=0,
    )
    queue.put(np.asarray(fit.idata["posterior"]["mu"]).shape)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_pymc_sampler_runs_in_daemonic_process(y_data):
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_sample_in_daemon, args=(y_data, queue), daemon=True)
    proc.start()
    shape = queue.get(timeout=300)
    proc.join(timeout=60)
    assert shape == (2, 50)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"inference": "gibbs"}, ValueError, "inference"),
        ({"sampler": "stan"}, ValueError, "sampler"),
        ({"draws": 0}, ValueError, "draws"),
        ({"chains": 0}, ValueError, "chains"),
        ({"tune": -1}, ValueError, "tune"),
        ({"tune": 0}, ValueError, "tune"),
        ({"target_accept": 1.5}, ValueError, "target_accept"),
        ({"random_state": "seed"}, TypeError, "random_state"),
        ({"random_state": -3}, ValueError, "random_state"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        sample_posterior(normal_mean, {"y": np.zeros(3)}, hyper={"prior_sd": 1.0}, **kwargs)


class _Settings:
    def __init__(self, **kwargs):
        base = {
            "inference": "nuts",
            "sampler": "nutpie",
            "draws": 10,
            "tune": 5,
            "chains": 2,
            "prior_scale": 2.5,
            "intercept_scale": 10,
            "prior_df": 1,
        }
        self.__dict__.update({**base, **kwargs})


def test_estimator_settings_are_collected_as_sample_posterior_keywords():
    est = _Settings()
    assert sampler_settings(est) == {
        "inference": "nuts",
        "sampler": "nutpie",
        "draws": 10,
        "tune": 5,
        "chains": 2,
    }
    hyper = student_t_prior_hyper(est)
    assert hyper == {"prior_scale": 2.5, "intercept_scale": 10.0, "prior_df": 1.0}
    assert all(isinstance(value, float) for value in hyper.values())


@pytest.mark.parametrize(
    ("kwargs", "func", "error", "match"),
    [
        ({"inference": "gibbs"}, sampler_settings, ValueError, "'inference' parameter of _Settings must be a str among"),
        ({"sampler": "stan"}, sampler_settings, ValueError, "'sampler' parameter.*Got 'stan' instead"),
        ({"draws": 0}, sampler_settings, ValueError, "'draws' parameter.*Got 0 instead"),
        ({"tune": -1}, sampler_settings, ValueError, "'tune' parameter"),
        ({"chains": 1.5}, sampler_settings, TypeError, "'chains' parameter of _Settings must be an int"),
        ({"prior_scale": 0}, student_t_prior_hyper, ValueError, "'prior_scale' parameter.*Got 0 instead"),
        ({"prior_df": "1"}, student_t_prior_hyper, TypeError, "'prior_df' parameter"),
    ],
)
def test_bad_estimator_settings_name_the_setting(kwargs, func, error, match):
    with pytest.raises(error, match=match):
        func(_Settings(**kwargs))

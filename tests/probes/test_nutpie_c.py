"""Tests of nutpie on PyTensor's C backend (sampler='nutpie-c').

One model structure (binary BLR, three features) is compiled once per module.
"""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.probes.logistic import BayesianLogisticRegression, blr_model
from bayescal.probes.nutpie_c import compile_nutpie_c

HYPER = dict(prior_scale=2.5, intercept_scale=10.0, prior_df=1.0, n_outputs=1,
             likelihood="bernoulli")


def _data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ np.array([1.0, -0.5, 0.0]))))).astype(np.int64)
    return {"X": X, "y": y}


@pytest.fixture(scope="module")
def compiled():
    data = _data(40, 0)
    model = blr_model(data, **HYPER)
    return model, compile_nutpie_c(model)


def test_logp_and_gradient_equal_pymc_after_swapping_data(compiled):
    import pymc as pm

    model, nutpie_model = compiled
    other = _data(25, 1)  # another number of rows: no recompilation
    swapped = nutpie_model.with_data(**other)
    pm.set_data(other, model=model)
    logp_fn, dlogp_fn = model.compile_logp(), model.compile_dlogp()
    rng = np.random.default_rng(2)
    x = rng.normal(size=4)  # intercept (1), beta (3 x 1) in free_RVs order
    point = {"intercept": x[:1], "beta": x[1:].reshape(3, 1)}
    value, grad = swapped._make_logp_func()(x, **swapped._shared_data)
    np.testing.assert_allclose(value, logp_fn(point), rtol=1e-10)
    np.testing.assert_allclose(grad, dlogp_fn(point), rtol=1e-10)
    expand = swapped._make_expand_func(0, 0, 0)(x, **swapped._shared_data)
    np.testing.assert_array_equal(expand["beta"], point["beta"])
    pm.set_data(_data(40, 0), model=model)


@pytest.mark.parametrize(
    "name, value, match",
    [
        ("y", np.array([0.5, 1.0]), "`y` does not fit .* dtype int32"),
        ("y", np.array([2**40, 0]), "`y` does not fit .* dtype int32"),
        ("X", np.array([[1.0 + 1j, 0.0, 0.0]]), "`X` does not fit .* dtype float64"),
    ],
)
def test_with_data_refuses_values_the_containers_cannot_hold(compiled, name, value, match):
    with pytest.raises(ValueError, match=match):
        compiled[1].with_data(**{name: value})


def test_discrete_free_variable_is_refused():
    import pymc as pm

    with pm.Model() as model:
        pm.Poisson("k", 3.0)
    with pytest.raises(ValueError, match="nutpie-c.*discrete"):
        compile_nutpie_c(model)


@pytest.mark.slow
def test_blr_posterior_matches_the_laplace_mode_and_is_reproducible():
    data = _data(300, 3)
    kwargs = dict(draws=300, tune=300, chains=2, random_state=4, sampler="nutpie-c")
    a = BayesianLogisticRegression(**kwargs).fit(data["X"], data["y"])
    b = BayesianLogisticRegression(**kwargs).fit(data["X"], data["y"])
    assert a.diagnostics_["sampler"] == "nutpie-c"
    beta = np.asarray(a.idata_["posterior"]["beta"])
    np.testing.assert_array_equal(beta, np.asarray(b.idata_["posterior"]["beta"]))
    laplace = BayesianLogisticRegression(inference="laplace", draws=300, random_state=0)
    laplace.fit(data["X"], data["y"])
    sd = beta.std(axis=(0, 1))
    # n = 300: the posterior is close to Gaussian, its mean within 0.3 sd of the mode.
    gap = np.abs(beta.mean(axis=(0, 1)) - laplace.posterior_mode_["beta"]) / sd
    assert np.all(gap < 0.3), gap

"""Tests of nutpie on PyTensor's C backend (sampler='nutpie-c').

One model structure (binary BLR, three features) is compiled once per module.
"""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.inference.nutpie_c import compile_nutpie_c
from bayescal.probes.logistic import BayesianLogisticRegression, blr_model

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
        ("X", np.zeros(3), "`X` has 1 dimension.*container has 2"),
        ("y", np.zeros((4, 1), dtype=np.int32), "`y` has 2 dimension.*container has 1"),
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


# A fresh interpreter fits a tiny BLR with sampler="nutpie-c" and reports
# PyTensor's C module cache counters: stats[1] counts modules loaded from the
# compiledir on disk, stats[2] modules compiled (g++) in this process.
CACHE_SCRIPT = """
import json, sys
import numpy as np
import pytensor
from pytensor.link.c import cmodule
from bayescal.probes.logistic import BayesianLogisticRegression
rng = np.random.default_rng(0)
X = rng.normal(size=(60, 3))
y = (rng.random(60) < 1 / (1 + np.exp(-X[:, 0]))).astype(int)
BayesianLogisticRegression(sampler="nutpie-c", draws=5, tune=5, chains=1,
                           random_state=0).fit(X, y)
stats = list(cmodule._module_cache.stats)
if len(sys.argv) > 1:  # also the default sampler: nutpie's Numba backend
    BayesianLogisticRegression(draws=5, tune=5, chains=1, random_state=0).fit(X, y)
print(json.dumps({"loaded": stats[1], "compiled": stats[2],
                  "compiledir": str(pytensor.config.compiledir)}))
"""


@pytest.mark.slow
def test_second_process_loads_the_c_modules_from_the_user_compiledir(tmp_path):
    # HOME points at an empty folder: PyTensor's default compiledir is per user
    # (under ~/.pytensor); the first process compiles, the second only loads.
    import json
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    import bayescal

    package = Path(bayescal.__file__).resolve().parent
    env = {k: v for k, v in os.environ.items()
           if k not in {"PYTENSOR_FLAGS", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME"}}
    env["HOME"] = str(tmp_path)
    env["PYTHONPATH"] = str(package.parent) + os.pathsep + env.get("PYTHONPATH", "")

    def run(*extra: str) -> dict:
        out = subprocess.run([sys.executable, "-c", CACHE_SCRIPT, *extra], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=900, check=False)
        assert out.returncode == 0, out.stderr[-3000:]
        return json.loads(out.stdout.strip().splitlines()[-1])

    import nutpie
    import pytensor

    started = time.time()
    first, second = run("and the default sampler"), run()
    compiledir = Path(first["compiledir"])
    assert compiledir.is_relative_to(tmp_path / ".pytensor"), compiledir
    assert not compiledir.is_relative_to(package)
    assert first["compiled"] > 0, first
    assert second["compiled"] == 0, second  # every C module came from the disk cache
    assert second["loaded"] >= first["compiled"], (first, second)
    # No numba cache (index .nbi, data .nbc) was written beside any source.
    for tree in (package, Path(nutpie.__file__).parent, Path(pytensor.__file__).parent):
        written = [p for p in tree.rglob("*.nb[ic]") if p.stat().st_mtime >= started]
        assert written == [], f"numba cache written into {tree}: {written[:3]}"


@pytest.mark.slow
def test_default_and_nutpie_c_posterior_means_agree_within_monte_carlo_error():
    # Fixed seeds (different ones, so the comparison is a statistical one):
    # the two samplers target one posterior, so the posterior means of every
    # coefficient differ by no more than a few Monte Carlo standard errors.
    import warnings

    import arviz as az

    from bayescal.inference.diagnostics import PosteriorDiagnosticsWarning

    data = _data(150, 7)
    fits = {}
    for sampler, seed in (("nutpie", 11), ("nutpie-c", 12)):
        kwargs = {} if sampler == "nutpie" else {"sampler": sampler}
        est = BayesianLogisticRegression(draws=250, tune=250, chains=2, random_state=seed,
                                         **kwargs)
        with warnings.catch_warnings():  # tiny draws: R-hat may just miss 1.01
            warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
            fits[sampler] = est.fit(data["X"], data["y"])
    default = fits["nutpie"]
    # the default ("auto") runs nutpie's compiled graph on 150 rows (nutpie-glm from 2000)
    assert BayesianLogisticRegression().sampler == "auto"
    assert default.diagnostics_.sampler == "nutpie"  # the default's diagnostics are recorded
    assert np.isfinite(default.diagnostics_.rhat_max)
    assert default.diagnostics_.ess_bulk_min > 50
    assert fits["nutpie-c"].diagnostics_.sampler == "nutpie-c"
    gaps = []
    for name in ("intercept", "beta"):
        means, mcses = [], []
        for est in fits.values():
            posterior = est.idata_["posterior"].to_dataset()[[name]]
            means.append(np.asarray(posterior[name].mean(("chain", "draw"))))
            mcses.append(np.asarray(az.mcse(posterior)[name]))
        gaps.append(np.abs(means[0] - means[1]) / np.hypot(mcses[0], mcses[1]))
    gaps = np.concatenate([np.ravel(g) for g in gaps])
    assert np.all(gaps < 4.0), gaps

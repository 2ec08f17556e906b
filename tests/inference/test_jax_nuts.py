"""NUTS on JAX (``sampler="numpyro"`` / ``"blackjax"``) against nutpie.

The agreement test needs JAX, numpyro and blackjax (``pip install "bayescal[jax]"``; the
``test`` extra installs them, so CI has them). Where one cannot be imported it is skipped with
the reason, unless the ``CI`` environment variable is set (to anything but ``""``, ``0``,
``false`` or ``no``): there a missing package fails the test, so CI never skips it.

JAX starts threads when imported, and a process that later forks (PyMC's multiprocess
chains, other tests in the same pytest worker) then runs a fork of a multithreaded
process; so the fits on JAX run in a child process and JAX is never imported here.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import types

import numpy as np
import pytest

from bayescal.inference.sampling import SAMPLERS
from bayescal.probes.logistic import BayesianLogisticRegression


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _require_jax_packages() -> None:
    """Skip (outside CI) or fail (in CI) when JAX, numpyro or blackjax is not installed.

    Looked up without importing (see the module docstring); a package found but broken
    fails the fit in the child process, so it is not skipped either.
    """
    for package in ("jax", "numpyro", "blackjax"):
        if importlib.util.find_spec(package) is None:
            remedy = 'pip install "bayescal[jax]"'
            if not _in_ci():
                pytest.skip(f"{package} is not installed and CI is not set; {remedy}")
            pytest.fail(f"CI is set but {package} is not installed; {remedy}")


def _data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    eta = 0.3 + X @ np.array([1.0, -0.5, 0.0])
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-eta))).astype(np.int64)
    return X, y


_FIT_IN_CHILD = """
import json, sys, warnings
import numpy as np
import arviz as az
from bayescal.inference.diagnostics import PosteriorDiagnosticsWarning
from bayescal.probes.logistic import BayesianLogisticRegression

rng = np.random.default_rng(3)
X = rng.normal(size=(200, 3))
eta = 0.3 + X @ np.array([1.0, -0.5, 0.0])
y = (rng.random(200) < 1.0 / (1.0 + np.exp(-eta))).astype(np.int64)
out = {}
for sampler, seed in (("nutpie", 11), ("numpyro", 12), ("blackjax", 13)):
    est = BayesianLogisticRegression(sampler=sampler, draws=300, tune=300, chains=2,
                                     random_state=seed)
    with warnings.catch_warnings():  # few draws: R-hat may just miss 1.01
        warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
        est.fit(X, y)
    posterior = est.idata_["posterior"].to_dataset()[["intercept", "beta"]]
    mcse = az.mcse(posterior)
    names = ("intercept", "beta")
    proba = est.predict_proba(X)
    out[sampler] = {
        "mean": np.concatenate([np.ravel(posterior[v].mean(("chain", "draw"))) for v in names]).tolist(),
        "mcse": np.concatenate([np.ravel(mcse[v]) for v in names]).tolist(),
        "sampler": est.diagnostics_.sampler,
        "divergences": int(est.diagnostics_.divergences),
        "ess_bulk_min": float(est.diagnostics_.ess_bulk_min),
        "proba_shape": list(proba.shape),
        "proba_row_sum_error": float(np.max(np.abs(proba.sum(axis=1) - 1.0))),
    }
print("RESULT" + json.dumps(out))
"""


@pytest.mark.slow
def test_jax_samplers_agree_with_nutpie_within_monte_carlo_error():
    # Different fixed seeds, so the comparison is a statistical one: the three samplers target
    # one posterior, so every coefficient's posterior mean differs from nutpie's by no more
    # than a few Monte Carlo standard errors (ArviZ's mcse of each mean, combined).
    _require_jax_packages()
    run = subprocess.run([sys.executable, "-c", _FIT_IN_CHILD], capture_output=True, text=True,
                         env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    assert run.returncode == 0, run.stderr[-3000:]
    line = next(ln for ln in run.stdout.splitlines() if ln.startswith("RESULT"))
    fits = json.loads(line[len("RESULT"):])
    ref_mean, ref_mcse = np.array(fits["nutpie"]["mean"]), np.array(fits["nutpie"]["mcse"])
    for sampler in ("numpyro", "blackjax"):
        fit = fits[sampler]
        assert fit["sampler"] == sampler
        assert fit["divergences"] == 0
        assert fit["ess_bulk_min"] > 100
        mean, mcse = np.array(fit["mean"]), np.array(fit["mcse"])
        gaps = np.abs(mean - ref_mean) / np.hypot(mcse, ref_mcse)
        assert np.all(gaps < 4.0), (sampler, gaps)
        # and the posterior is not the prior's (centred on 0): the data fix the slopes' signs
        assert mean[1] > 1.0 and mean[2] < -0.4, (sampler, mean)
        assert fit["proba_shape"] == [200, 2]
        assert fit["proba_row_sum_error"] < 1e-12


@pytest.mark.parametrize("sampler, missing", [("numpyro", "numpyro"), ("blackjax", "blackjax"),
                                              ("numpyro", "jax")])
def test_missing_jax_package_is_named_with_the_install_command(monkeypatch, sampler, missing):
    # A None entry in sys.modules makes `import <name>` raise ImportError, as if not installed;
    # the other packages are empty stand-ins, so that JAX is not imported here.
    for package in ("jax", "numpyro", "blackjax"):
        stand_in = None if package == missing else types.ModuleType(package)
        monkeypatch.setitem(sys.modules, package, stand_in)
    X, y = _data(30, 0)
    est = BayesianLogisticRegression(sampler=sampler, draws=10, tune=10, chains=1)
    with pytest.raises(ImportError, match=rf"sampler='{sampler}' needs the package '{missing}'"
                       r".*pip install"):
        est.fit(X, y)


def test_every_estimator_takes_the_jax_samplers_and_still_refuses_unknown_ones():
    assert {"numpyro", "blackjax"} <= set(SAMPLERS)
    from bayescal.probes.calibration_maps import BayesianPlattCalibrator
    from bayescal.probes.dirichlet_map import BayesianDirichletCalibrator
    from bayescal.stats.hierarchical import HierarchicalComparison

    for cls in (BayesianLogisticRegression, BayesianPlattCalibrator,
                BayesianDirichletCalibrator, HierarchicalComparison):
        options = cls._parameter_constraints["sampler"][0].options
        assert {"numpyro", "blackjax", "nutpie-glm"} <= options, cls
    X, y = _data(30, 0)
    with pytest.raises(ValueError, match="sampler"):
        BayesianLogisticRegression(sampler="numpyr").fit(X, y)


def test_importing_bayescal_does_not_import_jax():
    code = (
        "import sys, bayescal, bayescal.inference.sampling, bayescal.probes.logistic, "
        "bayescal.inference.jax_nuts; print(sorted(m for m in ('jax', 'numpyro', 'blackjax') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]", out.stdout


@pytest.mark.parametrize(
    "sampler, devices, backend, chains, expected",
    [
        ("numpyro", 1, "cpu", 2, "sequential"),
        ("blackjax", 1, "cpu", 2, "vectorized"),
        ("numpyro", 1, "gpu", 4, "vectorized"),
        ("numpyro", 4, "gpu", 4, "parallel"),
        ("blackjax", 2, "cpu", 2, "parallel"),
        ("blackjax", 2, "cpu", 1, "vectorized"),
    ],
)
def test_chains_run_in_parallel_only_with_a_device_per_chain(
    sampler, devices, backend, chains, expected
):
    from bayescal.inference.jax_nuts import chain_method

    assert chain_method(sampler, chains, devices, backend) == expected


_GLM_IN_CHILD = """
import json, warnings
import numpy as np
from bayescal.inference import jax_glm
from bayescal.inference.laplace_glm import LogisticGLM
from bayescal.inference.diagnostics import PosteriorDiagnosticsWarning
from bayescal.probes.logistic import BayesianLogisticRegression

rng = np.random.default_rng(0)
gaps = []
for positive, centre, df in ((False, None, 1.0), (True, np.array([0.4, -1.0]), 1.0),
                             (False, np.array([2.0, 0.5]), 3.0)):
    design = rng.normal(size=(50, 2))
    glm = LogisticGLM(design, rng.random(50), rng.uniform(0.5, 2.0, 50), prior_scale=2.5,
                      intercept_scale=10.0, prior_df=df, positive=positive, centre=centre)
    density = jax_glm.glm_log_density(2.5, 10.0, df, positive)
    b = np.concatenate([[1.0], -(np.zeros(2) if centre is None else centre)])
    for theta in rng.normal(scale=1.5, size=(5, 3)):
        ours = float(density(theta, design - (0.0 if centre is None else centre),
                             glm.targets, glm.weights, b))
        gaps.append(abs(ours - glm.log_density(theta)) / max(1.0, abs(ours)))
X = rng.normal(size=(120, 2))
y = (rng.random(120) < 1.0 / (1.0 + np.exp(-X[:, 0]))).astype(int)
programs = []
for seed in (1, 2):  # new data of the same shape: the same compiled program serves both
    for sampler in ("numpyro", "blackjax"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
            BayesianLogisticRegression(sampler=sampler, draws=50, tune=50, chains=1,
                                       random_state=seed).fit(X[::-1] if seed == 2 else X, y)
    programs.append(sorted(id(m) for m in jax_glm._PROGRAMS.values()))
# folds of another size, chains vectorised as on a GPU (numpyro failed reusing one MCMC there)
import bayescal.inference.jax_nuts as jax_nuts
jax_nuts.chain_method = lambda *args: "vectorized"
sizes = []
for n in (120, 90):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
        fit = BayesianLogisticRegression(sampler="numpyro", draws=30, tune=30, chains=2,
                                         random_state=0).fit(X[:n], y[:n])
    sizes.append(int(fit.idata_["posterior"].sizes["chain"]))
print("RESULT" + json.dumps({"max_gap": max(gaps), "programs": programs, "chains": sizes}))
"""


@pytest.mark.slow
def test_jax_glm_density_equals_the_numpy_one_and_is_compiled_once():
    # sampler="numpyro"/"blackjax" on a GLM probe sample the JAX density of jax_glm:
    # it must be LogisticGLM's log posterior term for term (Cauchy and Student-t priors,
    # centred intercepts, the half-t prior with its log-Jacobian), and a second fit on data
    # of the same shape must reuse the first one's program (the data are arguments).
    _require_jax_packages()
    run = subprocess.run([sys.executable, "-c", _GLM_IN_CHILD], capture_output=True, text=True,
                         env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    assert run.returncode == 0, run.stderr[-3000:]
    line = next(ln for ln in run.stdout.splitlines() if ln.startswith("RESULT"))
    result = json.loads(line[len("RESULT"):])
    assert result["max_gap"] < 1e-12
    first, second = result["programs"]
    assert len(first) == 2 and first == second  # one per sampler
    assert result["chains"] == [2, 2]

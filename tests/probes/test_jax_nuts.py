"""NUTS on JAX (``sampler="numpyro"`` / ``"blackjax"``) against nutpie.

The agreement test needs JAX, numpyro and blackjax (``pip install "bayescal[jax]"``; the
``test`` extra installs them, so CI has them). Where one cannot be imported it is skipped with
the reason, unless the ``CI`` environment variable is set (to anything but ``""``, ``0``,
``false`` or ``no``): there a missing package fails the test, so CI never skips it.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from bayescal.probes.logistic import BayesianLogisticRegression
from bayescal.probes.sampling import SAMPLERS


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _require_jax_packages() -> None:
    """Skip (outside CI) or fail (in CI) when JAX, numpyro or blackjax is missing."""
    for package in ("jax", "numpyro", "blackjax"):
        try:
            importlib.import_module(package)
        except ImportError as exc:
            remedy = 'pip install "bayescal[jax]"'
            if not _in_ci():
                pytest.skip(f"{package} cannot be imported ({exc}) and CI is not set; {remedy}")
            pytest.fail(f"CI is set but {package} cannot be imported ({exc}); {remedy}")


def _data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    eta = 0.3 + X @ np.array([1.0, -0.5, 0.0])
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-eta))).astype(np.int64)
    return X, y


@pytest.mark.slow
def test_jax_samplers_agree_with_nutpie_within_monte_carlo_error():
    # Different fixed seeds, so the comparison is a statistical one: the three samplers target
    # one posterior, so every coefficient's posterior mean differs from nutpie's by no more
    # than a few Monte Carlo standard errors (ArviZ's mcse of each mean, combined).
    _require_jax_packages()
    import arviz as az

    from bayescal.probes.diagnostics import PosteriorDiagnosticsWarning

    X, y = _data(200, 3)
    fits = {}
    for sampler, seed in (("nutpie", 11), ("numpyro", 12), ("blackjax", 13)):
        est = BayesianLogisticRegression(
            sampler=sampler, draws=300, tune=300, chains=2, random_state=seed
        )
        with warnings.catch_warnings():  # few draws: R-hat may just miss 1.01
            warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
            fits[sampler] = est.fit(X, y)

    def mean_and_mcse(est):
        posterior = est.idata_["posterior"].to_dataset()[["intercept", "beta"]]
        mcse = az.mcse(posterior)
        means = [np.ravel(posterior[v].mean(("chain", "draw"))) for v in ("intercept", "beta")]
        errors = [np.ravel(mcse[v]) for v in ("intercept", "beta")]
        return np.concatenate(means), np.concatenate(errors)

    ref_mean, ref_mcse = mean_and_mcse(fits["nutpie"])
    for sampler in ("numpyro", "blackjax"):
        est = fits[sampler]
        assert est.diagnostics_.sampler == sampler
        assert est.diagnostics_.divergences == 0
        assert est.diagnostics_.ess_bulk_min > 100
        mean, mcse = mean_and_mcse(est)
        gaps = np.abs(mean - ref_mean) / np.hypot(mcse, ref_mcse)
        assert np.all(gaps < 4.0), (sampler, gaps)
        # and the posterior is not the prior's (centred on 0): the data fix the slopes' signs
        assert mean[1] > 1.0 and mean[2] < -0.4, (sampler, mean)
        proba = est.predict_proba(X)
        assert proba.shape == (200, 2)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("sampler, missing", [("numpyro", "numpyro"), ("blackjax", "blackjax"),
                                              ("numpyro", "jax")])
def test_missing_jax_package_is_named_with_the_install_command(monkeypatch, sampler, missing):
    # A None entry in sys.modules makes `import <name>` raise ImportError, as if not installed.
    monkeypatch.setitem(sys.modules, missing, None)
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
        assert {"numpyro", "blackjax"} <= options, cls
    X, y = _data(30, 0)
    with pytest.raises(ValueError, match="sampler"):
        BayesianLogisticRegression(sampler="numpyr").fit(X, y)


def test_importing_bayescal_does_not_import_jax():
    code = (
        "import sys, bayescal, bayescal.probes.sampling, bayescal.probes.logistic, "
        "bayescal.probes.jax_nuts; print(sorted(m for m in ('jax', 'numpyro', 'blackjax') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
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
    monkeypatch, sampler, devices, backend, chains, expected
):
    _require_jax_packages()
    import jax

    from bayescal.probes.jax_nuts import chain_method

    monkeypatch.setattr(jax, "local_device_count", lambda: devices)
    monkeypatch.setattr(jax, "default_backend", lambda: backend)
    assert chain_method(sampler, chains) == expected

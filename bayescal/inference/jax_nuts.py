"""NUTS on JAX: PyMC's numpyro and blackjax samplers behind bayescal's sampling layer.

``sampler="numpyro"`` and ``sampler="blackjax"`` (:func:`bayescal.inference.sampling.sample_posterior`
and every Bayesian estimator's ``sampler`` parameter) call
``pm.sample(nuts_sampler="numpyro" | "blackjax")``: PyMC translates the model's log density
into JAX and the chosen library runs NUTS on it, on whatever device JAX finds (CPU, or a
GPU/TPU where a JAX build for it is installed), so the same probes run on an accelerator.

JAX, numpyro and blackjax are optional (``pip install "bayescal[jax]"``) and imported only
when one of these samplers is asked for, so ``import bayescal`` does not pay for them.

How chains run: in parallel across devices (``jax.pmap``) where JAX sees at least one
device per chain; otherwise vectorised on one device (``jax.vmap``), except numpyro on a CPU,
which runs them one after another (a vectorised NUTS step waits for the longest trajectory
of all chains, which a CPU pays for in full). On a CPU, JAX sees one device unless
``XLA_FLAGS=--xla_force_host_platform_device_count=N`` is set before JAX is first imported.

Cost: PyMC bakes the data into the JAX program as constants, so every fit traces and
compiles it again (no compile-once cache as for nutpie): measured on BLR at n = 500, d = 5,
2 x (100 + 100) draws, about 2.6-3.1 CPU-s per fit whether or not the data changed, after a
first fit of 8.3 CPU-s that also starts JAX (loaded 2-core machine). The GLM probes therefore
run both samplers on their JAX density with the data as arguments instead
(:mod:`bayescal.inference.jax_glm`); this module serves the other models. See
``benchmarks/nuts_ess.py`` for the sampling cost against nutpie and numpyro used directly.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["JAX_SAMPLERS", "chain_method", "require_jax", "sample_jax_nuts"]

#: The samplers served by this module, and the packages each one needs.
JAX_SAMPLERS: dict[str, tuple[str, ...]] = {
    "numpyro": ("jax", "numpyro"),
    "blackjax": ("jax", "blackjax"),
}


def require_jax(sampler: str) -> None:
    """Import the packages ``sampler`` needs, or say which to install.

    Parameters
    ----------
    sampler : {"numpyro", "blackjax"}

    Raises
    ------
    ImportError
        Naming the sampler, the missing package and the install command.
    """
    for package in JAX_SAMPLERS[sampler]:
        try:
            importlib.import_module(package)
        except ImportError as exc:
            needed = " ".join(JAX_SAMPLERS[sampler])
            raise ImportError(
                f"sampler={sampler!r} needs the package {package!r}, which cannot be "
                f"imported ({exc}). Install it with `pip install {needed}` (or "
                "`pip install \"bayescal[jax]\"`), or choose sampler='nutpie'."
            ) from exc


def chain_method(sampler: str, chains: int, n_devices: int, backend: str) -> str:
    """How ``chains`` chains run on ``n_devices`` devices of JAX's ``backend``.

    In parallel (``"parallel"``, ``jax.pmap``) with a device per chain; otherwise
    ``"sequential"`` for numpyro on a CPU and ``"vectorized"`` (``jax.vmap``) else
    (see the module docstring).
    """
    if chains > 1 and n_devices >= chains:
        return "parallel"
    if sampler == "numpyro" and backend == "cpu":
        return "sequential"
    return "vectorized"


def sample_jax_nuts(
    model: Any,
    *,
    sampler: str,
    draws: int,
    tune: int,
    chains: int,
    seed: int,
    target_accept: float,
) -> Any:
    """Run ``pm.sample(nuts_sampler=sampler)`` on ``model``.

    Parameters
    ----------
    model : pymc.Model
        The model, with its data in it.
    sampler : {"numpyro", "blackjax"}
    draws, tune, chains : int
        Draws and tuning steps per chain, and chains.
    seed : int
        Seed of the initial points and the sampler.
    target_accept : float
        Target acceptance rate of the step-size adaptation.

    Returns
    -------
    xarray.DataTree
        The posterior with ``sample_stats`` (``diverging`` among them), as PyMC returns it.

    Raises
    ------
    ImportError
        Where JAX or the sampler's library is missing (see :func:`require_jax`).
    """
    require_jax(sampler)
    import jax
    import pymc as pm

    method = chain_method(sampler, chains, jax.local_device_count(), jax.default_backend())

    with model:
        return pm.sample(
            draws=draws,
            tune=tune,
            chains=chains,
            random_seed=seed,
            nuts_sampler=sampler,
            nuts={"target_accept": target_accept, "chain_method": method},
            progressbar=False,
            quiet=True,
            compute_convergence_checks=False,
        )

"""numpyro's NUTS on a JAX log posterior of the GLM probes, the data as arguments.

``sampler="numpyro"`` on a GLM probe (binary and one-vs-rest BLR, the Bayesian Platt and
beta maps: a builder with a ``glm_problem``) runs here rather than through PyMC's JAX
translation (:mod:`bayescal.inference.jax_nuts`). The density is
:class:`bayescal.inference.laplace_glm.LogisticGLM`'s, term for term (tested equal to it),
written in ``jax.numpy`` with the design matrix, targets and weights as *arguments* of the
compiled program (numpyro's ``jit_model_args``). PyMC's translation puts the data into the
JAX program as constants, so every fit traced and compiled it again (at n = 10^6, d = 20
XLA spends seconds folding the 160 MB constant) and a second fit on an accelerator cost
more than numpyro used directly; here one compiled program per shape serves every fit with
the same settings and shape (an LRU cache of :data:`_CACHE_SIZE` numpyro ``MCMC`` objects; each
keeps its last fit's arguments, as numpyro does, until its next fit or its eviction).
``benchmarks/nuts_gpu.py`` measures both against numpyro on a hand-written model.

Double precision: the module turns on ``jax_enable_x64`` (as PyMC's JAX samplers do), the
precision of the other samplers, the Laplace check and the NumPy density.

How chains run: :func:`bayescal.inference.jax_nuts.chain_method` (vectorised on one GPU,
one after another on a CPU, in parallel with a device per chain).
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Any

import numpy as np

__all__ = ["glm_log_density", "sample_glm_numpyro"]

#: numpyro ``MCMC`` objects (each holding its compiled program) kept for reuse; one per
#: combination of the density's static settings, the sampler's and the data's shape.
_CACHE_SIZE = 8
_MCMC_CACHE: OrderedDict[tuple, Any] = OrderedDict()

#: What numpyro records per draw -> the name PyMC's samplers give it in ``sample_stats``.
_STATS = {"diverging": "diverging", "energy": "energy", "num_steps": "n_steps",
          "accept_prob": "acceptance_rate"}


def _student_t_logpdf(jnp, gammaln, x, nu: float, scale: float):
    const = (gammaln((nu + 1.0) / 2.0) - gammaln(nu / 2.0) - 0.5 * np.log(nu * np.pi)
             - np.log(scale))
    return const - 0.5 * (nu + 1.0) * jnp.log1p(x * x / (nu * scale * scale))


@functools.cache
def glm_log_density(prior_scale: float, intercept_scale: float, prior_df: float,
                    positive: bool):
    """The JAX log posterior of a :class:`~bayescal.inference.laplace_glm.LogisticGLM`.

    Parameters
    ----------
    prior_scale, intercept_scale, prior_df : float
    positive : bool
        The density's static settings (as the ``LogisticGLM`` fields of those names).

    Returns
    -------
    callable
        ``log_density(theta, centred, targets, weights, b)``: ``theta`` of shape ``(p,)``,
        ``centred`` the design minus its centre ``(n, p - 1)``, ``b = (1, -centre)``; the
        value of ``LogisticGLM.log_density(theta)``.
    """
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax.scipy.special import gammaln

    def log_density(theta, centred, targets, weights, b):
        coef = jnp.exp(theta[1:]) if positive else theta[1:]
        eta = theta[0] + centred @ coef
        # t log sigma(eta) + (1 - t) log(1 - sigma(eta)) = t eta - softplus(eta)
        loglik = jnp.sum(weights * (targets * eta - jnp.logaddexp(0.0, eta)))
        c = theta[0] + coef @ b[1:]
        prior = (_student_t_logpdf(jnp, gammaln, c, prior_df, intercept_scale)
                 + jnp.sum(_student_t_logpdf(jnp, gammaln, coef, prior_df, prior_scale)))
        if positive:  # half-Student-t (log 2 each) and the log-Jacobian of exp
            prior = prior + coef.size * np.log(2.0) + jnp.sum(theta[1:])
        return loglik + prior

    return log_density


def _mcmc(key: tuple) -> Any:
    """The cached numpyro ``MCMC`` for ``key`` (density settings, sampler settings)."""
    if key in _MCMC_CACHE:
        _MCMC_CACHE.move_to_end(key)
        return _MCMC_CACHE[key]
    import numpyro
    import numpyro.distributions as dist
    from numpyro.infer import MCMC, NUTS

    (prior_scale, intercept_scale, prior_df, positive), sampling, _ = key
    draws, tune, chains, method, target_accept = sampling
    log_density = glm_log_density(prior_scale, intercept_scale, prior_df, positive)

    def model(centred, targets, weights, b):
        shape = (centred.shape[1] + 1,)
        theta = numpyro.sample(
            "theta", dist.ImproperUniform(dist.constraints.real_vector, (), shape))
        numpyro.factor("log_density", log_density(theta, centred, targets, weights, b))

    mcmc = MCMC(NUTS(model, target_accept_prob=target_accept), num_warmup=tune,
                num_samples=draws, num_chains=chains, chain_method=method,
                progress_bar=False, jit_model_args=True)
    _MCMC_CACHE[key] = mcmc
    while len(_MCMC_CACHE) > _CACHE_SIZE:
        _MCMC_CACHE.popitem(last=False)
    return mcmc


def sample_glm_numpyro(
    problem: Any,
    *,
    draws: int,
    tune: int,
    chains: int,
    seed: int,
    target_accept: float,
) -> Any:
    """NUTS draws of a :class:`~bayescal.inference.laplace_glm.GLMProblem` by numpyro.

    Parameters
    ----------
    problem : GLMProblem
        The log posterior (``problem.glm``) and how to name its draws.
    draws, tune, chains : int
        Draws and tuning steps per chain, and chains.
    seed : int
        Seed of the initial points and of the sampler.
    target_accept : float
        Target acceptance rate of the step-size adaptation.

    Returns
    -------
    xarray.DataTree
        ``posterior`` (the variables of the builder's PyMC model) and ``sample_stats``
        (``diverging``, ``energy``, ``n_steps``, ``acceptance_rate``).

    Raises
    ------
    ImportError
        Where JAX or numpyro is missing (:func:`bayescal.inference.jax_nuts.require_jax`).
    """
    from bayescal.inference.jax_nuts import chain_method, require_jax
    from bayescal.inference.nutpie_glm import glm_posterior_tree

    require_jax("numpyro")
    import jax

    glm = problem.glm
    settings = (float(glm.prior_scale), float(glm.intercept_scale), float(glm.prior_df),
                bool(glm.positive))
    method = chain_method("numpyro", chains, jax.local_device_count(), jax.default_backend())
    # the data's shape is part of the key: jit retraces for a new shape anyway, and numpyro's
    # vectorised chains fail on an MCMC reused with another one (numpyro 0.21-0.22)
    mcmc = _mcmc((settings, (draws, tune, chains, method, float(target_accept)),
                  glm.design.shape))
    b = np.concatenate([[1.0], -(np.zeros(glm.design.shape[1]) if glm.centre is None
                                 else np.asarray(glm.centre, dtype=float))])
    # as PyMC jitters its initial points: uniform(-1, 1) around the start
    jitter = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(chains, glm.n_params))
    init = glm.start() + jitter
    mcmc.run(jax.random.PRNGKey(seed), glm._centred, np.asarray(glm.targets, dtype=float),
             np.asarray(glm.weights, dtype=float), b,
             init_params={"theta": init if chains > 1 else init[0]},
             extra_fields=tuple(_STATS))
    theta = np.asarray(mcmc.get_samples(group_by_chain=True)["theta"])
    extra = mcmc.get_extra_fields(group_by_chain=True)
    stats = {_STATS[name]: np.asarray(extra[name]) for name in _STATS}
    return glm_posterior_tree(problem, theta, stats)

"""NUTS on JAX (numpyro, blackjax) on the GLM probes' log posterior, the data as arguments.

``sampler="numpyro"`` and ``sampler="blackjax"`` on a GLM probe (binary and one-vs-rest BLR,
the Bayesian Platt and beta maps: a builder with a ``glm_problem``) run here rather than
through PyMC's JAX translation (:mod:`bayescal.inference.jax_nuts`). The density is
:class:`bayescal.inference.laplace_glm.LogisticGLM`'s, term for term (tested equal to it),
written in ``jax.numpy`` with the design matrix, targets and weights as *arguments* of the
compiled program. PyMC's translation puts the data into the JAX program as constants, so
every fit traced and compiled it again (at n = 10^6, d = 20 XLA spends seconds folding the
160 MB constant) and a second fit on an H200 reached 0.81x numpyro's own ESS per second (1.02-
1.08x here; ``benchmarks/nuts_gpu.py``, ``benchmarks/README.md``). One compiled program per
sampler, settings and data shape serves every fit (an LRU cache of :data:`_CACHE_SIZE`:
numpyro ``MCMC`` objects, which keep their last fit's arguments as numpyro does until their
next fit or eviction, and jitted blackjax programs).

numpyro: ``MCMC(NUTS(model), jit_model_args=True)``, its own adaptation. blackjax: its
window adaptation (``tune`` steps, diagonal mass matrix, ``target_accept``) then NUTS, per
chain, one jitted program (the loop written here with ``jax.lax.scan``; blackjax offers the
kernels, not a driver).

Double precision: the module turns on ``jax_enable_x64`` (as PyMC's JAX samplers do), the
precision of the other samplers, the Laplace check and the NumPy density.

How chains run: :func:`bayescal.inference.jax_nuts.chain_method` (vectorised on one device,
numpyro's one after another on a CPU, in parallel with a device per chain).
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Any

import numpy as np

__all__ = ["glm_log_density", "sample_glm_jax"]

#: Compiled programs (numpyro ``MCMC`` objects, jitted blackjax drivers) kept for reuse; one
#: per sampler, density settings, sampler settings and data shape.
_CACHE_SIZE = 8
_PROGRAMS: OrderedDict[tuple, Any] = OrderedDict()

#: What numpyro records per draw -> the name PyMC's samplers give it in ``sample_stats``
#: (the blackjax driver returns the same four, in this order).
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


def _cached_program(key: tuple, build) -> Any:
    """``_PROGRAMS[key]``, built by ``build(key)`` (and the least recently used evicted)
    when absent."""
    if key in _PROGRAMS:
        _PROGRAMS.move_to_end(key)
        return _PROGRAMS[key]
    program = _PROGRAMS[key] = build(key)
    while len(_PROGRAMS) > _CACHE_SIZE:
        _PROGRAMS.popitem(last=False)
    return program


def _numpyro_mcmc(key: tuple) -> Any:
    """A numpyro ``MCMC`` for ``key`` (sampler, density settings, sampler settings, shape)."""
    import numpyro
    import numpyro.distributions as dist
    from numpyro.infer import MCMC, NUTS

    _, (prior_scale, intercept_scale, prior_df, positive), sampling, _ = key
    draws, tune, chains, method, target_accept = sampling
    log_density = glm_log_density(prior_scale, intercept_scale, prior_df, positive)

    def model(centred, targets, weights, b):
        shape = (centred.shape[1] + 1,)
        theta = numpyro.sample(
            "theta", dist.ImproperUniform(dist.constraints.real_vector, (), shape))
        numpyro.factor("log_density", log_density(theta, centred, targets, weights, b))

    return MCMC(NUTS(model, target_accept_prob=target_accept), num_warmup=tune,
                num_samples=draws, num_chains=chains, chain_method=method,
                progress_bar=False, jit_model_args=True)


def _blackjax_program(key: tuple) -> Any:
    """A jitted blackjax program for ``key``: window adaptation then NUTS, per chain, the
    data as arguments (``jax.jit`` compiles once per shape)."""
    import blackjax
    import jax

    _, (prior_scale, intercept_scale, prior_df, positive), sampling, _ = key
    draws, tune, chains, method, target_accept = sampling
    log_density = glm_log_density(prior_scale, intercept_scale, prior_df, positive)

    def one_chain(rng_key, init, centred, targets, weights, b):
        def logdensity(theta):
            return log_density(theta, centred, targets, weights, b)

        warm_key, sample_key = jax.random.split(rng_key)
        warmup = blackjax.window_adaptation(blackjax.nuts, logdensity,
                                            target_acceptance_rate=target_accept)
        (state, parameters), _ = warmup.run(warm_key, init, num_steps=tune)
        step_kernel = blackjax.nuts(logdensity, **parameters).step

        def step(state, step_key):
            state, info = step_kernel(step_key, state)
            return state, (state.position, info.is_divergent, info.energy,
                           info.num_integration_steps, info.acceptance_rate)

        return jax.lax.scan(step, state, jax.random.split(sample_key, draws))[1]

    axes = (0, 0, None, None, None, None)
    return (jax.pmap(one_chain, in_axes=axes) if method == "parallel"
            else jax.jit(jax.vmap(one_chain, in_axes=axes)))


def sample_glm_jax(
    problem: Any,
    *,
    sampler: str,
    draws: int,
    tune: int,
    chains: int,
    seed: int,
    target_accept: float,
) -> Any:
    """NUTS draws of a :class:`~bayescal.inference.laplace_glm.GLMProblem` on JAX.

    Parameters
    ----------
    problem : GLMProblem
        The log posterior (``problem.glm``) and how to name its draws.
    sampler : {"numpyro", "blackjax"}
        numpyro's NUTS (``MCMC``, its adaptation) or blackjax's (window adaptation, NUTS).
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
        Where JAX or the sampler's library is missing
        (:func:`bayescal.inference.jax_nuts.require_jax`).
    """
    from bayescal.inference.jax_nuts import chain_method, require_jax
    from bayescal.inference.nutpie_glm import glm_posterior_tree

    require_jax(sampler)
    import jax

    glm = problem.glm
    settings = (float(glm.prior_scale), float(glm.intercept_scale), float(glm.prior_df),
                bool(glm.positive))
    method = chain_method(sampler, chains, jax.local_device_count(), jax.default_backend())
    # the data's shape is part of the key: jit retraces for a new shape anyway, and numpyro's
    # vectorised chains fail on an MCMC reused with another one (numpyro 0.21-0.22)
    key = (sampler, settings, (draws, tune, chains, method, float(target_accept)),
           glm.design.shape)
    b = np.concatenate([[1.0], -(np.zeros(glm.design.shape[1]) if glm.centre is None
                                 else np.asarray(glm.centre, dtype=float))])
    # as PyMC jitters its initial points: uniform(-1, 1) around the start
    jitter = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(chains, glm.n_params))
    init = glm.start() + jitter
    data = (glm._centred, np.asarray(glm.targets, dtype=float),
            np.asarray(glm.weights, dtype=float), b)
    if sampler == "numpyro":
        mcmc = _cached_program(key, _numpyro_mcmc)
        mcmc.run(jax.random.PRNGKey(seed), *data,
                 init_params={"theta": init if chains > 1 else init[0]},
                 extra_fields=tuple(_STATS))
        theta = np.asarray(mcmc.get_samples(group_by_chain=True)["theta"])
        extra = mcmc.get_extra_fields(group_by_chain=True)
        stats = {_STATS[name]: np.asarray(extra[name]) for name in _STATS}
    else:
        program = _cached_program(key, _blackjax_program)
        keys = jax.random.split(jax.random.PRNGKey(seed), chains)
        position, *values = (np.asarray(v) for v in program(keys, init, *data))
        theta = position
        stats = dict(zip(_STATS.values(), values, strict=True))
    return glm_posterior_tree(problem, theta, stats)

"""nutpie's NUTS on the NumPy log posterior of the GLM probes (``sampler="nutpie-glm"``).

The GLM probes (binary BLR, the Bayesian Platt and beta maps) describe their posterior
twice: as a PyMC model and as a :class:`bayescal.inference.laplace_glm.LogisticGLM` (the
builder's ``glm_problem``). nutpie's default path compiles the PyMC graph with Numba, whose
elementwise ``log1pexp``/``sigmoid`` are scalar libm calls: at n = 10^4 (d = 20) a log
density and gradient cost 0.47 ms there against 0.15 ms in NumPy, whose ``exp`` is
vectorised (``benchmarks/README.md``, "NUTS on BLR"). This module runs nutpie's sampler
(the same NUTS and adaptation) on :meth:`LogisticGLM.value_and_grad` through
``nutpie.compiled_pyfunc.from_pyfunc``: no compilation at all, a Python call per gradient
(chains share the GIL outside NumPy's kernels, so it pays most for large n).

The default ``sampler="auto"`` of the GLM probes runs this module from
:data:`bayescal.inference.sampling.GLM_SAMPLER_MIN_ROWS` rows, where it is cheaper per fit than
the compiled graph; below that the Python call per gradient (10-20 microseconds) costs more
than the compiled graph's refit (:func:`bayescal.inference.sampling.resolve_nuts_sampler`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["glm_posterior_tree", "sample_glm_nutpie"]


def sample_glm_nutpie(
    problem: Any,
    *,
    draws: int,
    tune: int,
    chains: int,
    seed: int,
    cores: int,
    target_accept: float,
) -> Any:
    """NUTS draws of a :class:`~bayescal.inference.laplace_glm.GLMProblem` by nutpie.

    Parameters
    ----------
    problem : GLMProblem
        The log posterior (``problem.glm``) and how to name its draws.
    draws, tune, chains : int
        Draws and tuning steps per chain, and chains.
    seed : int
        Seed of the initial points and of the sampler.
    cores : int
        Chains run at once (threads).
    target_accept : float
        Target acceptance rate of the step-size adaptation.

    Returns
    -------
    xarray.DataTree
        ``posterior`` (the variables of the builder's PyMC model, dims ``chain``, ``draw``
        and the model's) and nutpie's ``sample_stats``.
    """
    import nutpie
    from nutpie.compiled_pyfunc import from_pyfunc

    glm = problem.glm
    n_params = glm.n_params
    start = glm.start()

    def make_logp_fn():
        def logp(x, **_):
            return glm.value_and_grad(x)

        return logp

    def make_expand_fn(*_):
        return lambda x, **__: {"theta": np.array(x, dtype=np.float64)}

    def initial_point(point_seed):
        # as PyMC jitters its initial points: uniform(-1, 1) around the start
        return start + np.random.default_rng(point_seed).uniform(-1.0, 1.0, size=n_params)

    model = from_pyfunc(
        ndim=n_params,
        make_logp_fn=make_logp_fn,
        make_expand_fn=make_expand_fn,
        expanded_dtypes=[np.dtype("float64")],
        expanded_shapes=[(n_params,)],
        expanded_names=["theta"],
        make_initial_point_fn=initial_point,
    )
    idata = nutpie.sample(
        model,
        draws=draws,
        tune=tune,
        chains=chains,
        cores=cores,
        seed=seed,
        target_accept=target_accept,
        progress_bar=False,
    )
    theta = np.asarray(idata["posterior"]["theta"].values)  # (chain, draw, p)
    stats = idata["sample_stats"].to_dataset()
    keep = [v for v in stats.data_vars if set(stats[v].dims) <= {"chain", "draw"}]
    return glm_posterior_tree(problem, theta, {v: stats[v].values for v in keep})


def glm_posterior_tree(problem: Any, theta: np.ndarray, stats: dict[str, np.ndarray]) -> Any:
    """The posterior of a GLM problem's NUTS draws, as the PyMC builder's model names it.

    Parameters
    ----------
    problem : GLMProblem
    theta : ndarray of shape (chains, draws, p)
        Draws of the unconstrained parameter vector.
    stats : dict of str to ndarray of shape (chains, draws)
        The sampler's statistics per draw (``diverging`` among them).

    Returns
    -------
    xarray.DataTree
        ``posterior`` and ``sample_stats``.
    """
    import xarray as xr

    n_chains, n_draws, n_params = theta.shape
    data_vars = {}
    for name, (values, dims) in problem.outputs(theta.reshape(-1, n_params)).items():
        data_vars[name] = (("chain", "draw", *dims),
                           values.reshape(n_chains, n_draws, *values.shape[1:]))
    chain_draw = {"chain": np.arange(n_chains), "draw": np.arange(n_draws)}
    posterior = xr.Dataset(data_vars, coords={**problem.coords, **chain_draw})
    sample_stats = xr.Dataset({k: (("chain", "draw"), v) for k, v in stats.items()},
                              coords=chain_draw)
    return xr.DataTree.from_dict({"posterior": posterior, "sample_stats": sample_stats})

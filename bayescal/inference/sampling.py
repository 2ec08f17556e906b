"""The sampling layer: fit a PyMC model once compiled, many times on new data.

Every Bayesian probe in bayescal describes its model with a *pure builder*:
a function ``builder(data, **hyper) -> pm.Model`` that puts each array of
``data`` into the model as a ``pm.Data`` container of the same name and reads
everything else from the keyword hyper-parameters. :func:`sample_posterior`
turns a builder, its data and its hyper-parameters into a posterior
(an ``xarray.DataTree`` as PyMC and nutpie return it) plus the wall time.

Why a layer of its own
----------------------
Compiling a model is the expensive part of NUTS on the problems bayescal
fits (a probe refitted on 10 folds, 50 data sets, 20 bootstrap samples):
measured in the issue, BLR at n=1000, d=20 costs PyMC's own NUTS 13.6 s per
fit, while nutpie needs ~40 s to compile and then 1.6-2.0 s per fit. So:

* ``sampler="nutpie"`` compiles the model **once per process per model
  structure** and refits new data with ``compiled.with_data(...)`` (no
  recompilation). The structure key is the builder's qualified name, the
  names, dtypes and trailing shapes of the data arrays (``X.shape[1:]``, not
  the number of rows) and the hyper-parameters. Builders must therefore not
  give the observation axis a named dim (leave ``dims`` off that axis of the
  ``pm.Data``) so that folds of different size share one compiled model.
* Across processes, PyTensor's Numba backend caches the compiled kernels of
  the log-density on disk (``pytensor.config.numba__cache``, in
  ``pytensor.config.compiledir``), but nutpie 0.16 wraps them in two
  ``numba.cfunc`` trampolines that close over the jitted PyTensor function
  ("dynamic globals"), which numba cannot cache: every new process (a Dask
  worker, a CLI run) compiles them again, tens of seconds
  (``benchmarks/compile_cache.py``). nutpie 0.16 has no other persistent cache.
* ``sampler="nutpie-c"`` runs nutpie's NUTS on callbacks into a log-density
  compiled by PyTensor's C backend (:mod:`bayescal.inference.nutpie_c`), whose
  modules *are* cached on disk, in PyTensor's per-user ``compiledir``
  (``~/.pytensor/compiledir_*`` by default, or wherever ``PYTENSOR_FLAGS``
  put it; never inside the package): a second process only rebuilds and
  rewrites the graph and loads them (0.9-1.3 CPU-s against 7.5-11 CPU-s for
  ``"nutpie"``, ``benchmarks/compile_cache.py``), at the price of a Python
  call per gradient (chains share the GIL). The compile-once cache applies
  as for ``"nutpie"``.
* Which is the default, by measurement (``benchmarks/sampler_choice.py``,
  2 x (1000 + 1000) draws, CPU seconds on a loaded 2-core machine): the
  sampling itself costs ``"nutpie-c"`` the same as ``"nutpie"`` at
  n = 10,000 (10.8 against 10.3 CPU-s at d = 5, 27.2 against 25.1 at
  d = 50) but 1.5-4.7x as much at n = 300-2000 (2.1 against 0.44 at
  n = 300, d = 5; 5.8 against 3.6 at n = 2000, d = 20) and 1.8-7x as much
  for the Bayesian calibration maps (spline map, n = 300: 6.2 against 0.9).
  So ``"nutpie-c"`` wins a process's *first* fit of a structure at every
  size (it saves 6-10 CPU-s of compilation), and ``"nutpie"`` wins once a
  process refits the same structure about 3-5 times (n <= 2000) -- the
  usual case in studies (folds, scenarios, inner cross-validation), where
  every worker keeps its compiled models. ``"nutpie"`` stays the default;
  choose ``"nutpie-c"`` for one-off fits in fresh processes (a CLI call, a
  short-lived worker), and at n around 10,000 when the cores are busy anyway
  (equal sampling CPU; on idle cores ``"nutpie"`` runs its chains in
  parallel, ``"nutpie-c"`` one at a time). PyMC's own NUTS with the C linker
  also starts in about 1 CPU-s but sampled 3-8x slower in wall time in the
  same runs. Both nutpie options run nuts-rs with the same seeding and initial
  points: at a fixed seed their draws were identical at most sizes measured,
  and their posterior means agree within Monte Carlo error (tested).
* ``sampler="pymc"`` calls ``pm.sample(..., nuts_sampler="pymc")`` on a
  freshly built model. The choice is explicit on purpose: with PyTensor's
  default mode here (Numba linker) ``pm.sample`` *without* ``nuts_sampler``
  silently switches to nutpie when nutpie is installed (PyMC 6.4,
  ``pymc/sampling/mcmc.py``), recompiling on every call.
* ``sampler="nutpie-glm"`` runs nutpie's NUTS on the NumPy log posterior
  and gradient of a builder's ``glm_problem`` (binary and one-vs-rest BLR,
  the Platt and beta maps; :mod:`bayescal.inference.nutpie_glm`): nothing is
  compiled, and a gradient costs a third of the Numba-compiled graph's at
  n = 10^4, whose elementwise ``log1pexp``/``sigmoid`` are scalar libm calls
  (``benchmarks/nuts_ess.py``); but every gradient is a Python call
  (10-20 microseconds of overhead). A model without a ``glm_problem`` (the
  multinomial BLR, the spline and Dirichlet maps, the GP classifier, the
  hierarchical comparison) raises a ``ValueError``.
* ``sampler="auto"`` (the default) chooses between the two by the model and
  the number of rows, so that each fit gets the cheaper exact NUTS:
  ``"nutpie-glm"`` for a model with a ``glm_problem`` of at least
  :data:`GLM_SAMPLER_MIN_ROWS` rows, ``"nutpie"`` otherwise. Measured
  (2 x (1000 + 1000) draws, one BLAS thread, CPU-s per fit once nutpie's
  model is compiled; 2 shared cores, load 7-10): ``"nutpie-glm"`` costs
  2.5x ``"nutpie"`` at n = 300 (BLR d = 5: 0.72 against 0.29; Platt map:
  0.50 against 0.16), 1.1-1.7x at n = 1000 (BLR d = 20: 1.37 against 1.26;
  Platt map: 0.80 against 0.46), and 0.55-0.8x from n = 2000 (BLR d = 5:
  0.87 against 1.26, d = 20: 1.5 against 2.2; beta map: 2.2 against 2.7;
  0.32x at n = 10^4, ``benchmarks/nuts_ess.py``). Below the threshold the
  compiled graph's cheaper gradient pays back its one-off compilation
  (3-7 CPU-s per process and model structure) after a few refits, as a
  study makes; above it ``"nutpie-glm"`` is cheaper from the first fit on.
  The choice depends on the data's shape only, never on what a process has
  compiled before, so the same seed gives the same draws in any process;
  ``PosteriorFit.sampler`` (and the estimators' ``diagnostics_.sampler``)
  says which ran.
* ``sampler="numpyro"`` and ``sampler="blackjax"`` call PyMC's JAX
  samplers (``pm.sample(..., nuts_sampler="numpyro" | "blackjax")``,
  :mod:`bayescal.inference.jax_nuts`): the same probes on a GPU or TPU where
  JAX has one. JAX is optional (``pip install "bayescal[jax]"``) and
  imported only when asked for. PyMC bakes the data into the JAX program,
  so every fit compiles again; for the GLM probes (a builder with a
  ``glm_problem``) both therefore sample the same posterior's JAX
  density with the data as arguments, compiled once per shape
  (:mod:`bayescal.inference.jax_glm`). On CPU see ``benchmarks/nuts_ess.py``,
  on a GPU ``benchmarks/nuts_gpu.py``.
* ``inference="advi"`` runs mean-field ADVI (``pm.fit``) and
  ``inference="laplace"`` a Laplace approximation: the posterior mode and
  the inverse Hessian of the negative log-density in the unconstrained
  space, both of the log-density *with* the transforms' log-Jacobian, so
  that scale parameters keep a finite mode; the Gaussian draws are mapped
  back to the constrained space (``pm.find_MAP`` drops the Jacobian, and
  pymc-extras is not a dependency). A builder with a ``glm_problem``
  attribute (binary BLR, the Platt and beta maps) gets the mode by Newton's
  method on the exact log posterior with its analytic gradient and Hessian
  in NumPy (:mod:`bayescal.inference.laplace_glm`): no graph is built or
  compiled, and a fit costs a few times a maximum-likelihood fit
  (``benchmarks/laplace.py``). Any other model goes through a program
  compiled once per model structure (the MAP by L-BFGS, a central-difference
  Hessian of the exact gradient), refitted by swapping data into its
  ``pm.Data`` containers (under a lock, since that is shared state).
  Both Laplace and ADVI draws are then checked against the model's exact
  log density by Pareto-smoothed importance sampling
  (:mod:`bayescal.inference.importance`): the shape ``k`` is returned as
  ``PosteriorFit.pareto_k`` and, where ``k <= 0.7``, the draws are
  resampled by their importance weights so that means and intervals are
  the posterior's.
  Both return ``draws * chains`` independent draws under ``chain=0`` in the
  same DataTree layout as NUTS, so the posterior contract of
  :mod:`bayescal.inference.posterior` holds for every inference.

Threads and Dask
----------------
Sampling runs inside :func:`bayescal.threads.limit_blas_threads` (one BLAS
thread by default), since BLAS threads oversubscribe the cores when chains run
in parallel. nutpie runs its chains as Rust threads in the calling process, so
it works unchanged inside daemonic Dask worker processes. PyMC's NUTS runs
chains in child processes when ``cores > 1``, which daemonic processes may not
start; there ``cores`` is set to 1 (chains run one after another).
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from bayescal._compat.param_validation import Interval, StrOptions, validate_parameter_constraints
from bayescal.threads import limit_blas_threads
from bayescal.validation import check_choice, check_positive_int

__all__ = [
    "SAMPLER_CONSTRAINTS",
    "STUDENT_T_PRIOR_CONSTRAINTS",
    "GLM_SAMPLER_MIN_ROWS",
    "SAMPLERS",
    "PosteriorFit",
    "clear_compiled_cache",
    "compiled_cache_size",
    "model_structure_key",
    "resolve_nuts_sampler",
    "sample_posterior",
    "sampler_settings",
    "seed_from_random_state",
    "student_t_prior_hyper",
]

INFERENCES = ("nuts", "advi", "laplace")
SAMPLERS = ("auto", "nutpie", "nutpie-c", "nutpie-glm", "pymc", "numpyro", "blackjax")

#: Rows from which ``sampler="auto"`` samples a model that has a NumPy log posterior
#: (a builder's ``glm_problem``) by ``"nutpie-glm"`` rather than ``"nutpie"``: where
#: the NumPy gradient becomes cheaper than the Numba-compiled graph's (measured, see
#: the module docstring).
GLM_SAMPLER_MIN_ROWS = 2000

#: ``_parameter_constraints`` entries of the sampler settings that every Bayesian
#: estimator passes on to :func:`sample_posterior` (checked by scikit-learn's
#: ``_validate_params``); ``random_state`` also takes a ``np.random.Generator``.
SAMPLER_CONSTRAINTS: dict[str, list] = {
    "inference": [StrOptions(set(INFERENCES))],
    "sampler": [StrOptions(set(SAMPLERS))],
    "draws": [Interval(Integral, 1, None, closed="left")],
    "tune": [Interval(Integral, 0, None, closed="left")],
    "chains": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state", np.random.Generator],
}

#: ``_parameter_constraints`` entries of the Student-t prior (Gelman et al. 2008):
#: positive finite scales and degrees of freedom (NaN and infinity are refused).
STUDENT_T_PRIOR_CONSTRAINTS: dict[str, list] = {
    name: [Interval(Real, 0, None, closed="neither")]
    for name in ("prior_scale", "intercept_scale", "prior_df")
}

_COMPILED: dict[tuple, Any] = {}
_COMPILED_LOCK = threading.Lock()
_KEY_LOCKS: dict[tuple, threading.Lock] = {}


@dataclass(frozen=True)
class PosteriorFit:
    """A posterior and how it was obtained.

    Attributes
    ----------
    idata : xarray.DataTree
        Posterior with a ``posterior`` group (dims ``chain``, ``draw`` and the
        model's named dims); NUTS adds ``sample_stats``.
    seconds : float
        Wall time of the fit (compilation included when it happened).
    sampler : str
        What ran: ``"nutpie"``, ``"nutpie-c"``, ``"nutpie-glm"``, ``"pymc"``,
        ``"numpyro"``, ``"blackjax"``, ``"advi"`` or ``"laplace"`` (never
        ``"auto"``, which resolves to ``"nutpie"`` or ``"nutpie-glm"``).
    compiled : bool
        True when this call compiled a nutpie model (a cache miss).
    mode : dict or None
        Laplace only: the posterior mode (in the unconstrained space of the
        transforms, with their log-Jacobian) mapped to every free variable and
        deterministic, by name.
    pareto_k : float
        Laplace and ADVI: the Pareto shape of the draws' importance weights
        against the exact log density (:mod:`bayescal.inference.importance`);
        NaN for NUTS.
    """

    idata: Any
    seconds: float
    sampler: str
    compiled: bool = False
    mode: dict[str, np.ndarray] | None = None
    pareto_k: float = float("nan")


def seed_from_random_state(random_state: Any) -> int:
    """An integer seed in ``[0, 2**31)`` from ``None``, an int or a Generator.

    ``None`` draws fresh entropy; an int is used as is (so the same int gives
    the same draws); a ``numpy.random.Generator`` or ``RandomState`` yields
    its next integer.

    Raises
    ------
    TypeError
        For any other type.
    ValueError
        For a negative int.
    """
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1)[0] % (2**31))
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError(
            f"`random_state` must be None, an int or a Generator; got {random_state!r}."
        )
    if isinstance(random_state, (int, np.integer)):
        if random_state < 0:
            raise ValueError(f"`random_state` must be non-negative; got {random_state}.")
        return int(random_state) % (2**31)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**31))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    raise TypeError(
        f"`random_state` must be None, an int or a numpy Generator; got {type(random_state).__name__}."
    )


def sampler_settings(estimator: Any) -> dict[str, Any]:
    """Validate an estimator's sampler settings and return them by name.

    ``inference``, ``sampler``, ``draws``, ``tune`` and ``chains``: the keyword
    arguments that every Bayesian estimator passes on to
    :func:`sample_posterior`, checked against :data:`SAMPLER_CONSTRAINTS` (the
    entries the estimators' ``_parameter_constraints`` tables share).

    Parameters
    ----------
    estimator : object
        Has the attributes ``inference``, ``sampler``, ``draws``, ``tune`` and
        ``chains``.

    Returns
    -------
    dict
        The five settings by name, ready for ``sample_posterior(**settings)``.

    Raises
    ------
    ValueError, TypeError
        Naming the bad setting.
    """
    settings = {
        name: getattr(estimator, name) for name in ("inference", "sampler", "draws", "tune", "chains")
    }
    _validate_against(SAMPLER_CONSTRAINTS, settings, estimator)
    return settings


def student_t_prior_hyper(estimator: Any) -> dict[str, float]:
    """Validate the Student-t prior settings of an estimator and return them as floats.

    Parameters
    ----------
    estimator : object
        Has the attributes ``prior_scale``, ``intercept_scale`` and
        ``prior_df`` (scale of the coefficients' and of the intercept's
        ``t_nu`` prior, and ``nu``; Gelman et al. 2008).

    Returns
    -------
    dict
        ``{"prior_scale": ..., "intercept_scale": ..., "prior_df": ...}``.

    Raises
    ------
    TypeError, ValueError
        When a setting is not a positive finite number.
    """
    hyper = {name: getattr(estimator, name) for name in STUDENT_T_PRIOR_CONSTRAINTS}
    _validate_against(STUDENT_T_PRIOR_CONSTRAINTS, hyper, estimator)
    return {name: float(value) for name, value in hyper.items()}


def _validate_against(constraints: dict[str, list], values: dict[str, Any], owner: Any) -> None:
    """Check ``values`` with scikit-learn's validator (the estimators' own tables)."""
    validate_parameter_constraints(
        {name: constraints[name] for name in values}, values, caller_name=type(owner).__name__
    )


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    return value


def model_structure_key(
    builder: Callable[..., Any], data: Mapping[str, np.ndarray], hyper: Mapping[str, Any]
) -> tuple:
    """The key under which a compiled model is cached.

    Two fits share a compiled model when their builder (module and qualified
    name), data names, dtypes, ranks and trailing shapes (all but the number of
    rows) and hyper-parameters agree.
    """
    data_sig = tuple(
        (name, np.asarray(arr).dtype.str, np.asarray(arr).shape[1:])
        for name, arr in sorted(data.items())
    )
    return (
        getattr(builder, "__module__", ""),
        getattr(builder, "__qualname__", repr(builder)),
        data_sig,
        _freeze(dict(hyper)),
    )


def compiled_cache_size() -> int:
    """Number of nutpie models compiled and kept in this process."""
    with _COMPILED_LOCK:
        return len(_COMPILED)


def clear_compiled_cache() -> None:
    """Forget the nutpie models and Laplace programs compiled in this process."""
    with _COMPILED_LOCK:
        _COMPILED.clear()
        _LAPLACE.clear()
        _KEY_LOCKS.clear()


def _compiled_nutpie(builder, data, hyper, sampler="nutpie") -> tuple[Any, bool]:
    """The compiled nutpie model for this structure, with ``data`` swapped in.

    ``sampler="nutpie"`` compiles through nutpie's Numba backend,
    ``"nutpie-c"`` through PyTensor's C backend
    (:func:`bayescal.inference.nutpie_c.compile_nutpie_c`).
    """
    import nutpie

    key = (sampler, *model_structure_key(builder, data, hyper))
    with _COMPILED_LOCK:
        compiled = _COMPILED.get(key)
        key_lock = _KEY_LOCKS.setdefault(key, threading.Lock())
    fresh = False
    if compiled is None:
        with key_lock:  # two threads asking for one structure compile it once
            with _COMPILED_LOCK:
                compiled = _COMPILED.get(key)
            if compiled is None:
                model = builder(data, **hyper)
                if sampler == "nutpie-c":
                    from bayescal.inference.nutpie_c import compile_nutpie_c

                    compiled = compile_nutpie_c(model)
                else:
                    compiled = nutpie.compile_pymc_model(model, backend="numba")
                fresh = True
                with _COMPILED_LOCK:
                    _COMPILED[key] = compiled
    return compiled.with_data(**data), fresh


def _in_daemon_process() -> bool:
    return bool(multiprocessing.current_process().daemon)


def resolve_nuts_sampler(
    builder: Callable[..., Any], data: Mapping[str, Any], hyper: Mapping[str, Any] | None,
    sampler: str,
) -> str:
    """The NUTS implementation that ``sample_posterior(..., sampler=sampler)`` runs.

    ``"auto"`` resolves to ``"nutpie-glm"`` for a builder with a ``glm_problem``
    (binary and one-vs-rest BLR, the Bayesian Platt and beta maps) fitted to at
    least :data:`GLM_SAMPLER_MIN_ROWS` rows, and to ``"nutpie"`` otherwise; every
    other name is returned as it is.

    Parameters
    ----------
    builder : callable
        The model builder, as for :func:`sample_posterior`.
    data : mapping of str to array-like
        Its data.
    hyper : mapping or None
        Its hyper-parameters.
    sampler : str
        One of ``SAMPLERS``.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        For an unknown ``sampler``, or ``"nutpie-glm"`` for a model without a
        NumPy log posterior.
    """
    sampler = check_choice(sampler, "sampler", SAMPLERS)
    data = {name: np.asarray(value) for name, value in data.items()}
    return _resolve_nuts_sampler(builder, data, dict(hyper or {}), sampler)[0]


def _resolve_nuts_sampler(builder, data, hyper, sampler) -> tuple[str, Any]:
    """``(sampler that runs, the GLMProblem or None)``; see :func:`resolve_nuts_sampler`."""
    if sampler not in ("auto", "nutpie-glm"):
        return sampler, None
    problem = getattr(builder, "glm_problem", None)
    glm = problem(data, **hyper) if problem is not None else None
    if glm is None and sampler == "nutpie-glm":
        name = getattr(builder, "__qualname__", repr(builder))
        raise ValueError(
            "`sampler`='nutpie-glm' needs a model with a NumPy log posterior (binary and "
            f"one-vs-rest BLR, the Bayesian Platt and beta maps); this one ({name} with "
            "these data and settings) has none; use sampler='auto' (nutpie-glm where it "
            "applies, nutpie otherwise) or sampler='nutpie'."
        )
    if glm is not None and (
        sampler == "nutpie-glm" or glm.glm.design.shape[0] >= GLM_SAMPLER_MIN_ROWS
    ):
        return "nutpie-glm", glm
    # auto without a NumPy density, or with too few rows to pay for a Python call
    # per gradient: nutpie's compiled graph
    return "nutpie", None


def _sample_nuts(
    builder, data, hyper, *, sampler, draws, tune, chains, seed, cores, target_accept
):
    # The arguments nutpie.sample and pm.sample share (by the same names).
    common = {"draws": draws, "tune": tune, "chains": chains, "target_accept": target_accept}
    sampler, glm = _resolve_nuts_sampler(builder, data, hyper, sampler)
    if sampler == "nutpie-glm":
        from bayescal.inference.nutpie_glm import sample_glm_nutpie

        idata = sample_glm_nutpie(glm, seed=seed, cores=cores, **common)
        return idata, False, "nutpie-glm"
    if sampler in ("nutpie", "nutpie-c"):
        import nutpie

        compiled, fresh = _compiled_nutpie(builder, data, hyper, sampler)
        idata = nutpie.sample(compiled, cores=cores, seed=seed, progress_bar=False, **common)
        return idata, fresh, sampler
    if sampler in ("numpyro", "blackjax"):
        from bayescal.inference.jax_nuts import require_jax, sample_jax_nuts

        require_jax(sampler)  # before building the model: a missing package is said first
        problem = getattr(builder, "glm_problem", None)
        glm = problem(data, **hyper) if problem is not None else None
        if glm is not None:  # the GLM density with the data as arguments: compiled once
            from bayescal.inference.jax_glm import sample_glm_jax

            idata = sample_glm_jax(glm, sampler=sampler, seed=seed, **common)
            return idata, False, sampler
        model = builder(data, **hyper)
        idata = sample_jax_nuts(model, sampler=sampler, seed=seed, **common)
        return idata, False, sampler
    import pymc as pm

    if _in_daemon_process():
        cores = 1
    model = builder(data, **hyper)
    with model:
        idata = pm.sample(
            cores=cores,
            random_seed=seed,
            nuts_sampler="pymc",
            progressbar=False,
            compute_convergence_checks=False,
            **common,
        )
    return idata, False, sampler


def _sample_advi(builder, data, hyper, *, n_draws, seed, iterations):
    import pymc as pm

    program = _laplace_program(builder, data, hyper)
    with program.lock:  # the model's data containers are shared state
        model = program.model
        pm.set_data(data, model=model)
        with model:
            # Adam with step 0.01: PyMC's default (adagrad_window, 1e-3) needs
            # several times more iterations to reach the same ELBO on these models.
            approx = pm.fit(
                n=iterations,
                method="advi",
                obj_optimizer=pm.adam(learning_rate=0.01),
                random_seed=seed,
                progressbar=False,
            )
        ordering = approx.groups[0].ordering
        mean, std = np.asarray(approx.mean.eval()), np.asarray(approx.std.eval())
        # the mean-field vector in the order of the program's value variables
        order = np.concatenate(
            [np.arange(ordering[v.name][1].start, ordering[v.name][1].stop)
             for v in program.value_vars]
        )
        mean, std = mean[order], std[order]
        rng = np.random.default_rng(seed + 1)
        z = rng.standard_normal((n_draws, mean.size))
        flat = mean + z * std
        return _checked_draws(program, flat, -0.5 * (z * z).sum(axis=1), rng)


def _posterior_tree(model, values: dict[str, np.ndarray]) -> Any:
    """A DataTree with a ``posterior`` group from draws of shape (1, n_draws, ...)."""
    import xarray as xr

    data_vars = {}
    coords: dict[str, Any] = {}
    for name, arr in values.items():
        dims = list(model.named_vars_to_dims.get(name) or ())
        extra = arr.ndim - 2
        if len(dims) != extra:
            dims = [f"{name}_dim_{i}" for i in range(extra)]
        for dim in dims:
            if dim in model.coords and model.coords[dim] is not None:
                coords[dim] = list(model.coords[dim])
        data_vars[name] = (("chain", "draw", *dims), arr)
    n_draws = next(iter(values.values())).shape[1]
    coords.update({"chain": [0], "draw": np.arange(n_draws)})
    posterior = xr.Dataset(data_vars, coords=coords)
    return xr.DataTree.from_dict({"posterior": posterior})


def _numerical_hessian(grad: Callable[[np.ndarray], np.ndarray], x: np.ndarray) -> np.ndarray:
    """Central-difference Hessian of a function from its exact gradient."""
    n = x.size
    hess = np.empty((n, n))
    for i in range(n):
        step = 1e-5 * max(1.0, abs(float(x[i])))
        e = np.zeros(n)
        e[i] = step
        hess[i] = (grad(x + e) - grad(x - e)) / (2.0 * step)
    return 0.5 * (hess + hess.T)


@dataclass
class _LaplaceProgram:
    """A built model and its compiled log-density, gradient and outputs."""

    model: Any
    fn: Any
    value_vars: list
    rvs: list
    lock: threading.Lock


_LAPLACE: dict[tuple, _LaplaceProgram] = {}


def _laplace_program(builder, data, hyper) -> _LaplaceProgram:
    """Build and compile once per model structure (as for nutpie); swap data in."""
    import pytensor

    key = model_structure_key(builder, data, hyper)
    with _COMPILED_LOCK:
        program = _LAPLACE.get(key)
    if program is None:
        model = builder(data, **hyper)
        value_vars = list(model.continuous_value_vars)
        if len(value_vars) != len(model.value_vars):
            raise ValueError("inference='laplace' needs a model without discrete parameters.")
        # Laplace in the unconstrained space *with* the log-Jacobian of the
        # transforms: the mode of log(sigma) stays finite for a half-normal
        # scale, where the MAP of pm.find_MAP (jacobian=False) runs to 0.
        logp = model.logp(jacobian=True)
        grads = pytensor.grad(logp, value_vars)
        rvs = [*model.free_RVs, *model.deterministics]
        outputs = model.replace_rvs_by_values(rvs)
        fn = model.compile_fn(
            [logp, *grads, *outputs], inputs=value_vars, on_unused_input="ignore", point_fn=False
        )
        program = _LaplaceProgram(model, fn, value_vars, rvs, threading.Lock())
        with _COMPILED_LOCK:
            program = _LAPLACE.setdefault(key, program)
    return program


def _sample_laplace(builder, data, hyper, *, n_draws, seed):
    problem = getattr(builder, "glm_problem", None)
    glm = problem(data, **hyper) if problem is not None else None
    if glm is not None:
        from bayescal.inference.laplace_glm import laplace_glm_draws

        return laplace_glm_draws(glm, n_draws=n_draws, seed=seed)
    return _sample_laplace_compiled(builder, data, hyper, n_draws=n_draws, seed=seed)


def _sample_laplace_compiled(builder, data, hyper, *, n_draws, seed):
    """Laplace through the compiled PyMC program (any model without a ``glm_problem``)."""
    program = _laplace_program(builder, data, hyper)
    with program.lock:  # the model's data containers are shared state
        return _laplace_draws(program, data, n_draws=n_draws, seed=seed)


def _laplace_draws(program: _LaplaceProgram, data, *, n_draws, seed):
    import pymc as pm
    from scipy.optimize import minimize

    model, fn, value_vars, rvs = program.model, program.fn, program.value_vars, program.rvs
    pm.set_data(data, model=model)
    point = model.initial_point(random_seed=seed)
    shapes = [np.shape(point[v.name]) for v in value_vars]
    sizes = [int(np.prod(s)) for s in shapes]
    cuts = np.cumsum(sizes)[:-1]

    def unravel(x: np.ndarray) -> list[np.ndarray]:
        return [part.reshape(s) for part, s in zip(np.split(x, cuts), shapes, strict=True)]

    def neg_logp_and_grad(x: np.ndarray) -> tuple[float, np.ndarray]:
        res = fn(*unravel(x))
        value = float(res[0])
        grad = np.concatenate([np.ravel(g) for g in res[1 : 1 + len(value_vars)]])
        if not np.isfinite(value):
            return np.inf, np.zeros_like(x)
        return -value, -grad

    x0 = np.concatenate([np.ravel(point[v.name]) for v in value_vars]).astype(float)
    opt = minimize(neg_logp_and_grad, x0, jac=True, method="L-BFGS-B", options={"maxiter": 5000})
    mode = opt.x
    hess = _numerical_hessian(lambda x: neg_logp_and_grad(x)[1], mode)
    from bayescal.inference.laplace_glm import gaussian_draws_at_mode

    rng, z, flat = gaussian_draws_at_mode(mode, hess, n_draws, seed)
    idata, _, pareto_k = _checked_draws(program, flat, -0.5 * (z * z).sum(axis=1), rng)
    at_mode = fn(*unravel(mode))[1 + len(value_vars) :]
    mode_values = {rv.name: np.asarray(v) for rv, v in zip(rvs, at_mode, strict=True)}
    return idata, mode_values, pareto_k


def _checked_draws(program: _LaplaceProgram, flat: np.ndarray, log_approx: np.ndarray, rng):
    """Outputs at the unconstrained draws ``flat``, checked by PSIS and resampled if fine.

    Returns the posterior tree, ``None`` (no mode) and the Pareto shape.
    """
    from bayescal.inference.importance import pareto_smoothed_check

    model, fn, value_vars, rvs = program.model, program.fn, program.value_vars, program.rvs
    point = model.initial_point()
    shapes = [np.shape(point[v.name]) for v in value_vars]
    cuts = np.cumsum([int(np.prod(s)) for s in shapes])[:-1]
    columns: list[list[np.ndarray]] = [[] for _ in rvs]
    log_density = np.empty(flat.shape[0])
    for i, row in enumerate(flat):
        parts = [p.reshape(s) for p, s in zip(np.split(row, cuts), shapes, strict=True)]
        res = fn(*parts)
        log_density[i] = float(res[0])
        for col, out in zip(columns, res[1 + len(value_vars) :], strict=True):
            col.append(np.asarray(out))
    check = pareto_smoothed_check(log_density, log_approx, rng)
    values = {
        rv.name: np.stack(col)[check.indices][None] for rv, col in zip(rvs, columns, strict=True)
    }
    return _posterior_tree(model, values), None, check.pareto_k


def sample_posterior(
    builder: Callable[..., Any],
    data: Mapping[str, Any],
    *,
    hyper: Mapping[str, Any] | None = None,
    inference: str = "nuts",
    sampler: str = "auto",
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 2,
    random_state: Any = None,
    cores: int | None = None,
    target_accept: float = 0.8,
    blas_threads: int | None = 1,
    advi_iterations: int = 10000,
) -> PosteriorFit:
    """Fit the model ``builder(data, **hyper)`` and return its posterior.

    Parameters
    ----------
    builder : callable
        Pure function ``builder(data, **hyper) -> pm.Model``; each key of
        ``data`` must be a ``pm.Data`` container of that name in the model,
        and the observation axis must carry no named dim (so that new data of
        another length can be swapped into a compiled model).
    data : mapping of str to array-like
        The data containers' values.
    hyper : mapping, optional
        Hyper-parameters passed to ``builder`` as keywords (part of the
        compiled-model cache key).
    inference : {"nuts", "advi", "laplace"}, default="nuts"
        NUTS, mean-field ADVI (``pm.fit``) or a Laplace approximation.
    sampler : {"auto", "nutpie", "nutpie-c", "nutpie-glm", "pymc", "numpyro", "blackjax"}, default="auto"
        NUTS implementation (``inference="nuts"`` only): nutpie with a
        compile-once cache on PyTensor's Numba backend or (``"nutpie-c"``)
        on its disk-cached C backend, ``pm.sample(..., nuts_sampler="pymc")``,
        or PyMC's JAX samplers ``pm.sample(..., nuts_sampler="numpyro")`` /
        ``"blackjax"`` (optional packages; they run on a GPU where JAX has
        one; :mod:`bayescal.inference.jax_nuts`). ``"nutpie-glm"`` runs nutpie
        on the NumPy log density of a builder's ``glm_problem`` (binary BLR,
        the Platt and beta maps; :mod:`bayescal.inference.nutpie_glm`; any other
        model raises). ``"auto"`` is ``"nutpie-glm"`` for a model with a
        ``glm_problem`` and at least :data:`GLM_SAMPLER_MIN_ROWS` rows and
        ``"nutpie"`` otherwise (see the module docstring; the fit's
        ``sampler`` says which ran).
    draws, tune, chains : int
        Posterior draws and tuning steps per chain, number of chains. ADVI and
        Laplace return ``draws * chains`` independent draws in one chain.
    random_state : None, int or numpy Generator
        Seed; the same int gives the same draws.
    cores : int, optional
        Chains run at once (nutpie threads, PyMC processes); default one per
        chain up to the CPU count. Forced to 1 for PyMC in daemonic processes.
    target_accept : float, default=0.8
        NUTS target acceptance rate.
    blas_threads : int or None, default=1
        BLAS threads allowed during the fit (None leaves them alone).
    advi_iterations : int, default=10000
        Optimisation steps of ADVI.

    Returns
    -------
    PosteriorFit
        ``idata`` (``xarray.DataTree``), ``seconds``, ``sampler``,
        ``compiled`` (whether nutpie compiled in this call), ``mode``
        (Laplace) and ``pareto_k`` (Laplace and ADVI: the importance-sampling
        check against the exact log density; NaN for NUTS).

    Raises
    ------
    ValueError
        For an unknown ``inference``/``sampler``, non-positive counts, or
        ``sampler="nutpie-glm"`` on a model without a NumPy log posterior.
    ImportError
        For ``sampler="numpyro"``/``"blackjax"`` where JAX or the sampler's
        library is not installed (the message says what to install).

    Notes
    -----
    See the module docstring for the compile-once cache, the disk cache and
    the behaviour in Dask workers.

    Examples
    --------
    >>> import numpy as np, pymc as pm
    >>> def normal_mean(data, *, scale):
    ...     with pm.Model() as model:
    ...         y = pm.Data("y", data["y"])
    ...         mu = pm.Normal("mu", 0.0, scale)
    ...         pm.Normal("obs", mu, 1.0, observed=y)
    ...     return model
    >>> fit = sample_posterior(normal_mean, {"y": np.ones(20)}, hyper={"scale": 10.0},
    ...                        inference="laplace", draws=200, random_state=0)
    >>> round(float(fit.idata["posterior"]["mu"].mean()), 1)
    1.0
    """
    inference = check_choice(inference, "inference", INFERENCES)
    sampler = check_choice(sampler, "sampler", SAMPLERS)
    draws = check_positive_int(draws, "draws")
    tune = check_positive_int(tune, "tune", minimum=0)
    chains = check_positive_int(chains, "chains")
    if cores is None:
        cores = min(chains, multiprocessing.cpu_count())
    cores = check_positive_int(cores, "cores")
    if not 0.0 < float(target_accept) < 1.0:
        raise ValueError(f"`target_accept` must lie in (0, 1); got {target_accept!r}.")
    if inference == "nuts" and sampler in ("auto", "nutpie", "nutpie-c", "nutpie-glm") and tune < 1:
        # nuts-rs 0.18 aborts the process (a Rust panic) on tune=0.
        raise ValueError(
            f"`tune` must be >= 1 with sampler={sampler!r} (nutpie); use sampler='pymc' for tune=0."
        )
    hyper = dict(hyper or {})
    data = {name: np.asarray(value) for name, value in data.items()}
    seed = seed_from_random_state(random_state)
    fresh = False
    mode = None
    pareto_k = float("nan")
    start = time.perf_counter()
    with limit_blas_threads(blas_threads):
        if inference == "nuts":
            idata, fresh, used = _sample_nuts(
                builder,
                data,
                hyper,
                sampler=sampler,
                draws=draws,
                tune=tune,
                chains=chains,
                seed=seed,
                cores=cores,
                target_accept=float(target_accept),
            )
        elif inference == "advi":
            iterations = check_positive_int(advi_iterations, "advi_iterations")
            idata, _, pareto_k = _sample_advi(
                builder, data, hyper, n_draws=draws * chains, seed=seed, iterations=iterations
            )
            used = "advi"
        else:
            idata, mode, pareto_k = _sample_laplace(
                builder, data, hyper, n_draws=draws * chains, seed=seed
            )
            used = "laplace"
    seconds = time.perf_counter() - start
    return PosteriorFit(
        idata=idata, seconds=seconds, sampler=used, compiled=fresh, mode=mode, pareto_k=pareto_k
    )

"""nutpie's NUTS on a log-density compiled by PyTensor's C backend (disk-cached).

``nutpie.compile_pymc_model(model, backend="numba")`` wraps the model's
Numba-compiled log-density in two ``numba.cfunc`` trampolines that close over
the jitted PyTensor function; numba cannot cache such functions on disk
("uses dynamic globals"), so every new process compiles them again (tens of
seconds on a loaded machine, measured by ``benchmarks/compile_cache.py``).
PyTensor's C backend, by contrast, keeps every compiled module in its
``compiledir`` on disk, keyed by the graph: a second process only rebuilds the
graph, rewrites it and loads the shared objects.

:func:`compile_nutpie_c` builds a nutpie model from Python callbacks
(``nutpie.compiled_pyfunc.from_pyfunc``, the path nutpie itself uses for its
JAX backend) around two PyTensor C functions: the log-density with its
gradient, and the map from the flat unconstrained point to the model's free
variables. The model's ``pm.Data`` containers are explicit inputs of both
functions (not shared state), so ``with_data`` swaps data without
recompiling and concurrent fits of one structure do not interfere.

The price is a Python call (holding the GIL) per gradient evaluation, so
chains do not run in parallel and each gradient costs tens of microseconds
more than the numba trampolines. Without a BLAS that PyTensor can link
(pip-installed NumPy/SciPy ship theirs under private symbol names), the
matrix-vector products run as PyTensor's Python ``Gemv`` through SciPy's
BLAS: as fast as numba's at large n, a fixed overhead per call at small n.
Measured by ``benchmarks/sampler_choice.py`` (BLR, 2 x (1000 + 1000) draws,
CPU seconds, loaded 2-core machine): 2.1 against 0.44 for
``sampler="nutpie"`` at n=300, d=5; 5.8 against 3.6 at n=2000, d=20; 10.8
against 10.3 at n=10,000, d=5 (before the callbacks skipped PyTensor's
input checks, which took off a further 12-14 % at n=300).
``benchmarks/compile_cache.py`` measures the time to first draw of each
option in a fresh process.

This module is the one adapter of nutpie's internals
(``nutpie.compiled_pyfunc``, nutpie 0.16): any failure of that path (a moved
or changed name) falls back to nutpie's public
``compile_pymc_model(model, backend="numba")`` with a
:class:`NutpieCFallbackWarning`; ``pyproject.toml`` bounds nutpie above.
"""

from __future__ import annotations

import dataclasses
import threading
import warnings
from math import prod
from typing import Any

import numpy as np

try:  # nutpie's Python-callback model (0.16); moved or changed: compile_nutpie_c falls back
    from nutpie.compiled_pyfunc import PyFuncModel
except Exception:  # pragma: no cover - depends on the installed nutpie
    PyFuncModel = None

__all__ = ["NutpieCFallbackWarning", "compile_nutpie_c"]


class NutpieCFallbackWarning(RuntimeWarning):
    """``sampler="nutpie-c"`` fell back to nutpie's Numba backend (same posterior, slower start)."""

#: PyTensor mode of the callbacks: the C virtual machine with FAST_RUN rewrites.
C_MODE = "CVM"


def compile_nutpie_c(model: Any) -> Any:
    """A nutpie model of ``model`` whose log-density runs on PyTensor's C backend.

    Parameters
    ----------
    model : pymc.Model
        Continuous free variables only; every ``pm.Data`` container becomes a
        data input that ``with_data`` can replace (same names).

    Returns
    -------
    nutpie.compiled_pyfunc.PyFuncModel
        Ready for ``nutpie.sample``; ``with_data(**arrays)`` swaps data.

    Raises
    ------
    ValueError
        When the model has discrete free variables (NUTS cannot sample them).

    Notes
    -----
    The free variables' unconstrained values are concatenated into one vector
    ``x`` in ``model.free_RVs`` order; the callbacks compute
    ``log p(x | data)`` (with the transforms' log-Jacobian, as ``model.logp()``)
    and its gradient, and the constrained draws stored in the trace.
    Initial points are PyMC's support points jittered by U(-1, 1), as nutpie's
    own default.

    Examples
    --------
    >>> import numpy as np, pymc as pm, nutpie
    >>> with pm.Model() as model:
    ...     y = pm.Data("y", np.ones(10))
    ...     mu = pm.Normal("mu", 0.0, 10.0)
    ...     _ = pm.Normal("obs", mu, 1.0, observed=y)
    >>> compiled = compile_nutpie_c(model).with_data(y=np.full(10, 2.0))
    >>> idata = nutpie.sample(compiled, draws=200, tune=200, chains=1, seed=0,
    ...                       progress_bar=False)
    >>> bool(abs(float(idata["posterior"]["mu"].mean()) - 2.0) < 0.5)
    True
    """
    if len(model.continuous_value_vars) != len(model.value_vars):
        raise ValueError(
            "sampler='nutpie-c' needs a model without discrete free variables; "
            "use inference='advi' or a model that marginalises them."
        )
    try:
        return _compile_on_c_backend(model)
    except Exception as exc:  # nutpie's internals changed: its public Numba backend
        import nutpie

        warnings.warn(
            f"sampler='nutpie-c' is unavailable with nutpie {getattr(nutpie, '__version__', '?')}"
            f" ({type(exc).__name__}: {exc}); compiling with nutpie's Numba backend instead "
            "(the same posterior; a slower first fit per process).",
            NutpieCFallbackWarning,
            stacklevel=2,
        )
        return nutpie.compile_pymc_model(model, backend="numba")


def _compile_on_c_backend(model: Any) -> Any:
    """:func:`compile_nutpie_c` through nutpie's private Python-callback model."""
    import pytensor
    import pytensor.tensor as pt
    from nutpie.compiled_pyfunc import from_pyfunc
    from pymc.initial_point import make_initial_point_fn
    from pytensor.graph.replace import graph_replace

    if PyFuncModel is None:
        raise ImportError("nutpie.compiled_pyfunc.PyFuncModel is not there")
    initial = make_initial_point_fn(
        model=model, jitter_rvs=set(model.free_RVs), return_transformed=True
    )
    point = initial(0)  # transformed (unconstrained) values by value-variable name
    value_vars = [model.rvs_to_values[rv] for rv in model.free_RVs]
    shapes = [tuple(np.shape(point[v.name])) for v in value_vars]
    sizes = [prod(s) for s in shapes]
    n_dim = int(sum(sizes))
    flat = pt.vector("_unconstrained_point", dtype="float64", shape=(n_dim,))
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    pieces = {
        v: flat[offsets[i] : offsets[i + 1]].reshape(shape).astype(v.dtype)
        for i, (v, shape) in enumerate(zip(value_vars, shapes, strict=True))
    }
    data_names = [d.name for d in model.data_vars]
    shared = [model[name] for name in data_names]
    data_inputs = [s.type() for s in shared]
    for name, var in zip(data_names, data_inputs, strict=True):
        var.name = name
    to_inputs = dict(zip(shared, data_inputs, strict=True))

    logp = model.logp()
    grad = pt.concatenate([g.ravel() for g in pt.grad(logp, value_vars)])
    logp, grad = graph_replace([logp, grad], {**pieces, **to_inputs}, strict=False)
    with warnings.catch_warnings():
        # Without a BLAS it can link, PyTensor runs its matrix products as a
        # Python Gemv through SciPy's BLAS (measured: see the module notes).
        warnings.filterwarnings("ignore", message="PyTensor could not link to a BLAS")
        logp_fn = pytensor.function(
            [flat, *data_inputs], [logp, grad], mode=C_MODE, on_unused_input="ignore"
        )
    # The free variables and the deterministics, as nutpie's own PyMC backend stores them.
    rvs = list(model.free_RVs) + list(model.deterministics)
    names = [rv.name for rv in rvs]
    expanded = graph_replace(
        model.replace_rvs_by_values(rvs), {**pieces, **to_inputs}, strict=False
    )
    expand_fn = pytensor.function(
        [flat, *data_inputs], expanded, mode=C_MODE, on_unused_input="ignore"
    )
    out_shapes = [tuple(np.shape(x)) for x in expand_fn(
        np.zeros(n_dim), *[s.get_value() for s in shared])]
    # Inputs reach the functions only through the callbacks below, as float64
    # points and data that ``with_data`` cast to the containers' dtypes and
    # ranks: PyTensor's per-call input checks can go (12-14 % of the
    # sampling CPU at n=300).
    logp_fn.trust_input = True
    expand_fn.trust_input = True

    # nutpie calls these from one thread per chain; a compiled PyTensor function
    # (its input/output storage) and PyMC's initial-point function are not
    # re-entrant, so each is called under its own lock (the GIL serialises the
    # Python calls anyway).
    locks = {"initial": threading.Lock(), "logp": threading.Lock(), "expand": threading.Lock()}

    def make_initial_point(seed: int) -> np.ndarray:
        with locks["initial"]:
            values = initial(seed)
        return np.concatenate([np.ravel(values[v.name]) for v in value_vars]).astype(np.float64)

    def make_logp_fn():
        # `x` positional-only: a model's data may be named "x" too.
        def logp_and_grad(x, /, **data):
            with locks["logp"]:
                value, gradient = logp_fn(
                    np.asarray(x, dtype=np.float64), *[data[name] for name in data_names]
                )
                return float(value), np.array(gradient, dtype=np.float64)

        return logp_and_grad

    def make_expand_fn(seed1, seed2, chain):
        def expand(x, /, **data):
            with locks["expand"]:
                values = expand_fn(
                    np.asarray(x, dtype=np.float64), *[data[name] for name in data_names]
                )
            return {
                name: np.array(value, dtype=np.float64).reshape(shape)
                for name, value, shape in zip(names, values, out_shapes, strict=True)
            }

        return expand

    import pandas as pd

    coords = {
        name: pd.Index(values) for name, values in model.coords.items() if values is not None
    }
    dims = {
        name: tuple(model.named_vars_to_dims[name])
        for name in names
        if model.named_vars_to_dims.get(name)
    }
    compiled = from_pyfunc(
        ndim=n_dim,
        make_logp_fn=make_logp_fn,
        make_expand_fn=make_expand_fn,
        make_initial_point_fn=make_initial_point,
        expanded_dtypes=[np.dtype(np.float64)] * len(names),
        expanded_shapes=out_shapes,
        expanded_names=names,
        shared_data={name: np.asarray(s.get_value()) for name, s in zip(data_names, shared,
                                                                         strict=True)},
        coords=coords,
        dims=dims,
    )
    fields = {f.name: getattr(compiled, f.name) for f in dataclasses.fields(compiled)}
    return _CModel(
        **fields,
        _data_dtypes={n: s.type.dtype for n, s in zip(data_names, shared, strict=True)},
        _data_ndims={n: s.type.ndim for n, s in zip(data_names, shared, strict=True)},
    )


def _cast_data(name: str, value: Any, dtype: str, ndim: int) -> np.ndarray:
    """``value`` in the data container's dtype; refuses a cast that changes values or rank."""
    value = np.asarray(value)
    if value.ndim != ndim:
        raise ValueError(
            f"data `{name}` has {value.ndim} dimension(s) (shape {value.shape}); the compiled "
            f"model's container has {ndim}; pass an array of that rank."
        )
    complex_into_real = np.iscomplexobj(value) and not np.issubdtype(dtype, np.complexfloating)
    converted = None if complex_into_real else np.ascontiguousarray(value, dtype=dtype)
    if converted is None or not np.array_equal(converted, value, equal_nan=True):
        raise ValueError(
            f"data `{name}` does not fit the compiled model's dtype {dtype} (got dtype "
            f"{value.dtype}); pass values representable as {dtype}."
        )
    return converted


@dataclasses.dataclass(frozen=True)
class _CModel(PyFuncModel if PyFuncModel is not None else object):
    """nutpie's Python-callback model whose ``with_data`` casts to the containers' dtypes."""

    _data_dtypes: dict[str, str] = dataclasses.field(default_factory=dict)
    _data_ndims: dict[str, int] = dataclasses.field(default_factory=dict)

    def with_data(self, **updates: Any) -> _CModel:
        """Swap data (same names as the model's ``pm.Data`` containers)."""
        cast = {
            name: _cast_data(name, value, self._data_dtypes[name], self._data_ndims[name])
            if name in self._data_dtypes
            else value
            for name, value in updates.items()
        }
        return super().with_data(**cast)

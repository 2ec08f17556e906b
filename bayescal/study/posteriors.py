"""What a study keeps of a cell's posterior: diagnostics, the verdict, thinned draws.

A cell's model is searched (through the wrappers a scenario puts around a
classifier) for the Bayesian estimator's ``diagnostics_`` and ``idata_``
(``DESIGN.md``, "Posteriors"). Its diagnostics become cube variables
(:data:`bayescal.cube.DIAGNOSTICS`); its verdict becomes the cell's
``converged`` flag, with the thresholds of :mod:`bayescal.inference.posterior`
(defined there once, shared with the estimators' own warnings); and, when the
spec asks for it (``metrics.keep_posteriors``), its draws are thinned to a
bounded size and stored with the cell.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from bayescal.cube.schema import DIAGNOSTICS

__all__ = ["MAX_KEPT_ELEMENTS", "diagnostic_record", "diagnostic_sampler", "find_fitted",
           "kept_draws"]

#: Largest number of scalar elements per draw kept for one variable: larger
#: variables (latent GP values, per-instance quantities) are left out.
MAX_KEPT_ELEMENTS = 64

_WRAPPED = ("estimator_", "classifier_", "base_estimator_", "estimator", "calibrated_")


def find_fitted(model: Any, name: str, depth: int = 4) -> Any:
    """Fitted attribute ``name`` of the model or of a model it wraps (or None)."""
    seen: list[Any] = [model]
    for _ in range(depth):
        nxt = []
        for obj in seen:
            attrs = getattr(obj, "__dict__", {})
            if attrs.get(name) is not None:
                return attrs[name]
            nxt.extend(attrs[w] for w in _WRAPPED if attrs.get(w) is not None)
        seen = nxt
    return None


def _as_dict(diagnostics: Any) -> dict[str, Any]:
    if isinstance(diagnostics, Mapping):  # a dict, or the typed PosteriorDiagnostics
        return dict(diagnostics)
    if dataclasses.is_dataclass(diagnostics) and not isinstance(diagnostics, type):
        return dataclasses.asdict(diagnostics)
    return dict(vars(diagnostics))


def diagnostic_record(diagnostics: Any) -> tuple[dict[str, float], bool, str]:
    """Cube values, verdict and failure text of an estimator's ``diagnostics_``.

    Parameters
    ----------
    diagnostics : dict or dataclass
        The estimator's ``diagnostics_``.

    Returns
    -------
    values : dict of str to float
        The variables of :data:`bayescal.cube.DIAGNOSTICS` (NaN when absent).
    converged : bool
        The estimator's own verdict when it records one (``failures``);
        otherwise :func:`bayescal.inference.posterior.diagnostic_failures` with
        the shared thresholds.
    failures : str
        The failed diagnostics, ``"; "``-joined (empty when converged).
    """
    from bayescal.inference.posterior import diagnostic_failures

    raw = _as_dict(diagnostics)
    values = {}
    for name in DIAGNOSTICS:
        v = raw.get(name)
        try:
            values[name] = float(v) if v is not None else np.nan
        except (TypeError, ValueError):
            values[name] = np.nan
    failures = raw.get("failures")
    if not isinstance(failures, (list, tuple)):
        failures = diagnostic_failures(raw)
    return values, not failures, "; ".join(str(f) for f in failures)


def diagnostic_sampler(diagnostics: Any) -> str:
    """The inference an estimator's ``diagnostics_`` names (``"nutpie"``, ``"laplace"``, ...).

    Empty when it names none. The study keeps it with each cell (the cube's
    root attribute ``samplers``), so that a result says how its posterior was
    computed, an ``"auto"`` setting resolved.
    """
    sampler = _as_dict(diagnostics).get("sampler")
    return str(sampler) if sampler else ""


def kept_draws(idata: Any, draws_per_chain: int) -> dict[str, np.ndarray]:
    """The posterior draws a cube keeps for one cell, bounded in size.

    Parameters
    ----------
    idata : xarray.DataTree
        The estimator's ``idata_`` (a ``posterior`` group with ``chain`` and
        ``draw`` dims).
    draws_per_chain : int
        At most this many draws per chain, evenly thinned.

    Returns
    -------
    dict of str to ndarray
        ``name -> (chain, draw, ...)`` for every posterior variable with at
        most :data:`MAX_KEPT_ELEMENTS` elements per draw; empty when there is
        no posterior group.
    """
    if idata is None or draws_per_chain <= 0:
        return {}
    try:
        posterior = idata["posterior"]
    except (KeyError, TypeError):
        return {}
    posterior = posterior.to_dataset() if hasattr(posterior, "to_dataset") else posterior
    out = {}
    for name, da in posterior.data_vars.items():
        if "chain" not in da.dims or "draw" not in da.dims:
            continue
        da = da.transpose("chain", "draw", ...)
        if da.size // max(da.sizes["chain"] * da.sizes["draw"], 1) > MAX_KEPT_ELEMENTS:
            continue
        n = da.sizes["draw"]
        step = max(1, -(-n // draws_per_chain))
        out[str(name)] = np.asarray(da.values[:, ::step], dtype=float)
    return out

"""Saving fitted calibration maps as data: parameters in JSON, arrays in ``.npz`` -- never pickle.

A saved map is two files beside each other:

``MODEL.json``
    ``{"format": "bayescal-calibration-map", "version": 1, "method": NAME,
    "params": {...}, "fitted": {...}, "arrays": [...], "posterior": [...]}`` --
    the method's name (one of :data:`METHODS`, the only classes that can be
    rebuilt), its constructor parameters (``get_params()``), its scalar fitted
    attributes, and the names of the array attributes and posterior variables
    stored in the ``.npz``.
``MODEL.npz``
    The fitted array attributes under their names, and for the Bayesian maps
    each posterior variable as ``posterior/NAME`` with its ``(chain, draw, ...)``
    axes. Read with ``numpy.load(..., allow_pickle=False)``.

Loading builds the class named by ``method`` from :data:`METHODS` (an allow-list;
nothing is imported from the file), sets its parameters and fitted attributes,
and rebuilds the posterior as an ``xarray.DataTree`` so that ``predict_proba`` and
``predict_interval`` work as after ``fit``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["METHODS", "BAYESIAN_METHODS", "load_map", "make_map", "map_paths", "save_map"]

#: Method name -> (module, class, constructor keyword arguments).
METHODS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "platt": ("bayescal.calibration.platt", "PlattCalibrator", {}),
    "beta": ("bayescal.calibration.beta", "BetaCalibrator", {}),
    "isotonic": ("bayescal.calibration.isotonic", "IsotonicCalibrator", {}),
    "histogram": ("bayescal.calibration.histogram", "HistogramBinningCalibrator", {}),
    "temperature": ("bayescal.calibration.temperature", "TemperatureScaling", {}),
    "bayes-platt": ("bayescal.probes.calibration_maps", "BayesianPlattCalibrator",
                    {"input": "logit", "inference": "laplace", "random_state": 0}),
    "bayes-spline": ("bayescal.probes.calibration_maps", "BayesianSplineCalibrator",
                     {"inference": "laplace", "random_state": 0}),
}

#: Methods with a posterior (a credible interval per row).
BAYESIAN_METHODS = ("bayes-platt", "bayes-spline")

_FORMAT = "bayescal-calibration-map"
_VERSION = 1


def _class(method: str) -> type:
    import importlib

    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}.")
    module, name, _ = METHODS[method]
    return getattr(importlib.import_module(module), name)


def make_map(method: str) -> Any:
    """A fresh, unfitted calibrator of ``method`` with its default settings."""
    return _class(method)(**METHODS[method][2])


def map_paths(model: Path) -> tuple[Path, Path]:
    """``MODEL.json`` and ``MODEL.npz`` for a model path (a ``.json``/``.npz`` suffix is dropped)."""
    model = Path(model)
    if model.suffix in (".json", ".npz"):
        model = model.with_suffix("")
    return model.with_name(model.name + ".json"), model.with_name(model.name + ".npz")


def _json_value(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return [_json_value(v) for v in value]
    return value


def save_map(calibrator: Any, method: str, model: Path) -> tuple[Path, Path]:
    """Write a fitted calibrator of ``method`` as ``MODEL.json`` + ``MODEL.npz``.

    Parameters
    ----------
    calibrator : estimator
        Fitted; its class must be ``METHODS[method]``'s.
    method : str
        Its name in :data:`METHODS`.
    model : Path
        The path stem.

    Returns
    -------
    (Path, Path)
        The files written.
    """
    if not isinstance(calibrator, _class(method)):
        raise TypeError(f"`calibrator` is a {type(calibrator).__name__}, not method {method!r}.")
    json_path, npz_path = map_paths(model)
    fitted: dict[str, Any] = {}
    arrays: dict[str, np.ndarray] = {}
    posterior: list[str] = []
    for key, value in vars(calibrator).items():
        if not key.endswith("_") or key.startswith("_") or key == "diagnostics_":
            continue
        if key == "idata_":
            post = value["posterior"]
            for var in post.data_vars:
                arr = post[var].transpose("chain", "draw", ...)
                arrays[f"posterior/{var}"] = np.asarray(arr)
                posterior.append(str(var))
        elif isinstance(value, np.ndarray):
            arrays[key] = value
        elif isinstance(value, (bool, int, float, str, np.generic, type(None), tuple)):
            fitted[key] = _json_value(value)
    params = {k: _json_value(v) for k, v in calibrator.get_params().items()}
    record = {"format": _FORMAT, "version": _VERSION, "method": method, "params": params,
              "fitted": fitted, "arrays": sorted(k for k in arrays if "/" not in k),
              "posterior": posterior}
    json_path.write_text(json.dumps(record, indent=1), encoding="utf-8")
    with open(npz_path, "wb") as fh:
        np.savez(fh, **arrays)
    return json_path, npz_path


def load_map(model: Path) -> tuple[Any, str]:
    """Rebuild a calibrator saved by :func:`save_map`.

    Parameters
    ----------
    model : Path
        The path stem (or either file).

    Returns
    -------
    calibrator, method

    Raises
    ------
    ValueError
        If the files are missing, not a saved map, or name an unknown method.
    """
    json_path, npz_path = map_paths(model)
    if not json_path.is_file() or not npz_path.is_file():
        raise ValueError(f"saved map not found: need {json_path} and {npz_path}.")
    try:
        record = json.loads(json_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{json_path} is not valid JSON: {exc}") from exc
    if not isinstance(record, dict) or record.get("format") != _FORMAT:
        raise ValueError(f"{json_path} is not a saved bayescal calibration map.")
    if record.get("version") != _VERSION:
        raise ValueError(f"{json_path}: unsupported map format version {record.get('version')!r}.")
    method = record.get("method")
    cls = _class(method)
    calibrator = cls(**record["params"])
    for key, value in record["fitted"].items():
        if not (isinstance(key, str) and key.endswith("_") and key.isidentifier()):
            raise ValueError(f"{json_path}: bad fitted attribute name {key!r}.")
        setattr(calibrator, key, tuple(value) if isinstance(value, list) else value)
    with np.load(npz_path, allow_pickle=False) as data:
        for key in record["arrays"]:
            if not (key.endswith("_") and key.isidentifier()):
                raise ValueError(f"{npz_path}: bad array name {key!r}.")
            setattr(calibrator, key, data[key])
        if record["posterior"]:
            import xarray as xr

            variables = {}
            for var in record["posterior"]:
                arr = data[f"posterior/{var}"]
                dims = ["chain", "draw", *[f"{var}_dim_{i}" for i in range(arr.ndim - 2)]]
                variables[var] = (dims, arr)
            calibrator.idata_ = xr.DataTree.from_dict({"posterior": xr.Dataset(variables)})
    return calibrator, method

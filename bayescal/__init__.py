"""bayescal: probability calibration with Bayesian reference probes.

Subpackages are imported lazily so that ``import bayescal`` stays fast; PyMC,
PyTensor, nutpie, Dask and matplotlib load only when a function needs them.

Subpackages
-----------
datasets     loaders and synthetic sets with known true probabilities
metrics      scoring rules, calibration errors, reliability curves
calibration  frequentist calibrators, reductions, calibration-data generation
probes       Bayesian reference models (everything with a posterior)
inference    sampling, approximations and diagnostics under probes and stats
stats        significance tests
study        study specs, the grid runner and the result cube
report       plots, tables and the HTML report
missing      multiple imputation and Rubin's-rules uncertainty
selection    boundary-uncertainty model selection
assessment   calibration assessment of given predictions (``bayescal.assess``)
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_SUBPACKAGES = (
    "assessment",
    "calibration",
    "datasets",
    "inference",
    "metrics",
    "missing",
    "probes",
    "report",
    "selection",
    "stats",
    "study",
    "validation",
)

#: Functions exported at the top level, by the module that defines them.
_FUNCTIONS = {"assess": "bayescal.assessment.result"}

__all__ = ["__version__", *_SUBPACKAGES, *_FUNCTIONS]


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    if name in _FUNCTIONS:
        value = getattr(importlib.import_module(_FUNCTIONS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'bayescal' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)

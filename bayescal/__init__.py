"""bayescal: probability calibration with Bayesian reference probes.

Subpackages are imported lazily so that ``import bayescal`` stays fast; PyMC,
PyTensor, nutpie, Dask and matplotlib load only when a function needs them.

Subpackages
-----------
datasets     loaders and synthetic sets with known true probabilities
metrics      scoring rules, calibration errors, reliability curves
calibration  frequentist calibrators, reductions, calibration-data generation
probes       Bayesian reference models (everything with a posterior)
stats        significance tests
study        study specs, the grid runner and the result cube
report       plots, tables and the HTML report
missing      multiple imputation and Rubin's-rules uncertainty
selection    boundary-uncertainty model selection
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_SUBPACKAGES = (
    "calibration",
    "datasets",
    "metrics",
    "missing",
    "probes",
    "report",
    "selection",
    "stats",
    "study",
    "validation",
)

__all__ = ["__version__", *_SUBPACKAGES]


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'bayescal' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)

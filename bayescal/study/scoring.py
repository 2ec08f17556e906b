"""Moved to :mod:`bayescal.cube.scoring`, beside the metric registry; old imports keep working."""

from __future__ import annotations

from bayescal.cube.scoring import (  # noqa: F401  (re-exports)
    BRIER_DECOMPOSITION,
    LABEL_METRICS,
    METRICS,
    _label_functions,
    brier_decomposition,
    label_metrics,
    truth_metrics,
)

__all__ = ["BRIER_DECOMPOSITION", "LABEL_METRICS", "METRICS", "brier_decomposition",
           "label_metrics", "truth_metrics"]

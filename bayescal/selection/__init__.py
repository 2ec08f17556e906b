"""Classifier selection by boundary uncertainty (Ha et al. 2021)."""

from bayescal.selection.boundary import (
    BoundaryUncertaintyEstimator,
    BoundaryUncertaintyResult,
    boundary_uncertainty,
    kmeans_aic,
    parzen_counts,
    silverman_bandwidth,
    triangle_uncertainty,
)
from bayescal.selection.model_selection import select_by_boundary_uncertainty

__all__ = [
    "BoundaryUncertaintyEstimator",
    "BoundaryUncertaintyResult",
    "boundary_uncertainty",
    "kmeans_aic",
    "parzen_counts",
    "select_by_boundary_uncertainty",
    "silverman_bandwidth",
    "triangle_uncertainty",
]

"""Uncertainty of classification when feature values are missing.

Multiple imputation with Rubin's rules (Alasalmi 2020
§2.2, §3.2): :class:`MultipleImputationClassifier` (majority vote, pooled
probability with its Monte-Carlo error, total uncertainty ``T``), :class:`ConfidenceMap` (support-vector
regression from ``T`` to the classification rate), :func:`pool_rubin` and
:class:`HotDeckImputer` (draws for categorical features).
"""

from bayescal.missing.confidence import ConfidenceMap, grouped_means
from bayescal.missing.hotdeck import HotDeckImputer
from bayescal.missing.imputation import (
    MonteCarloErrorWarning,
    MultipleImputationClassifier,
    monte_carlo_error,
)
from bayescal.missing.rubin import RubinPooled, majority_vote, pool_rubin, total_uncertainty

__all__ = [
    "ConfidenceMap",
    "HotDeckImputer",
    "MonteCarloErrorWarning",
    "MultipleImputationClassifier",
    "RubinPooled",
    "grouped_means",
    "majority_vote",
    "monte_carlo_error",
    "pool_rubin",
    "total_uncertainty",
]

"""How the assessment prints numbers and p-values (terminal summary, tables, HTML)."""

from __future__ import annotations

import math

__all__ = ["format_number", "format_p_value"]


def format_number(value: float) -> str:
    """A statistic as printed: 4 decimals, scientific below 1e-3 or from 1e5; nan/inf spelled."""
    if value is None or math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e5):
        return f"{value:.3e}"
    return f"{value:.4f}"


def format_p_value(value: float) -> str:
    """A p-value as printed: "<1e-16" at the floor of double precision, scientific below 1e-3."""
    return "<1e-16" if value < 1e-16 else (f"{value:.2e}" if value < 1e-3 else f"{value:.4f}")

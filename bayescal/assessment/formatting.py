"""How the assessment prints numbers and p-values (terminal summary, tables, HTML)."""

from __future__ import annotations

import math

__all__ = ["_fmt", "_fmt_p"]


def _fmt(value: float) -> str:
    if value is None or math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e5):
        return f"{value:.3e}"
    return f"{value:.4f}"


def _fmt_p(value: float) -> str:
    return "<1e-16" if value < 1e-16 else (f"{value:.2e}" if value < 1e-3 else f"{value:.4f}")

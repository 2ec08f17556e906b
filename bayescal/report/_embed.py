"""Figures embedded in HTML: the one place a matplotlib figure becomes page markup.

The report's sections (:mod:`bayescal.report.html`,
:mod:`bayescal.report.method_comparison`) embed figures through this module,
so that no section imports another to reach a helper.
"""

from __future__ import annotations

import base64
import io
from typing import Any

__all__ = ["figure_data_uri", "img_tag"]


def figure_data_uri(fig: Any, *, dpi: int = 80) -> str:
    """PNG of a matplotlib figure as a ``data:image/png;base64,...`` URI."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def img_tag(fig: Any, alt: str, dpi: int) -> str:
    """``fig`` as inline SVG (vector text; dense artists rasterised at ``dpi``); clears ``fig``.

    See :func:`bayescal.report.figure_output.inline_svg`.
    """
    from bayescal.report.figure_output import inline_svg

    svg = inline_svg(fig, alt, raster_dpi=dpi)
    fig.clear()
    return svg

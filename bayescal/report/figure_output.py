"""Figures of the HTML report as inline SVG: vector text, readable sizes, small files.

:func:`inline_svg` turns a matplotlib figure into an ``<svg>`` element to be
placed in the page as it is (no ``<img>``, no file, nothing fetched):

- text stays text (``svg.fonttype = "none"``), so it is sharp at every zoom
  and searchable; no text is smaller than :data:`MIN_FONT_PT` points, which
  is 12 CSS pixels at the figure's natural size;
- artists with many points (scatter clouds, long marker lines, wide bands)
  are rasterised at ``raster_dpi`` inside the SVG (as 64-colour palette PNGs),
  which keeps a figure of a few thousand points to tens of kilobytes while
  axes, ticks and text stay vector;
- element ids are salted with the figure's description, so several figures
  in one page never share an id, and the same figure gives the same bytes
  (no date, no random salt).
"""

from __future__ import annotations

import hashlib
import html
import io
import re
from typing import Any

__all__ = ["MIN_FONT_PT", "inline_svg"]

#: Smallest font size (points) of any text in a report figure.
MIN_FONT_PT = 9.0

#: Marks (markers, scatter points, error bars) beyond this count are rasterised in the SVG.
_MANY_MARKS = 40
#: Vertices of one line or band beyond this count are rasterised in the SVG.
_MANY_VERTICES = 600

_PROLOGUE = re.compile(r"^.*?(?=<svg\b)", re.S)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_COMMENT = re.compile(r"<!--.*?-->\s*", re.S)
_GEOMETRY = re.compile(r'\b(d|x|y|x1|x2|y1|y2|points|transform)="([^"]*)"')
_DECIMALS = re.compile(r"(-?\d+\.\d)\d+")
_FONTS = re.compile(r"font-family: ('DejaVu Sans')(?:, '[^']*')*, sans-serif")
_NO_ROTATION = re.compile(r' transform="rotate\(-?0 [^"]*\)"')


def _compact(svg: str) -> str:
    """Shorter SVG, same picture: coordinates to 0.1 pt, one font fallback, no indentation."""

    def geometry(match: re.Match[str]) -> str:
        value = _DECIMALS.sub(r"\1", " ".join(match.group(2).split()))
        return f'{match.group(1)}="{value}"'

    svg = re.sub(r'<g id="axes_\d+">', '<g class="axes">', svg)  # one per panel, for tests
    referenced = set(re.findall(r"#([A-Za-z_][\w.-]*)", svg))
    svg = re.sub(r' id="([^"]*)"', lambda m: m.group(0) if m.group(1) in referenced else "", svg)
    svg = _NO_ROTATION.sub("", svg)
    svg = _GEOMETRY.sub(geometry, svg)
    svg = _FONTS.sub("", svg).replace("; ;", ";").replace('style="; ', 'style="')
    svg = _drop_bare_groups(re.sub(r">\s+<", "><", svg))
    return _palette_png(_hoist_use_styles(_merge_stroked_paths(svg)))


_STROKED_RUN = re.compile(
    r'(?:<path d="[^"]*"(?: clip-path="[^"]*")? style="fill: none;[^"]*"/>){2,}')
_PATH = re.compile(r'<path d="([^"]*)"((?: clip-path="[^"]*")? style="[^"]*")/>')
_USE_RUN = re.compile(r'(<g(?: clip-path="[^"]*")?)>((?:<use [^>]*/>)+)</g>')
_USE_STYLE = re.compile(r' style="([^"]*)"/>')


def _merge_stroked_paths(svg: str) -> str:
    """Join runs of unfilled paths with the same clip and style into one path each."""

    def merge(match: re.Match[str]) -> str:
        out: list[list[str]] = []  # [d, rest]
        for d, rest in _PATH.findall(match.group(0)):
            if out and out[-1][1] == rest:
                out[-1][0] += " " + d
            else:
                out.append([d, rest])
        return "".join(f'<path d="{d}"{rest}/>' for d, rest in out)

    return _STROKED_RUN.sub(merge, svg)


def _hoist_use_styles(svg: str) -> str:
    """A group of marker ``<use>`` elements with one style gets it once, on the group."""

    def hoist(match: re.Match[str]) -> str:
        found = _USE_STYLE.findall(match.group(2))
        styles = set(found)
        if len(styles) != 1 or len(found) != match.group(2).count("<use "):
            return match.group(0)
        uses = _USE_STYLE.sub("/>", match.group(2))
        return f'{match.group(1)} style="{styles.pop()}">{uses}</g>'

    return _USE_RUN.sub(hoist, svg)


_GROUP_TAG = re.compile(r"<g\b[^>]*>|</g>")


def _drop_bare_groups(svg: str) -> str:
    """Remove ``<g>`` elements without attributes (they do nothing), keeping their content."""
    out, stack, last = [], [], 0
    for match in _GROUP_TAG.finditer(svg):
        tag = match.group(0)
        out.append(svg[last:match.start()])
        last = match.end()
        if tag == "</g>":
            if not stack.pop():
                out.append(tag)
        else:
            bare = tag == "<g>"
            stack.append(bare)
            if not bare:
                out.append(tag)
    out.append(svg[last:])
    return "".join(out)


_PNG_URI = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=\s]+)")
#: Colours of the palette the rasterised parts are reduced to.
_PALETTE = 64


def _palette_png(svg: str) -> str:
    """Rasterised parts as palette PNGs (64 colours with alpha): a quarter of the bytes."""
    import base64

    from PIL import Image

    def reduce(match: re.Match[str]) -> str:
        raw = base64.b64decode("".join(match.group(1).split()))
        out = io.BytesIO()
        Image.open(io.BytesIO(raw)).quantize(
            colors=_PALETTE, method=Image.Quantize.FASTOCTREE).save(out, format="PNG",
                                                                     optimize=True)
        data = out.getvalue() if out.tell() < len(raw) else raw
        return "data:image/png;base64," + base64.b64encode(data).decode("ascii")

    return _PNG_URI.sub(reduce, svg)


def _dense(artist: Any) -> bool:
    """Whether an artist has so many marks or vertices that it is better as pixels."""
    from matplotlib.collections import Collection, PolyCollection
    from matplotlib.lines import Line2D

    if isinstance(artist, Line2D):
        n = len(artist.get_xdata())
        marks = artist.get_marker() not in (None, "None", "none", "", " ")
        return n > (_MANY_MARKS if marks else _MANY_VERTICES)
    if isinstance(artist, PolyCollection):
        return sum(len(p.vertices) for p in artist.get_paths()) > _MANY_VERTICES
    if isinstance(artist, Collection):
        offsets = artist.get_offsets()
        n = max(len(offsets) if offsets is not None else 0, len(artist.get_paths()))
        return n > _MANY_MARKS
    return False


def _prepare(fig: Any, min_font: float) -> None:
    """Clamp small text and rasterise dense artists of ``fig`` (in place)."""
    from matplotlib.text import Text

    fig.draw_without_rendering()  # makes the tick labels, which are drawn lazily
    for ax in fig.axes:
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            labels = [t for t in axis.get_ticklabels(which="both") if t.get_text()]
            if labels and min(t.get_fontsize() for t in labels) < min_font:
                ax.tick_params(axis=name, which="both", labelsize=min_font)
    for text in fig.findobj(Text):
        if text.get_text() and text.get_fontsize() < min_font:
            text.set_fontsize(min_font)
    for ax in fig.axes:
        for artist in [*ax.lines, *ax.collections]:
            if _dense(artist):
                artist.set_rasterized(True)


def inline_svg(fig: Any, alt: str, *, raster_dpi: int = 150,
               min_font: float = MIN_FONT_PT) -> str:
    """The figure as an inline ``<svg>`` element for an HTML page.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure; its text is enlarged to ``min_font`` where smaller and
        its dense artists are marked rasterised (the figure is changed).
    alt : str
        What the figure shows: its accessible name (``aria-label`` and
        ``<title>``), escaped here.
    raster_dpi : int, default=150
        Resolution of the rasterised parts.
    min_font : float, default=MIN_FONT_PT
        Smallest font size, in points.

    Returns
    -------
    str
        ``<svg ...>...</svg>`` with ``role="img"``, scaled down (never up)
        to the width of its container.
    """
    import matplotlib

    _prepare(fig, min_font)
    salt = hashlib.sha256(alt.encode("utf-8")).hexdigest()[:12]
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        fig.savefig(buffer, format="svg", dpi=raster_dpi, metadata={"Date": None})
    svg = _COMMENT.sub("", _METADATA.sub("", _PROLOGUE.sub("", buffer.getvalue(), count=1)))
    svg = _compact(re.sub(r' (?:xmlns(?::\w+)?|version)="[^"]*"', "", svg))  # HTML knows SVG
    label = html.escape(alt)
    svg = svg.replace(
        "<svg ",
        f'<svg role="img" aria-label="{label}" class="figure" '
        "style=\"font-family: 'DejaVu Sans', 'Bitstream Vera Sans', Verdana, sans-serif\" ",
        1,
    )
    head_end = svg.index(">") + 1
    return svg[:head_end] + f"<title>{label}</title>" + svg[head_end:]

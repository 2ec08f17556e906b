"""Report figures as inline SVG: text size, rasterised clouds, compact and unique markup."""

from __future__ import annotations

import base64
import re

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from bayescal.report.figure_output import MIN_FONT_PT, inline_svg  # noqa: E402


def _figure(n_points: int = 500) -> Figure:
    rng = np.random.default_rng(0)
    fig = Figure(figsize=(4, 3))
    ax = fig.subplots()
    ax.scatter(rng.uniform(size=n_points), rng.uniform(size=n_points), s=4)
    ax.plot([0, 1], [0, 1], label="diagonal")
    ax.set_title("a <title> & more", fontsize=6)
    ax.tick_params(labelsize="xx-small")
    ax.legend(fontsize=5)
    return fig


def test_text_is_vector_and_never_below_the_minimum():
    svg = inline_svg(_figure(), "cloud")
    sizes = [float(v) for v in re.findall(r"font-size: ([\d.]+)px", svg)]
    assert sizes and min(sizes) == MIN_FONT_PT  # 5-6 pt text was raised to 9 pt
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert "a &lt;title&gt; &amp; more" in texts and "diagonal" in texts
    assert svg.startswith('<svg role="img" aria-label="cloud" class="figure"')
    assert "<title>cloud</title>" in svg and "xmlns" not in svg and "http" not in svg


def test_dense_clouds_are_rasterised_and_sparse_ones_stay_vector():
    dense = inline_svg(_figure(500), "dense")
    pngs = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", dense)
    assert len(pngs) == 1 and base64.b64decode(pngs[0])[:8] == b"\x89PNG\r\n\x1a\n"
    assert dense.count("<use") < 50  # the 500 points are pixels, not 500 markers
    sparse = inline_svg(_figure(20), "sparse")
    assert "data:image/png" not in sparse and sparse.count("<use") >= 20


def test_ids_differ_between_figures_and_repeat_for_the_same_figure():
    a, b, again = (inline_svg(_figure(20), name) for name in ("one", "two", "one"))
    ids_a, ids_b = (set(re.findall(r' id="([^"]+)"', s)) for s in (a, b))
    assert ids_a and not ids_a & ids_b  # two figures in one page never share an id
    assert a == again  # deterministic: no date, no random salt
    for svg in (a, b):
        for ref in re.findall(r'(?:href|url\()"?#([^")]+)', svg):
            assert f'id="{ref}"' in svg  # every reference still resolves after compaction

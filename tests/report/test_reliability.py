"""The reliability diagram draws exactly the numbers of reliability_curve."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402

from bayescal.metrics import reliability_curve  # noqa: E402
from bayescal.report import plot_reliability_diagram  # noqa: E402
from bayescal.report.reliability import HISTOGRAM_AXES_LABEL  # noqa: E402


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    p = rng.beta(0.7, 0.7, size=300)
    y = rng.binomial(1, p**1.4)
    # empty the interval (0.4, 0.5] so that, with 20 bins, two bins are empty
    p = np.where((p > 0.4) & (p <= 0.5), p + 0.1, p)
    return y, p


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _container(ax, cls):
    found = [c for c in ax.containers if isinstance(c, cls)]
    assert len(found) == 1
    return found[0]


def _errorbar_numbers(container):
    line, (segments,) = container.lines[0], container.lines[2]
    x, yv = line.get_data() if line is not None else (None, None)
    lows = np.array([seg[0, 1] for seg in segments.get_segments()])
    highs = np.array([seg[1, 1] for seg in segments.get_segments()])
    xs = np.array([seg[0, 0] for seg in segments.get_segments()])
    return x, yv, xs, lows, highs


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_points_equal_curve(data, strategy):
    y, p = data
    ax = plot_reliability_diagram(
        y, p, n_bins=20, strategy=strategy, style="points", confidence=0.9, label="model"
    )
    curve = reliability_curve(y, p, 20, strategy, 0.9)
    ne = curve.nonempty
    x, yv, xs, lows, highs = _errorbar_numbers(_container(ax, ErrorbarContainer))
    np.testing.assert_allclose(x, curve.mean_score[ne])
    np.testing.assert_allclose(yv, curve.observed_rate[ne])
    np.testing.assert_allclose(xs, curve.mean_score[ne])
    np.testing.assert_allclose(lows, curve.ci_lower[ne])
    np.testing.assert_allclose(highs, curve.ci_upper[ne])
    assert "model" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_bars_equal_curve_and_histogram_counts(data):
    y, p = data
    ax = plot_reliability_diagram(y, p, n_bins=20)
    curve = reliability_curve(y, p, 20)
    ne = curve.nonempty
    assert not ne.all()  # the fixture leaves some bins empty
    bars = _container(ax, BarContainer)
    np.testing.assert_allclose([b.get_height() for b in bars], curve.observed_rate[ne])
    np.testing.assert_allclose([b.get_x() for b in bars], curve.bin_lower[ne])
    np.testing.assert_allclose(
        [b.get_width() for b in bars], (curve.bin_upper - curve.bin_lower)[ne]
    )
    _, _, xs, lows, highs = _errorbar_numbers(_container(ax, ErrorbarContainer))
    np.testing.assert_allclose(xs, curve.mean_score[ne])
    np.testing.assert_allclose(lows, curve.ci_lower[ne])
    np.testing.assert_allclose(highs, curve.ci_upper[ne])
    (hist,) = [a for a in ax.child_axes if a.get_label() == HISTOGRAM_AXES_LABEL]
    heights = [b.get_height() for b in hist.containers[0]]
    assert heights == curve.count.tolist()
    # the diagonal of perfect calibration
    diagonal = [line for line in ax.get_lines() if line.get_label() == "perfect calibration"]
    assert len(diagonal) == 1
    np.testing.assert_allclose(diagonal[0].get_xydata(), [[0, 0], [1, 1]])


def test_draws_into_given_axes_and_top_label():
    rng = np.random.default_rng(1)
    P = rng.dirichlet([1, 1, 1], size=200)
    y = rng.integers(0, 3, size=200)
    fig, (a1, a2) = plt.subplots(1, 2)
    out = plot_reliability_diagram(y, P, kind="top_label", ax=a2, show_histogram=False)
    assert out is a2
    assert len(fig.axes) == 2
    bars = _container(a2, BarContainer)
    curve = reliability_curve(y, P, 10, kind="top_label")
    np.testing.assert_allclose([b.get_height() for b in bars], curve.observed_rate[curve.nonempty])
    assert "accuracy" in a2.get_ylabel()


def test_saves_png(tmp_path, data):
    y, p = data
    ax = plot_reliability_diagram(y, p)
    path = tmp_path / "diagram.png"
    ax.figure.savefig(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"style": "line"}, ValueError, "`style`"),
        ({"kind": "classwise"}, ValueError, "`kind`"),
        ({"show_histogram": "yes"}, TypeError, "`show_histogram`"),
        ({"confidence": 0.0}, ValueError, "`confidence`"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        plot_reliability_diagram([0, 1], [0.2, 0.7], **kwargs)


def test_bad_data():
    with pytest.raises(ValueError, match="`proba`"):
        plot_reliability_diagram([0, 1], [0.2, np.nan])
    with pytest.raises(ValueError, match="kind='top_label'"):
        plot_reliability_diagram([0, 1, 2], np.full((3, 3), 1 / 3))

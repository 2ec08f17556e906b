"""CORP reliability diagram: what is drawn is the numbers of bayescal.metrics.corp."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from bayescal.metrics import corp_reliability  # noqa: E402
from bayescal.report import plot_corp_reliability_diagram  # noqa: E402


@pytest.fixture
def forecasts():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=300)
    return (rng.uniform(size=300) < p**1.5).astype(int), p


def test_draws_the_curve_band_and_decomposition(forecasts):
    y, p = forecasts
    fig, ax = plt.subplots()
    out = plot_corp_reliability_diagram(y, p, ax=ax, n_resamples=100, score="log")
    assert out is ax
    curve = corp_reliability(y, p, n_resamples=100, score="log", random_state=0)
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    d = curve.decomposition
    assert f"log {d.mean_score:.3f} = MCB {d.mcb:.3f} − DSC {d.dsc:.3f} + UNC {d.unc:.3f}" in texts
    assert "90% consistency band" in texts
    [line] = [ln for ln in ax.get_lines() if ln.get_label() == "CORP (PAV) curve"]
    # the step curve passes through every recalibrated value
    assert set(np.round(line.get_ydata(), 12)) == set(np.round(curve.recalibrated, 12))
    [band] = ax.collections
    verts = band.get_paths()[0].vertices
    assert verts[:, 1].min() == pytest.approx(curve.band_lower.min())
    assert verts[:, 1].max() == pytest.approx(curve.band_upper.max())
    plt.close(fig)


def test_bad_input_is_reported_before_drawing():
    with pytest.raises(ValueError, match=r"`y` contains a single class"):
        plot_corp_reliability_diagram([1, 1, 1], [0.2, 0.5, 0.9])
    with pytest.raises(ValueError, match=r"`proba`.*(NaN|finite)"):
        plot_corp_reliability_diagram([0, 1, 1], [0.2, np.nan, 0.9])

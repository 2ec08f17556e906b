"""Smoothed reliability diagram: the curve drawn is bayescal.metrics.smoothed_reliability."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from bayescal.metrics import smoothed_reliability  # noqa: E402
from bayescal.report import plot_smooth_reliability_diagram  # noqa: E402


def test_draws_the_smoothed_curve_with_its_smooth_ece():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=400)
    y = (rng.uniform(size=400) < p**2).astype(int)
    fig, ax = plt.subplots()
    assert plot_smooth_reliability_diagram(y, p, ax=ax) is ax
    expected = smoothed_reliability(y, p)
    [lines] = [c for c in ax.collections if c.__class__.__name__ == "LineCollection"]
    segments = lines.get_segments()
    np.testing.assert_allclose(
        [s[0] for s in segments], np.column_stack([expected.t, expected.curve])[:-1]
    )
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert (
        f"smoothed rate: smECE {expected.smooth_ece:.3f} (σ = {expected.bandwidth:.3f})" in texts
    )
    plt.close(fig)


def test_bad_input():
    with pytest.raises(ValueError, match=r"`proba` must be <= 1"):
        plot_smooth_reliability_diagram([0, 1], [0.2, 1.2])

"""The shared axes furniture of the probability plots."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from bayescal.report._axes import draw_unit_diagonal  # noqa: E402


def test_unit_diagonal_is_y_equals_x_on_the_unit_square():
    fig, ax = plt.subplots()
    try:
        ax.plot([-1.0, 3.0], [5.0, -2.0])  # data outside [0, 1] must not widen the view
        draw_unit_diagonal(ax, label="ref", linestyle=":", color="0.3")
        line = ax.lines[-1]
        np.testing.assert_array_equal(line.get_xdata(), [0.0, 1.0])
        np.testing.assert_array_equal(line.get_ydata(), [0.0, 1.0])
        assert line.get_label() == "ref"
        assert line.get_linestyle() == ":"
        assert line.get_linewidth() == 1.0
        assert ax.get_xlim() == (0.0, 1.0) and ax.get_ylim() == (0.0, 1.0)
    finally:
        plt.close(fig)

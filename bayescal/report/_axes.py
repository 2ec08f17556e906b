"""Axes furniture shared by the probability plots of :mod:`bayescal.report`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes


def draw_unit_diagonal(ax: Axes, *, label: str, linestyle: str, color: str) -> None:
    """Draw the line ``y = x`` over the unit square and fix both axes to [0, 1].

    The reference of every probability-against-probability plot: perfect
    calibration in a reliability diagram, the identity map in a calibration
    map, predicted equal to true in a true-versus-predicted plot.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to draw on.
    label : str
        Legend entry of the diagonal.
    linestyle, color : str
        Matplotlib style of the diagonal (line width 1).
    """
    ax.plot([0.0, 1.0], [0.0, 1.0], linestyle=linestyle, color=color, linewidth=1.0, label=label)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)

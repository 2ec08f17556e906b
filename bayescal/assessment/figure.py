"""The calibration curves of an :class:`~bayescal.assessment.Assessment` on matplotlib axes.

One drawing function shared by :meth:`Assessment.plot`, the display object
(:mod:`bayescal.assessment.display`) and the HTML page (:mod:`bayescal.assessment.page`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["plot_assessment"]

_BAYES_COLOUR = "#1f77b4"
_LOWESS_COLOUR = "#d62728"
_BINS_COLOUR = "#444444"


def plot_assessment(assessment: Any, ax: Any = None, *, colour: str | None = None,
                    legend: bool = True, bins: bool = True) -> Any:
    """Draw the calibration curves of ``assessment`` on ``ax`` (a new figure if None).

    Parameters
    ----------
    assessment : Assessment
    ax : matplotlib Axes, optional
    colour : str, optional
        Colour of the Bayesian curve and its band (several models on one axes).
    legend : bool, default=True
    bins : bool, default=True
        Draw the equal-mass binned rates.

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt

    from bayescal.report._axes import draw_unit_diagonal

    if ax is None:
        _, ax = plt.subplots(figsize=(5.2, 5.0))
    if not any(line.get_label() == "ideal" for line in ax.lines):
        draw_unit_diagonal(ax, label="ideal", linestyle="--", color="#999999")
    name = assessment.name
    colour = colour or _BAYES_COLOUR
    pct = f"{100 * assessment.level:g}%"
    if "bayes" in assessment.curves:
        grid, mean, lower, upper = assessment.curves["bayes"]
        ax.fill_between(grid, lower, upper, color=colour, alpha=0.25, linewidth=0,
                        label=f"{name}: Bayesian {pct} band")
        ax.plot(grid, mean, color=colour, linewidth=1.8, label=f"{name}: Bayesian curve")
    xs, fitted = assessment.curves["lowess"]
    step = max(1, xs.shape[0] // 2000)  # the curve, thinned for drawing only
    ax.plot(xs[::step], fitted[::step], color=_LOWESS_COLOUR if colour == _BAYES_COLOUR
            else colour, linestyle=":", linewidth=1.5, label=f"{name}: LOWESS (iter=0)")
    if bins and "bins" in assessment.curves:
        mean_p, rate, _ = assessment.curves["bins"]
        ax.plot(mean_p, rate, "o", color=_BINS_COLOUR if colour == _BAYES_COLOUR else colour,
                markersize=4, label=f"{name}: equal-mass bins")
    ax.set_xlabel("predicted probability" if assessment.kind == "binary"
                  else "top-label confidence")
    ax.set_ylabel("observed frequency")
    ax.set_aspect("equal")
    if legend:
        ax.legend(loc="upper left", fontsize="small", frameon=False)
    return ax

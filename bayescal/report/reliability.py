"""Reliability diagrams: observed rate against mean score, with Wilson intervals.

matplotlib is imported inside the plotting function so that importing
:mod:`bayescal.report` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescal.metrics.reliability import ReliabilityCurve, reliability_curve
from bayescal.report._axes import draw_unit_diagonal
from bayescal.validation import check_choice

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["HISTOGRAM_AXES_LABEL", "plot_reliability_diagram"]

#: ``Axes.get_label()`` of the histogram panel drawn beneath the diagram.
HISTOGRAM_AXES_LABEL = "reliability histogram"

_KIND_AXIS_LABELS = {
    "binary": ("predicted probability (positive class)", "observed rate of the positive class"),
    "top_label": ("confidence (top-label probability)", "observed accuracy"),
}


def plot_reliability_diagram(
    y: Any,
    proba: Any,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    confidence: float = 0.95,
    kind: str = "binary",
    ax: Axes | None = None,
    show_histogram: bool = True,
    style: str = "bars",
    label: str | None = None,
) -> Axes:
    """Draw a reliability diagram with Wilson intervals and a score histogram.

    Parameters
    ----------
    y : array-like of shape (n,)
        True class codes ``0 .. K-1``.
    proba : array-like of shape (n, K) or (n,)
        Predicted probabilities; 1-D means binary positive-class probability.
    n_bins : int, default=10
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width or equal-count bins.
    confidence : float, default=0.95
        Level of the Wilson intervals drawn as error bars.
    kind : {"binary", "top_label"}, default="binary"
        Which event is plotted (see :func:`bayescal.metrics.reliability_curve`);
        use ``"top_label"`` for multi-class probabilities.
    ax : matplotlib Axes, optional
        Axes to draw in; a new figure is made when omitted.
    show_histogram : bool, default=True
        Draw the number of samples per bin in an inset panel beneath ``ax``
        (found in ``ax.child_axes``; its ``get_label()`` is
        :data:`HISTOGRAM_AXES_LABEL`; it shares the x axis). When ``ax`` is
        given, leave room below it (e.g. ``fig.subplots_adjust(bottom=0.3)``) or
        save with ``bbox_inches="tight"``.
    style : {"bars", "points"}, default="bars"
        ``"bars"``: one bar per non-empty bin spanning the bin, height the
        observed rate, with its Wilson interval at the bin's mean score.
        ``"points"``: markers at (mean score, observed rate) joined by a line,
        with Wilson intervals.
    label : str, optional
        Legend label of the curve (e.g. the classifier's name).

    Returns
    -------
    matplotlib.axes.Axes
        The diagram's axes.

    Raises
    ------
    ValueError
        On bad input (see :func:`bayescal.metrics.reliability_curve`) or an
        unknown ``style``.

    Notes
    -----
    The numbers drawn are exactly those of
    :func:`bayescal.metrics.reliability_curve` with the same arguments. Empty
    bins draw nothing (no bar, no point) but keep their place on the x axis; the
    histogram shows them as zero. The dashed diagonal marks perfect calibration
    (Alasalmi 2020, Fig. 5).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_reliability_diagram([0, 1, 1, 0], [0.2, 0.7, 0.9, 0.4], n_bins=5)
    >>> [round(float(b.get_height()), 2) for b in ax.containers[0]]
    [0.0, 0.0, 1.0, 1.0]
    """
    check_choice(style, "style", ("bars", "points"))
    if not isinstance(show_histogram, bool):
        raise TypeError(f"`show_histogram` must be True or False; got {show_histogram!r}.")
    curve = reliability_curve(y, proba, n_bins, strategy, confidence, kind=kind)
    if ax is None:
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5.5, 7.0 if show_histogram else 5.5))
        if show_histogram:
            fig.subplots_adjust(bottom=0.32, top=0.93)
    _draw_curve(ax, curve, style, label)
    xlabel, ylabel = _KIND_AXIS_LABELS[kind]
    draw_unit_diagonal(ax, label="perfect calibration", linestyle="--", color="0.5")
    ax.set_ylabel(ylabel)
    ax.set_title(
        f"Reliability diagram ({kind.replace('_', '-')}, "
        f"{int(round(100 * curve.confidence))}% Wilson intervals)"
    )
    ax.legend(loc="best", fontsize="small")
    if show_histogram:
        _draw_histogram(ax, curve, xlabel)
    else:
        ax.set_xlabel(xlabel)
    return ax


def _draw_curve(ax: Axes, curve: ReliabilityCurve, style: str, label: str | None) -> None:
    ne = curve.nonempty
    x = curve.mean_score[ne]
    rate = curve.observed_rate[ne]
    yerr = np.vstack([rate - curve.ci_lower[ne], curve.ci_upper[ne] - rate])
    if style == "bars":
        width = (curve.bin_upper - curve.bin_lower)[ne]
        ax.bar(
            curve.bin_lower[ne],
            rate,
            width=width,
            align="edge",
            alpha=0.6,
            edgecolor="black",
            linewidth=0.8,
            label=label or "observed rate",
        )
        ax.errorbar(
            x, rate, yerr=yerr, fmt="none", ecolor="black", capsize=3, label="Wilson interval"
        )
    else:
        ax.errorbar(
            x, rate, yerr=yerr, fmt="o-", capsize=3, markersize=5, label=label or "observed rate"
        )


def _draw_histogram(ax: Axes, curve: ReliabilityCurve, xlabel: str) -> None:
    hist = ax.inset_axes((0.0, -0.38, 1.0, 0.24), sharex=ax)
    hist.set_label(HISTOGRAM_AXES_LABEL)
    hist.bar(
        curve.bin_lower,
        curve.count,
        width=curve.bin_upper - curve.bin_lower,
        align="edge",
        color="0.6",
        edgecolor="black",
        linewidth=0.6,
    )
    hist.set_ylabel("count")
    hist.set_xlabel(xlabel)
    ax.tick_params(labelbottom=False)

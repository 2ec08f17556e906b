"""Smoothed reliability diagram (Błasiok & Nakkiran, 2023) with its smooth ECE.

matplotlib is imported inside the plotting function so that importing
:mod:`bayescal.report` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescal.metrics.smooth_ece import smoothed_reliability
from bayescal.report._axes import draw_unit_diagonal

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_smooth_reliability_diagram"]


def plot_smooth_reliability_diagram(
    y: Any,
    proba: Any,
    *,
    ax: Axes | None = None,
    bandwidth: float | None = None,
    kind: str = "binary",
    label: str | None = None,
) -> Axes:
    """Draw the kernel-smoothed reliability curve with the prediction density.

    Parameters
    ----------
    y : array-like of shape (n,)
        True class codes ``0 .. K-1``.
    proba : array-like of shape (n, K) or (n,)
        Predicted probabilities; 1-D means binary positive-class probability.
    ax : matplotlib Axes, optional
        Axes to draw in; a new figure is made when omitted.
    bandwidth : float, optional
        Kernel bandwidth in (0, 1]; the fixed point of the smooth ECE when omitted.
    kind : {"binary", "top_label"}, default="binary"
        Which event is plotted (see :func:`bayescal.metrics.smooth_ece`).
    label : str, optional
        Legend label of the curve.

    Returns
    -------
    matplotlib.axes.Axes
        The diagram's axes.

    Raises
    ------
    ValueError
        On bad input (see :func:`bayescal.metrics.smooth_ece`).

    Notes
    -----
    The curve is :math:`t - \\hat r_\\sigma(t)`, the kernel-smoothed event rate; its
    width grows with the smoothed density of the predictions, which is also drawn as
    a shaded profile along the bottom. The smooth ECE in the legend is the
    density-weighted area between the curve and the diagonal (Błasiok & Nakkiran,
    2023).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_smooth_reliability_diagram([0, 1, 1, 0, 1], [0.1, 0.8, 0.7, 0.4, 0.9])
    >>> ax.get_title()
    'Smoothed reliability diagram'
    """
    from matplotlib.collections import LineCollection

    smoothed = smoothed_reliability(y, proba, bandwidth=bandwidth, kind=kind)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.5, 5.5))
    draw_unit_diagonal(ax, label="perfect calibration", linestyle="--", color="0.5")
    density = smoothed.density
    relative = density / density.max() if density.max() > 0 else density
    ax.fill_between(
        smoothed.t,
        0.0,
        0.15 * relative,
        color="0.6",
        alpha=0.5,
        linewidth=0,
        label="prediction density",
    )
    points = np.column_stack([smoothed.t, smoothed.curve]).reshape(-1, 1, 2)
    segments = np.concatenate([points[:-1], points[1:]], axis=1)
    widths = 0.5 + 3.5 * (relative[:-1] + relative[1:]) / 2
    ax.add_collection(LineCollection(segments, linewidths=widths, colors="tab:red"))
    ax.plot(
        [],
        [],
        color="tab:red",
        label=f"{label or 'smoothed rate'}: smECE {smoothed.smooth_ece:.3f} "
        f"(σ = {smoothed.bandwidth:.3f})",
    )
    event = "positive class" if kind == "binary" else "top-label confidence"
    ax.set_xlabel(f"predicted probability ({event})")
    ax.set_ylabel("smoothed observed rate")
    ax.set_title("Smoothed reliability diagram")
    ax.legend(loc="upper left", fontsize="x-small")
    return ax

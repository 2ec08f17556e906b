"""Predicted against true probability, for data with known true probabilities.

matplotlib is imported inside the plotting function so that importing
:mod:`bayescal.report` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescal.report._axes import draw_unit_diagonal
from bayescal.validation import check_array_1d, check_consistent_length, check_probability_matrix

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_true_vs_predicted"]


def plot_true_vs_predicted(
    p_true: Any,
    proba: Any,
    *,
    ax: Axes | None = None,
    label: str | None = None,
    max_points: int | None = 2000,
    random_state: int = 0,
) -> Axes:
    """Scatter the predicted against the true positive-class probability.

    Parameters
    ----------
    p_true : array-like of shape (n,)
        True probability of the positive class (synthetic data).
    proba : array-like of shape (n, 2) or (n,)
        Predicted probabilities; 1-D means the positive-class probability.
    ax : matplotlib Axes, optional
        Axes to draw in; a new figure is made when omitted.
    label : str, optional
        Legend label of the points.
    max_points : int or None, default=2000
        Draw at most this many points (a random subset, chosen with
        ``random_state``) so that large sets stay readable and light; None
        draws all. The RMSE in the legend always uses every point.
    random_state : int, default=0
        Seed of the subset.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        If the inputs are not probabilities, have different lengths, or
        ``proba`` has more than two classes.

    Notes
    -----
    As in Phelps, Lizotte & Woolford (2024, Figs. 3–5), each point is one test
    instance: its true probability on the x axis, the calibrated estimate on
    the y axis; a perfect estimator lies on the dashed diagonal. The legend
    gives the RMSE :math:`\\sqrt{\\tfrac1n\\sum_i (\\hat p_i - p_i)^2}` of the
    estimates (the ``rmse_true`` of the result cube).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_true_vs_predicted([0.1, 0.5, 0.9], [0.2, 0.5, 0.8])
    >>> ax.collections[0].get_offsets().tolist()
    [[0.1, 0.2], [0.5, 0.5], [0.9, 0.8]]
    """
    p_true = check_array_1d(p_true, "p_true", low=0.0, high=1.0)
    proba = check_probability_matrix(proba, "proba")
    if proba.shape[1] != 2:
        raise ValueError(
            f"`proba` has {proba.shape[1]} classes; true-probability plots are binary "
            "(pass the positive-class column)."
        )
    check_consistent_length(p_true=p_true, proba=proba)
    predicted = proba[:, 1]
    rmse = float(np.sqrt(np.mean((predicted - p_true) ** 2)))
    shown = np.arange(p_true.shape[0])
    if max_points is not None and shown.shape[0] > max_points:
        rng = np.random.default_rng(random_state)
        shown = np.sort(rng.choice(shown, size=max_points, replace=False))
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.0, 5.0))
    text = f"{label}: " if label else ""
    ax.scatter(p_true[shown], predicted[shown], s=9, alpha=0.6, label=f"{text}RMSE {rmse:.3f}")
    draw_unit_diagonal(ax, label="predicted = true", linestyle="--", color="0.4")
    ax.set_aspect("equal")
    ax.set_xlabel("true probability")
    ax.set_ylabel("predicted probability")
    ax.legend(loc="upper left", fontsize="small")
    return ax

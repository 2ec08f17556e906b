"""CORP reliability diagrams: the PAV curve, its consistency band and the decomposition.

matplotlib is imported inside the plotting functions so that importing
:mod:`bayescal.report` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescal.metrics.corp import CORPReliability, corp_reliability
from bayescal.report._axes import draw_unit_diagonal

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from bayescal.report.cube_figures import CubePredictions

__all__ = ["CORP_SECTION_NOTE", "corp_grid_figure", "plot_corp_reliability_diagram"]

#: The explanation printed above the CORP figures of the HTML report.
CORP_SECTION_NOTE = (
    "The same test-fold predictions as the reliability diagrams above, without bins: the red "
    "step curve is the isotonic (PAV) recalibration of the outcomes on the predicted "
    "probability (CORP; Dimitriadis, Gneiting & Jordan, 2021); the shaded band is where that "
    "curve falls, pointwise with 90% probability, if the predictions were calibrated "
    "(200 resamples, seed 0). Each panel gives the Brier score's decomposition "
    "Brier = MCB − DSC + UNC: miscalibration, discrimination and uncertainty. Binary data only."
)


def _step(x: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates of the right-continuous step function through ``(x, values)``."""
    xs = np.repeat(x, 2)[1:]
    ys = np.repeat(values, 2)[:-1]
    return xs, ys


def decomposition_label(curve: CORPReliability) -> str:
    """Legend text with the score decomposition of a CORP curve."""
    d = curve.decomposition
    name = "Brier" if d.score == "brier" else "log"
    return f"{name} {d.mean_score:.3f} = MCB {d.mcb:.3f} − DSC {d.dsc:.3f} + UNC {d.unc:.3f}"


def plot_corp_reliability_diagram(
    y: Any,
    proba: Any,
    *,
    ax: Axes | None = None,
    level: float = 0.9,
    n_resamples: int = 1000,
    score: str = "brier",
    random_state: int | np.random.Generator | None = 0,
    label: str | None = None,
) -> Axes:
    """Draw a CORP reliability diagram with its consistency band and score decomposition.

    Parameters
    ----------
    y : array-like of shape (n,)
        Binary outcomes coded 0/1; both must occur.
    proba : array-like of shape (n,) or (n, 2)
        Forecast probabilities of class 1.
    ax : matplotlib Axes, optional
        Axes to draw in; a new figure is made when omitted.
    level : float, default=0.9
        Pointwise level of the consistency band.
    n_resamples : int, default=1000
        Resamples behind the band.
    score : {"brier", "log"}, default="brier"
        Scoring rule whose decomposition is written in the legend.
    random_state : int, numpy Generator or None, default=0
        Seed of the resampling (fixed by default so a report is reproducible).
    label : str, optional
        Legend label of the curve (e.g. the classifier's name).

    Returns
    -------
    matplotlib.axes.Axes
        The diagram's axes.

    Raises
    ------
    ValueError
        On bad input (see :func:`bayescal.metrics.corp_reliability`).

    See Also
    --------
    bayescal.report.plot_reliability_diagram : the binned diagram with Wilson intervals.

    Notes
    -----
    The step curve is the PAV (isotonic) recalibration of the outcomes on the
    forecasts; the shaded band is where that curve would lie, pointwise with
    probability ``level``, if the forecasts were calibrated; ticks on the x axis
    mark the forecasts. The legend gives the decomposition
    ``score = MCB − DSC + UNC`` (Dimitriadis, Gneiting & Jordan, 2021).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=200)
    >>> ax = plot_corp_reliability_diagram((rng.uniform(size=200) < p).astype(int), p,
    ...                                    n_resamples=100)
    >>> ax.get_xlabel()
    'forecast probability'
    """
    curve = corp_reliability(
        y, proba, level=level, n_resamples=n_resamples, score=score, random_state=random_state
    )
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.5, 5.5))
    bx, lower = _step(curve.forecast, curve.band_lower)
    _, upper = _step(curve.forecast, curve.band_upper)
    ax.fill_between(
        bx,
        lower,
        upper,
        color="tab:blue",
        alpha=0.2,
        linewidth=0,
        label=f"{int(round(100 * curve.level))}% consistency band",
    )
    draw_unit_diagonal(ax, label="perfect calibration", linestyle="--", color="0.5")
    cx, cy = _step(curve.forecast, curve.recalibrated)
    ax.plot(cx, cy, color="tab:red", linewidth=1.5, label=label or "CORP (PAV) curve")
    ax.plot(
        curve.forecast,
        np.zeros_like(curve.forecast),
        "|",
        color="0.3",
        markersize=6,
        alpha=0.5,
        clip_on=False,
    )
    ax.plot([], [], " ", label=decomposition_label(curve))
    ax.set_xlabel("forecast probability")
    ax.set_ylabel("conditional event probability (PAV)")
    ax.set_title("CORP reliability diagram")
    ax.legend(loc="upper left", fontsize="x-small")
    return ax


def corp_grid_figure(
    preds: CubePredictions, *, level: float = 0.9, n_resamples: int = 200
) -> Figure | None:
    """CORP reliability diagrams of a binary dataset: rows classifiers, columns scenarios.

    Parameters
    ----------
    preds : CubePredictions
        The dataset's predictions read from a cube.
    level : float, default=0.9
        Pointwise level of the consistency bands.
    n_resamples : int, default=200
        Resamples per panel (seed 0 in every panel).

    Returns
    -------
    matplotlib.figure.Figure or None
        None for multi-class data (CORP is defined for binary outcomes).
    """
    if not preds.binary:
        return None
    from bayescal.report.cube_figures import _cell_grid

    def draw(ax: Axes, rows: np.ndarray, proba: np.ndarray, first: bool) -> str:
        plot_corp_reliability_diagram(
            preds.y[rows], proba, ax=ax, level=level, n_resamples=n_resamples
        )
        # the decomposition goes in the panel title, outside the data (and out of the legend)
        line = next(ln for ln in ax.lines if ln.get_label().startswith(("Brier ", "log ")))
        words = line.get_label().split()  # "Brier s = MCB a − DSC b + UNC c"
        line.set_label("_nolegend_")
        ax.set_aspect("equal")
        return f"MCB {words[4]}  DSC {words[7]}  UNC {words[10]}"

    return _cell_grid(
        preds,
        f"{preds.name}: CORP reliability (positive class {preds.class_names[1]!r}, "
        f"{int(round(100 * level))}% consistency bands; Brier = MCB − DSC + UNC)",
        draw,
        xlabel="forecast probability",
        ylabel="conditional event probability (PAV)",
    )

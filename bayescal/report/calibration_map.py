"""Calibration maps: a fitted calibrator's score -> probability function.

The posterior mean map and its credible band are drawn for Bayesian
calibrators, the plain map for the others, and optionally a reference probe's
map (dashed). matplotlib is imported inside the plotting function so that
importing :mod:`bayescal.report` stays light.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescal.contracts import has_credible_interval
from bayescal.report._axes import draw_unit_diagonal
from bayescal.validation import check_array_1d, check_fraction

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["MapCurve", "evaluate_map", "plot_calibration_map"]

#: Default score grid: 201 equally spaced points in [0, 1].
DEFAULT_GRID_SIZE = 201


@dataclass(frozen=True)
class MapCurve:
    """A calibration map evaluated on a grid.

    Attributes
    ----------
    grid : ndarray of shape (m,)
        Scores.
    mean : ndarray of shape (m,)
        Calibrated positive-class probability (posterior mean for Bayesian maps).
    lower, upper : ndarray of shape (m,) or None
        Credible band of the map (None for a map without a posterior).
    """

    grid: np.ndarray
    mean: np.ndarray
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None

    @property
    def has_band(self) -> bool:
        """Whether the map carries a credible band."""
        return self.lower is not None and self.upper is not None


def _band_from_map_band(result: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Read ``map_band``'s answer: ``(mean, lower, upper)``, ``(mean, (lower, upper))``
    or an object with ``mean``/``lower``/``upper`` attributes."""
    if all(hasattr(result, a) for a in ("mean", "lower", "upper")):
        return result.mean, result.lower, result.upper
    parts = tuple(result)
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    if len(parts) == 2 and len(parts[1]) == 2:
        return parts[0], parts[1][0], parts[1][1]
    raise TypeError(
        "`map_band` must return (mean, lower, upper) or (mean, (lower, upper)); "
        f"got a {type(result).__name__} of length {len(parts)}."
    )


def evaluate_map(calibrator: Any, grid: Any = None, *, prob: float = 0.9) -> MapCurve:
    """Evaluate a fitted binary calibrator's map (and band) on a score grid.

    Parameters
    ----------
    calibrator : fitted calibrator, array-like or tuple
        A fitted binary calibrator. Its band is taken, in this order, from
        ``map_band(grid, prob=prob)`` (the Bayesian calibration maps of
        :mod:`bayescal.probes`), from ``predict_interval(grid, prob)`` with the
        mean from ``predict_proba`` (any :class:`~bayescal.inference.posterior.
        PosteriorPredictiveMixin` calibrator, e.g. BBQ), else only the map from
        ``calibration_map(grid)`` or ``predict_proba(grid)[:, 1]``.
        Precomputed values are accepted too: an array of the map on ``grid``,
        or a tuple ``(mean, lower, upper)``.
    grid : array-like of shape (m,), optional
        Scores in [0, 1]; default 201 equally spaced points.
    prob : float, default=0.9
        Credible mass of the band.

    Returns
    -------
    MapCurve

    Raises
    ------
    TypeError
        If ``calibrator`` is none of the accepted kinds.
    ValueError
        If the grid or the values are not finite probabilities of matching length.
    """
    prob = check_fraction(prob, "prob")
    grid = (
        np.linspace(0.0, 1.0, DEFAULT_GRID_SIZE)
        if grid is None
        else check_array_1d(grid, "grid", low=0.0, high=1.0)
    )
    lower = upper = None
    if hasattr(calibrator, "map_band"):
        mean, lower, upper = _band_from_map_band(calibrator.map_band(grid, prob=prob))
    elif has_credible_interval(calibrator) and hasattr(calibrator, "predict_proba"):
        mean = np.asarray(calibrator.predict_proba(grid))[:, 1]
        band = np.asarray(calibrator.predict_interval(grid, prob))[:, 1, :]
        lower, upper = band[:, 0], band[:, 1]
    elif hasattr(calibrator, "calibration_map"):
        mean = calibrator.calibration_map(grid)
    elif hasattr(calibrator, "predict_proba"):
        mean = np.asarray(calibrator.predict_proba(grid))[:, 1]
    elif isinstance(calibrator, tuple) and len(calibrator) == 3:
        mean, lower, upper = calibrator
    elif isinstance(calibrator, (np.ndarray, list)):
        mean = calibrator
    else:
        raise TypeError(
            "`calibrator` must be a fitted calibrator (with map_band, predict_interval, "
            "calibration_map or predict_proba), an array of map values or a tuple "
            f"(mean, lower, upper); got {type(calibrator).__name__}."
        )
    values = [
        check_array_1d(v, name, low=0.0, high=1.0) if v is not None else None
        for v, name in ((mean, "mean"), (lower, "lower"), (upper, "upper"))
    ]
    for v, name in zip(values, ("mean", "lower", "upper"), strict=True):
        if v is not None and v.shape != grid.shape:
            raise ValueError(
                f"the map's `{name}` has {v.shape[0]} values but the grid has {grid.shape[0]}."
            )
    return MapCurve(grid, values[0], values[1], values[2])


def plot_calibration_map(
    calibrator_or_maps: Any,
    grid: Any = None,
    *,
    prob: float = 0.9,
    ax: Axes | None = None,
    reference: Any = None,
    reference_label: str = "reference probe",
) -> Axes:
    """Draw the calibration map(s) of fitted calibrators, with credible bands.

    Parameters
    ----------
    calibrator_or_maps : calibrator, array-like, tuple or mapping
        One fitted binary calibrator (or precomputed values, see
        :func:`evaluate_map`), or a mapping ``{label: calibrator}`` to draw
        several maps on one axes.
    grid : array-like of shape (m,), optional
        Scores in [0, 1]; default 201 equally spaced points.
    prob : float, default=0.9
        Credible mass of the bands.
    ax : matplotlib Axes, optional
        Axes to draw in; a new figure is made when omitted.
    reference : calibrator or array-like, optional
        A reference map (e.g. the probe's Bayesian calibration map, or the
        true map of synthetic data), drawn as a dashed black line with its
        band as a hatched outline.
    reference_label : str, default="reference probe"
        Legend label of ``reference``.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError, ValueError
        See :func:`evaluate_map`.

    Notes
    -----
    For a Bayesian map the line is the posterior mean of the calibrated
    probability at each score and the shaded band (one ``PolyCollection`` per
    map, from ``fill_between``) its ``prob`` credible band as the calibrator
    reports it (``map_band``), so the picture shows where the calibrator is
    unsure of its own map (Alasalmi 2020: Bayesian
    calibration maps as reference probes). The dotted diagonal is the identity
    map (a calibrator that changes nothing).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> grid = np.linspace(0, 1, 5)
    >>> ax = plot_calibration_map((grid**2, grid**2 * 0.9, np.sqrt(grid**2 * 0.9 + 0.1)), grid)
    >>> [round(float(v), 4) for v in ax.lines[0].get_ydata()]
    [0.0, 0.0625, 0.25, 0.5625, 1.0]
    """
    if isinstance(calibrator_or_maps, Mapping):
        if not calibrator_or_maps:
            raise ValueError("`calibrator_or_maps` is an empty mapping; give at least one map.")
        maps = {str(k): evaluate_map(v, grid, prob=prob) for k, v in calibrator_or_maps.items()}
    else:
        maps = {"calibration map": evaluate_map(calibrator_or_maps, grid, prob=prob)}
    ref = None if reference is None else evaluate_map(reference, grid, prob=prob)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.5, 5.0))
    pct = int(round(100 * prob))
    for label, curve in maps.items():
        (line,) = ax.plot(curve.grid, curve.mean, linewidth=1.6, label=label)
        if curve.has_band:
            ax.fill_between(
                curve.grid,
                curve.lower,
                curve.upper,
                color=line.get_color(),
                alpha=0.25,
                linewidth=0,
                label=f"{label}: {pct}% credible band",
            )
    if ref is not None:
        ax.plot(
            ref.grid, ref.mean, color="black", linestyle="--", linewidth=1.2, label=reference_label
        )
        if ref.has_band:
            ax.fill_between(
                ref.grid,
                ref.lower,
                ref.upper,
                facecolor="none",
                edgecolor="black",
                hatch="///",
                linewidth=0.5,
                label=f"{reference_label}: {pct}% credible band",
            )
    draw_unit_diagonal(ax, label="identity", linestyle=":", color="0.5")
    ax.set_xlabel("score")
    ax.set_ylabel("calibrated probability (positive class)")
    ax.set_title("Calibration map")
    ax.legend(loc="best", fontsize="small")
    return ax

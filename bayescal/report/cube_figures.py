"""Figures drawn from a result cube's stored predictions.

Each ``*_figure`` function returns a ``matplotlib.figure.Figure`` (made
without pyplot, so no global figure state) laid out as a grid: one row per
classifier, one column per scenario, so the scenarios of a classifier compare
side by side. :func:`plot_instance_intervals` is the per-instance uncertainty
plot on one axes. matplotlib is imported inside the functions.

The cube keeps, per dataset, ``proba`` (``[repeat x] sample x classifier x
scenario x class``), ``y``, ``fold``, ``p_true`` where known and ``interval``
where a classifier gives credible intervals (see :mod:`bayescal.cube`).
When the protocol repeats, the first repetition is drawn. Samples in no test
fold (Monte-Carlo CV) have NaN probabilities and are left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescal.report.calibration_map import plot_calibration_map
from bayescal.report.reliability import plot_reliability_diagram
from bayescal.report.truth import plot_true_vs_predicted
from bayescal.validation import check_array_1d, check_positive_int, check_probability_matrix

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "CubePredictions",
    "calibration_map_figure",
    "instance_uncertainty_figure",
    "plot_instance_intervals",
    "reliability_grid_figure",
    "true_vs_predicted_figure",
]

_PANEL = 2.6  # inches per grid panel


def mpl_text(text: Any) -> str:
    """A name from a spec or data file made safe for matplotlib text (no mathtext)."""
    return str(text).replace("$", r"\$")


@dataclass
class CubePredictions:
    """The predictions of one dataset, first repetition, as NumPy arrays.

    Attributes
    ----------
    name : str
    classifiers, scenarios : list of str
    class_names : list of str
    proba : ndarray (n, n_classifiers, n_scenarios, K)
    y : ndarray (n,)
    p_true : ndarray (n,) or None
    interval : ndarray (n, n_classifiers, n_scenarios, K, 2) or None
    applicable : ndarray (n_classifiers, n_scenarios) of bool
    """

    name: str
    classifiers: list[str]
    scenarios: list[str]
    class_names: list[str]
    proba: np.ndarray
    y: np.ndarray
    p_true: np.ndarray | None
    interval: np.ndarray | None
    applicable: np.ndarray

    @classmethod
    def from_cube(cls, tree: Any, dataset: str) -> CubePredictions:
        """Read ``/predictions/<dataset>`` (and ``applicable``) of a cube."""
        ds = tree["predictions"][dataset].to_dataset()
        if "repeat" in ds.dims:
            ds = ds.isel(repeat=0)
        proba = ds["proba"].transpose("sample", "classifier", "scenario", "class").values
        interval = None
        if "interval" in ds:
            interval = (
                ds["interval"]
                .transpose("sample", "classifier", "scenario", "class", "bound")
                .values
            )
        metrics = tree["metrics"].to_dataset()
        classifiers = [str(c) for c in ds["classifier"].values]
        scenarios = [str(s) for s in ds["scenario"].values]
        if "applicable" in metrics:
            app = metrics["applicable"]
            if "dataset" in app.dims:
                app = app.sel(dataset=dataset)
            applicable = (
                app.sel(classifier=classifiers, scenario=scenarios)
                .transpose("classifier", "scenario")
                .values.astype(bool)
            )
        else:
            applicable = np.ones((len(classifiers), len(scenarios)), dtype=bool)
        return cls(
            name=str(dataset),
            classifiers=classifiers,
            scenarios=scenarios,
            class_names=[str(c) for c in ds["class"].values],
            proba=np.asarray(proba, dtype=float),
            y=np.asarray(ds["y"].values).astype(int),
            p_true=np.asarray(ds["p_true"].values, float) if "p_true" in ds else None,
            interval=None if interval is None else np.asarray(interval, dtype=float),
            applicable=applicable,
        )

    @property
    def binary(self) -> bool:
        """Whether the dataset has two classes."""
        return len(self.class_names) == 2

    def cell(self, c: int, s: int) -> tuple[np.ndarray, np.ndarray] | None:
        """``(rows, proba)`` of the predicted samples of one classifier x scenario.

        None when the scenario does not apply or nothing was predicted.
        """
        if not self.applicable[c, s]:
            return None
        proba = self.proba[:, c, s, :]
        rows = np.flatnonzero(np.isfinite(proba).all(axis=1))
        if rows.size == 0:
            return None
        return rows, proba[rows]

    def has_interval(self, c: int, s: int) -> bool:
        """Whether the cell stores credible intervals."""
        return self.interval is not None and bool(
            np.isfinite(self.interval[:, c, s]).all(axis=(1, 2)).any()
        )


def _cell_grid(
    preds: CubePredictions, title: str, draw: Callable[[Axes, np.ndarray, np.ndarray, bool], None]
) -> Figure:
    """A figure with one panel per classifier (row) x scenario (column).

    Axes are made only for cells with predictions (a 6 x 8 grid of a large
    study is half empty); the others get a grey note. The layout is fixed
    (no constrained layout: it costs more than the drawing on large grids).
    """
    from matplotlib.figure import Figure

    n_rows, n_cols = len(preds.classifiers), len(preds.scenarios)
    width, height = max(_PANEL * n_cols + 0.8, 4.0), _PANEL * n_rows + 0.9
    fig = Figure(figsize=(width, height))
    gs = fig.add_gridspec(
        n_rows,
        n_cols,
        left=0.75 / width,
        right=1 - 0.15 / width,
        bottom=0.45 / height,
        top=1 - 0.75 / height,
        wspace=0.38,
        hspace=0.42,
    )
    first = True
    for c in range(n_rows):
        for s in range(n_cols):
            cell = preds.cell(c, s)
            if cell is None:
                box = gs[c, s].get_position(fig)
                note = "not applicable" if not preds.applicable[c, s] else "not run"
                fig.text(
                    (box.x0 + box.x1) / 2,
                    (box.y0 + box.y1) / 2,
                    note,
                    ha="center",
                    va="center",
                    color="0.5",
                    fontsize="small",
                )
                continue
            ax = fig.add_subplot(gs[c, s])
            draw(ax, cell[0], cell[1], first)
            ax.set_title("")
            legend = ax.get_legend()
            if legend is not None and not first:
                legend.remove()
            ax.xaxis.label.set_fontsize("x-small")
            ax.yaxis.label.set_fontsize("x-small")
            ax.tick_params(labelsize="x-small")
            first = False
    for s, scen in enumerate(preds.scenarios):
        box = gs[0, s].get_position(fig)
        fig.text(
            (box.x0 + box.x1) / 2,
            box.y1 + 0.12 / height,
            mpl_text(scen),
            ha="center",
            va="bottom",
            fontweight="bold",
        )
    for c, clf in enumerate(preds.classifiers):
        box = gs[c, 0].get_position(fig)
        fig.text(
            0.12 / width,
            (box.y0 + box.y1) / 2,
            mpl_text(clf),
            rotation=90,
            ha="left",
            va="center",
            fontweight="bold",
        )
    fig.suptitle(mpl_text(title), y=1 - 0.12 / height, va="top")
    return fig


def _empty(ax: Axes, text: str) -> None:
    ax.set_axis_off()
    ax.text(
        0.5,
        0.5,
        text,
        ha="center",
        va="center",
        color="0.5",
        fontsize="small",
        transform=ax.transAxes,
    )


def reliability_grid_figure(
    preds: CubePredictions, *, n_bins: int = 10, confidence: float = 0.95
) -> Figure:
    """Reliability diagrams with Wilson intervals: rows classifiers, columns scenarios.

    Binary data draw the positive class, multi-class data the top label; each
    panel is :func:`bayescal.report.plot_reliability_diagram` (points style).
    """
    kind = "binary" if preds.binary else "top_label"

    def draw(ax: Axes, rows: np.ndarray, proba: np.ndarray, first: bool) -> None:
        plot_reliability_diagram(
            preds.y[rows],
            proba,
            n_bins=n_bins,
            kind=kind,
            confidence=confidence,
            ax=ax,
            show_histogram=False,
            style="points",
            label="observed rate",
        )

    event = f"positive class {preds.class_names[1]!r}" if preds.binary else "top label"
    return _cell_grid(
        preds,
        f"{preds.name}: reliability ({event}, {int(round(100 * confidence))}% Wilson intervals)",
        draw,
    )


def calibration_map_figure(
    preds: CubePredictions, *, raw: int, prob: float = 0.9, probe: int | None = None
) -> Figure | None:
    """Each scenario's calibrated probability against the raw classifier's score.

    One panel per classifier that has a calibrated scenario (None when no
    classifier has one); the x axis is the positive-class probability of
    scenario ``raw`` for the same sample, the y axis the scenario's
    probability. A scenario that keeps the classifier fitted as in ``raw``
    and calibrates its scores shows its calibration map exactly; one that
    refits the classifier (e.g. on a split) shows the map composed with the
    change of classifier. Where the cube stores credible intervals the band
    is drawn around the points (sorted by score). With ``probe`` (the index
    of the reference probe among the classifiers), the probe's probability of
    the same instances is drawn in black against each classifier's raw score,
    as the reference map.
    """
    from matplotlib.figure import Figure

    panels: dict[str, dict[str, Any]] = {}
    for c, clf in enumerate(preds.classifiers):
        base = preds.cell(c, raw)
        if base is None:
            continue
        maps: dict[str, Any] = {}
        for s, scen in enumerate(preds.scenarios):
            cell = preds.cell(c, s)
            if s == raw or cell is None:
                continue
            rows = np.intersect1d(base[0], cell[0])
            score = preds.proba[rows, c, raw, 1]
            order = np.argsort(score, kind="stable")
            rows, score = rows[order], score[order]
            value = preds.proba[rows, c, s, 1]
            if preds.has_interval(c, s):
                band = preds.interval[rows, c, s, 1]
                ok = np.isfinite(band).all(axis=1)
                maps[scen] = (score[ok], (value[ok], band[ok, 0], band[ok, 1]))
            else:
                maps[scen] = (score, value)
        if maps and probe is not None and probe != c:
            ref = preds.cell(probe, raw)
            if ref is not None:
                rows = np.intersect1d(base[0], ref[0])
                maps[f"reference probe {preds.classifiers[probe]}"] = (
                    preds.proba[rows, c, raw, 1],
                    preds.proba[rows, probe, raw, 1],
                )
        if maps:
            panels[clf] = maps
    if not panels:
        return None
    width = max(3.4 * len(panels), 4.0)
    fig = Figure(figsize=(width, 3.9))
    fig.subplots_adjust(left=0.8 / width, right=0.98, bottom=0.14, top=0.84, wspace=0.3)
    axes = np.atleast_1d(fig.subplots(1, len(panels), squeeze=False)[0])
    for ax, (clf, maps) in zip(axes, panels.items(), strict=True):
        for label, (score, values) in maps.items():
            plot_calibration_map({mpl_text(label): values}, score, prob=prob, ax=ax)
            line = ax.lines[-2]  # the map just drawn (the identity follows it)
            line.set_linestyle("none")
            line.set_marker(".")
            line.set_markersize(3)
            if label.startswith("reference probe "):
                line.set_color("black")
                line.set_marker("x")
        _dedupe_identity(ax)
        ax.set_title(mpl_text(clf), fontsize="medium", fontweight="bold")
        ax.set_xlabel(f"raw score ({mpl_text(preds.scenarios[raw])})", fontsize="small")
        ax.legend(fontsize="x-small", loc="upper left", markerscale=3)
    fig.suptitle(mpl_text(f"{preds.name}: calibrated probability against raw score"))
    return fig


def _dedupe_identity(ax: Axes) -> None:
    """Keep one identity diagonal when several maps were drawn on ``ax``."""
    seen = False
    for line in list(ax.lines)[::-1]:
        if line.get_label() == "identity":
            if seen:
                line.remove()
            seen = True


def true_vs_predicted_figure(preds: CubePredictions, *, max_points: int = 600) -> Figure:
    """Predicted against true probability: rows classifiers, columns scenarios."""
    if preds.p_true is None or not preds.binary:
        raise ValueError(f"dataset {preds.name!r} has no true probabilities of a binary target.")

    def draw(ax: Axes, rows: np.ndarray, proba: np.ndarray, first: bool) -> None:
        plot_true_vs_predicted(preds.p_true[rows], proba, ax=ax, max_points=max_points)
        legend = ax.get_legend()
        if legend is not None and not first:  # keep only the panel's RMSE
            rmse = legend.get_texts()[0].get_text()
            legend.remove()
            ax.text(0.03, 0.97, rmse, transform=ax.transAxes, va="top", fontsize="x-small")

    return _cell_grid(preds, f"{preds.name}: predicted against true probability", draw)


def plot_instance_intervals(
    interval: Any,
    mean: Any,
    *,
    others: dict[str, Any] | None = None,
    y: Any = None,
    ax: Axes | None = None,
    label: str = "probe",
) -> Axes:
    """Per-instance credible intervals, with other models' probabilities around them.

    Parameters
    ----------
    interval : array-like of shape (m, 2)
        Lower and upper credible bounds of each instance's positive-class
        probability.
    mean : array-like of shape (m,)
        The posterior mean probability of each instance.
    others : dict of str to array-like of shape (m,) or (m, r), optional
        Other calibrated probabilities of the same instances (e.g. every
        calibration scenario of a classifier, one column each), drawn as
        short marks, one colour and one legend entry per key.
    y : array-like of shape (m,), optional
        True labels, shown as tick marks at 0 / 1 on a twin strip.
    ax : matplotlib Axes, optional
        Axes to draw in; a new figure is made when omitted.
    label : str, default="probe"
        Legend label of the intervals.

    Returns
    -------
    matplotlib.axes.Axes
        Instances on the x axis in the given order; the vertical segments
        (a ``LineCollection``, the first collection with label ``label``) are
        exactly ``interval`` and the black points ``mean``.

    Raises
    ------
    ValueError
        If the shapes disagree or the values are not probabilities, or a
        lower bound exceeds its upper bound.
    """
    mean = check_array_1d(mean, "mean", low=0.0, high=1.0)
    bounds = np.asarray(interval, dtype=float)
    if bounds.shape != (mean.shape[0], 2):
        raise ValueError(f"`interval` must have shape {(mean.shape[0], 2)}; got {bounds.shape}.")
    check_probability_matrix(np.column_stack([1 - bounds[:, 0], bounds[:, 0]]), "interval")
    check_probability_matrix(np.column_stack([1 - bounds[:, 1], bounds[:, 1]]), "interval")
    if (bounds[:, 0] > bounds[:, 1]).any():
        raise ValueError("`interval` has a lower bound above its upper bound.")
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7.0, 3.5))
    x = np.arange(mean.shape[0])
    for name, values in (others or {}).items():
        v = np.asarray(values, dtype=float)
        v = v[:, None] if v.ndim == 1 else v
        if v.ndim != 2 or v.shape[0] != mean.shape[0]:
            raise ValueError(
                f"`others[{name!r}]` has shape {np.shape(values)}; expected "
                f"({mean.shape[0]},) or ({mean.shape[0]}, r)."
            )
        for j in range(v.shape[1]):
            check_array_1d(v[:, j], f"others[{name!r}]", low=0.0, high=1.0, allow_nan=True)
        xs = np.repeat(x[:, None], v.shape[1], axis=1)
        ax.scatter(
            xs.ravel(),
            v.ravel(),
            s=30,
            marker="_",
            linewidths=1.2,
            alpha=0.8,
            label=name,
            zorder=2,
        )
    # the interval as a vertical segment (not yerr: a skewed posterior's mean may lie
    # outside its equal-tailed interval)
    ax.vlines(x, bounds[:, 0], bounds[:, 1], color="black", linewidth=1.6, label=label, zorder=3)
    ax.scatter(x, mean, color="black", s=14, zorder=3, label="posterior mean")
    if y is not None:
        yv = np.asarray(y)
        ax.scatter(
            x,
            np.where(yv == 1, 1.02, -0.02),
            marker="|",
            color="tab:red",
            s=25,
            clip_on=False,
            label="true class (top: positive)",
            zorder=4,
        )
    ax.set_ylim(-0.04, 1.04)
    ax.set_xlim(-0.7, mean.shape[0] - 0.3)
    ax.set_xticks([])
    ax.set_xlabel("instances (sorted by the probe's mean)")
    ax.set_ylabel("probability (positive class)")
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return ax


def instance_uncertainty_figure(
    preds: CubePredictions,
    c: int,
    s: int,
    *,
    n_instances: int = 40,
    prob: float = 0.9,
    random_state: int = 0,
) -> Figure:
    """The credible intervals of ``n_instances`` random test instances of one cell,
    sorted by its mean, with every other cell's calibrated probability of the
    same instances."""
    from matplotlib.figure import Figure

    n_instances = check_positive_int(n_instances, "n_instances")
    rows = np.flatnonzero(
        np.isfinite(preds.interval[:, c, s, 1]).all(axis=1) & np.isfinite(preds.proba[:, c, s, 1])
    )
    rng = np.random.default_rng(random_state)
    if rows.size > n_instances:
        rows = np.sort(rng.choice(rows, size=n_instances, replace=False))
    rows = rows[np.argsort(preds.proba[rows, c, s, 1], kind="stable")]
    others = {}
    for c2, clf in enumerate(preds.classifiers):
        cols = [
            s2
            for s2 in range(len(preds.scenarios))
            if (c2, s2) != (c, s) and preds.applicable[c2, s2]
        ]
        values = preds.proba[rows][:, c2, cols, 1]
        if cols and np.isfinite(values).any():
            others[mpl_text(f"{clf} ({len(cols)} scenario{'s' if len(cols) > 1 else ''})")] = (
                values
            )
    width = max(7.0, 0.16 * rows.size + 4.0)
    fig = Figure(figsize=(width, 3.8))
    fig.subplots_adjust(left=0.7 / width, right=1 - 2.6 / width, bottom=0.1, top=0.9)
    ax = fig.subplots()
    name = f"{preds.classifiers[c]} / {preds.scenarios[s]}"
    plot_instance_intervals(
        preds.interval[rows, c, s, 1],
        preds.proba[rows, c, s, 1],
        others=others,
        y=preds.y[rows],
        ax=ax,
        label=mpl_text(f"{name}: mean and {int(round(100 * prob))}% credible interval"),
    )
    ax.set_title(mpl_text(f"{preds.name}: per-instance uncertainty of {name}"), fontsize="medium")
    return fig

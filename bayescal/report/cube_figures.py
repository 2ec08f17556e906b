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

_PANEL = 2.3  # inches per grid panel (at most; narrower when there are many columns)
#: Font size (points) of panel text; the report never draws text smaller (see figure_output).
MIN_FONT_SIZE = 9


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
    preds: CubePredictions,
    title: str,
    draw: Callable[[Axes, np.ndarray, np.ndarray, bool], str | None],
    *,
    xlabel: str,
    ylabel: str,
) -> Figure:
    """Small multiples: one row per classifier, its scenarios side by side.

    Only cells with predictions get a panel (a scenario that does not apply
    to a classifier, or did not run, leaves no empty box: the row is shorter
    and every panel is titled with its scenario); a classifier without any
    cell gets no row. ``draw`` fills one panel and may return a second title
    line (e.g. the panel's score). The legend of the first panel becomes one
    figure legend above the panels, outside the data; the axis labels are
    written once for the figure. The layout is fixed (no constrained layout:
    it costs more than the drawing on large grids).
    """
    from matplotlib.figure import Figure

    rows = []
    for c in range(len(preds.classifiers)):
        cells = [(s, cell) for s in range(len(preds.scenarios))
                 if (cell := preds.cell(c, s)) is not None]
        if cells:
            rows.append((c, cells))
    if not rows:
        raise ValueError(f"dataset {preds.name!r} has no finished cell to draw.")
    n_rows = len(rows)
    n_cols = max(len(cells) for _, cells in rows)
    panel = min(_PANEL, 11.6 / n_cols)
    top, bottom, left = 1.25, 0.75, 1.05
    width = panel * n_cols + left + 0.2
    height = panel * n_rows + top + bottom
    fig = Figure(figsize=(width, height))
    gs = fig.add_gridspec(
        n_rows,
        n_cols,
        left=left / width,
        right=1 - 0.2 / width,
        bottom=bottom / height,
        top=1 - top / height,
        wspace=0.28,
        hspace=0.5,
    )
    handles: list[Any] = []
    labels: list[str] = []
    for r, (c, cells) in enumerate(rows):
        for k, (s, (idx, proba)) in enumerate(cells):
            ax = fig.add_subplot(gs[r, k])
            sub = draw(ax, idx, proba, not handles)
            if not handles:
                handles, labels = ax.get_legend_handles_labels()
            legend = ax.get_legend()
            if legend is not None:
                legend.remove()
            ax.set_title(mpl_text(preds.scenarios[s]) + (f"\n{sub}" if sub else ""),
                         fontsize=MIN_FONT_SIZE)
            ax.set_xlabel("")
            ax.set_ylabel("")
            ax.set_xticks([0, 0.5, 1], ["0", "0.5", "1"])
            ax.set_yticks([0, 0.5, 1], ["0", "0.5", "1"] if k == 0 else [])
            ax.tick_params(labelsize=MIN_FONT_SIZE)
        box = gs[r, 0].get_position(fig)
        fig.text(0.45 / width, (box.y0 + box.y1) / 2, mpl_text(preds.classifiers[c]),
                 rotation=90, ha="left", va="center", fontweight="bold",
                 fontsize=MIN_FONT_SIZE + 1)
    fig.suptitle(mpl_text(title), y=1 - 0.1 / height, va="top", fontsize=MIN_FONT_SIZE + 2)
    if handles:
        fig.legend(handles, [mpl_text(t) for t in labels], loc="upper center",
                   bbox_to_anchor=(0.5, 1 - 0.42 / height), ncol=min(len(handles), 4),
                   frameon=False, fontsize=MIN_FONT_SIZE)
    fig.supxlabel(xlabel, y=0.12 / height, va="bottom", fontsize=MIN_FONT_SIZE + 1)
    fig.supylabel(ylabel, x=0.08 / width, ha="left", fontsize=MIN_FONT_SIZE + 1)
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
            label=f"observed rate ({int(round(100 * confidence))}% Wilson interval)",
        )
        ax.set_aspect("equal")

    event = f"positive class {preds.class_names[1]!r}" if preds.binary else "top label"
    return _cell_grid(
        preds,
        f"{preds.name}: reliability ({event})",
        draw,
        xlabel="mean predicted probability in the bin"
        + (f" (of {preds.class_names[1]!r})" if preds.binary else " (top label)"),
        ylabel="observed rate" + (f" of {preds.class_names[1]!r}" if preds.binary
                                  else " of the top label"),
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
    names = list(dict.fromkeys(label for maps in panels.values() for label in maps))
    colours = {
        label: "black" if label.startswith("reference probe ") else f"C{i % 10}"
        for i, label in enumerate(names)
    }
    n = len(panels)
    side = min(3.0, 10.0 / n)
    width = side * n + 0.9 + 0.3
    height = side + 1.9
    fig = Figure(figsize=(width, height))
    fig.subplots_adjust(left=0.9 / width, right=1 - 0.3 / width, bottom=0.75 / height,
                        top=1 - 1.15 / height, wspace=0.12)
    axes = np.atleast_1d(fig.subplots(1, n, squeeze=False, sharey=True)[0])
    for k, (ax, (clf, maps)) in enumerate(zip(axes, panels.items(), strict=True)):
        for label, (score, values) in maps.items():
            plot_calibration_map({mpl_text(label): values}, score, prob=prob, ax=ax)
            line = ax.lines[-2]  # the map just drawn (the identity follows it)
            line.set_linestyle("none")
            line.set_marker("x" if label.startswith("reference probe ") else ".")
            line.set_markersize(3)
            line.set_color(colours[label])
            for band in ax.collections[-1:]:
                if band.get_label().startswith(f"{line.get_label()}: "):
                    band.set_color(colours[label])
        _dedupe_identity(ax)
        legend = ax.get_legend()
        if legend is not None:
            legend.remove()
        ax.set_title(mpl_text(clf), fontsize=MIN_FONT_SIZE + 1, fontweight="bold")
        ax.set_xlabel(f"raw score ({mpl_text(preds.scenarios[raw])})", fontsize=MIN_FONT_SIZE)
        ax.set_ylabel("calibrated probability" if k == 0 else "", fontsize=MIN_FONT_SIZE)
        ax.set_aspect("equal")
        ax.tick_params(labelsize=MIN_FONT_SIZE)
    handles, labels = [], []
    for ax in axes:  # one legend for the figure, every scenario once, above the panels
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 1 - 0.4 / height),
               ncol=min(len(labels), 4), frameon=False, fontsize=MIN_FONT_SIZE, markerscale=3)
    fig.suptitle(mpl_text(f"{preds.name}: calibrated probability against raw score"),
                 y=1 - 0.08 / height, va="top", fontsize=MIN_FONT_SIZE + 2)
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

    def draw(ax: Axes, rows: np.ndarray, proba: np.ndarray, first: bool) -> str:
        plot_true_vs_predicted(preds.p_true[rows], proba, ax=ax, max_points=max_points)
        legend = ax.get_legend()
        rmse = legend.get_texts()[0].get_text()  # "RMSE 0.081", over every point
        points = ax.collections[0]
        points.set_label("test instance")
        return rmse

    return _cell_grid(
        preds,
        f"{preds.name}: predicted against true probability of {preds.class_names[1]!r} "
        "(panel title: RMSE to the truth)",
        draw,
        xlabel="true probability",
        ylabel="predicted probability",
    )


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
    ax.set_ylabel(mpl_text(f"probability of {preds.class_names[1]!r}"))
    return fig

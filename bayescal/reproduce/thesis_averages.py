"""Alasalmi (2020) Figs. 12-13: average log loss and MSE over the thesis' real-world sets.

Function blocks of ``models/reproductions/seed000_figs12_13`` (see
:mod:`bayescal.reproduce.registry`). The thesis (§3.3.1, Publication IV) shows
two grouped bar charts -- one group per classifier (NB, SVM, RF, NN, BLR, GPC),
one bar per calibration scenario -- of the calibration error averaged over its
six real-world binary data sets, and prints no bar heights; its text states
claims about them. Each block:

1. runs the binary study (:func:`bayescal.study.run`; quick size: the spec
   beside ``paper.csv``, full size: ``models/thesis_binary.toml`` itself),
   resuming a store it finds;
2. averages each metric over the folds of a data set, then over the six
   real-world sets (:func:`dataset_means`, :func:`average_over_datasets`), in
   the thesis' units: log loss (its Eq. 11, nats, the true-class probability
   clipped at 1e-15 as in Tables 3-4) and MSE (its Eq. 10, the squared error
   summed over both classes: the cube's ``brier_sum``);
3. draws the two charts (:func:`plot_scenario_bars`), and
4. evaluates every claim of ``paper.csv`` on the bars
   (:mod:`bayescal.reproduce.claims`), returning one line per claim: ``ours``
   is 1 where the claim holds, 0 where it does not.

The scenarios as the thesis names them (:data:`FIGURE_SCENARIOS`): Raw; ENIR
(ENIR on a split of the training set); E.full (ENIR on the full training
set); DG and DGG (ENIR on generated data); CS, classifier-specific: ENIR on
the out-of-bag scores for RF, Platt scaling on the full training set for SVM.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bayescal.reproduce.claims import evaluate_check, load_claims
from bayescal.reproduce.registry import DEFAULT_ROOT

__all__ = ["CHARTS", "FIGURE_SCENARIOS", "REAL_WORLD", "average_over_datasets",
           "dataset_means", "evaluate_cube", "evaluate_store", "figs12_13_full",
           "figs12_13_quick", "plot_scenario_bars", "scenario_averages"]

#: The thesis' six real-world binary sets (names of models/thesis_binary.toml).
REAL_WORLD = ("biodegradation", "blood_donation", "contraceptive", "letter_oq",
              "mammographic", "titanic")

#: Bar label -> cube scenario, per classifier (``"*"``: every classifier).
FIGURE_SCENARIOS: dict[str, dict[str, str]] = {
    "Raw": {"*": "raw"},
    "ENIR": {"*": "enir_split"},
    "E.full": {"*": "enir_full"},
    "DG": {"*": "enir_dg"},
    "DGG": {"*": "enir_dgg"},
    "CS": {"rf": "enir_oob", "svm": "platt_full"},
}

#: Chart name -> (cube metric, axis label, figure number in the thesis).
CHARTS = {
    "fig12_claim": ("log_loss", "average log loss (Eq. 11, nats)", "Fig. 12"),
    "fig13_claim": ("brier_sum", "average MSE (Eq. 10, sum over classes)", "Fig. 13"),
}

_FOLDER = DEFAULT_ROOT / "seed000_figs12_13"
_CLASSIFIER_ORDER = ("nb", "svm", "rf", "nn", "blr", "gpc")


def dataset_means(tree: Any, metric: str, *, datasets: tuple[str, ...] = REAL_WORLD,
                  scenarios: dict[str, dict[str, str]] | None = None) -> pd.Series:
    """Per data set, the fold mean of ``metric`` for every bar of the charts.

    Parameters
    ----------
    tree : xarray.DataTree
        A result cube (:func:`bayescal.cube.open_results`).
    metric : str
        A metric variable of the cube's ``/metrics`` (e.g. ``"log_loss"``).
    datasets : tuple of str, default=REAL_WORLD
        The data sets to keep (every one must be in the cube).
    scenarios : dict, optional
        Bar label -> {classifier or ``"*"``: cube scenario}; default
        :data:`FIGURE_SCENARIOS`. A bar exists for a classifier when its
        scenario is in the cube and applies to the classifier.

    Returns
    -------
    pandas.Series
        Indexed by ``(dataset, classifier, label)``; NaN where a cell failed
        (one failed fold makes the data set's mean NaN: nothing is dropped).

    Raises
    ------
    ValueError
        If the metric, a data set or a classifier-wide scenario is missing.
    """
    ds = tree["/metrics"].ds
    if metric not in ds.data_vars:
        # e.g. the full size runs thesis_binary.toml, which records `brier`, not the
        # thesis' `brier_sum`: recompute it per fold from the stored predictions
        ds = ds.assign({metric: _recomputed(tree, metric, ds)})
    have = [str(d) for d in ds["dataset"].to_numpy()]
    missing = [d for d in datasets if d not in have]
    if missing:
        raise ValueError(f"`datasets` {missing} are not in the cube (it holds {have}); "
                         "run the study on them or pass datasets=.")
    scenarios = FIGURE_SCENARIOS if scenarios is None else scenarios
    cube_scenarios = [str(s) for s in ds["scenario"].to_numpy()]
    for label, by in scenarios.items():
        if "*" in by and by["*"] not in cube_scenarios:
            raise ValueError(f"`scenarios`: bar {label!r} needs the cube scenario "
                             f"{by['*']!r}; the cube has {cube_scenarios}")
    reduce = [d for d in ("repeat", "fold") if d in ds[metric].dims]
    means = ds[metric].sel(dataset=list(datasets)).mean(reduce, skipna=False)
    applicable = ds["applicable"] if "applicable" in ds else None
    rows = {}
    for clf in (str(c) for c in ds["classifier"].to_numpy()):
        for label, by in scenarios.items():
            sc = by.get(clf, by.get("*"))
            if sc is None or sc not in cube_scenarios:
                continue
            if applicable is not None and not bool(applicable.sel(classifier=clf, scenario=sc)):
                continue
            for d in datasets:
                rows[(d, clf, label)] = float(means.sel(dataset=d, classifier=clf, scenario=sc))
    index = pd.MultiIndex.from_tuples(list(rows), names=["dataset", "classifier", "label"])
    return pd.Series(list(rows.values()), index=index, name=metric, dtype=float)


def _recomputed(tree: Any, metric: str, ds: Any) -> Any:
    """``metric`` per fold from the cube's predictions, aligned with ``ds``."""
    from bayescal.cube.derived import fold_label_metric

    try:
        values = fold_label_metric(tree, metric)
    except ValueError as err:
        raise ValueError(f"`metric` {metric!r} is not in the cube and cannot be recomputed "
                         f"from its predictions ({err}); its metrics: "
                         f"{sorted(v for v in ds.data_vars if 'dataset' in ds[v].dims)}. "
                         "Add it to the spec's [metrics] names and rerun.") from err
    if "repeat" in ds.dims:
        values = values.expand_dims(repeat=ds["repeat"].to_numpy())
    return values.transpose(*ds["log_loss" if "log_loss" in ds else "failed"].dims)


def average_over_datasets(per_dataset: pd.Series) -> pd.Series:
    """Each bar's mean over the data sets (equal weight; NaN if any data set is NaN).

    Parameters
    ----------
    per_dataset : pandas.Series
        Indexed by ``(dataset, classifier, label)`` (:func:`dataset_means`).

    Returns
    -------
    pandas.Series
        Indexed by ``(classifier, label)``, in the order of first appearance.

    Raises
    ------
    ValueError
        If the index is not ``(dataset, classifier, label)`` or the bars do not
        all cover the same data sets.

    Examples
    --------
    >>> idx = pd.MultiIndex.from_tuples([("a", "nb", "Raw"), ("b", "nb", "Raw")],
    ...                                 names=["dataset", "classifier", "label"])
    >>> average_over_datasets(pd.Series([1.0, 3.0], index=idx)).tolist()
    [2.0]
    """
    if not isinstance(per_dataset, pd.Series) or list(per_dataset.index.names) != [
            "dataset", "classifier", "label"]:
        raise ValueError("`per_dataset` must be a pandas Series indexed by (dataset, "
                         "classifier, label), as dataset_means returns; got "
                         f"{type(per_dataset).__name__} with index names "
                         f"{getattr(getattr(per_dataset, 'index', None), 'names', None)}")
    counts = per_dataset.groupby(level=["classifier", "label"], sort=False).size()
    if counts.nunique() > 1:
        raise ValueError(f"`per_dataset`: the bars cover different numbers of data sets "
                         f"({counts.to_dict()}); each bar must average the same sets")
    return per_dataset.groupby(level=["classifier", "label"], sort=False).agg(
        lambda v: v.mean(skipna=False))


def scenario_averages(tree: Any, metric: str, *,
                      datasets: tuple[str, ...] = REAL_WORLD) -> tuple[pd.Series, pd.Series]:
    """:func:`dataset_means` and :func:`average_over_datasets` of one metric."""
    per = dataset_means(tree, metric, datasets=datasets)
    return per, average_over_datasets(per)


def plot_scenario_bars(bars: pd.Series, path: str | Path, *, ylabel: str, title: str) -> Path:
    """A grouped bar chart: one group per classifier, one bar per scenario label.

    Bars missing from ``bars`` (a scenario that does not apply) leave no bar;
    a NaN bar (failed cells) is drawn at zero height and marked "failed". Bars
    are in the order of :data:`FIGURE_SCENARIOS`, other labels after them.

    Returns
    -------
    pathlib.Path
        ``path``, written (PNG at 100 dpi).
    """
    from matplotlib.figure import Figure

    present = list(dict.fromkeys(bars.index.get_level_values(1)))
    labels = [lb for lb in FIGURE_SCENARIOS if lb in present]
    labels += [lb for lb in present if lb not in labels]
    classifiers = [c for c in _CLASSIFIER_ORDER if c in bars.index.get_level_values(0)]
    classifiers += [c for c in dict.fromkeys(bars.index.get_level_values(0))
                    if c not in classifiers]
    fig = Figure(figsize=(8.5, 3.8))
    ax = fig.subplots()
    width = 0.8 / len(labels)
    color = {label: f"C{i}" for i, label in enumerate(labels)}
    shown: set[str] = set()
    for i, clf in enumerate(classifiers):
        own = [label for label in labels if (clf, label) in bars.index]
        for j, label in enumerate(own):  # the classifier's bars, centred on its tick
            x = i + (j - (len(own) - 1) / 2) * width
            h = float(bars[(clf, label)])
            ax.bar(x, 0.0 if np.isnan(h) else h, width=width, color=color[label],
                   label=None if label in shown else label)
            shown.add(label)
            if np.isnan(h):
                ax.text(x, 0, "failed", rotation=90, ha="center", va="bottom", fontsize=6)
    ax.set_xticks(range(len(classifiers)), [c.upper() for c in classifiers])
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(ncol=len(labels), fontsize=7, loc="upper right")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    return path


def evaluate_store(store: str | Path, out: str | Path, *, size: str = "quick",
                   claims_file: str | Path | None = None) -> pd.DataFrame:
    """:func:`evaluate_cube` of a finished study store (quick, mid or full size)."""
    from bayescal.cube import open_results

    return evaluate_cube(open_results(store), out, size=size, claims_file=claims_file)


def evaluate_cube(tree: Any, out: str | Path, *, size: str = "quick",
                  claims_file: str | Path | None = None) -> pd.DataFrame:
    """Bars, charts and claims of a result cube (steps 2-4 of the module).

    Parameters
    ----------
    tree : xarray.DataTree
        A result cube holding the six :data:`REAL_WORLD` sets and the
        scenarios of :data:`FIGURE_SCENARIOS`.
    out : path
        Folder for ``fig12_log_loss.png``, ``fig13_brier_sum.png``,
        ``dataset_means.csv`` (per set and bar) and ``claims.csv`` (every
        claim with its check, the values compared and its source).
    size : str, default="quick"
        Named in the charts' titles.
    claims_file : path, optional
        The ``paper.csv`` of claims (default: the reproduction's).

    Returns
    -------
    pandas.DataFrame
        One line per claim and chart: ``claim``, ``method`` ("text"),
        ``metric`` (the chart: ``fig12_claim`` / ``fig13_claim``), ``ours``
        (1.0 holds, 0.0 not), ``check``, ``detail``, ``source``.

    Raises
    ------
    ValueError
        If the store lacks a set, a metric or a scenario the charts need, or a
        claim names a bar the charts lack.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    claims = load_claims(_FOLDER / "paper.csv" if claims_file is None else claims_file,
                         metrics=tuple(CHARTS))
    lines, tables = [], []
    for chart, (metric, ylabel, number) in CHARTS.items():
        per, bars = scenario_averages(tree, metric)
        tables.append(per.rename("value").reset_index().assign(metric=metric))
        plot_scenario_bars(bars, out / f"{number.replace('. ', '').lower()}_{metric}.png",
                           ylabel=ylabel, title=f"{number} ({size} size): {ylabel} over "
                           f"{len(REAL_WORLD)} real-world sets")
        for c in (c for c in claims if c.metric == chart):
            result = evaluate_check(c.check, bars, per)
            lines.append({"claim": c.id, "method": "text", "metric": chart,
                          "ours": float(result.holds), "check": c.check,
                          "detail": result.detail, "source": c.source})
    pd.concat(tables, ignore_index=True).to_csv(out / "dataset_means.csv", index=False)
    table = pd.DataFrame(lines)
    table.to_csv(out / "claims.csv", index=False)
    return table


def _run_figures(out: Path, spec: Path, size: str, n_jobs: int | None) -> pd.DataFrame:
    from bayescal.study import run

    run(spec, out / "cube", resume=True, n_jobs=n_jobs, progress=False)
    return evaluate_store(out / "cube", out, size=size)


def figs12_13_quick(out: Path, n_jobs: int | None = None) -> pd.DataFrame:
    """Quick size: ``quick.toml`` beside ``paper.csv`` (300 rows a set, 3-fold CV, ...)."""
    return _run_figures(Path(out), _FOLDER / "quick.toml", "quick", n_jobs)


def figs12_13_full(out: Path, n_jobs: int | None = None) -> pd.DataFrame:
    """Full size: ``models/thesis_binary.toml`` (the thesis' settings; about an hour of CPU)."""
    return _run_figures(Path(out), DEFAULT_ROOT.parent / "thesis_binary.toml", "full", n_jobs)

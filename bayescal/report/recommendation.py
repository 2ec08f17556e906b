"""The report's first screen: which calibration to use, and how sure we are.

:func:`recommendations` finds, for each dataset and classifier, the scenario
with the best mean over folds of one metric (cells whose posterior failed its
diagnostics are never chosen), its gain over the baseline scenario (the
spec's ``tests.baseline``, else the uncalibrated ``raw``), in how many folds
it beats the baseline, and the p-value of the spec's per-fold test against
the baseline. :func:`certainty` turns these into words: *clear* (the test
rejects equality and every fold agrees), *likely* (the test rejects
equality), *unclear* (it does not); without a test only the folds are
counted. :func:`recommendation_section` is the HTML of that screen, with the
across-dataset view of each classifier (mean ranks) and Demšar's caution
below 5 data sets.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Recommendation", "certainty", "recommendation_section", "recommendations"]


@dataclass(frozen=True)
class Recommendation:
    """The best scenario of one dataset and classifier, against the baseline.

    Attributes
    ----------
    dataset, classifier, metric, scenario : str
        ``scenario`` is the best (it may be the baseline itself).
    value : float
        Its mean over folds.
    baseline : str or None
        The scenario compared with (None when the classifier has none).
    baseline_value : float
        Its mean over folds (NaN without a baseline).
    gain : float
        How much better than the baseline, in the metric's units (positive:
        better; NaN without a baseline).
    folds_better, n_folds : int
        Folds (repeats × folds) in which the best scenario beats the
        baseline, among those where both are finite.
    p_value : float
        The spec's per-fold test of the best scenario against the baseline
        (NaN when none ran or the best is the baseline).
    test : str or None
        That test's name.
    """

    dataset: str
    classifier: str
    metric: str
    scenario: str
    value: float
    baseline: str | None
    baseline_value: float
    gain: float
    folds_better: int
    n_folds: int
    p_value: float
    test: str | None


def certainty(rec: Recommendation, alpha: float = 0.05) -> tuple[str, str]:
    """How sure the recommendation is: ``(level, words)``.

    ``level`` is ``"baseline"`` (nothing beats the baseline), ``"clear"``,
    ``"likely"`` or ``"unclear"``; ``words`` says why, with the fold count and
    the p-value.
    """
    if rec.baseline is None:
        return "unclear", "no baseline to compare with"
    if rec.scenario == rec.baseline:
        return "baseline", f"no scenario beats {rec.baseline} on the mean"
    folds = f"better in {rec.folds_better} of {rec.n_folds} folds"
    if rec.test is None or not np.isfinite(rec.p_value):
        level = "likely" if rec.n_folds and rec.folds_better == rec.n_folds else "unclear"
        return level, folds + " (no per-fold test in the spec)"
    p = f"p = {rec.p_value:.2g}" if rec.p_value >= 0.001 else "p < 0.001"
    words = f"{folds}; {p} ({rec.test.replace('_', ' ')})"
    if rec.p_value < alpha:
        return ("clear" if rec.folds_better == rec.n_folds else "likely"), words
    return "unclear", words + f"; not shown to differ from {rec.baseline}"


def _fold_array(ds: Any, metric: str, dataset: str, classifier: str, scenario: str) -> np.ndarray:
    da = ds[metric].sel(dataset=dataset, classifier=classifier, scenario=scenario)
    if "done" in ds:
        da = da.where(ds["done"].sel(dataset=dataset, classifier=classifier, scenario=scenario))
    return np.asarray(da.values, dtype=float).ravel()


def recommendations(tree: Any, metric: str) -> list[Recommendation]:
    """The best scenario of every dataset and classifier on ``metric``.

    Parameters
    ----------
    tree : xarray.DataTree
        The result cube.
    metric : str
        A metric with a direction (``brier``, ``log_loss``, ...).

    Returns
    -------
    list of Recommendation
        Classifier by classifier, dataset by dataset; classifiers with fewer
        than two finished scenarios on a dataset (a reference probe run only
        raw) are left out.

    Raises
    ------
    ValueError
        If ``metric`` has no direction or is not in the cube.
    """
    from bayescal.report.comparison import metrics_dataset
    from bayescal.report.tables import baseline_p_values, study_table

    table = study_table(tree, metric)
    if table.direction is None:
        raise ValueError(f"`metric` {metric!r} has no direction (better is neither lower "
                         "nor higher); choose a score such as 'brier'.")
    ds = metrics_dataset(tree)
    sign = 1.0 if table.direction == "lower" else -1.0
    p, baseline, test, _ = baseline_p_values(tree, metric, ds)
    if baseline is None:
        from bayescal.report.summary import _raw_index

        raw = _raw_index(ds)
        baseline = None if raw is None else str(ds["scenario"].values[raw])
    classifiers = [str(c) for c in ds["classifier"].values]
    scenarios = [str(s) for s in ds["scenario"].values]
    out = []
    for clf in classifiers:
        idx = [i for i, (c, _) in enumerate(table.rows) if c == clf]
        for j, dataset in enumerate(table.datasets):
            ok = [i for i in idx if np.isfinite(table.mean[i, j]) and not table.unconverged[i, j]]
            if len(ok) < 2:
                continue
            best = min(ok, key=lambda i: sign * table.mean[i, j])
            scen = table.rows[best][1]
            value = float(table.mean[best, j])
            base_row = next((i for i in ok if table.rows[i][1] == baseline), None)
            if base_row is None:
                out.append(Recommendation(dataset, clf, metric, scen, value, None, np.nan,
                                          np.nan, 0, 0, np.nan, None))
                continue
            base_value = float(table.mean[base_row, j])
            a = _fold_array(ds, metric, dataset, clf, scen)
            b = _fold_array(ds, metric, dataset, clf, str(baseline))
            both = np.isfinite(a) & np.isfinite(b)
            better = int(np.sum(sign * (b[both] - a[both]) > 0))
            p_value = np.nan
            if p is not None and scen != baseline:
                p_value = float(p[classifiers.index(clf), scenarios.index(scen), j])
            out.append(Recommendation(
                dataset, clf, metric, scen, value, str(baseline), base_value,
                sign * (base_value - value), better, int(both.sum()), p_value,
                test if scen != baseline else None))
    return out


def _mean_ranks(tree: Any, metric: str, classifier: str,
                methods: list[str]) -> tuple[dict[str, float], int]:
    """Mean rank (1 = best) of ``methods`` over the datasets where all are finished."""
    from bayescal.report.tables import study_table

    table = study_table(tree, metric)
    sign = 1.0 if table.direction == "lower" else -1.0
    rows = [table.rows.index((classifier, m)) for m in methods]
    values = table.mean[rows]  # methods x datasets
    keep = np.isfinite(values).all(axis=0)
    if not keep.any():
        return {}, 0
    from scipy.stats import rankdata

    ranks = np.column_stack([rankdata(sign * values[:, j]) for j in np.flatnonzero(keep)])
    return dict(zip(methods, ranks.mean(axis=1).tolist(), strict=True)), int(keep.sum())


_LEVEL_MARK = {"clear": "✔ clear", "likely": "● likely", "unclear": "? unclear",
               "baseline": "= keep"}


def _headline(recs: list[Recommendation]) -> str:
    """One sentence (HTML) answering the question for the whole study."""
    esc = html.escape
    levels = [(r, certainty(r)[0]) for r in recs]

    def cells(level: str) -> str:
        return "; ".join(f"{esc(r.classifier)} → <b>{esc(r.scenario)}</b> on {esc(r.dataset)}"
                         for r, lv in levels if lv == level)

    if any(lv == "clear" for _, lv in levels):
        return f"<b>Clear gains over the baseline</b>: {cells('clear')}."
    if any(lv == "likely" for _, lv in levels):
        return (f"<b>Likely gains over the baseline</b> (the test rejects equality, not every "
                f"fold agrees): {cells('likely')}.")
    return ("<b>No calibration is shown to beat the baseline here</b>: for every classifier "
            "and data set, the best scenario's gain is within the fold-to-fold noise (the "
            "per-fold test does not reject equality with the baseline), so these results do "
            "not favour a calibration over the uncalibrated classifier.")


def recommendation_section(tree: Any, metric: str) -> str:
    """HTML: the answer to "which calibration should I use here, and how sure are we?".

    Parameters
    ----------
    tree : xarray.DataTree
        The result cube.
    metric : str
        The metric judged (the report passes the spec's first scored metric).

    Returns
    -------
    str
        A ``<section id="summary">`` (every string from the cube escaped).
    """
    from bayescal.cube.schema import METRICS
    from bayescal.report.comparison import metrics_dataset
    from bayescal.report.method_tables import applicable_methods, few_datasets_caution

    esc = html.escape
    try:
        recs = recommendations(tree, metric)
    except ValueError as exc:
        return ("<section id='summary'><h2>Which calibration to use</h2><p class='note'>"
                f"{esc(str(exc))}</p></section>")
    info = METRICS.get(metric)
    direction = "" if info is None or info.direction is None else f", {info.direction} is better"
    if not recs:
        return ("<section id='summary'><h2>Which calibration to use</h2><p class='note'>No "
                "classifier has two finished scenarios to choose between yet.</p></section>")
    ds = metrics_dataset(tree)
    datasets = list(dict.fromkeys(r.dataset for r in recs))
    classifiers = list(dict.fromkeys(r.classifier for r in recs))
    by_key = {(r.classifier, r.dataset): r for r in recs}
    head = "".join(f"<th>{esc(d)}</th>" for d in datasets)
    body = []
    for clf in classifiers:
        cells = []
        for d in datasets:
            r = by_key.get((clf, d))
            if r is None:
                cells.append("<td>–</td>")
                continue
            level, words = certainty(r)
            gain = ("" if not np.isfinite(r.gain) or r.scenario == r.baseline else
                    f" ({esc(str(r.baseline))} {r.baseline_value:.4f}; gain {r.gain:+.4f})")
            cells.append(
                f"<td class='verdict {level}'><b>{esc(r.scenario)}</b> "
                f"<span class='level {level}'>{_LEVEL_MARK[level]}</span><br>"
                f"{esc(metric)} {r.value:.4f}{gain}<br><small>{esc(words)}</small></td>")
        body.append(f"<tr><th>{esc(clf)}</th>{''.join(cells)}</tr>")
    across = []
    for clf in classifiers:
        methods = [str(m) for m in applicable_methods(ds, clf)]
        ranks, n = _mean_ranks(tree, metric, clf, methods)
        if not ranks or n < 2:
            continue
        best = min(ranks, key=ranks.get)
        across.append(f"<li><b>{esc(clf)}</b>: <b>{esc(best)}</b> has the best mean rank "
                      f"({ranks[best]:.2f} of {len(methods)}) over {n} data sets.</li>")
    caution = few_datasets_caution(len(datasets))
    across_html = ""
    if across:
        across_html = (
            "<h3>Across data sets</h3><ul>" + "".join(across) + "</ul>"
            + (f"<p class='caution'>⚠ {esc(caution[0].upper() + caution[1:])}</p>"
               if caution else "")
            + "<p class='note'>Tests across data sets: see <a href='#comparison'>Comparison "
              "across datasets</a>.</p>")
    from bayescal.report.tables import study_table

    table = study_table(tree, metric)  # every classifier, the probe included
    best_overall = []
    for j, d in enumerate(table.datasets):
        rows = np.flatnonzero(table.best[:, j])
        if rows.size:
            clf, scen = table.rows[int(rows[0])]
            best_overall.append(f"<li>on <b>{esc(d)}</b>: <b>{esc(clf)} / {esc(scen)}</b> "
                                f"({esc(metric)} {table.mean[rows[0], j]:.4f})</li>")
    headline = _headline(recs)
    skipped = [str(c) for c in ds["classifier"].values if str(c) not in classifiers]
    skipped_html = (f"<p class='note'>Not in the table (fewer than two scenarios to choose "
                    f"between): {esc(', '.join(skipped))}.</p>" if skipped else "")
    return (
        "<section id='summary'><h2>Which calibration to use, and how sure we are</h2>"
        f"<p class='answer'>{headline}</p>"
        f"<p class='lead'>Judged on <b>{esc(metric)}</b> (mean over the test folds{direction}). "
        "Each cell names the best scenario of that classifier on that data set, its gain over "
        "the baseline and how sure the gain is: <span class='level clear'>✔ clear</span> — the "
        "per-fold test rejects equality and every fold agrees; <span class='level likely'>● likely"
        "</span> — the test rejects equality; <span class='level unclear'>? unclear</span> — it "
        "does not; <span class='level baseline'>= keep</span> — nothing beats the baseline.</p>"
        f"<p><b>Best cell overall</b>:</p><ul>{''.join(best_overall)}</ul>"
        f"<div class='scroll'><table class='verdicts'><thead><tr><th>classifier</th>{head}"
        f"</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
        + skipped_html + across_html + "</section>"
    )

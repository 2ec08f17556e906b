"""Alasalmi (2020), Fig. 11: calibration plots of naive Bayes on Mushroom, checked.

Function blocks of ``models/reproductions/seed000_fig11``. The thesis (§3.3.1,
Publication III) shows reliability curves of naive Bayes on Mushroom, raw and
calibrated by isotonic regression on a split, on DG and on DGG data, and states
what they show: the raw estimates differ from perfect calibration "by a clear
margin", isotonic regression on a split gives "a clear improvement", DGG
"seemed to improve calibration clearly compared to raw", and "DG was closest to
the optimum by visual inspection".

The block runs the Table 3 study spec of ``seed000_tables3_4`` (the same cells:
quick or full size), pools every test row's predicted probability, draws the
four reliability curves (10 equal-width bins) and returns the figures the
statements are checked on, from the expected calibration error ``ECE`` of each
curve (:func:`bayescal.metrics.expected_calibration_error`, the curve's
bin-weighted distance from the diagonal): the raw ``ECE``; each calibration's
``ECE`` over the raw one; DG's over the smallest of the other two.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from bayescal.reproduce.registry import DEFAULT_ROOT

__all__ = ["SCENARIOS", "fig11_full", "fig11_quick", "pooled_predictions"]

#: The four curves of Fig. 11 (cube scenario -> the thesis' name).
SCENARIOS = {"raw": "Raw", "ir_split": "IR (split)", "dg": "DG", "dgg": "DGG"}
_SPECS = {"quick": DEFAULT_ROOT / "seed000_tables3_4" / "quick_table3.toml",
          "full": DEFAULT_ROOT / "seed000_tables3_4" / "full_table3.toml"}


def pooled_predictions(tree: Any, dataset: str = "mushroom", classifier: str = "nb"
                       ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Every test row's label and positive-class probability per scenario of a cube."""
    pred = tree[f"/predictions/{dataset}"].ds
    rows = np.flatnonzero(pred["fold"].to_numpy() >= 0)
    y = pred["y"].to_numpy()[rows]
    positive = pred["class"].to_numpy()[-1]
    proba = {s: pred["proba"].sel(classifier=classifier, scenario=s,
                                  **{"class": positive}).to_numpy()[rows]
             for s in SCENARIOS}
    return (y == np.unique(y)[-1]).astype(int), proba


def _plot(y: np.ndarray, proba: dict[str, np.ndarray], path: Path) -> None:
    from matplotlib.figure import Figure

    from bayescal.metrics import reliability_curve

    fig = Figure(figsize=(4.2, 4.0))
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], "--", color="grey", lw=0.8)
    for s, name in SCENARIOS.items():
        curve = reliability_curve(y, proba[s], n_bins=10)
        keep = curve.nonempty
        ax.plot(curve.mean_score[keep], curve.observed_rate[keep], marker=".", label=name)
    ax.set_xlabel("predicted probability")
    ax.set_ylabel("observed frequency")
    ax.set_title("Fig. 11 (redrawn): naive Bayes on Mushroom", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def _block(out: Path, size: str, n_jobs: int | None) -> Any:
    import pandas as pd

    from bayescal.cube import open_results
    from bayescal.metrics import expected_calibration_error
    from bayescal.study import run

    out = Path(out)
    store = out / "cube"
    run(_SPECS[size], store, resume=True, n_jobs=n_jobs, progress=False)
    y, proba = pooled_predictions(open_results(store))
    _plot(y, proba, out / "fig11_calibration_plots.png")
    ece = {s: float(expected_calibration_error(y, proba[s], n_bins=10)) for s in SCENARIOS}
    if size == "quick":
        import shutil

        shutil.rmtree(store, ignore_errors=True)
    rows = [("raw_ece", ece["raw"]), ("split_over_raw", ece["ir_split"] / ece["raw"]),
            ("dgg_over_raw", ece["dgg"] / ece["raw"]),
            ("dg_over_best_other", ece["dg"] / min(ece["ir_split"], ece["dgg"]))]
    table = pd.DataFrame([{"dataset": "mushroom", "method": m, "metric": "claim", "ours": v}
                          for m, v in rows])
    pd.Series(ece, name="ece").to_csv(out / "ece.csv")
    return table


def fig11_quick(out: Path, n_jobs: int | None = None) -> Any:
    """Quick size: the Table 3 quick spec (Mushroom cut to 2000 rows, 5-fold CV)."""
    return _block(out, "quick", n_jobs)


def fig11_full(out: Path, n_jobs: int | None = None) -> Any:
    """Full size: the Table 3 full spec (every row, 10-fold CV)."""
    return _block(out, "full", n_jobs)

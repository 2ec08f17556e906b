"""Seed 000 Figs. 12-13: averages over data sets and claims, on hand-made cubes."""

from __future__ import annotations

import tomllib

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from bayescal.reproduce import load_reproduction
from bayescal.reproduce.registry import DEFAULT_ROOT
from bayescal.reproduce.thesis_averages import (
    REAL_WORLD,
    average_over_datasets,
    dataset_means,
    evaluate_cube,
    plot_scenario_bars,
)

CLASSIFIERS = ["nb", "svm", "rf", "nn", "blr", "gpc"]
SCENARIOS = ["raw", "enir_split", "enir_full", "enir_dg", "enir_dgg", "enir_oob", "platt_full"]
LABEL = {"raw": "Raw", "enir_split": "ENIR", "enir_full": "E.full", "enir_dg": "DG",
         "enir_dgg": "DGG", "enir_oob": "CS", "platt_full": "CS"}

# Bars on which every claim of the thesis' text holds (columns: Raw, ENIR, E.full, DG,
# DGG, CS; None: no bar). RF's CS bar is set per data set in _cube.
LOG_LOSS = {"nb": [2.0, 1.0, 0.8, 0.82, 0.7, None],
            "svm": [0.45, 0.9, 0.7, 0.46, 0.455, 0.5],
            "rf": [0.6, 0.8, 1.5, 0.7, 0.5, None],
            "nn": [0.47, 0.9, 0.7, 0.48, 0.47, None],
            "blr": [0.47] + [None] * 5,
            "gpc": [0.40] + [None] * 5}
MSE = {"nb": [0.45, 0.36, 0.33, 0.34, 0.34, None],
       "svm": [0.28, 0.33, 0.31, 0.285, 0.282, 0.30],
       "rf": [0.32, 0.34, 0.40, 0.31, 0.29, None],
       "nn": [0.285, 0.33, 0.31, 0.29, 0.287, None],
       "blr": [0.30] + [None] * 5,
       "gpc": [0.295] + [None] * 5}
_COLUMN = {"Raw": 0, "ENIR": 1, "E.full": 2, "DG": 3, "DGG": 4, "CS": 5}


def _applicable(clf: str, sc: str) -> bool:
    if sc == "enir_oob":
        return clf == "rf"
    if sc == "platt_full":
        return clf == "svm"
    return sc == "raw" or clf in ("nb", "svm", "rf", "nn")


def _cube(edit: dict | None = None) -> xr.DataTree:
    """Two folds (bar +- 0.01), the six real-world sets and a synthetic set at 100."""
    datasets = [*REAL_WORLD, "synthetic"]
    shape = (len(datasets), len(CLASSIFIERS), len(SCENARIOS), 2)
    data = {}
    for name, table in (("log_loss", LOG_LOSS), ("brier_sum", MSE)):
        values = np.full(shape, np.nan)
        for i, d in enumerate(datasets):
            for j, clf in enumerate(CLASSIFIERS):
                for k, sc in enumerate(SCENARIOS):
                    if not _applicable(clf, sc):
                        continue
                    if clf == "rf" and sc == "enir_oob":  # below Raw on one set only
                        bar = table["rf"][0] + (-0.05 if i == 0 else 0.05)
                    else:
                        bar = table[clf][_COLUMN[LABEL[sc]]]
                    bar = 100.0 if d == "synthetic" else bar
                    values[i, j, k] = [bar - 0.01, bar + 0.01]
        data[name] = (("dataset", "classifier", "scenario", "fold"), values)
    applicable = [[_applicable(c, s) for s in SCENARIOS] for c in CLASSIFIERS]
    data["applicable"] = (("classifier", "scenario"), np.array(applicable))
    ds = xr.Dataset(data, coords={"dataset": datasets, "classifier": CLASSIFIERS,
                                  "scenario": SCENARIOS, "fold": [0, 1]})
    for (metric, d, clf, sc, fold), value in (edit or {}).items():
        ds[metric].loc[{"dataset": d, "classifier": clf, "scenario": sc, "fold": fold}] = value
    return xr.DataTree.from_dict({"/metrics": ds})


def test_every_claim_holds_on_bars_built_to_satisfy_them(tmp_path):
    table = evaluate_cube(_cube(), tmp_path)
    failed = table[table["ours"] != 1.0]
    assert failed.empty, failed[["claim", "metric", "detail"]].to_string()
    assert len(table) == 45
    for name in ("fig12_log_loss.png", "fig13_brier_sum.png", "claims.csv",
                 "dataset_means.csv"):
        assert (tmp_path / name).stat().st_size > 0
    means = pd.read_csv(tmp_path / "dataset_means.csv")
    assert set(means["dataset"]) == set(REAL_WORLD)  # the synthetic set is left out


def test_one_changed_bar_flips_exactly_its_claims(tmp_path):
    # RF's DG log loss below its Raw (0.6): "led to a clear increase in logloss" fails
    edit = {("log_loss", d, "rf", "enir_dg", f): 0.55 for d in REAL_WORLD for f in (0, 1)}
    table = evaluate_cube(_cube(edit), tmp_path)
    failed = table[table["ours"] != 1.0]
    assert list(zip(failed["claim"], failed["metric"], strict=True)) == [
        ("rf_dg_raises_logloss", "fig12_claim")]
    assert "rf.DG 0.55 > rf.Raw 0.6" in failed["detail"].iloc[0]


def test_a_failed_fold_is_never_averaged_away(tmp_path):
    edit = {("brier_sum", "titanic", "gpc", "raw", 1): np.nan}
    per = dataset_means(_cube(edit), "brier_sum")
    assert np.isnan(per[("titanic", "gpc", "Raw")])
    assert np.isnan(average_over_datasets(per)[("gpc", "Raw")])
    table = evaluate_cube(_cube(edit), tmp_path)
    failed = table[table["ours"] != 1.0]
    # every MSE claim that reads gpc.Raw is undecided, so not holding
    assert set(failed["metric"]) == {"fig13_claim"}
    assert set(failed["claim"]) == {"gpc_mse_above_best", "gpc_mse_slightly", "nb_raw_worst",
                                    "rf_raw_above_nn_svm_gpc"}


def test_averages_by_hand():
    edit = {("log_loss", d, "nb", "raw", f): float(i + 1) + (0.5 if f else -0.5)
            for i, d in enumerate(REAL_WORLD) for f in (0, 1)}
    per = dataset_means(_cube(edit), "log_loss")
    assert per.xs(("nb", "Raw"), level=["classifier", "label"]).tolist() == [1, 2, 3, 4, 5, 6]
    bars = average_over_datasets(per)
    assert bars[("nb", "Raw")] == pytest.approx(3.5)
    assert bars[("svm", "CS")] == pytest.approx(0.5)      # Platt on the full set
    assert bars[("rf", "CS")] == pytest.approx(0.6 + 0.05 * 4 / 6)  # OOB ENIR
    assert ("nb", "CS") not in bars.index and ("blr", "DG") not in bars.index


def test_bad_input():
    tree = _cube()
    with pytest.raises(ValueError, match="`metric` 'ece' is not in the cube"):
        dataset_means(tree, "ece")
    with pytest.raises(ValueError, match=r"`datasets` \['adult'\] are not in the cube"):
        dataset_means(tree, "log_loss", datasets=("adult",))
    with pytest.raises(ValueError, match="needs the cube scenario 'isotonic_split'"):
        dataset_means(tree, "log_loss", scenarios={"IR": {"*": "isotonic_split"}})
    with pytest.raises(ValueError, match="indexed by \\(dataset, classifier, label\\)"):
        average_over_datasets(pd.Series([1.0, 2.0]))
    per = dataset_means(tree, "log_loss").drop(("titanic", "nb", "Raw"))
    with pytest.raises(ValueError, match="cover different numbers of data sets"):
        average_over_datasets(per)


def test_plot_marks_a_failed_bar(tmp_path):
    bars = pd.Series({("nb", "Raw"): 1.0, ("nb", "DG"): np.nan, ("gpc", "Raw"): 0.4})
    bars.index.names = ["classifier", "label"]
    path = plot_scenario_bars(bars, tmp_path / "c.png", ylabel="log loss", title="t")
    assert path.stat().st_size > 0


def test_registered_and_quick_spec_mirrors_the_thesis_study():
    rep = load_reproduction("seed000_figs12_13")
    assert rep.runs["quick"]["figs12_13"].endswith("thesis_averages:figs12_13_quick")
    assert rep.runs["full"]["figs12_13"].endswith("thesis_averages:figs12_13_full")
    quick = tomllib.loads((rep.folder / "quick.toml").read_text())
    full = tomllib.loads((DEFAULT_ROOT.parent / "thesis_binary.toml").read_text())
    for name, d in quick["datasets"].items():
        assert {k: v for k, v in d.items() if k != "max_samples"} == full["datasets"][name]
    assert set(quick["datasets"]) == set(REAL_WORLD)
    for name, c in quick["classifiers"].items():
        assert c["class"] == full["classifiers"][name]["class"]
    for name, s in quick["scenarios"].items():
        f = full["scenarios"][name]
        assert (s["kind"], s.get("calibrator"), s.get("classifiers")) == (
            f["kind"], f.get("calibrator"), f.get("classifiers"))


STUDY = """
[study]
name = "averages"
seed = 7

[protocol]
kind = "kfold"
n_splits = 3

[datasets.blobs]
generator = "sklearn.datasets.make_classification"
params = { n_samples = 60, n_features = 4, n_informative = 2, n_redundant = 0 }

[datasets.iris]
source = "iris"

[classifiers.nb]
class = "sklearn.naive_bayes.GaussianNB"

[classifiers.lr]
class = "sklearn.linear_model.LogisticRegression"
params = { max_iter = 1000 }

[scenarios.raw]
kind = "raw"

[scenarios.iso]
# binary only: fails on iris (3 classes), so those cells have no predictions
kind = "split"
calibrator = { class = "bayescal.calibration.IsotonicCalibrator" }
classifiers = ["nb"]

[metrics]
names = ["brier", "log_loss"]
"""


def test_a_metric_missing_from_the_cube_is_recomputed_from_its_predictions(tmp_path):
    from bayescal.cube import open_results
    from bayescal.study import parse_spec, run
    from bayescal.study.runner import StudyCellWarning

    with pytest.warns(StudyCellWarning, match="3 cell"):
        run(parse_spec(STUDY), tmp_path / "store", n_jobs=1, progress=False)
    tree = open_results(tmp_path / "store")
    assert "brier_sum" not in tree["/metrics"].ds
    bars = {"Raw": {"*": "raw"}, "IR": {"nb": "iso"}}
    got = dataset_means(tree, "brier_sum", datasets=("blobs", "iris"), scenarios=bars)
    # by hand from the stored out-of-fold predictions: Eq. 10, the squared error summed
    # over the classes, averaged over a fold's rows, then over the folds
    want = {}
    for d in ("blobs", "iris"):
        pred = tree[f"/predictions/{d}"].ds
        y, fold = pred["y"].to_numpy(), pred["fold"].to_numpy()
        onehot = np.eye(pred.sizes["class"])[y]
        for clf, label, sc in (("nb", "Raw", "raw"), ("lr", "Raw", "raw"), ("nb", "IR", "iso")):
            p = pred["proba"].sel(classifier=clf, scenario=sc).to_numpy()
            per_fold = [((p[fold == f] - onehot[fold == f]) ** 2).sum(axis=1).mean()
                        for f in range(3)]
            want[(d, clf, label)] = float(np.mean(per_fold))
    assert set(got.index) == set(want)  # lr has no IR bar (not applicable)
    for key, value in want.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-12, err_msg=str(key))
    assert np.isnan(got[("iris", "nb", "IR")])  # failed cells: NaN, never a partial mean
    assert np.isfinite(got.drop(("iris", "nb", "IR"))).all()
    # binary: the sum over both classes is twice the recorded (scikit-learn) Brier score
    brier = dataset_means(tree, "brier", datasets=("blobs",), scenarios=bars)
    np.testing.assert_allclose(got.loc["blobs"].to_numpy(), 2 * brier.loc["blobs"].to_numpy(),
                               rtol=1e-12)
    with pytest.raises(ValueError, match="'rmse_true' is not in the cube and cannot be "
                                         "recomputed"):
        dataset_means(tree, "rmse_true", datasets=("blobs",), scenarios=bars)

"""Tests of bayescal.study.run: the cube, oracles, resume after a real kill, executors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from sklearn.datasets import make_classification
from sklearn.metrics import accuracy_score
from sklearn.metrics import log_loss as sk_log_loss
from sklearn.naive_bayes import GaussianNB

from bayescal.cube import TIMINGS
from bayescal.study import SpecError, StudyCellWarning, load_spec, open_results, parse_spec, run
from bayescal.study.protocol import make_splits
from bayescal.study.runner import RESULTS_REVISION
from bayescal.study.seeds import DATASET, derive_seed

from .conftest import HERE, TINY_SPEC

REPO = HERE.parents[1]


def assert_same_cube(a: xr.DataTree, b: xr.DataTree) -> None:
    """Identical values everywhere except wall-clock timings and start/end times."""
    ma = a["metrics"].to_dataset().drop_vars(list(TIMINGS))
    mb = b["metrics"].to_dataset().drop_vars(list(TIMINGS))
    xr.testing.assert_identical(ma, mb)
    assert set(a["predictions"].children) == set(b["predictions"].children)
    for name in a["predictions"].children:
        xr.testing.assert_identical(a["predictions"][name].to_dataset(),
                                    b["predictions"][name].to_dataset())
    skip = {"started", "finished", "versions"}
    assert {k: v for k, v in a.attrs.items() if k not in skip} == {
        k: v for k, v in b.attrs.items() if k not in skip}


def test_cube_layout_and_metric_oracles(tiny_spec_path, tmp_path):
    tree = run(tiny_spec_path, tmp_path / "store", n_jobs=1, progress=False)
    m = tree["metrics"].to_dataset()
    assert dict(m.sizes) == {"dataset": 2, "classifier": 2, "scenario": 2, "fold": 3}
    assert m["applicable"].values.tolist() == [[True, True], [True, False]]
    assert bool(m["done"].sel(classifier="nb").all())
    assert not bool(m["done"].sel(classifier="lr", scenario="sigmoid_cv").any())
    assert np.isnan(m["brier"].sel(classifier="lr", scenario="sigmoid_cv")).all()
    assert not bool(m["failed"].any())
    assert np.isnan(m["rhat_max"]).all()  # nothing Bayesian here
    assert tree.attrs["cells_done"] == tree.attrs["cells_total"] == 18
    assert tree.attrs["spec"] == TINY_SPEC

    for name in ("blobs", "iris"):
        pred = tree["predictions"][name].to_dataset()
        y, fold = pred["y"].values, pred["fold"].values
        assert set(np.unique(fold)) == {0, 1, 2}
        for clf, scen in (("nb", "raw"), ("nb", "sigmoid_cv"), ("lr", "raw")):
            P = pred["proba"].sel(classifier=clf, scenario=scen).values
            np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
            for f in range(3):
                t = fold == f
                cell = m.sel(dataset=name, classifier=clf, scenario=scen, fold=f)
                onehot = np.eye(P.shape[1])[y[t]]
                brier = np.mean(np.sum((P[t] - onehot) ** 2, axis=1))
                # scikit-learn's convention: half the two-class sum for a binary set
                brier /= 2 if P.shape[1] == 2 else 1
                assert float(cell["brier"]) == pytest.approx(brier, rel=1e-12)
                assert float(cell["log_loss"]) == pytest.approx(
                    sk_log_loss(y[t], P[t], labels=np.arange(P.shape[1])), rel=1e-9)
                assert float(cell["accuracy"]) == pytest.approx(
                    accuracy_score(y[t], P[t].argmax(axis=1)))


def test_data_splits_and_raw_predictions_match_direct_computation(tiny_spec_path, tmp_path):
    spec = load_spec(tiny_spec_path)
    tree = run(spec, tmp_path / "store", n_jobs=1, progress=False)
    X, y = make_classification(n_samples=120, n_features=4, n_informative=2, n_redundant=0,
                               random_state=derive_seed(spec.seed, DATASET, 0))
    pred = tree["predictions"]["blobs"].to_dataset()
    np.testing.assert_array_equal(pred["y"].values, y)
    for r, f, train, test in make_splits(spec.protocol, y, seed=spec.seed, dataset_index=0):
        assert r == 0
        np.testing.assert_array_equal(np.flatnonzero(pred["fold"].values == f), test)
        direct = GaussianNB().fit(X[train], y[train]).predict_proba(X[test])
        np.testing.assert_array_equal(
            pred["proba"].sel(classifier="nb", scenario="raw").values[test], direct)


def test_existing_store_is_never_overwritten(tiny_spec_path, tmp_path):
    store = tmp_path / "store"
    first = run(tiny_spec_path, store, n_jobs=1, progress=False)
    with pytest.raises(FileExistsError, match="pass resume=True"):
        run(tiny_spec_path, store, n_jobs=1, progress=False)
    other = parse_spec(TINY_SPEC.replace("seed = 11", "seed = 12"))
    with pytest.raises(ValueError, match="different spec"):
        run(other, store, resume=True, n_jobs=1, progress=False)
    stamps = {p: p.stat().st_mtime_ns for p in (store / "cells").rglob("*.npz")}
    again = run(tiny_spec_path, store, resume=True, n_jobs=1, progress=False)
    assert stamps == {p: p.stat().st_mtime_ns for p in (store / "cells").rglob("*.npz")}
    assert_same_cube(first, again)
    assert_same_cube(first, open_results(store))
    meta = json.loads((store / "study.json").read_text())
    assert meta["results_revision"] == RESULTS_REVISION
    del meta["results_revision"]  # a store started before the revision was recorded
    del meta["sha256"]  # (and before its record carried a checksum)
    (store / "study.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=f"results revision 1, this one {RESULTS_REVISION}"):
        run(tiny_spec_path, store, resume=True, n_jobs=1, progress=False)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match="not a study store"):
        run(tiny_spec_path, tmp_path / "other", n_jobs=1, progress=False)
    with pytest.raises(ValueError, match="not a bayescal study store"):
        open_results(tmp_path / "other")


def test_bad_arguments(tiny_spec_path, tmp_path):
    with pytest.raises(ValueError, match="n_jobs"):
        run(tiny_spec_path, tmp_path / "s", n_jobs=0, progress=False)
    with pytest.raises(SpecError, match="cannot read"):
        run(tmp_path / "absent.toml", tmp_path / "s2", progress=False)


def test_failed_cells_are_recorded_not_fatal(tmp_path, test_estimators_on_path):
    text = TINY_SPEC.replace("sklearn.linear_model.LogisticRegression",
                             f"{test_estimators_on_path}.FailingClassifier").replace(
        "{ C = 0.5 }", "{}")
    spec = parse_spec(text, allow_modules=[test_estimators_on_path])
    with pytest.warns(StudyCellWarning, match="6 cell"):
        tree = run(spec, tmp_path / "store", n_jobs=1, progress=False)
    m = tree["metrics"].to_dataset()
    failed = m["failed"].sel(classifier="lr", scenario="raw")
    assert bool(failed.all()) and not bool(m["failed"].sel(classifier="nb").any())
    assert bool(m["done"].sel(classifier="lr", scenario="raw").all())
    assert np.isnan(m["brier"].sel(classifier="lr", scenario="raw")).all()
    assert "this classifier always fails" in tree.attrs["errors"]


def test_probe_metrics_and_diagnostics(tmp_path, test_estimators_on_path):
    text = TINY_SPEC.replace("sklearn.linear_model.LogisticRegression",
                             f"{test_estimators_on_path}.IntervalNaiveBayes").replace(
        "{ C = 0.5 }", "{}").replace('names = ["brier", "log_loss", "ece", "accuracy"]',
                                     'names = ["brier"]\nprobe = "lr"')
    spec = parse_spec(text, allow_modules=[test_estimators_on_path])
    tree = run(spec, tmp_path / "store", n_jobs=1, progress=False)
    m = tree["metrics"].to_dataset()
    assert {"probe_rmse", "probe_coverage"} <= set(m.data_vars)
    assert float(m["rhat_max"].sel(classifier="lr", scenario="raw").max()) == 1.01
    assert float(m["divergences"].sel(classifier="lr", scenario="raw").max()) == 2
    assert np.isnan(m["rhat_max"].sel(classifier="nb")).all()
    pred = tree["predictions"]["iris"].to_dataset()
    assert "interval" in pred
    probe = pred["proba"].sel(classifier="lr", scenario="raw").values
    bounds = pred["interval"].sel(classifier="lr", scenario="raw").values
    fold = pred["fold"].values
    for scen in ("raw", "sigmoid_cv"):
        P = pred["proba"].sel(classifier="nb", scenario=scen).values
        for f in range(3):
            t = fold == f
            cell = m.sel(dataset="iris", classifier="nb", scenario=scen, fold=f)
            rmse = np.sqrt(np.mean((P[t] - probe[t]) ** 2))
            inside = (P[t] >= bounds[t, :, 0]) & (P[t] <= bounds[t, :, 1])
            assert float(cell["probe_rmse"]) == pytest.approx(rmse, rel=1e-12)
            assert float(cell["probe_coverage"]) == pytest.approx(inside.mean())
    # the probe is not scored against itself: NaN, never ranked
    for name in ("probe_rmse", "probe_coverage"):
        assert np.isnan(m[name].sel(classifier="lr", scenario="raw")).all()


@pytest.mark.parametrize(("protocol", "repeats", "folds"), [
    ('kind = "cv5x2"', 5, 2),
    ('kind = "mccv"\nn_repeats = 3\ntest_fraction = 0.25', 3, 1),
])
def test_repeated_protocols_have_a_repeat_dimension(tmp_path, protocol, repeats, folds):
    text = TINY_SPEC.replace('kind = "kfold"\nn_splits = 3', protocol)
    text = text[:text.index("[datasets.iris]")] + text[text.index("[classifiers.nb]"):]
    tree = run(parse_spec(text), tmp_path / "store", n_jobs=1, progress=False)
    m = tree["metrics"].to_dataset()
    assert m["brier"].dims == ("dataset", "classifier", "scenario", "repeat", "fold")
    assert (m.sizes["repeat"], m.sizes["fold"]) == (repeats, folds)
    pred = tree["predictions"]["blobs"].to_dataset()
    assert pred["proba"].dims == ("repeat", "sample", "classifier", "scenario", "class")
    tested = pred["fold"].values >= 0
    raw = pred["proba"].sel(classifier="nb", scenario="raw").values
    assert np.isfinite(raw[tested]).all() and np.isnan(raw[~tested]).all()
    if folds == 2:  # 5x2 CV: every sample tested once per repeat
        assert tested.all()
    else:  # MCCV: a quarter of the samples per repeat
        assert np.allclose(tested.mean(axis=1), 0.25, atol=0.02)


KILL_SPEC = """
[study]
name = "killme"
seed = 5

[protocol]
kind = "kfold"
n_splits = 10

[datasets.blobs]
generator = "sklearn.datasets.make_classification"
params = { n_samples = 200, n_features = 4 }

[classifiers.slow]
class = "study_test_estimators.SlowNaiveBayes"
params = { delay = 0.15 }

[scenarios.raw]
kind = "raw"

[scenarios.sigmoid_cv]
kind = "wrapper"
wrapper = { class = "sklearn.calibration.CalibratedClassifierCV", params = { method = "sigmoid", cv = 2, ensemble = false } }
"""


def _start_killable(spec_path: Path, store: Path, module: str, *extra: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(HERE)])}
    return subprocess.Popen(
        [sys.executable, "-m", "bayescal.cli", "run", str(spec_path), "--store", str(store),
         "--allow-module", module, "--quiet", *extra], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)


def _wait_for_cells(proc: subprocess.Popen, store: Path, n: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if len(list((store / "cells").rglob("*.npz"))) >= n:
            return
        time.sleep(0.02)
    assert proc.poll() is None, f"the run ended before {n} cells: " \
                                f"{proc.stderr.read().decode()[-2000:]}"


@pytest.mark.parametrize("kill_after", [1, 4, 9])
def test_killed_run_with_damaged_cells_resumes_to_the_same_cube(tmp_path, test_estimators_on_path,
                                                                kill_after):
    """kill -9 after 1, 4 or 9 cells; truncate one cell and empty another; resume heals."""
    spec_path = tmp_path / "kill.toml"
    spec_path.write_text(KILL_SPEC)
    store = tmp_path / "killed"
    proc = _start_killable(spec_path, store, test_estimators_on_path, "--jobs", "1")
    try:
        _wait_for_cells(proc, store, kill_after + 1)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    assert not (store / "results.zarr").exists()
    files = sorted((store / "cells").rglob("*.npz"))
    assert kill_after + 1 <= len(files) < 20
    # damage two cells as a crash of the disk or of another tool would
    truncated, emptied = files[0], files[-1]
    truncated.write_bytes(truncated.read_bytes()[:100])
    emptied.write_bytes(b"")
    intact = [p for p in files if p not in (truncated, emptied)]
    before = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in intact}

    partial = open_results(store)  # the damaged cells are left out, named
    assert partial.attrs["cells_done"] == len(intact) and partial.attrs["finished"] == ""
    assert len(json.loads(partial.attrs["damaged"])) == 2

    spec = load_spec(spec_path, allow_modules=[test_estimators_on_path])
    notices: list[str] = []
    resumed = run(spec, store, resume=True, n_jobs=1, progress=False, log=notices.append)
    assert len(notices) == 2 and all(n.startswith("damaged cell quarantined") for n in notices)
    assert sorted(p.name.split(".")[0] for p in (store / "quarantine").rglob("*.npz")) == sorted(
        [truncated.stem, emptied.stem])
    after = {p: (p.stat().st_ino, p.stat().st_mtime_ns)
             for p in (store / "cells").rglob("*.npz")}
    assert len(after) == 20 and not list(store.rglob("*.tmp"))
    # intact cells written before the kill were not recomputed (same inode and mtime)
    assert {p: after[p] for p in before} == before
    assert bool(resumed["metrics"]["done"].all()) and resumed.attrs["damaged"] == "{}"

    fresh = run(spec, tmp_path / "fresh", n_jobs=1, progress=False)
    assert_same_cube(resumed, fresh)
    assert_same_cube(resumed, open_results(store))


@pytest.mark.slow
def test_same_cube_sequential_local_processes_and_dask(tiny_spec_path, tmp_path):
    spec = load_spec(tiny_spec_path)
    sequential = run(spec, tmp_path / "seq", n_jobs=1, progress=False)
    processes = run(spec, tmp_path / "local", n_jobs=2, progress=False)
    on_dask = run(spec, tmp_path / "dask", scheduler="local", n_jobs=2, progress=False)
    assert_same_cube(sequential, processes)
    assert_same_cube(sequential, on_dask)


def test_cube_round_trips_through_zarr(tiny_spec_path, tmp_path):
    tree = run(tiny_spec_path, tmp_path / "store", n_jobs=1, progress=False)
    reopened = open_results(tmp_path / "store")
    assert_same_cube(tree, reopened)
    xr.testing.assert_identical(tree["metrics"].to_dataset(), reopened["metrics"].to_dataset())
    assert Path(tmp_path / "store" / "results.zarr").is_dir()


def test_dataset_overrides_set_classifier_parameters(tmp_path):
    text = TINY_SPEC.replace('source = "iris"',
                             'source = "iris"\noverrides = { nb = { var_smoothing = 0.5 } }')
    spec = parse_spec(text)
    tree = run(spec, tmp_path / "store", n_jobs=1, progress=False)
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    pred = tree["predictions"]["iris"].to_dataset()
    blobs = tree["predictions"]["blobs"].to_dataset()
    for f in range(3):
        test = np.flatnonzero(pred["fold"].values == f)
        train = np.flatnonzero(pred["fold"].values != f)
        direct = GaussianNB(var_smoothing=0.5).fit(X[train], y[train]).predict_proba(X[test])
        np.testing.assert_allclose(pred["proba"].sel(classifier="nb", scenario="raw").values[test],
                                   direct, rtol=1e-12)
    # the other dataset keeps the default
    Xb, yb = make_classification(n_samples=120, n_features=4, n_informative=2, n_redundant=0,
                                 random_state=derive_seed(spec.seed, DATASET, 0))
    test = np.flatnonzero(blobs["fold"].values == 0)
    train = np.flatnonzero(blobs["fold"].values != 0)
    np.testing.assert_array_equal(
        blobs["proba"].sel(classifier="nb", scenario="raw").values[test],
        GaussianNB().fit(Xb[train], yb[train]).predict_proba(Xb[test]))


def test_resume_refuses_changed_data(tmp_path):
    data_file = tmp_path / "mine.csv"
    data_file.write_text("a,b,target\n" + "".join(
        f"{i % 7},{(i * 3) % 5},{i % 2}\n" for i in range(60)))
    text = TINY_SPEC.replace('source = "iris"', f'source = "{data_file}"')
    spec = parse_spec(text)
    run(spec, tmp_path / "store", n_jobs=1, progress=False)
    data_file.write_text("a,b,target\n" + "".join(
        f"{i % 7},{(i * 3) % 5},{(i // 2) % 2}\n" for i in range(60)))
    with pytest.raises(ValueError, match="differs from the one the study"):
        run(spec, tmp_path / "store", resume=True, n_jobs=1, progress=False)

"""Reliability of bayescal.study.run: one writer, failure accounting, clean early failures,
signals that end the workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from bayescal.cli import main
from bayescal.cube import StoreBusyError, StoreLock, open_results
from bayescal.study import SchedulerUnreachableError, load_spec, parse_spec, run

from .conftest import HERE, TINY_SPEC
from .test_runner import KILL_SPEC, assert_same_cube

REPO = HERE.parents[1]


def _default_sigint() -> None:
    # A shell runs background jobs with SIGINT ignored, and Python keeps an ignored
    # SIGINT ignored; the child gets the disposition of an interactive command.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cli(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(HERE)])}
    return subprocess.Popen([sys.executable, "-m", "bayescal.cli", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_sigint)


def test_two_concurrent_runs_one_runs_one_is_refused(tmp_path, test_estimators_on_path):
    spec_path = tmp_path / "kill.toml"
    spec_path.write_text(KILL_SPEC.replace("delay = 0.15", "delay = 1.0"))  # ~30 s
    store = tmp_path / "store"
    args = ("run", str(spec_path), "--store", str(store), "--allow-module",
            test_estimators_on_path, "-j", "1", "-q", "--resume")
    first = _cli(*args)
    deadline = time.monotonic() + 120
    while not list((store / "cells").rglob("*.npz")) and time.monotonic() < deadline:
        time.sleep(0.02)
    start = time.monotonic()
    second = _cli(*args)
    out, err = second.communicate(timeout=120)
    refused_after = time.monotonic() - start
    assert second.returncode == 75, err
    assert f"is being written by process {first.pid}" in err
    assert first.poll() is None  # refused while the first was still running
    first.communicate(timeout=300)
    assert first.returncode == 0
    assert refused_after < 30  # at once: interpreter start-up only (machine loaded)
    spec = load_spec(spec_path, allow_modules=[test_estimators_on_path])
    assert_same_cube(open_results(store), run(spec, tmp_path / "fresh", n_jobs=1,
                                              progress=False))


def test_run_refuses_a_store_being_written(tiny_spec_path, tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    with StoreLock(store / "writer.lock"):
        with pytest.raises(StoreBusyError, match=f"written by process {os.getpid()}"):
            run(tiny_spec_path, store, n_jobs=1, progress=False)
    assert sorted(p.name for p in store.iterdir()) == ["writer.lock"]
    run(tiny_spec_path, store, n_jobs=1, progress=False)  # a plain rerun is accepted


FAILING = TINY_SPEC.replace("sklearn.linear_model.LogisticRegression",
                            "study_test_estimators.FailingClassifier").replace("{ C = 0.5 }", "{}")


def test_failed_cells_make_run_exit_non_zero_with_an_account(tmp_path, test_estimators_on_path):
    spec_path = tmp_path / "failing.toml"
    spec_path.write_text(FAILING)
    store = tmp_path / "store"
    out = CliRunner().invoke(main, ["run", str(spec_path), "--store", str(store), "-j", "1",
                                    "-q", "--allow-module", test_estimators_on_path])
    assert out.exit_code == 1, out.output
    assert "12 done, 6 failed, 0 unconverged, 6 not applicable, 0 to do" in out.output
    assert "6 of 18 cells failed:" in out.output
    assert ("RuntimeError (first in blobs/lr/raw/r0/f0): RuntimeError: this classifier "
            "always fails") in out.output
    assert f"tracebacks: {store / 'tracebacks'}" in out.output
    assert "fit" in (store / "tracebacks" / "blobs" / "lr" / "raw" / "r0_f0.txt").read_text()
    shown = CliRunner().invoke(main, ["show", str(store)])
    assert shown.exit_code == 0 and "6 failed" in shown.output


def test_an_all_failed_study_is_reported_without_numpy_noise(tmp_path, test_estimators_on_path):
    text = FAILING.replace("sklearn.naive_bayes.GaussianNB",
                           "study_test_estimators.FailingClassifier")
    spec_path = tmp_path / "all.toml"
    spec_path.write_text(text)
    store = tmp_path / "store"
    out = CliRunner().invoke(main, ["run", str(spec_path), "--store", str(store), "-j", "1",
                                    "-q", "--allow-module", test_estimators_on_path])
    assert out.exit_code == 1 and "18 of 18 cells failed" in out.output
    with _no_warnings():
        shown = CliRunner().invoke(main, ["show", str(store)])
    assert shown.exit_code == 0
    assert "0 done, 18 failed" in shown.output
    for noise in ("zero-size array", "Mean of empty slice", "RuntimeWarning", "Traceback"):
        assert noise not in shown.output


class _no_warnings:
    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings(record=True)
        self.records = self._ctx.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        self._ctx.__exit__(*exc)
        assert [str(r.message) for r in self.records
                if issubclass(r.category, RuntimeWarning)] == []


def test_unconverged_probe_cells_are_flagged_and_never_best(tmp_path, test_estimators_on_path):
    # IntervalNaiveBayes records 2 divergent transitions: its posterior fails
    text = TINY_SPEC.replace("sklearn.linear_model.LogisticRegression",
                             f"{test_estimators_on_path}.IntervalNaiveBayes").replace(
        "{ C = 0.5 }", "{}")
    spec = parse_spec(text, allow_modules=[test_estimators_on_path])
    tree = run(spec, tmp_path / "store", n_jobs=1, progress=False)
    m = tree["metrics"].to_dataset()
    assert m["converged"].dtype == bool
    assert not bool(m["converged"].sel(classifier="lr", scenario="raw").any())
    assert bool(m["converged"].sel(classifier="nb").all())  # no posterior: true
    assert "2 divergent transitions" in tree.attrs["unconverged"]
    from bayescal.report.tables import format_table, study_table

    table = study_table(tree, "brier")
    lr = table.rows.index(("lr", "raw"))
    assert table.unconverged[lr].all() and not table.best[lr].any()
    assert table.best.any(axis=0).all()  # every dataset still has a best cell
    text_table = format_table(table)
    assert "!" in text_table.splitlines()[2 + 1 + lr]
    shown = CliRunner().invoke(main, ["show", str(tmp_path / "store")])
    assert "6 unconverged" in shown.output


def test_unreachable_scheduler_is_one_line_within_10_s_and_leaves_no_store(tiny_spec_path,
                                                                            tmp_path):
    store = tmp_path / "store"
    start = time.monotonic()
    with pytest.raises(SchedulerUnreachableError, match="cannot reach the Dask scheduler"):
        run(tiny_spec_path, store, scheduler="tcp://127.0.0.1:1", n_jobs=1, progress=False)
    assert time.monotonic() - start < 10
    assert not store.exists()
    out = CliRunner().invoke(main, ["run", str(tiny_spec_path), "--store", str(store), "-q",
                                    "--scheduler", "tcp://127.0.0.1:1"])
    assert out.exit_code == 1 and len(out.output.strip().splitlines()) == 1
    assert out.output.startswith("Error: cannot reach the Dask scheduler 'tcp://127.0.0.1:1'")
    assert not store.exists()


def test_a_dataset_failing_before_the_first_cell_leaves_no_store(tmp_path):
    bad = tmp_path / "no_target.csv"
    bad.write_text("a,b,label\n" + "".join(f"{i},{i % 3},{i % 2}\n" for i in range(30)))
    text = TINY_SPEC.replace('source = "iris"', f'source = "{bad}"')
    spec_path = tmp_path / "bad.toml"
    spec_path.write_text(text)
    store = tmp_path / "store"
    for _ in range(2):  # the same command again meets the same error, not a stale store
        out = CliRunner().invoke(main, ["run", str(spec_path), "--store", str(store), "-q",
                                        "-j", "1"])
        assert out.exit_code == 1 and "target" in out.output
        assert "already holds a study" not in out.output and not store.exists()
    existing = tmp_path / "kept"
    existing.mkdir()
    CliRunner().invoke(main, ["run", str(spec_path), "--store", str(existing), "-q", "-j", "1"])
    assert existing.is_dir() and list(existing.iterdir()) == []  # only what the run made


def _children(pid: int) -> list[int]:
    import psutil

    return [p.pid for p in psutil.Process(pid).children(recursive=True)]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_ending_the_main_process_ends_its_workers(tmp_path, test_estimators_on_path, signum):
    import psutil

    spec_path = tmp_path / "kill.toml"
    spec_path.write_text(KILL_SPEC.replace("delay = 0.15", "delay = 0.5"))
    store = tmp_path / "store"
    proc = _cli("run", str(spec_path), "--store", str(store), "--allow-module",
                test_estimators_on_path, "-j", "2", "-q")
    deadline = time.monotonic() + 180
    workers: list[int] = []
    while time.monotonic() < deadline and proc.poll() is None:
        if list((store / "cells").rglob("*.npz")):
            workers = _children(proc.pid)
            if workers:
                break
        time.sleep(0.05)
    assert workers, proc.stderr.read()[-2000:] if proc.poll() is not None else "no workers"
    proc.send_signal(signum)
    proc.communicate(timeout=60)
    assert proc.returncode == (143 if signum == signal.SIGTERM else 130)
    gone_by = time.monotonic() + 30
    alive = workers
    while alive and time.monotonic() < gone_by:
        alive = [w for w in workers if psutil.pid_exists(w)
                 and psutil.Process(w).status() != psutil.STATUS_ZOMBIE]
        time.sleep(0.2)
    assert alive == []
    # the interrupted store resumes
    spec = load_spec(spec_path, allow_modules=[test_estimators_on_path])
    tree = run(spec, store, resume=True, n_jobs=1, progress=False)
    assert bool(tree["metrics"]["done"].all()) and np.isfinite(tree["metrics"]["brier"]).all()


def test_a_reader_never_sees_a_half_written_cube(tiny_spec_path, tmp_path):
    import threading

    store = tmp_path / "store"
    tree = run(tiny_spec_path, store, n_jobs=1, progress=False)
    from bayescal.cube import CellStore

    cells = CellStore(store)
    errors: list[BaseException] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                back = open_results(store)
                assert back.attrs["cells_done"] == 18
            except BaseException as exc:  # noqa: BLE001 - collected for the assertion
                errors.append(exc)
                return

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for _ in range(5):
            cells.write_cube(tree)
    finally:
        stop.set()
        reader.join()
    assert errors == []
    assert not list(Path(store).glob("*.tmp"))

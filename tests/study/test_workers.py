"""Tests of bayescal.study.workers and of the affinity of the local executor's hand-out."""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys

import pytest

from bayescal.study import WorkerProcessError, parse_spec, run, schedule, workers

from .conftest import TINY_SPEC
from .test_runner import assert_same_cube


def _pid_spec(log_dir, ballast_mb: int = 0, delay: float = 0.0) -> str:
    return TINY_SPEC.replace(
        '[classifiers.lr]\nclass = "sklearn.linear_model.LogisticRegression"\nparams = { C = 0.5 }',
        '[classifiers.lr]\nclass = "sklearn.linear_model.LogisticRegression"\nparams = { C = 0.5 }'
        '\n\n[classifiers.pid]\nclass = "study_test_estimators.PidNaiveBayes"\n'
        f'params = {{ log_dir = "{log_dir}", ballast_mb = {ballast_mb}, delay = {delay} }}')


def _fits_per_process(log_dir) -> dict[int, int]:
    return {int(p.stem): len(p.read_text().split()) for p in log_dir.glob("*.log")}


@pytest.mark.slow
def test_a_compiling_model_stays_in_one_process(tmp_path, test_estimators_on_path,
                                                monkeypatch):
    # pretend PidNaiveBayes compiles on its first fit in a process, as a PyMC model does
    monkeypatch.setitem(schedule.PROCESS_WARMUP, "PidNaiveBayes", lambda params: 30.0)
    logs = tmp_path / "logs"
    logs.mkdir()
    spec = parse_spec(_pid_spec(logs), allow_modules=(test_estimators_on_path,))
    one = run(spec, tmp_path / "one", n_jobs=1, progress=False)
    for f in logs.glob("*.log"):
        f.unlink()
    two = run(spec, tmp_path / "two", n_jobs=2, progress=False)
    assert_same_cube(one, two)
    fits = _fits_per_process(logs)
    assert len(fits) == 1, fits  # all its fits (6 folds, raw) in one process
    assert sum(fits.values()) == 6


BALLAST_SPEC = """
[study]
name = "ballast"
seed = 3

[protocol]
kind = "kfold"
n_splits = 12

[datasets.blobs]
generator = "sklearn.datasets.make_classification"
params = { n_samples = 160, n_features = 4, n_informative = 2, n_redundant = 0 }

[classifiers.pid]
class = "study_test_estimators.PidNaiveBayes"
params = { log_dir = "LOGS", ballast_mb = 400, delay = 0.6 }

[scenarios.raw]
kind = "raw"
"""


@pytest.mark.slow
def test_a_worker_grown_by_its_models_is_kept_warm(tmp_path, test_estimators_on_path, recwarn):
    # loky replaces a worker grown by 300 MB since its first task: a worker holding
    # compiled models would pay every compilation again. Ours keeps its process.
    logs = tmp_path / "logs"
    logs.mkdir()
    spec = parse_spec(BALLAST_SPEC.replace("LOGS", str(logs)),
                      allow_modules=(test_estimators_on_path,))
    try:
        tree = run(spec, tmp_path / "store", n_jobs=2, progress=False)
    finally:  # the ballast this process took
        sys.modules[test_estimators_on_path].PidNaiveBayes.ballast.clear()
    assert int(tree["metrics"]["failed"].sum()) == 0
    fits = _fits_per_process(logs)
    assert sum(fits.values()) == 12
    assert len(fits) == 2, fits  # this process and its one worker: none replaced
    stopped = [w for w in recwarn if "worker stopped" in str(w.message)]
    assert not stopped, [str(w.message) for w in stopped]


@pytest.mark.slow
def test_a_worker_that_dies_is_reported_and_the_study_resumes(tmp_path,
                                                               test_estimators_on_path):
    spec_text = BALLAST_SPEC.replace(
        'class = "study_test_estimators.PidNaiveBayes"\n'
        'params = { log_dir = "LOGS", ballast_mb = 400, delay = 0.6 }',
        'class = "study_test_estimators.ExitInWorkerNB"\n'
        f'params = {{ main_pid = {os.getpid()} }}')
    assert "ExitInWorkerNB" in spec_text
    spec = parse_spec(spec_text, allow_modules=(test_estimators_on_path,))
    with pytest.raises(WorkerProcessError,
                       match=r"a worker process ended while computing classifier 'pid' on "
                             r"dataset 'blobs' \(repeat 0, fold \d+\).*--resume"):
        run(spec, tmp_path / "store", n_jobs=2, progress=False)
    # nothing lost: the same store resumes in this process alone
    tree = run(spec, tmp_path / "store", resume=True, n_jobs=1, progress=False)
    assert int(tree["metrics"]["done"].sum()) == 12
    assert int(tree["metrics"]["failed"].sum()) == 0


def test_payload_file_round_trip_and_removal():
    with workers.payload_file({"spec": 1}, [2, 3]) as path:
        assert os.stat(path).st_mode & 0o077 == 0  # private
        with open(path, "rb") as fh:
            assert pickle.load(fh) == ({"spec": 1}, [2, 3])
    assert not os.path.exists(path)
    with pytest.raises(RuntimeError, match="boom"), workers.payload_file(1, 2) as path:
        raise RuntimeError("boom")
    assert not os.path.exists(path)


@pytest.mark.slow
def test_a_killed_worker_ends_at_once_without_errors(monkeypatch):
    import threading
    import time

    errors: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(repr(args.exc_value)))
    for rep in range(8):
        proc = workers.WorkerProcess()
        if rep % 2:  # killed while it still imports (a run that fails at once), or later
            pid = proc._pid.result(timeout=60)
        for _ in range(3):  # one running, others handed over and waiting
            proc._pool.submit(time.sleep, 30)
        time.sleep(0.01 * rep)
        for _ in range(600):  # the pid its initializer writes first thing
            if pids := proc._known_pids():
                break
            time.sleep(0.05)
        pid = next(iter(pids))
        proc.shutdown(kill=True)
        for _ in range(100):  # gone within seconds, not after its 30 s task
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
        else:
            raise AssertionError(f"worker {pid} still alive")
    time.sleep(1.0)  # the executors' manager threads have ended
    assert errors == []


def test_processes_for():
    assert workers.processes_for(None) == 0  # decided later, from the tasks
    assert workers.processes_for(1) == 0
    assert workers.processes_for(3) == 2
    assert workers.processes_for(-1) == workers.available_cores() - 1
    assert workers.processes_for(4, scheduler="local") == 0  # Dask starts its own


def test_prestarted_processes_are_adopted_or_killed():
    with workers.prestarted(2):
        assert len(workers._PRESTARTED) == 2
        adopted = workers.start_processes(1)
        assert len(adopted) == 1 and len(workers._PRESTARTED) == 1
        left = workers._PRESTARTED[0]
    assert workers._PRESTARTED == []  # the one not adopted was killed
    assert left._pool._flags.shutdown
    adopted[0].shutdown(kill=True)


def test_cli_import_is_light():
    # `bayescal run -j 2` starts its workers before the runner's heavy imports
    code = ("import sys, bayescal.cli, bayescal.study.workers; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'sklearn', 'scipy', 'pandas', 'xarray', 'pymc', 'matplotlib'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"

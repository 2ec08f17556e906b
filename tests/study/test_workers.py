"""Tests of bayescal.study.workers and of the affinity of the local executor's hand-out."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time

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
    # a pool that replaces a worker grown by 300 MB since its first task (loky does) would
    # make a worker holding compiled models pay every compilation again. Ours keeps it.
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


class _UnpicklableThere:
    """Pickles here; unpickling imports a module that does not exist."""

    def __reduce__(self):
        import importlib

        return importlib.import_module, ("not_a_module_of_this_test",)


def test_a_worker_answers_in_order_and_passes_errors_back(test_estimators_on_path):
    helpers = __import__(test_estimators_on_path)
    proc = workers.WorkerProcess()
    try:
        futures = [proc.call(divmod, 7, k) for k in (2, 3, 0, 4)]
        assert futures[0].result(timeout=120) == (3, 1)
        assert futures[1].result(timeout=60) == (2, 1)
        with pytest.raises(ZeroDivisionError):  # the call's own error, the worker lives on
            futures[2].result(timeout=60)
        assert futures[3].result(timeout=60) == (1, 3)
        with pytest.raises(RuntimeError, match=r"could not send back the error "
                                               r"UnpicklableError(.|\n)*no way back"):
            proc.call(helpers.raise_unpicklable).result(timeout=60)
        # a task before the spec and data: said plainly; a load that fails: its error
        with pytest.raises(RuntimeError, match="could not read the study's spec and data: "
                                               "none was sent"):
            proc.submit(None, None, None).result(timeout=60)
        with pytest.raises(pickle.UnpicklingError):
            proc.load(b"not a pickle").result(timeout=60)
        with pytest.raises(RuntimeError, match="could not read the study's spec and data: "
                                               "UnpicklingError"):
            proc.submit(None, None, None).result(timeout=60)
        # a call the worker cannot unpickle: its error, and the worker lives on
        with pytest.raises(ModuleNotFoundError, match="not_a_module_of_this_test"):
            proc.call(divmod, _UnpicklableThere(), 1).result(timeout=60)
        assert proc.call(os.getpid).result(timeout=60) == proc.pid != os.getpid()
        for name in workers.SINGLE_THREAD_ENV:  # one BLAS/OpenMP thread from the start
            assert proc.call(os.getenv, name).result(timeout=60) == "1"
    finally:
        proc.shutdown()
    assert proc.join(timeout=60)  # it exits after its calls, with status 0
    with pytest.raises(workers.WorkerDied, match=r"exit status 0"):
        proc.call(divmod, 1, 1).result(timeout=10)


def test_a_worker_ignores_ctrl_c_from_its_first_instruction(capfd):
    # Ctrl-C reaches every process of the terminal's group, a worker still starting too
    import signal

    proc = workers.WorkerProcess()
    try:
        os.kill(proc.pid, signal.SIGINT)  # while its interpreter starts
        time.sleep(0.3)
        os.kill(proc.pid, signal.SIGINT)  # while it imports
        assert proc.call(os.getpid).result(timeout=120) == proc.pid
        os.kill(proc.pid, signal.SIGINT)  # between tasks
        assert proc.call(divmod, 3, 2).result(timeout=60) == (1, 1)
    finally:
        proc.shutdown()
    assert proc.join(timeout=60)
    assert "KeyboardInterrupt" not in capfd.readouterr().err


@pytest.mark.slow
def test_a_killed_worker_ends_at_once_without_errors(monkeypatch):
    import threading

    errors: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(repr(args.exc_value)))
    for rep in range(4):
        proc = workers.WorkerProcess()
        if rep % 2:  # killed while it still imports (a run that fails at once), or later
            assert proc.call(os.getpid).result(timeout=120) == proc.pid
        pending = [proc.call(time.sleep, 30) for _ in range(3)]  # one running, two waiting
        time.sleep(0.05 * rep)
        proc.shutdown(kill=True)
        assert proc.join(timeout=10)  # gone within seconds, not after its 30 s task
        for future in pending:
            with pytest.raises(workers.WorkerDied, match="killed by signal SIGKILL"):
                future.result(timeout=1)
        with pytest.raises(ProcessLookupError):
            os.kill(proc.pid, 0)
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
    assert left.join(timeout=30)
    assert adopted[0].call(os.getpid).result(timeout=120) == adopted[0].pid
    adopted[0].shutdown(kill=True)
    assert adopted[0].join(timeout=30)


def test_cli_import_is_light():
    # `bayescal run -j 2` starts its workers before the runner's heavy imports
    code = ("import sys, bayescal.cli, bayescal.study.workers; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'sklearn', 'scipy', 'pandas', 'xarray', 'pymc', 'matplotlib'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_a_script_without_a_main_guard_is_not_run_again_in_its_worker(tmp_path):
    """The spawn start method re-runs the parent's main script in the child unless
    bayescal hides it; a notebook-style script would then start its study twice."""
    marker = tmp_path / "runs.txt"
    script = tmp_path / "no_guard.py"
    script.write_text(
        "import os\n"
        f"with open({str(marker)!r}, 'a') as f:\n"
        "    f.write(f'{os.getpid()}\\n')\n"
        "from bayescal.study import workers\n"
        "proc = workers.WorkerProcess()\n"
        "print(proc.call(os.getpid).result(timeout=120) == proc.pid)\n"
        "proc.shutdown()\n"
        "assert proc.join(timeout=60)\n"
        "import sys\n"
        "print(sys.modules['__main__'].__file__ == __file__)\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["True", "True"]  # the worker answered; __file__ restored
    assert len(marker.read_text().split()) == 1, done.stderr[-3000:]  # run once, not twice

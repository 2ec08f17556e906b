"""Nothing outlives a study run: workers, the resource tracker, temporary files.

``kill -9`` of ``bayescal run -j 2`` gives its process no chance to clean up;
its worker watches it (``workers._watch_parent``) and ends, and
multiprocessing's resource tracker follows when its pipe closes. The spec and
data reach the workers through their pipes: no file is written.
A lost Dask worker is one line that says ``--resume``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

from bayescal.study import WorkerProcessError

from .conftest import HERE
from .test_runner import KILL_SPEC

REPO = HERE.parents[1]

linux_only = pytest.mark.skipif(not Path("/proc/self/environ").exists(),
                                reason="finds processes through /proc")


def _tagged(tag: str) -> list[tuple[int, str]]:
    """Live (not zombie) processes whose environment holds ``tag``."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if tag.encode() not in (entry / "environ").read_bytes():
                continue
            if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue
            out.append((int(entry.name),
                        (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:400]))
        except (OSError, IndexError):
            continue
    return out


def _env(tmp_path: Path, tag: str) -> dict[str, str]:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir(exist_ok=True)
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(HERE)]),
            "TMPDIR": str(tmpdir), "BAYESCAL_TEST_TAG": tag}


def _kill_all(tag: str) -> None:
    for pid, _ in _tagged(tag):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            continue


@linux_only
@pytest.mark.slow
def test_kill_9_of_the_parent_leaves_no_process_and_no_file(tmp_path,
                                                               test_estimators_on_path):
    tag = uuid.uuid4().hex
    env = _env(tmp_path, tag)
    spec = tmp_path / "kill.toml"
    spec.write_text(KILL_SPEC.replace("delay = 0.15", "delay = 1.0"))
    store = tmp_path / "store"
    proc = subprocess.Popen(
        [sys.executable, "-m", "bayescal.cli", "run", str(spec), "--store", str(store),
         "--allow-module", test_estimators_on_path, "-j", "2", "-q"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None:  # a worker at work
            if list((store / "cells").rglob("*.npz")) and len(_tagged(tag)) >= 3:
                break
            time.sleep(0.1)
        before = _tagged(tag)
        assert proc.poll() is None and any("spawn_main" in cmd for _, cmd in before), before
        proc.kill()
        proc.wait()
        time.sleep(10)
        assert _tagged(tag) == [], before
        assert list(Path(env["TMPDIR"]).iterdir()) == []  # nothing was written there
    finally:
        proc.kill()
        _kill_all(tag)


WATCHED_CHILD = """
import subprocess, sys
code = ("import sys, time; from bayescal.study import workers; "
        "workers._watch_parent(0.05); print('watching', flush=True); time.sleep(60)")
grandchild = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
assert grandchild.stdout.readline().strip() == "watching"
print(grandchild.pid, flush=True)
import time; time.sleep(60)
"""


@linux_only
def test_a_watched_worker_ends_when_its_parent_is_killed(tmp_path):
    tag = uuid.uuid4().hex
    env = _env(tmp_path, tag)
    child = subprocess.Popen([sys.executable, "-c", WATCHED_CHILD], env=env,
                             stdout=subprocess.PIPE, text=True)
    try:
        grandchild = int(child.stdout.readline())
        assert any(p == grandchild for p, _ in _tagged(tag))
        child.kill()
        child.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(p == grandchild for p, _ in _tagged(tag)):
            time.sleep(0.05)
        assert _tagged(tag) == []
    finally:
        child.kill()
        _kill_all(tag)


class _LostFuture:
    key = "run_task-abc"

    def __init__(self, exc: BaseException) -> None:
        self._exc = exc

    def result(self):
        raise self._exc


def test_a_lost_dask_worker_is_one_line_that_says_resume():
    from distributed.client import FutureCancelledError
    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker

    from bayescal.study.executors import _dask_result

    for exc in (FutureCancelledError("run_task-abc", reason="scheduler-connection-lost"),
                KilledWorker("run_task-abc", SimpleNamespace(address="tcp://127.0.0.1:4"), 3),
                CommClosedError("in <TCP (closed)>: Stream is closed")):
        with pytest.raises(WorkerProcessError) as info:
            _dask_result(_LostFuture(exc), "local")
        message = str(info.value)
        assert "\n" not in message and "--resume" in message
        assert type(exc).__name__ in message and "'local'" in message
    with pytest.raises(ZeroDivisionError):  # not the cluster's: not disguised
        _dask_result(_LostFuture(ZeroDivisionError("a bug")), "local")


@pytest.mark.slow
def test_ctrl_c_of_a_parallel_run_exits_130_in_one_line(tmp_path, test_estimators_on_path):
    """SIGINT at several moments of a ``-j 2`` run: status 130, one line, no crash, no leak."""
    spec = tmp_path / "kill.toml"
    spec.write_text(KILL_SPEC.replace("delay = 0.15", "delay = 1.0"))
    env = _env(tmp_path, uuid.uuid4().hex)
    for attempt in range(3):
        store = tmp_path / f"store{attempt}"
        proc = subprocess.Popen(
            [sys.executable, "-m", "bayescal.cli", "run", str(spec), "--store", str(store),
             "--allow-module", test_estimators_on_path, "-j", "2", "-q"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and not list((store / "cells").rglob("*.npz")):
            time.sleep(0.05)
        time.sleep(0.4 * attempt)  # a task of the local thread just started, or midway
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 130, err[-2000:]
        assert err.strip().splitlines() == [
            f"interrupted; continue with: bayescal run ... --store {store} --resume"], err
    assert list(Path(env["TMPDIR"]).iterdir()) == []  # nothing was written there

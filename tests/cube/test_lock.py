"""Tests of bayescal.cube.lock: one writer per store, concurrent consolidations."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bayescal.cube import StoreBusyError, StoreLock, consolidate_store, open_results

REPO = Path(__file__).resolve().parents[2]


def test_a_second_exclusive_lock_is_refused_at_once_naming_the_holder(tmp_path):
    path = tmp_path / "writer.lock"
    with StoreLock(path) as first:
        assert first.held and first.holder() == os.getpid()
        with pytest.raises(StoreBusyError, match=f"is being written by process {os.getpid()}"):
            StoreLock(path).acquire()
        with pytest.raises(StoreBusyError):
            StoreLock(path, wait=True, timeout=0.2).acquire()
    with StoreLock(path):  # released: free again
        pass


def test_shared_locks_coexist_and_exclude_a_writer(tmp_path):
    path = tmp_path / "cube.lock"
    with StoreLock(path, shared=True), StoreLock(path, shared=True):
        with pytest.raises(StoreBusyError):
            StoreLock(path).acquire()


def test_a_lock_held_by_another_process_names_it(tmp_path):
    path = tmp_path / "writer.lock"
    code = ("import sys, time; from bayescal.cube import StoreLock; "
            f"l = StoreLock({str(path)!r}).acquire(); print('held', flush=True); time.sleep(30)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert proc.stdout.readline().strip() == "held"
        with pytest.raises(StoreBusyError, match=f"by process {proc.pid}"):
            StoreLock(path).acquire()
    finally:
        proc.kill()
        proc.wait()
    with StoreLock(path):  # the kernel released the killed holder's lock
        pass


CONSOLIDATE = """
import sys
from bayescal.cube import consolidate_store
consolidate_store(sys.argv[1])
"""


@pytest.mark.slow
def test_thirty_concurrent_consolidations_all_succeed_and_leave_no_tmp(store):
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    procs = [subprocess.Popen([sys.executable, "-c", CONSOLIDATE, str(store.root)],
                              env=env, stderr=subprocess.PIPE, text=True) for _ in range(30)]
    failures = []
    for p in procs:
        _, err = p.communicate(timeout=600)
        if p.returncode != 0:
            failures.append(err[-500:])
    assert failures == []
    assert not list(store.root.rglob("*.tmp"))
    tree = open_results(store.root)
    assert tree.attrs["cells_done"] == 6


def test_consolidate_store_waits_for_the_writer(store):
    with StoreLock(store.writer_lock_path):
        with pytest.raises(StoreBusyError, match="is being written by process"):
            consolidate_store(store.root, timeout=0.3)
    assert consolidate_store(store.root).attrs["cells_done"] == 6


def test_consolidate_store_of_a_non_store(tmp_path):
    with pytest.raises(ValueError, match="is not a bayescal study store"):
        consolidate_store(tmp_path)

"""Benchmark of ``bayescal run -j 2`` against ``-j 1`` end to end, and of a worker's warm-up.

Run: ``python benchmarks/parallel.py`` (the quick-start, ``models/quickstart.toml``),
``python benchmarks/parallel.py --spec benchmarks/thesis_small.toml`` (needs
``BAYESCAL_DATA``), ``--warmup-only`` for the warm-up figures alone
(``--warmup-classifiers blr,gpc`` to time the first tasks of some classifiers only).

Two measurements, each in fresh processes, as a person running a study meets them:

* **the CLI** -- ``bayescal run SPEC -j N`` as a child process, ``-j 1`` and
  ``-j 2`` taking turns for ``--repeats`` rounds (best of each kept). Besides
  wall-clock seconds it samples (psutil, every 0.1 s) the CPU seconds of the
  command's own process and of each worker process it starts. On a machine
  shared with other work the wall-clock ratio measures the share of the cores
  the run was given as much as the runner; the CPU figures do not. With
  ``-j 2`` the calling process computes tasks beside one worker process, so
  ``CPU speed-up`` is ``CPU(-j 1) / max(calling process, before + busiest
  worker + after)``, where ``before`` and ``after`` are the calling process's
  CPU seconds before the worker process appeared and after it ended (imports
  and data preparation; consolidation and the table): about what two
  otherwise idle cores would give.
* **warm-up of a worker** -- a fresh process does what a worker does (imports,
  receives the spec and data), then runs the first task of every classifier in
  the order the queue hands them out, and runs each a second time. The warm-up
  is the import CPU plus the sum of (first - second) CPU seconds: what each
  new process pays once (imports of PyMC and friends, numba cache loads,
  PyTensor compilations) and a warm process does not.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_WARMUP_CHILD = r"""
import os, pickle, sys, time
t0 = time.process_time()
from bayescal.study.workers import SINGLE_THREAD_ENV, _load, _run, _warm_up
os.environ.update(SINGLE_THREAD_ENV)
_warm_up()
from threadpoolctl import threadpool_limits
threadpool_limits(limits=1)
imports = time.process_time() - t0
from bayescal.cube.store import StoreLayout
from bayescal.study import load_spec
from bayescal.study.runner import _prepare, _tasks, task_queue
spec = load_spec(sys.argv[1])
datasets, splits, _ = _prepare(spec)
_load(pickle.dumps((spec, datasets)))
queue = task_queue(spec, _tasks(spec, StoreLayout.from_spec(spec), splits, set()), datasets)
only = set(sys.argv[2].split(",")) if len(sys.argv) > 2 and sys.argv[2] else None
firsts = {}
for item in queue.drain():
    if only is None or spec.classifiers[item.task.classifier].name in only:
        firsts.setdefault(item.task.classifier, item)
print(f"imports {imports:.3f}")
for item in firsts.values():
    runs = []
    for _ in range(2):
        c = time.process_time()
        _run(item.task, item.train, item.test)
        runs.append(time.process_time() - c)
    print(f"task {spec.classifiers[item.task.classifier].name} {runs[0]:.3f} {runs[1]:.3f}")
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def warmup(spec_path: str, only: str = "") -> tuple[float, list[tuple[str, float, float]]]:
    """(import CPU-s, [(classifier, first task CPU-s, same task again CPU-s)]) in a fresh process.

    ``only``: comma-separated classifier names (default: every classifier).
    """
    out = subprocess.run([sys.executable, "-c", _WARMUP_CHILD, spec_path, only], env=_env(),
                         check=True, capture_output=True, text=True).stdout
    imports, tasks = 0.0, []
    for line in out.splitlines():
        parts = line.split()
        if parts[:1] == ["imports"]:
            imports = float(parts[1])
        elif parts[:1] == ["task"]:
            tasks.append((parts[1], float(parts[2]), float(parts[3])))
    return imports, tasks


def cli_run(spec_path: str, jobs: int) -> dict:
    """One ``bayescal run SPEC -j jobs`` in a child process: wall, CPU of it and its workers.

    Besides each process's CPU seconds, the calling process's CPU before the
    first worker process appeared (``pre``: imports, dataset preparation) and
    after the last one ended (``post``: consolidation, the zarr cube, the
    table) are recorded: with ``-j 2`` the calling process computes tasks too,
    and on two idle cores the run would take about
    ``max(caller, pre + busiest worker + post)`` CPU seconds.
    """
    import psutil

    root = Path(tempfile.mkdtemp(prefix="bench-parallel-"))
    cmd = [sys.executable, "-c", "from bayescal.cli import entry; entry()", "run", spec_path,
           "-j", str(jobs), "--store", str(root / "store"), "-q"]
    seen: dict[int, float] = {}
    pre = last_alive = None
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.DEVNULL)
        me = psutil.Process(proc.pid)
        main_cpu = 0.0
        while proc.poll() is None:
            try:
                t = me.cpu_times()
                main_cpu = max(main_cpu, t.user + t.system)
                alive = False
                for child in me.children(recursive=True):
                    if "resource_tracker" in " ".join(child.cmdline()):
                        continue
                    ct = child.cpu_times()
                    seen[child.pid] = max(seen.get(child.pid, 0.0), ct.user + ct.system)
                    alive = True
                if alive:
                    pre = main_cpu if pre is None else pre
                    last_alive = main_cpu
            except psutil.Error:
                pass
            time.sleep(0.1)
        seconds = time.perf_counter() - start
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"bayescal run -j {jobs} exited with {proc.returncode}")
    workers = sorted(seen.values(), reverse=True)
    post = main_cpu - last_alive if last_alive is not None else 0.0
    critical = max(main_cpu, (pre or 0.0) + (workers[0] if workers else 0.0) + post)
    return {"seconds": seconds, "main_cpu": main_cpu, "workers": workers, "pre": pre or 0.0,
            "post": post, "critical": critical, "load": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default=str(ROOT / "models" / "quickstart.toml"))
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--warmup-only", action="store_true")
    parser.add_argument("--warmup-classifiers", default="",
                        help="comma-separated classifiers whose first task the warm-up "
                             "measures (default: all)")
    args = parser.parse_args(argv)

    imports, tasks = warmup(args.spec, args.warmup_classifiers)
    extra = sum(first - again for _, first, again in tasks)
    print(f"warm-up of a fresh worker ({Path(args.spec).name}): imports {imports:.2f} CPU-s; "
          f"first task of each classifier (CPU-s, first / again): "
          + ", ".join(f"{n} {f:.2f} / {a:.2f}" for n, f, a in tasks))
    print(f"  warm-up per worker = {imports:.2f} + {extra:.2f} = {imports + extra:.2f} CPU-s "
          f"(load average {os.getloadavg()[0]:.1f})", flush=True)
    if args.warmup_only:
        return 0

    runs: dict[int, list[dict]] = {1: [], 2: []}
    for _ in range(args.repeats):
        for jobs in (1, 2):
            r = cli_run(args.spec, jobs)
            runs[jobs].append(r)
            print(f"round: -j {jobs}: {r['seconds']:.1f} s wall, CPU {r['main_cpu']:.1f} here + "
                  f"{' + '.join(f'{w:.1f}' for w in r['workers']) or '0'} in workers; "
                  f"load {r['load']:.1f}", flush=True)
    one = min(runs[1], key=lambda r: r["seconds"])
    two = min(runs[2], key=lambda r: r["seconds"])
    load = os.getloadavg()
    print(f"bayescal run {Path(args.spec).name}, best of {args.repeats} alternating rounds; "
          f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} "
          "cores (1 / 5 / 15 min)")
    print(f"wall-clock: -j 1 {one['seconds']:.1f} s, -j 2 {two['seconds']:.1f} s: "
          f"{one['seconds'] / two['seconds']:.2f}x")
    cpu1 = min(r["main_cpu"] + sum(r["workers"]) for r in runs[1])
    best2 = min(runs[2], key=lambda r: r["critical"])
    total2 = best2["main_cpu"] + sum(best2["workers"])
    print(f"CPU seconds: -j 1 {cpu1:.1f}; -j 2 {total2:.1f} in all (calling process "
          f"{best2['main_cpu']:.1f}, of which {best2['pre']:.1f} before the worker process "
          f"started and {best2['post']:.1f} after it ended; worker process"
          f"{'es' if len(best2['workers']) > 1 else ''} "
          f"{' + '.join(f'{w:.1f}' for w in best2['workers'])}); -j 2 uses "
          f"{total2 / cpu1 - 1:+.1%} CPU")
    print(f"CPU speed-up -j 2 vs -j 1: {cpu1 / best2['critical']:.2f}x (-j 1 CPU / "
          f"max(calling process, before + busiest worker + after) = {best2['critical']:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

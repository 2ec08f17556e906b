"""Benchmark of the study runner: cells per second on 1 vs 2 local workers, and the
runner's overhead over calling the estimators directly.

Run: ``python benchmarks/runner.py`` (the bundled quick-start study),
``python benchmarks/runner.py --quick`` (3 folds, 30-tree forests, 500 DGG samples),
``python benchmarks/runner.py --spec benchmarks/thesis_small.toml`` (a thesis-shaped
study: every classifier and scenario of ``models/thesis_binary.toml`` on two of its
data sets) or ``--spec models/thesis_binary.toml`` (the full study; hours on a
loaded machine). ``--no-direct`` leaves out the direct loop.

Besides wall-clock seconds (best of ``--repeats`` interleaved rounds) it reports
the CPU seconds of each arm: the calling process's and, for two workers, each
worker process's (sampled with psutil while the run lasts). On a machine
shared with other work the wall-clock ratio measures the share of the cores
the run was given as much as the runner; the CPU figures do not: ``CPU
speed-up`` is ``CPU(1 worker) / max(CPU of the calling process, of the worker
process)`` (with 2 workers the calling process computes tasks beside one
worker process), about the speed-up two otherwise idle cores would give
(``benchmarks/parallel.py`` measures ``bayescal run`` end to end, the calling
process's serial parts apart). It also prints
the study's per-scenario seconds (the cube's ``cell_seconds`` and
``cell_cpu_seconds`` summed per scenario, a shared fit counted once).

What is compared, on the same spec in the same run:

* **direct** -- a plain loop that, for every cell, builds the classifier (or
  its calibration wrapper) from the spec, fits it on the fold, predicts the
  test fold and computes the spec's metrics with :mod:`bayescal.metrics`;
  no store, no fit sharing, one BLAS thread (as in the runner);
* **runner, 1 worker** -- :func:`bayescal.study.run` with ``n_jobs=1``
  (dataset preparation, per-cell atomic files, consolidation, zarr cube);
* **runner, 2 workers** -- ``n_jobs=2`` (this process and one worker
  process, its start-up included).

The runner shares the base classifier's fit between scenarios that refit on
the same training data, so it may do less work than the direct loop; its
overhead is therefore reported both as the end-to-end ratio and as its
bookkeeping time: the run's time outside the tasks (preparation, per-cell
atomic files, consolidation, the zarr cube), measured in the same run.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np


def _spec(quick: bool, path: str | None = None):
    from bayescal.study import load_spec, parse_spec
    from bayescal.study.bundled import QUICKSTART

    if path is not None:
        return load_spec(path)
    text = Path(str(QUICKSTART)).read_text()
    if quick:
        text = (text.replace("n_splits = 5", "n_splits = 3")
                .replace("n_estimators = 100", "n_estimators = 30")
                .replace("n_generated = 2000", "n_generated = 500"))
    return parse_spec(text)


def _direct_model(spec, cspec, scen):
    """The cell's model built by hand through the public API (no fit sharing)."""
    from bayescal.study.imports import build_estimator

    clf = build_estimator(cspec.estimator, spec.allow_modules)
    if scen.kind == "raw":
        return clf
    if scen.kind == "wrapper":
        return build_estimator(scen.wrapper, spec.allow_modules, estimator=clf)
    from bayescal.calibration import CalibratedClassifier

    cal = None if scen.calibrator is None else build_estimator(scen.calibrator,
                                                                spec.allow_modules)
    return CalibratedClassifier(clf, cal, scenario=scen.kind, random_state=0,
                                **dict(scen.params))


def direct_loop(spec) -> tuple[float, int]:
    """Every cell fitted and scored by hand; returns (seconds, cells)."""
    from bayescal.cube.scoring import label_metrics, truth_metrics
    from bayescal.study.data import prepare_dataset
    from bayescal.study.protocol import make_splits
    from bayescal.study.seeds import DATASET, derive_seed
    from bayescal.threads import limit_blas_threads

    start = time.perf_counter()
    cells = 0
    with limit_blas_threads(1):
        for d, dspec in enumerate(spec.datasets):
            data = prepare_dataset(dspec, data_dir=spec.data_dir, allowed=spec.allow_modules,
                                   random_state=derive_seed(spec.seed, DATASET, d))
            for _, _, train, test in make_splits(spec.protocol, data.y, seed=spec.seed,
                                                 dataset_index=d):
                for cspec in spec.classifiers:
                    for scen in spec.scenarios:
                        if not scen.applies_to(cspec.name):
                            continue
                        model = _direct_model(spec, cspec, scen)
                        model.fit(data.X[train], data.y[train])
                        proba = model.predict_proba(data.X[test])
                        label_metrics(data.y[test], proba, spec.metrics.names,
                                      spec.metrics.ece_bins)
                        if data.p_true is not None:
                            truth_metrics(data.p_true[test], proba)
                        cells += 1
    return time.perf_counter() - start, cells


class _WorkerCPU:
    """CPU seconds of this process's child processes, sampled while a run lasts."""

    def __init__(self, interval: float = 0.2) -> None:
        import threading

        self._seen: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, args=(interval,), daemon=True)

    def _poll(self, interval: float) -> None:
        import psutil

        me = psutil.Process()
        while not self._stop.is_set():
            for child in me.children(recursive=True):
                try:
                    t = child.cpu_times()
                except psutil.Error:
                    continue
                self._seen[child.pid] = max(self._seen.get(child.pid, 0.0), t.user + t.system)
            self._stop.wait(interval)

    def __enter__(self) -> _WorkerCPU:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def per_worker(self) -> list[float]:
        """CPU seconds of each child seen, largest first (pool workers only)."""
        return sorted(self._seen.values(), reverse=True)


def runner(spec, n_jobs: int) -> dict:
    """The study runner; seconds, CPU seconds (this process and each worker), the cube.

    With one worker the tasks run in this process, so the time inside them is
    measured by wrapping :func:`bayescal.study.cells.run_task`; the rest is the
    runner's own bookkeeping (preparation, per-cell files, consolidation, zarr).
    """
    import resource

    from bayescal.study import executors as runner_module
    from bayescal.study import run

    inside = [0.0]
    original = runner_module.run_task

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            inside[0] += time.perf_counter() - start

    root = Path(tempfile.mkdtemp(prefix="bench-runner-"))
    runner_module.run_task = timed
    try:
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        with _WorkerCPU() as workers:
            start = time.perf_counter()
            tree = run(spec, root / "store", n_jobs=n_jobs, progress=False)
            seconds = time.perf_counter() - start
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        runner_module.run_task = original
        shutil.rmtree(root, ignore_errors=True)
    main_cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    return {"seconds": seconds, "cells": int(tree.attrs["cells_done"]), "inside": inside[0],
            "main_cpu": main_cpu, "workers_cpu": workers.per_worker(), "tree": tree}


def scenario_seconds(tree) -> list[tuple[str, float, float, int]]:
    """(scenario, summed cell_seconds, summed cell_cpu_seconds, cells), largest first."""
    m = tree["metrics"]
    out = []
    for scen in m["scenario"].values.tolist():
        sel = m.sel(scenario=scen)
        done = sel["done"].values
        out.append((scen, float(np.nansum(sel["cell_seconds"].values[done])),
                    float(np.nansum(sel["cell_cpu_seconds"].values[done])), int(done.sum())))
    return sorted(out, key=lambda r: -r[1])


def main(argv: list[str] | None = None) -> int:
    import os

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="quick-start with 3 folds, 30-tree forests, 500 DGG samples")
    parser.add_argument("--spec", default=None, help="a study spec instead of the quick-start")
    parser.add_argument("--repeats", type=int, default=2,
                        help="rounds of the arms, interleaved; the minimum is kept")
    parser.add_argument("--no-direct", action="store_true", help="leave out the direct loop")
    args = parser.parse_args(argv)
    spec = _spec(args.quick, args.spec)
    if args.no_direct:  # warm the imports only, so that no arm pays them
        import pymc  # noqa: F401

        import bayescal.calibration
        import bayescal.probes  # noqa: F401
    else:
        direct_loop(_spec(True))  # warm imports and first compilations
    times: dict[str, list[float]] = {"direct": [], "one": [], "two": []}
    cpu_one: list[float] = []
    cpu_two: list[tuple[float, list[float]]] = []
    outside: list[float] = []
    n_cells, tree = 0, None
    for _ in range(args.repeats):
        if not args.no_direct:
            t, n_direct = direct_loop(spec)
            times["direct"].append(t)
        one = runner(spec, 1)
        print(f"round: 1 worker {one['seconds']:.1f} s, CPU {one['main_cpu']:.1f} s", flush=True)
        times["one"].append(one["seconds"])
        cpu_one.append(one["main_cpu"])
        outside.append(one["seconds"] - one["inside"])
        two = runner(spec, 2)
        print(f"round: 2 workers {two['seconds']:.1f} s, CPU {two['main_cpu']:.1f} s here + "
              f"{' + '.join(f'{w:.1f}' for w in two['workers_cpu'])} s in workers; "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
        times["two"].append(two["seconds"])
        cpu_two.append((two["main_cpu"], two["workers_cpu"]))
        n_cells, tree = one["cells"], one["tree"]
        assert n_cells == two["cells"], (n_cells, two["cells"])
    t_one, t_two = min(times["one"]), min(times["two"])
    load = os.getloadavg()
    print(f"study {spec.name!r}: {n_cells} cells, best of {args.repeats} interleaved rounds; "
          f"machine load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} "
          f"on {os.cpu_count()} cores (1 / 5 / 15 min)")
    print(f"{'arm':<22}{'seconds':>10}{'cells/s':>10}")
    rows = [("runner, 1 worker", t_one), ("runner, 2 workers", t_two)]
    if times["direct"]:
        rows.insert(0, ("direct loop", min(times["direct"])))
    for name, t in rows:
        print(f"{name:<22}{t:>10.2f}{n_cells / t:>10.2f}")
    print(f"wall-clock speed-up 2 vs 1 worker:   {t_one / t_two:.2f}x (best of each; all rounds: "
          f"1 worker {', '.join(f'{t:.1f}' for t in times['one'])} s, 2 workers "
          f"{', '.join(f'{t:.1f}' for t in times['two'])} s)")
    best1 = min(cpu_one)
    main2, workers2 = min(cpu_two, key=lambda c: max(c[0], c[1][0] if c[1] else 0.0))
    print(f"CPU seconds, 1 worker:               {best1:.2f} (this process)")
    print(f"CPU seconds, 2 workers:              this process {main2:.2f}, workers "
          f"{' + '.join(f'{w:.2f}' for w in workers2)} = {main2 + sum(workers2):.2f} in all")
    if workers2:
        print(f"CPU speed-up 2 vs 1 worker:          {best1 / max(main2, workers2[0]):.2f}x "
              "(1-worker CPU / max(this process, busiest worker process))")
        print(f"CPU overhead of 2 workers:           {(main2 + sum(workers2)) / best1 - 1:+.1%}")
    if times["direct"]:
        t_direct = min(times["direct"])
        print(f"runner (1 worker) / direct loop:     {t_one / t_direct:.3f} "
              f"(overhead {100 * (t_one / t_direct - 1):+.1f} %, fit sharing included)")
    best = int(np.argmin(times["one"]))
    print(f"runner bookkeeping (1 worker):       {outside[best]:.2f} s = "
          f"{100 * outside[best] / times['one'][best]:.1f} % of its run (preparation, "
          f"per-cell files, consolidation, zarr cube)")
    print("per-scenario seconds (last 1-worker run; cell_seconds / cell_cpu_seconds summed):")
    for scen, wall, cpu, cells in scenario_seconds(tree):
        print(f"  {scen:<16}{wall:>10.1f} s{cpu:>10.1f} cpu-s  ({cells} cells)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

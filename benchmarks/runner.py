"""Benchmark of the study runner: cells per second on 1 vs 2 local workers, and the
runner's overhead over calling the estimators directly.

Run: ``python benchmarks/runner.py`` (the bundled quick-start study) or
``python benchmarks/runner.py --quick`` (3 folds, 30-tree forests, 500 DGG samples).

What is compared, on the same spec in the same run:

* **direct** -- a plain loop that, for every cell, builds the classifier (or
  its calibration wrapper) from the spec, fits it on the fold, predicts the
  test fold and computes the spec's metrics with :mod:`bayescal.metrics`;
  no store, no fit sharing, one BLAS thread (as in the runner);
* **runner, 1 worker** -- :func:`bayescal.study.run` with ``n_jobs=1``
  (dataset preparation, per-cell atomic files, consolidation, zarr cube);
* **runner, 2 workers** -- ``n_jobs=2`` (loky processes, start-up included).

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


def _spec(quick: bool):
    from bayescal.study import parse_spec
    from bayescal.study.commands import QUICKSTART

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
    from bayescal.study.data import prepare_dataset
    from bayescal.study.protocol import make_splits
    from bayescal.study.scoring import label_metrics, truth_metrics
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


def runner(spec, n_jobs: int) -> tuple[float, int, float]:
    """The study runner; returns (seconds, cells, seconds inside the tasks).

    With one worker the tasks run in this process, so the time inside them is
    measured by wrapping :func:`bayescal.study.cells.run_task`; the rest is the
    runner's own bookkeeping (preparation, per-cell files, consolidation, zarr).
    """
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
        start = time.perf_counter()
        tree = run(spec, root / "store", n_jobs=n_jobs, progress=False)
        seconds = time.perf_counter() - start
    finally:
        runner_module.run_task = original
        shutil.rmtree(root, ignore_errors=True)
    return seconds, int(tree.attrs["cells_done"]), inside[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 folds, 30-tree forests, 500 DGG samples")
    parser.add_argument("--repeats", type=int, default=2,
                        help="rounds of the three arms, interleaved; the minimum is kept")
    args = parser.parse_args(argv)
    spec = _spec(args.quick)
    direct_loop(_spec(True))  # warm imports so that no arm pays them
    times: dict[str, list[float]] = {"direct": [], "one": [], "two": []}
    outside: list[float] = []
    n_cells = 0
    for _ in range(args.repeats):
        t, n_direct = direct_loop(spec)
        times["direct"].append(t)
        t, n_cells, inside = runner(spec, 1)
        times["one"].append(t)
        outside.append(t - inside)
        t, n_two, _ = runner(spec, 2)
        times["two"].append(t)
        assert n_direct == n_cells == n_two, (n_direct, n_cells, n_two)
    t_direct, t_one, t_two = (min(times[k]) for k in ("direct", "one", "two"))
    print(f"study {spec.name!r}: {n_cells} cells ({'quick' if args.quick else 'full'}), "
          f"best of {args.repeats} interleaved rounds")
    print(f"{'arm':<22}{'seconds':>10}{'cells/s':>10}")
    for name, t in (("direct loop", t_direct), ("runner, 1 worker", t_one),
                    ("runner, 2 workers", t_two)):
        print(f"{name:<22}{t:>10.2f}{n_cells / t:>10.2f}")
    print(f"speed-up 2 vs 1 worker:              {t_one / t_two:.2f}x")
    print(f"runner (1 worker) / direct loop:     {t_one / t_direct:.3f} "
          f"(overhead {100 * (t_one / t_direct - 1):+.1f} %, fit sharing included)")
    best = int(np.argmin(times["one"]))
    print(f"runner bookkeeping (1 worker):       {outside[best]:.2f} s = "
          f"{100 * outside[best] / times['one'][best]:.1f} % of its run (preparation, "
          f"per-cell files, consolidation, zarr cube)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

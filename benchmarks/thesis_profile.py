"""Per-scenario CPU profile of a study's folds, and the full study extrapolated.

Run: ``python benchmarks/thesis_profile.py`` (fold 0 of every data set of
``models/thesis_binary.toml``), ``--datasets synthetic letter_oq``,
``--classifiers rf nn``, ``--folds 0 1 2`` or ``--folds all`` (every fold of the
chosen sets, to check the extrapolation), ``--spec PATH`` for another spec.

Each task (a classifier on one fold, every scenario) runs in this process as
the runner's sequential executor runs it (:func:`bayescal.study.cells.run_task`,
one BLAS thread, fit sharing within the task); the CPU seconds are the cube's
``cell_cpu_seconds`` (``time.process_time`` around each cell, a shared fit
counted once, in the first scenario that makes it). CPU seconds, not wall, are
the figure to compare on a machine shared with other work. The extrapolated
total is, for each (data set, classifier) pair, ``folds x`` its CPU on one
measured fold, or with several measured folds the first fold (which pays the
process's one-off costs: PyTensor/numba compilation, first imports) plus the
other ``folds - 1`` priced by the later measured folds' mean, summed. Prints one line per task and the per-scenario, per-classifier and
per-data-set sums.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

SPEC = Path(__file__).resolve().parent.parent / "models" / "thesis_binary.toml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default=str(SPEC))
    parser.add_argument("--data-dir", default=None, help="default: $BAYESCAL_DATA")
    parser.add_argument("--datasets", nargs="*", default=None)
    parser.add_argument("--classifiers", nargs="*", default=None)
    parser.add_argument("--folds", nargs="*", default=["0"], help="fold numbers or 'all'")
    parser.add_argument("--json", default=None, help="write the per-cell CPU seconds here")
    args = parser.parse_args()

    import os
    import warnings

    # scikit-learn 1.9 deprecates SVC(probability=True) once per fit: not a figure
    warnings.simplefilter("ignore", FutureWarning)
    from bayescal.study import load_spec
    from bayescal.study.cells import Task, run_task
    from bayescal.study.data import prepare_dataset
    from bayescal.study.protocol import make_splits
    from bayescal.study.seeds import DATASET, derive_seed
    from bayescal.threads import limit_blas_threads

    data_dir = args.data_dir or os.environ.get("BAYESCAL_DATA")
    spec = load_spec(args.spec, data_dir=data_dir) if data_dir else load_spec(args.spec)
    dnames = [d.name for d in spec.datasets]
    cnames = [c.name for c in spec.classifiers]
    snames = [s.name for s in spec.scenarios]
    n_folds = spec.protocol.folds * spec.protocol.repeats
    want_d = args.datasets or dnames
    want_c = args.classifiers or cnames
    for name in [*want_d, *want_c]:
        if name not in dnames + cnames:
            parser.error(f"unknown data set or classifier {name!r}; the spec has "
                         f"{dnames} and {cnames}")
    all_folds = args.folds == ["all"]
    folds = None if all_folds else {int(f) for f in args.folds}

    per_cell: list[dict] = []
    by_pair: dict[tuple[str, str], list[float]] = defaultdict(list)
    start = time.perf_counter()
    with limit_blas_threads(1):
        for d, dspec in enumerate(spec.datasets):
            if dspec.name not in want_d:
                continue
            data = prepare_dataset(dspec, data_dir=spec.data_dir, allowed=spec.allow_modules,
                                   random_state=derive_seed(spec.seed, DATASET, d))
            splits = make_splits(spec.protocol, data.y, seed=spec.seed, dataset_index=d)
            for r, f, train, test in splits:
                if not all_folds and f not in folds:
                    continue
                for c, cspec in enumerate(spec.classifiers):
                    if cspec.name not in want_c:
                        continue
                    todo = tuple(s for s, sc in enumerate(spec.scenarios)
                                 if sc.applies_to(cspec.name))
                    cells = run_task(spec, Task(d, c, r, f, todo), data, train, test)
                    line = []
                    for s, cell in zip(todo, cells, strict=True):
                        cpu = float(cell.values["cell_cpu_seconds"])
                        per_cell.append({"dataset": dspec.name, "classifier": cspec.name,
                                         "scenario": snames[s], "repeat": r, "fold": f,
                                         "n_train": int(len(train)), "cpu": cpu,
                                         "wall": float(cell.values["cell_seconds"]),
                                         "error": cell.error})
                        line.append(f"{snames[s]} {cpu:.1f}")
                    total = sum(float(c.values["cell_cpu_seconds"]) for c in cells)
                    by_pair[(dspec.name, cspec.name)].append(total)
                    print(f"{dspec.name:>16} n_train={len(train):5d} fold {f} "
                          f"{cspec.name:>4}: {total:7.1f} CPU s  ({', '.join(line)})",
                          flush=True)
    wall = time.perf_counter() - start

    def table(key: str) -> None:
        sums: dict[str, float] = defaultdict(float)
        for row in per_cell:
            sums[row[key]] += row["cpu"]
        print(f"\nCPU seconds by {key} (measured folds):")
        for name, v in sorted(sums.items(), key=lambda kv: -kv[1]):
            print(f"  {name:>16} {v:8.1f}")

    for key in ("scenario", "classifier", "dataset"):
        table(key)
    measured = sum(row["cpu"] for row in per_cell)
    # one measured fold: n_folds times it; more: the first (it pays the process's
    # one-off compilations and loads) plus the rest priced by the later folds' mean
    extrapolated = sum(v[0] + (n_folds - 1) * (sum(v[1:]) / (len(v) - 1) if len(v) > 1 else v[0])
                       for v in by_pair.values())
    print(f"\nmeasured {measured:.1f} CPU s ({wall:.1f} s wall, loaded machine); "
          f"extrapolated to {n_folds} folds of the chosen sets and classifiers: "
          f"{extrapolated:.0f} CPU s ({extrapolated / 2 / 60:.1f} min on two idle cores)")
    errors = [row for row in per_cell if row["error"]]
    for row in errors:
        print(f"FAILED {row['dataset']} {row['classifier']} {row['scenario']}: {row['error']}")
    if args.json:
        Path(args.json).write_text(json.dumps(per_cell, indent=1))


if __name__ == "__main__":
    main()

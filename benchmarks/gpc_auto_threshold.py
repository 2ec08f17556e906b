"""Exact against sparse (FITC) EP on the thesis data sets: held-out error and CPU time.

Run: ``python benchmarks/gpc_auto_threshold.py`` (the thesis' real binary sets
with 1,000-2,000 training rows, folds 0-2 of the study's 10-fold split),
``--datasets letter_oq titanic``, ``--folds 0 1 2 3``.

This measures what ``inference="auto"``'s row threshold
(:data:`bayescal.probes.gp_classifier.AUTO_EXACT_MAX_ROWS`) trades: for each
(data set, fold) of ``models/thesis_binary.toml`` the GPC probe as the study
builds it (its ``random_state`` derived by the runner) is fitted with
``inference="ep"`` and with ``inference="sparse"`` on the same training fold,
and scored on the same test fold. Printed per fit: CPU seconds
(``time.process_time``, one BLAS thread, the machine shared with other work),
held-out log loss, Brier score and accuracy; then per data set the mean
paired difference sparse - exact with its standard error over the folds, next
to the fold-to-fold standard deviation of the exact fit's own score (the noise
the study's comparisons live with), and the CPU ratio sparse / exact.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

SPEC = Path(__file__).resolve().parent.parent / "models" / "thesis_binary.toml"
SETS = ("contraceptive", "letter_oq", "titanic")


def _scores(y: np.ndarray, p1: np.ndarray) -> dict[str, float]:
    p = np.clip(p1, 1e-15, 1 - 1e-15)
    return {"log_loss": float(-np.mean(y * np.log(p) + (1 - y) * np.log1p(-p))),
            "brier": float(np.mean((p1 - y) ** 2)),
            "accuracy": float(np.mean((p1 > 0.5) == y))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default=str(SPEC))
    parser.add_argument("--datasets", nargs="*", default=list(SETS))
    parser.add_argument("--folds", nargs="*", type=int, default=[0, 1, 2])
    parser.add_argument("--classifier", default="gpc")
    args = parser.parse_args()

    from bayescal.study import load_spec
    from bayescal.study.cells import Task, build_model
    from bayescal.study.data import prepare_dataset
    from bayescal.study.protocol import make_splits
    from bayescal.study.seeds import DATASET, derive_seed

    data_dir = os.environ.get("BAYESCAL_DATA")
    spec = load_spec(args.spec, data_dir=data_dir) if data_dir else load_spec(args.spec)
    names = [d.name for d in spec.datasets]
    c = [cl.name for cl in spec.classifiers].index(args.classifier)
    raw = next(s for s, sc in enumerate(spec.scenarios) if sc.kind == "raw")
    rows: dict[str, list[dict[str, dict[str, float]]]] = {}
    for name in args.datasets:
        d = names.index(name)
        data = prepare_dataset(spec.datasets[d], data_dir=spec.data_dir,
                               allowed=spec.allow_modules,
                               random_state=derive_seed(spec.seed, DATASET, d))
        splits = make_splits(spec.protocol, data.y, seed=spec.seed, dataset_index=d)
        for r, f, train, test in splits:
            if f not in args.folds:
                continue
            pair = {}
            for inference in ("ep", "sparse"):
                model = build_model(spec, Task(d, c, r, f, (raw,)), raw, None)
                model.set_params(estimator__inference=inference)
                start = time.process_time()
                model.fit(data.X[train], data.y[train])
                cpu = time.process_time() - start
                p1 = model.predict_proba(data.X[test])[:, 1]
                pair[inference] = {"cpu": cpu, **_scores(data.y[test], p1)}
                print(f"{name:>14} n_train={len(train):5d} fold {f} {inference:>6}: "
                      f"{cpu:7.1f} CPU s  log loss {pair[inference]['log_loss']:.4f}  "
                      f"Brier {pair[inference]['brier']:.4f}  "
                      f"accuracy {pair[inference]['accuracy']:.4f}", flush=True)
            rows.setdefault(name, []).append(pair)

    print("\nsparse - exact, mean over folds (SE); exact's fold-to-fold SD; CPU ratio")
    for name, pairs in rows.items():
        parts = []
        for metric in ("log_loss", "brier", "accuracy"):
            diff = np.array([p["sparse"][metric] - p["ep"][metric] for p in pairs])
            exact = np.array([p["ep"][metric] for p in pairs])
            se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else np.nan
            sd = exact.std(ddof=1) if exact.size > 1 else np.nan
            parts.append(f"{metric} {diff.mean():+.4f} ({se:.4f}; SD {sd:.4f})")
        ratio = (sum(p["sparse"]["cpu"] for p in pairs)
                 / sum(p["ep"]["cpu"] for p in pairs))
        print(f"  {name:>14} ({len(pairs)} folds): {'; '.join(parts)}; CPU {ratio:.2f}x")


if __name__ == "__main__":
    main()

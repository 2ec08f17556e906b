"""Convergence of every hierarchical comparison ``bayescal compare STORE --test hierarchical`` runs.

Issue 26 asks that the hierarchical comparison converge by default (R-hat <= 1.01, no
divergence) on the quick-start cube and on the thesis cube. ``bayescal compare`` prints each
comparison's R-hat but not its divergences or ESS; this script makes the same comparisons (every
classifier, its applicable scenarios against ``raw``, the Brier score, ROPE 0.01, seed 0, the
defaults of :class:`~bayescal.stats.hierarchical.HierarchicalComparison`) through
:func:`bayescal.stats.methods.compare_methods` and prints, per comparison, the largest R-hat,
the smallest bulk ESS, the divergences and the sampling seconds, then the worst of each, the
warnings and the wall and CPU time of the process (imports and nutpie's compilation included).

Make the cubes with ``bayescal run`` (``--store DIR``): the quick-start (no spec),
``benchmarks/thesis_small.toml`` (2 datasets x 3 folds) or ``models/thesis_binary.toml``
(7 datasets x 10 folds; needs ``BAYESCAL_DATA``), then run
``python benchmarks/hierarchical_cube.py DIR [--draws N --tune N --target-accept X --seeds K]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def applicable(metrics, classifier) -> list:
    """The scenarios that ran for ``classifier`` (as ``bayescal compare`` picks them)."""
    scenarios = metrics["scenario"].values.tolist()
    if "applicable" not in metrics:
        return scenarios
    flags = metrics["applicable"].sel(classifier=classifier).values.tolist()
    return [s for s, ok in zip(scenarios, flags, strict=True) if ok]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--draws", type=int)
    parser.add_argument("--tune", type=int)
    parser.add_argument("--target-accept", type=float)
    parser.add_argument("--seeds", type=int, default=1, help="seeds 0..K-1 of every comparison")
    args = parser.parse_args()
    wall, cpu = time.perf_counter(), time.process_time()
    import bayescal.stats.hierarchical as hierarchical
    from bayescal.cube import open_results
    from bayescal.stats.methods import compare_methods

    records = []
    fit = hierarchical.HierarchicalComparison.fit

    def recording_fit(self, *a, **k):
        out = fit(self, *a, **k)
        d = self.diagnostics_
        records.append((d["rhat_max"], d["ess_bulk_min"], d["divergences"], d["seconds"],
                        self.n_datasets_, self.n_folds_))
        return out

    hierarchical.HierarchicalComparison.fit = recording_fit
    options = {k: v for k, v in (("draws", args.draws), ("tune", args.tune),
                                 ("target_accept", args.target_accept)) if v is not None}
    tree = open_results(args.store)
    metrics = tree["metrics"].to_dataset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for seed in range(args.seeds):
            for clf in metrics["classifier"].values.tolist():
                methods = applicable(metrics, clf)
                if len(methods) < 2:
                    continue
                compare_methods(tree, "brier", methods=methods, test="hierarchical",
                                control="raw", select={"classifier": clf}, random_state=seed,
                                hierarchical_options=options or None)
    print(f"{'R-hat':>7} {'bulk ESS':>8} {'div':>4} {'sample s':>8}  datasets x folds")
    for rhat, ess, div, seconds, q, n in records:
        print(f"{rhat:7.4f} {ess:8.0f} {div:4d} {seconds:8.2f}  {q} x {n}")
    print(f"{len(records)} comparisons: max R-hat {max(r[0] for r in records):.4f}, "
          f"min bulk ESS {min(r[1] for r in records):.0f}, "
          f"divergences {sum(r[2] for r in records)}")
    failed = [str(w.message) for w in caught if "diagnostics" in str(w.message)]
    print(f"diagnostic warnings: {len(failed)}", *failed[:5], sep="\n  ")
    print(f"wall {time.perf_counter() - wall:.1f} s, CPU {time.process_time() - cpu:.1f} s, "
          f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()

"""Boundary uncertainty per candidate against one 10-fold CV of the same candidate.

Seed 003 claims Proposal 2 costs about one training run per candidate (the
neighbour clusters, perturbed set and prototypes are computed once and
shared). This script measures, on ``make_gmm("overlap", n)`` with an RBF SVC:

* ``shared``: the one-off fit of :class:`BoundaryUncertaintyEstimator`;
* ``bu``: per candidate, one training run plus the boundary-uncertainty score;
* ``cv10``: per candidate, one 10-fold cross-validation;

and prints their ratio. Run ``python benchmarks/boundary_uncertainty.py``
(``--quick`` for n = 1000 and 2000 only).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.svm import SVC

from bayescal.datasets import make_gmm
from bayescal.selection import BoundaryUncertaintyEstimator
from bayescal.threads import limit_blas_threads


def measure(n: int, gammas: list[float]) -> dict[str, float]:
    X, y, _ = make_gmm("overlap", n, random_state=0)
    start = time.perf_counter()
    scorer = BoundaryUncertaintyEstimator(random_state=0).fit(X, y)
    shared = time.perf_counter() - start
    bu_times, cv_times = [], []
    for gamma in gammas:
        start = time.perf_counter()
        scorer.score(SVC(gamma=gamma).fit(X, y))
        bu_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        folds = StratifiedKFold(10, shuffle=True, random_state=0)
        cross_val_score(SVC(gamma=gamma), X, y, cv=folds)
        cv_times.append(time.perf_counter() - start)
    return {"shared": shared, "bu": float(np.mean(bu_times)), "cv10": float(np.mean(cv_times))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1000, 2000 only")
    args = parser.parse_args()
    sizes = [1000, 2000] if args.quick else [1000, 2000, 5000, 10000, 20000]
    gammas = [2.0**-3, 1.0, 2.0**3]
    print(f"{'n':>7} {'shared s':>9} {'BU/cand s':>10} {'CV10/cand s':>12} {'CV10 / BU':>10}")
    with limit_blas_threads(1):
        for n in sizes:
            r = measure(n, gammas)
            print(f"{n:>7} {r['shared']:>9.3f} {r['bu']:>10.3f} {r['cv10']:>12.3f} {r['cv10'] / r['bu']:>10.1f}")


if __name__ == "__main__":
    main()

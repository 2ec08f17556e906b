"""Speed of pairwise coupling and of the multi-class reductions.

Measures, in one run:

1. ``couple_wu2004`` and ``couple_hastie1998`` vectorised over n samples
   against the same functions called once per sample (the per-sample loop is
   how LIBSVM and most Python code couple), printed as a speed-up ratio;
2. ``OneVsRestCalibrator`` and ``AllPairsCalibrator`` (Platt) fit + predict
   against scikit-learn's ``CalibratedClassifierCV(method="sigmoid",
   ensemble=False)`` given the same prefitted probabilities (one-vs-rest
   sigmoid calibration with normalisation, the same reduction).

Run ``python benchmarks/pairwise_coupling.py`` (``--quick`` for a small run).
"""

from __future__ import annotations

import argparse
import time
from functools import partial

import numpy as np

from bayescal.calibration import AllPairsCalibrator, OneVsRestCalibrator, PlattCalibrator
from bayescal.calibration.coupling import couple_hastie1998, couple_wu2004
from bayescal.threads import limit_blas_threads


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def per_sample(fn, R):
    return [fn(R[i]) for i in range(R.shape[0])]


def fit_predict(reduction, P, y):
    return reduction.fit(P, y).predict_proba(P)


def random_pairwise(n, k, rng):
    U = rng.uniform(0.05, 0.95, size=(n, k, k))
    return np.triu(U, 1) + np.swapaxes(np.triu(1 - U, 1), 1, 2)


def coupling_table(sizes, ks, loop_cap, repeats, rng):
    print(f"pairwise coupling: vectorised vs per-sample loop (seconds, best of {repeats})")
    print(f"{'method':<11}{'K':>4}{'n':>9}{'vectorised':>12}{'loop':>10}{'speed-up':>10}")
    for k in ks:
        for n in sizes:
            R = random_pairwise(n, k, rng)
            m = min(n, loop_cap)  # the loop is timed on m samples and scaled to n
            for name, fn in (("wu2004", couple_wu2004), ("hastie1998", couple_hastie1998)):
                vec = best_of(partial(fn, R), repeats)
                loop = best_of(partial(per_sample, fn, R[:m]), 1) * n / m
                print(f"{name:<11}{k:>4}{n:>9}{vec:>12.4f}{loop:>10.3f}{loop / vec:>9.1f}x")


def reduction_table(sizes, k, repeats, rng):
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.dummy import DummyClassifier
    from sklearn.frozen import FrozenEstimator

    class Prefitted(DummyClassifier):
        """Returns the given probability matrix as predict_proba (the peer's input)."""

        def fit(self, X, y):
            self.classes_ = np.unique(y)
            return self

        def predict_proba(self, X):
            return np.asarray(X)

    print(f"\nreductions, K = {k}, Platt: fit + predict (seconds, best of {repeats})")
    print(f"{'n':>9}{'sklearn sigmoid OvR':>21}{'OneVsRest':>11}{'ratio':>7}"
          f"{'AllPairs wu':>13}{'AllPairs ht':>13}")
    for n in sizes:
        P = rng.dirichlet(np.ones(k), size=n)
        y = np.array([rng.choice(k, p=p) for p in P])

        def peer(P=P, y=y):
            base = FrozenEstimator(Prefitted().fit(P, y))
            CalibratedClassifierCV(base, method="sigmoid").fit(P, y).predict_proba(P)

        ovr_cal = OneVsRestCalibrator(PlattCalibrator(target_smoothing=False))
        ovr = best_of(partial(fit_predict, ovr_cal, P, y), repeats)
        wu = best_of(partial(fit_predict, AllPairsCalibrator(PlattCalibrator()), P, y), repeats)
        ht_cal = AllPairsCalibrator(PlattCalibrator(), coupling="hastie1998")
        ht = best_of(partial(fit_predict, ht_cal, P, y), repeats)
        sk = best_of(peer, repeats)
        print(f"{n:>9}{sk:>21.4f}{ovr:>11.4f}{ovr / sk:>6.2f}x{wu:>13.4f}{ht:>13.4f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes for a fast check")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with limit_blas_threads(1):
        if args.quick:
            coupling_table([1_000], [3, 5], 200, 2, rng)
            reduction_table([1_000], 4, 2, rng)
        else:
            coupling_table([1_000, 10_000, 100_000], [3, 5, 10], 300, 3, rng)
            reduction_table([1_000, 10_000, 100_000], 4, 3, rng)


if __name__ == "__main__":
    main()

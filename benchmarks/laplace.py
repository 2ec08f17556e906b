"""Laplace BLR against scikit-learn's LogisticRegression, and against the compiled path it replaced.

Issue 26 asks that a Laplace fit of Bayesian logistic regression cost what a
MAP costs: at most 5x scikit-learn's ``LogisticRegression`` CPU time at
n = 10^4 and 5 x 10^4, d = 20, one BLAS thread, same run. Measured here, CPU
seconds (``time.process_time``; median of ``--repeats`` fits after one
warm-up fit, so that imports and compilation are not counted for anyone):

* ``sklearn LR``: ``LogisticRegression()`` (L-BFGS, L2 penalty) -- a MAP with
  a Gaussian prior, no Hessian, no draws;
* ``newton mode+hessian``: :func:`bayescal.inference.laplace_glm.newton_mode` on
  the exact Cauchy-prior log posterior (the part of a Laplace fit that is a MAP);
* ``laplace fit``: ``BayesianLogisticRegression(inference="laplace")`` with
  2 x 1000 draws, as a user calls it: input scaling, Newton's mode and Hessian,
  the Gaussian draws, and their Pareto-smoothed importance-sampling check
  against the exact log density at every draw (the O(n d S) part);
* ``before (compiled)``: the path this replaced -- the PyMC program compiled
  once per structure, L-BFGS, a finite-difference Hessian and one compiled
  call per draw (:func:`bayescal.inference.sampling._sample_laplace_compiled`),
  same draws; its second fit, compilation excluded. Importance weights are
  computed by it too now (from the log density it already evaluated per draw).

Run ``python benchmarks/laplace.py`` (add ``--quick`` for n = 2000 only,
``--no-before`` to skip the slow compiled path).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression

from bayescal.inference import sampling
from bayescal.inference.laplace_glm import newton_mode
from bayescal.probes.logistic import BayesianLogisticRegression, blr_model, scale_inputs
from bayescal.threads import limit_blas_threads

HYPER = dict(prior_scale=2.5, intercept_scale=10.0, prior_df=1.0, n_outputs=1,
             likelihood="bernoulli")


def simulate(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    beta = rng.normal(0.0, 1.0 / np.sqrt(d), size=d)
    p = 1.0 / (1.0 + np.exp(-(X @ beta - 0.5)))
    return X, (rng.random(n) < p).astype(np.int64)


def cpu(fn, repeats: int) -> float:
    fn()  # warm-up: imports, caches, compilation
    times = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return float(np.median(times))


def bench_size(n: int, d: int, repeats: int, before: bool) -> tuple[dict[str, float], float]:
    """CPU seconds of each method at ``n`` rows, and the Laplace fit's Pareto k."""
    X, y = simulate(n, d, 0)
    center, scale = scale_inputs(X)
    data = {"X": (X - center) / scale, "y": y}
    glm = blr_model.glm_problem(data, **HYPER).glm
    blr = BayesianLogisticRegression(inference="laplace", draws=1000, chains=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        times = {
            "sklearn LR": cpu(lambda: LogisticRegression().fit(X, y), repeats),
            "newton mode+hessian": cpu(
                lambda: newton_mode(glm.value_grad_hess, glm.start()), repeats
            ),
            "laplace fit": cpu(lambda: blr.fit(X, y), repeats),
        }
        if before:
            times["before (compiled)"] = cpu(
                lambda: sampling._sample_laplace_compiled(
                    blr_model, data, HYPER, n_draws=2000, seed=0
                ),
                1,
            )
        khat = blr.fit(X, y).diagnostics_.pareto_k
    return times, khat


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-before", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sizes = [2000] if args.quick else [10_000, 50_000]
    print(f"load average at start: {os.getloadavg()}")
    rows = []
    with limit_blas_threads(1):
        for n in sizes:
            times, khat = bench_size(n, 20, args.repeats, not args.no_before)
            base = times["sklearn LR"]
            rows.extend((n, name, t, t / base) for name, t in times.items())
            print(f"n={n}: pareto k of the Laplace fit {khat:.3f}")
    print(f"{'n':>7} {'method':<22} {'CPU s':>9} {'x sklearn':>10}")
    for n, name, t, ratio in rows:
        print(f"{n:>7} {name:<22} {t:>9.4f} {ratio:>10.1f}")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()

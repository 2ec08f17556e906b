"""Laplace BLR against scikit-learn's LogisticRegression, with where the time goes.

Issue 26 asks that a Laplace fit of Bayesian logistic regression cost what a
MAP costs: at most 5x scikit-learn's ``LogisticRegression`` CPU time at
n = 10^4 and 5 x 10^4, d = 20, one BLAS thread, same run. Measured here, CPU
seconds of this process (``time.process_time``), the two estimators taking
turns, best of ``--repeats`` fits after one warm-up fit each (imports and caches
are not counted for anyone):

* ``sklearn LR``: ``LogisticRegression()`` (L-BFGS, L2 penalty, default C) --
  a MAP with a Gaussian prior, no Hessian, no draws;
* ``laplace fit``: ``BayesianLogisticRegression(inference="laplace")`` with
  2 x 1000 draws, as a user calls it, split within the same fit into

  - ``mode+hessian``: Newton's method on the exact Cauchy-prior log posterior,
    single-precision steps and a double-precision finish from 2000 rows
    (``bayescal.inference.laplace_glm._posterior_mode``);
  - ``check``: the Gaussian draws and their Pareto-smoothed importance-sampling
    check against the exact log density
    (:func:`bayescal.inference.importance.staged_check`: the first 400 draws at
    n = 10^4, 256 at 5 x 10^4, every draw below n = 2000 and whenever the first
    stage's k exceeds 0.4), with the weighted resample;
  - ``rest``: input validation and scaling, the GLM's sufficient statistics, the
    ArviZ/xarray posterior, the diagnostics record and the coefficient summaries.

The warm-up fit also loads the check's numba kernel from numba's disk cache
(``bayescal._kernels.softplus``, from 10^3 rows at 2000 draws); a fresh process
pays that once, about 0.3 CPU-s, not counted here (nor scikit-learn's imports).

``--before`` adds the compiled PyMC path the NumPy path replaced (second fit,
compilation excluded; slow). ``--simulate-check`` prints the simulation behind
``bayescal.inference.importance.STAGE_ONE_K_MAX``: how often a staged check and the
one-stage check on all 2000 draws accept importance ratios whose Pareto tail has
a known shape ``k`` (above 0.7: a failing approximation).

Run ``python benchmarks/laplace.py`` (``--quick`` for n = 2000 only, ``--sizes``
for others).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from contextlib import contextmanager

import numpy as np
from sklearn.linear_model import LogisticRegression

from bayescal.inference import importance, laplace_glm, sampling
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


@contextmanager
def stage_timers(spent: dict[str, float], checked: list[int]):
    """Time the Newton mode and the check inside a fit (CPU seconds, accumulated)."""
    originals = (laplace_glm._posterior_mode, laplace_glm.gaussian_draws_at_mode,
                 importance.staged_check)

    def timed(name, fn, record=None):
        def wrapper(*args, **kwargs):
            start = time.process_time()
            out = fn(*args, **kwargs)
            spent[name] = spent.get(name, 0.0) + time.process_time() - start
            if record is not None:
                record.append(out[1])
            return out
        return wrapper

    laplace_glm._posterior_mode = timed("mode+hessian", originals[0])
    laplace_glm.gaussian_draws_at_mode = timed("check", originals[1])
    importance.staged_check = timed("check", originals[2], checked)
    try:
        yield
    finally:
        (laplace_glm._posterior_mode, laplace_glm.gaussian_draws_at_mode,
         importance.staged_check) = originals


def bench_size(n: int, d: int, repeats: int, before: bool) -> dict:
    """Best CPU seconds of scikit-learn and of the Laplace fit (with its split) at ``n`` rows."""
    X, y = simulate(n, d, 0)
    blr = BayesianLogisticRegression(inference="laplace", draws=1000, chains=2, random_state=0)
    sk_times, fits = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        LogisticRegression().fit(X, y)
        blr.fit(X, y)
        for _ in range(repeats):  # taking turns, so that both see the same load
            start = time.process_time()
            LogisticRegression().fit(X, y)
            sk_times.append(time.process_time() - start)
            spent, checked = {}, []
            with stage_timers(spent, checked):
                start = time.process_time()
                blr.fit(X, y)
                total = time.process_time() - start
            spent["rest"] = total - sum(spent.values())
            fits.append((total, spent, checked[0]))
        best = min(fits, key=lambda f: f[0])
        result = {
            "sklearn LR": min(sk_times), "laplace fit": best[0], **best[1],
            "pareto_k": blr.diagnostics_.pareto_k, "checked": best[2],
        }
        if before:
            center, scale = scale_inputs(X)
            data = {"X": (X - center) / scale, "y": y}
            sampling._sample_laplace_compiled(blr_model, data, HYPER, n_draws=2000, seed=0)
            start = time.process_time()
            sampling._sample_laplace_compiled(blr_model, data, HYPER, n_draws=2000, seed=0)
            result["before (compiled)"] = time.process_time() - start
    return result


def simulate_check(replicates: int = 400, first: int = 256) -> None:
    """Acceptance rates of the staged and the one-stage check on known Pareto tails."""
    shapes = (0.2, 0.4, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2)
    limits = (importance.STAGE_ONE_K_MAX, importance.pareto_k_threshold(first))
    print(f"accepted fraction, {replicates} replicates of 2000 draws, first stage {first}")
    print(f"{'k':>5} {'all draws':>10} " + " ".join(f"{'staged ' + format(t, '.2f'):>12}"
                                                    for t in limits))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in shapes:
            full, staged = 0, np.zeros(len(limits))
            for r in range(replicates):
                rng = np.random.default_rng(r)
                log_ratio = np.log1p(rng.pareto(1.0 / k, size=2000))
                one = importance.pareto_smoothed_check(log_ratio, np.zeros(2000), rng).resampled
                k1 = importance.pareto_smoothed_check(
                    log_ratio[:first], np.zeros(first), rng, k_max=-np.inf).pareto_k
                full += one
                staged += [(k1 <= t) or one for t in limits]
            print(f"{k:>5.1f} {full / replicates:>10.3f} "
                  + " ".join(f"{s / replicates:>12.3f}" for s in staged))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--before", action="store_true")
    parser.add_argument("--simulate-check", action="store_true")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 50_000])
    args = parser.parse_args()
    if args.simulate_check:
        simulate_check()
        return
    sizes = [2000] if args.quick else args.sizes
    print(f"load average at start: {os.getloadavg()}")
    columns = ["sklearn LR", "laplace fit", "mode+hessian", "check", "rest"]
    rows = []
    with limit_blas_threads(1):
        for n in sizes:
            rows.append((n, bench_size(n, 20, args.repeats, args.before)))
    print(f"CPU seconds, best of {args.repeats}, d = 20, one BLAS thread; (x sklearn)")
    print(f"{'n':>7} " + " ".join(f"{c:>20}" for c in columns)
          + f" {'draws checked':>14} {'pareto k':>9}")
    for n, r in rows:
        base = r["sklearn LR"]
        cells = " ".join(f"{r[c]:>11.4f} ({r[c] / base:>5.2f}x)" for c in columns)
        print(f"{n:>7} {cells} {r['checked']:>14d} {r['pareto_k']:>9.3f}")
        if "before (compiled)" in r:
            print(f"{'':>7} before (compiled): {r['before (compiled)']:.4f} s "
                  f"({r['before (compiled)'] / base:.1f}x)")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()

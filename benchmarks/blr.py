"""BLR 10-fold: compile-once nutpie against calling ``pm.sample`` afresh per fold.

Issue 4 asks that a probe fitted on many folds of one model structure compile
once per process. This benchmark fits :class:`BayesianLogisticRegression` on the
training part of each of 10 folds and compares, in the same run and under the
same BLAS-thread limit (one thread):

* ``ours``: ``BayesianLogisticRegression(sampler="nutpie")`` -- nutpie compiles
  the model on the first fold and refits the others with ``with_data``;
* ``pm.sample default``: the same PyMC model built and passed to ``pm.sample``
  afresh per fold with PyMC's defaults (PyMC 6.4 picks nutpie by itself when
  PyTensor's default linker is Numba, and then compiles on every call);
* ``pm.sample pymc``: ``pm.sample(..., nuts_sampler="pymc")``, PyMC's own NUTS.

Reported per method: total wall time over the folds (compilation included),
the first fold's and the median later fold's time, the smallest bulk ESS over all parameters and folds, and the bulk ESS per
second (sum over folds of each fold's smallest bulk ESS, divided by the total
time), plus the speed-up of ``ours`` against each peer. Target: at least 3x
faster at equal or better ESS.

Run ``python benchmarks/blr.py`` for (n=1000, d=20) and (n=10000, d=50), or
``python benchmarks/blr.py --quick`` for a small version (n=300, d=5, 4 folds,
300 + 300 draws).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.model_selection import KFold

from bayescal.inference.posterior import PosteriorDiagnosticsWarning, summarize_diagnostics
from bayescal.probes.logistic import BayesianLogisticRegression, blr_model, scale_inputs
from bayescal.threads import limit_blas_threads


def simulate(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    beta = rng.normal(0.0, 1.0 / np.sqrt(d), size=d)
    p = 1.0 / (1.0 + np.exp(-(X @ beta - 0.5)))
    return X, (rng.random(n) < p).astype(np.int64)


def fit_ours(X, y, *, draws, tune, seed):
    blr = BayesianLogisticRegression(draws=draws, tune=tune, chains=2, random_state=seed)
    blr.fit(X, y)
    return blr.diagnostics_["ess_bulk_min"]


def fit_pm_sample(X, y, *, draws, tune, seed, nuts_sampler):
    import pymc as pm

    center, scale = scale_inputs(X)
    model = blr_model(
        {"X": (X - center) / scale, "y": y},
        prior_scale=2.5,
        intercept_scale=10.0,
        prior_df=1.0,
        n_outputs=1,
        likelihood="bernoulli",
    )
    kwargs = {} if nuts_sampler is None else {"nuts_sampler": nuts_sampler}
    with model:
        idata = pm.sample(
            draws=draws,
            tune=tune,
            chains=2,
            cores=2,
            random_seed=seed,
            progressbar=False,
            compute_convergence_checks=False,
            **kwargs,
        )
    diag = summarize_diagnostics(
        idata, sampler="pm.sample", seconds=0.0, var_names=["intercept", "beta"]
    )
    return diag["ess_bulk_min"]


METHODS = {
    "ours (nutpie, compile once)": fit_ours,
    "pm.sample default": lambda X, y, **kw: fit_pm_sample(X, y, nuts_sampler=None, **kw),
    "pm.sample pymc": lambda X, y, **kw: fit_pm_sample(X, y, nuts_sampler="pymc", **kw),
}


def run_case(n: int, d: int, folds: int, draws: int, tune: int) -> dict[str, dict[str, float]]:
    X, y = simulate(n, d, seed=n + d)
    splits = list(KFold(folds, shuffle=True, random_state=0).split(X))
    results = {}
    for name, fit in METHODS.items():
        ess, fold_seconds, start = [], [], time.perf_counter()
        with limit_blas_threads(1), warnings.catch_warnings():
            warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
            for k, (train, _) in enumerate(splits):
                t0 = time.perf_counter()
                ess.append(fit(X[train], y[train], draws=draws, tune=tune, seed=k))
                fold_seconds.append(time.perf_counter() - t0)
        seconds = time.perf_counter() - start
        results[name] = {
            "seconds": seconds,
            "first_fold": fold_seconds[0],
            "later_folds_median": float(np.median(fold_seconds[1:])),
            "ess_bulk_min": float(np.min(ess)),
            "ess_per_second": float(np.sum(ess) / seconds),
        }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small run (n=300, d=5, 4 folds)")
    parser.add_argument("--only-small", action="store_true", help="skip (n=10000, d=50)")
    parser.add_argument("--only-large", action="store_true", help="skip (n=1000, d=20)")
    parser.add_argument("--folds", type=int, default=10, help="number of folds (default 10)")
    args = parser.parse_args()
    if args.quick:
        cases, folds, draws, tune = [(300, 5)], 4, 300, 300
    else:
        cases, folds, draws, tune = [(1000, 20), (10000, 50)], args.folds, 1000, 1000
        if args.only_small:
            cases = cases[:1]
        if args.only_large:
            cases = cases[1:]
    for n, d in cases:
        results = run_case(n, d, folds, draws, tune)
        print(f"\nBLR {folds}-fold, n={n}, d={d}, 2 chains x ({tune} tune + {draws} draws)")
        print(
            f"{'method':30s} {'total s':>8s} {'fold 1 s':>9s} {'later s':>8s} "
            f"{'min bulk ESS':>13s} {'ESS/s':>7s}"
        )
        for name, r in results.items():
            print(
                f"{name:30s} {r['seconds']:8.1f} {r['first_fold']:9.1f} "
                f"{r['later_folds_median']:8.2f} {r['ess_bulk_min']:13.0f} "
                f"{r['ess_per_second']:7.1f}"
            )
        ours = results["ours (nutpie, compile once)"]
        for name, r in results.items():
            if r is not ours:
                print(
                    f"ours vs {name}: {r['seconds'] / ours['seconds']:.2f}x faster, "
                    f"ESS/s ratio {ours['ess_per_second'] / r['ess_per_second']:.2f}"
                )


if __name__ == "__main__":
    main()

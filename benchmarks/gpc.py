"""Fit time and accuracy of GPC-EP (exact and sparse) against scikit-learn's Laplace GPC.

Run ``python benchmarks/gpc.py`` or ``--quick``. Data: the thesis' synthetic
set (``bayescal.datasets.make_thesis_synthetic``, six derived features, known
``P(y = 1 | x)``) and the seed-003 overlapping Gaussian mixture
(``make_gmm("overlap")``, two inputs); RMSE of each model's probabilities to
``p_true`` on 2000 fresh points. Every fit runs under one BLAS thread.

Rows (issue 15 targets):

* ``exact`` -- ``BayesianGPClassifier(inference="ep")`` against
  ``GaussianProcessClassifier(ConstantKernel() * RBF(ones(D)))`` (Laplace,
  type-II ML by L-BFGS, no restarts) at the same n in the same run: the time
  ratio ``EP / Laplace`` (target at n = 2000: at most 0.5) and both RMSEs
  (target: EP's no worse);
* ``sparse`` -- ``inference="sparse"`` (FITC EP, ``n_inducing`` inducing
  inputs) up to n = 10,000 (target: under 60 s on 2 cores with RMSE no worse
  than exact EP's at n = 2000, printed beside it);
* the CPU time of the best sparse fit, the best CPU times of the exact EP and
  Laplace fits (and their ratio; EP and Laplace take turns repeat by repeat)
  and the load average (the wall time on a loaded machine is mostly waiting);
* the scaling exponent ``d log(time) / d log(n)`` of each mode between the
  smallest and largest n (a decade apart in the default sizes).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bayescal.datasets import make_gmm, make_thesis_synthetic  # noqa: E402
from bayescal.probes.gp_classifier import BayesianGPClassifier  # noqa: E402
from bayescal.threads import limit_blas_threads  # noqa: E402


def _data(name: str, n: int, seed: int):
    if name == "thesis":
        return make_thesis_synthetic(n // 2, random_state=seed)
    return make_gmm("overlap", n, random_state=seed)


def _rmse(p: np.ndarray, p_true: np.ndarray) -> float:
    return float(np.sqrt(np.mean((p - p_true) ** 2)))


def _fit_ep(X, y, inference: str, n_inducing: int) -> tuple[float, BayesianGPClassifier, float]:
    start, cpu = time.perf_counter(), time.process_time()
    clf = BayesianGPClassifier(inference=inference, n_inducing=n_inducing, random_state=0,
                               draws=50, chains=1).fit(X, y)
    return time.perf_counter() - start, clf, time.process_time() - cpu


def _fit_laplace(X, y):
    from sklearn.gaussian_process import GaussianProcessClassifier
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel

    mean, sd = X.mean(axis=0), X.std(axis=0)
    lap = GaussianProcessClassifier(ConstantKernel() * RBF(np.ones(X.shape[1])), random_state=0)
    start, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lap.fit((X - mean) / sd, y)
    return (time.perf_counter() - start, lambda Xn: lap.predict_proba((Xn - mean) / sd)[:, 1],
            time.process_time() - cpu)


def _exponent(sizes: list[int], times: list[float]) -> float:
    if len(sizes) < 2:
        return float("nan")
    return float(np.log(times[-1] / times[0]) / np.log(sizes[-1] / sizes[0]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="exact n = 200, 500; sparse n = 1000, 2000")
    parser.add_argument("--data", choices=["thesis", "gmm"], nargs="*", default=["thesis", "gmm"])
    parser.add_argument("--exact-sizes", type=int, nargs="*")
    parser.add_argument("--sparse-sizes", type=int, nargs="*")
    parser.add_argument("--n-inducing", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=1, help="best of this many fits")
    args = parser.parse_args(argv)
    exact_sizes = args.exact_sizes or ([200, 500] if args.quick else [200, 2000])
    sparse_sizes = args.sparse_sizes or ([1000, 2000] if args.quick else [1000, 10000])
    print(f"{'data':>6} {'mode':>6} {'n':>6} {'EP s':>8} {'Lap s':>8} {'EP/Lap':>7} "
          f"{'RMSE EP':>8} {'RMSE Lap':>9}  kernel; CPU EP / Lap (ratio)")
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    with limit_blas_threads(1):
        warm_X, warm_y, _ = _data("gmm", 40, 0)  # imports (xarray, ...) outside the timings
        _fit_ep(warm_X, warm_y, "ep", args.n_inducing)
        _fit_laplace(warm_X, warm_y)
        for name in args.data:
            X_test, _, p_test = _data(name, 2000, 12345)
            exact_times, exact_rmse = [], {}
            for n in exact_sizes:
                X, y, _ = _data(name, n, n)
                runs, lap_runs = [], []
                for _ in range(args.repeats):  # the two take turns, so both see the same load
                    runs.append(_fit_ep(X, y, "ep", args.n_inducing))
                    lap_runs.append(_fit_laplace(X, y))
                t_ep, clf, _ = min(runs, key=lambda r: r[0])
                t_lap, lap_predict, _ = min(lap_runs, key=lambda r: r[0])
                cpu_ep, cpu_lap = min(r[2] for r in runs), min(r[2] for r in lap_runs)
                exact_times.append(t_ep)
                exact_rmse[n] = _rmse(clf.predict_proba(X_test)[:, 1], p_test)
                print(f"{name:>6} {'exact':>6} {n:>6} {t_ep:>8.2f} {t_lap:>8.2f} "
                      f"{t_ep / t_lap:>7.2f} {exact_rmse[n]:>8.4f} "
                      f"{_rmse(lap_predict(X_test), p_test):>9.4f}  "
                      f"{'ARD' if clf.ard_[0] else 'shared'}; CPU {cpu_ep:.2f} / {cpu_lap:.2f} s "
                      f"({cpu_ep / cpu_lap:.2f}), load {os.getloadavg()[0]:.1f}", flush=True)
            sparse_times = []
            for n in sparse_sizes:
                X, y, _ = _data(name, n, n)
                runs = [_fit_ep(X, y, "sparse", args.n_inducing) for _ in range(args.repeats)]
                t_sp, clf, cpu_sp = min(runs, key=lambda r: r[0])
                sparse_times.append(t_sp)
                print(f"{name:>6} {'sparse':>6} {n:>6} {t_sp:>8.2f} {'-':>8} {'-':>7} "
                      f"{_rmse(clf.predict_proba(X_test)[:, 1], p_test):>8.4f} {'-':>9}  "
                      f"{'ARD' if clf.ard_[0] else 'shared'}, m={args.n_inducing}, CPU "
                      f"{cpu_sp:.2f} s, load {os.getloadavg()[0]:.1f}", flush=True)
            largest = max(exact_rmse)
            print(f"{name:>6}: time ~ n^{_exponent(exact_sizes, exact_times):.2f} (exact, n = "
                  f"{exact_sizes[0]}-{exact_sizes[-1]}), n^{_exponent(sparse_sizes, sparse_times):.2f} "
                  f"(sparse, n = {sparse_sizes[0]}-{sparse_sizes[-1]}); exact-EP RMSE at "
                  f"n = {largest}: {exact_rmse[largest]:.4f}", flush=True)


if __name__ == "__main__":
    main()

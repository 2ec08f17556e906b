"""Dirichlet calibration speed: bayescal's DirichletCalibrator against dirichletcal.

Both fit the full Dirichlet map with ODIR regularisation (``lambda = mu =
1e-3``; dirichletcal with ``ref_row=False``, the paper's parametrisation that
bayescal's penalised fit uses) on ``n`` samples of ``K``-class probabilities (``q ~ Dir(0.8)``, labels
drawn from a miscalibrated map of ``q``) and predict them; each row reports the
best of ``repeats`` wall times of fit + predict, the ratio dirichletcal /
bayescal and the largest absolute difference between the two packages'
calibrated probabilities. dirichletcal (the authors' package) builds its
gradient and Hessian with JAX and runs Newton's method (its default for
``K <= 36``); bayescal runs L-BFGS on its analytic gradient. The first
dirichletcal fit of a shape includes JAX tracing, so it is warmed up once per
row and not timed.

Run ``python benchmarks/dirichlet.py`` (``--quick``: the smallest row only).
Timings on a shared, loaded machine are only meaningful as the ratio in the
same run.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from bayescal.calibration import DirichletCalibrator

REG = 1e-3


def _best(
    fn: Callable[..., np.ndarray], args: tuple[np.ndarray, ...], repeats: int
) -> tuple[float, np.ndarray]:
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - start)
    return best, out


def _data(n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(np.full(k, 0.8), size=n)
    z = np.log(q) * np.linspace(0.6, 1.6, k) + np.linspace(-0.3, 0.3, k)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    y = (rng.uniform(size=(n, 1)) > np.cumsum(p, axis=1)).sum(axis=1)
    return q, np.minimum(y, k - 1)


def ours(q: np.ndarray, y: np.ndarray) -> np.ndarray:
    return DirichletCalibrator(reg_lambda=REG, reg_mu=REG).fit(q, y).predict_proba(q)


def peer(q: np.ndarray, y: np.ndarray) -> np.ndarray:
    from dirichletcal.calib.fulldirichlet import FullDirichletCalibrator  # imports JAX

    cal = FullDirichletCalibrator(reg_lambda=REG, reg_mu=REG, ref_row=False).fit(q, y)
    return np.asarray(cal.predict_proba(q))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smallest row only")
    args = parser.parse_args(argv)
    rows = [(1_000, 3)] if args.quick else [(1_000, 3), (10_000, 3), (2_000, 10)]
    repeats = 2 if args.quick else 3
    print(f"{'n':>7} {'K':>3} {'bayescal s':>11} {'dirichletcal s':>15} {'ratio':>8} "
          f"{'max |diff|':>11}")
    for n, k in rows:
        q, y = _data(n, k, seed=n + k)
        peer(q, y)  # JAX tracing, not timed
        t_ours, p_ours = _best(ours, (q, y), repeats)
        t_peer, p_peer = _best(peer, (q, y), repeats)
        diff = float(np.max(np.abs(p_ours - p_peer)))
        print(f"{n:>7} {k:>3} {t_ours:>11.4f} {t_peer:>15.3f} {t_peer / t_ours:>7.1f}x "
              f"{diff:>11.1e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

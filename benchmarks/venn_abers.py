"""Venn-ABERS speed: bayescal's VennAbersCalibrator against the venn-abers package.

Both fit an inductive Venn-ABERS predictor on ``n`` calibration scores
(``s ~ U(0, 1)`` rounded to 6 decimals, ``y ~ Bernoulli(s^2)``) and predict
10,000 test scores; each row reports the best of ``repeats`` wall times of
fit + predict (numba compilation excluded by a warm-up), the ratio
venn-abers / bayescal, and the largest absolute difference between the two
packages' ``(p0, p1)`` pairs (they compute the same numbers). The venn-abers
package recomputes a slope over all remaining points at every corner of the
convex minorant (O(n * corners)); bayescal sweeps the corner stacks once
(O(n) after sorting).

Run ``python benchmarks/venn_abers.py`` (``--quick``: n up to 1e4). Timings on
a shared, loaded machine are only meaningful as the ratio in the same run.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bayescal.calibration import VennAbersCalibrator

N_TEST = 10_000


def _best(
    fn: Callable[..., np.ndarray], args: tuple[np.ndarray, ...], repeats: int
) -> tuple[float, np.ndarray]:
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - start)
    return best, out


def ours(s: np.ndarray, y: np.ndarray, test: np.ndarray) -> np.ndarray:
    return VennAbersCalibrator().fit(s, y).predict_interval(test)[:, 1, :]


def _import_peer() -> type:
    """venn-abers' ``VennAbers``; this script's own name would shadow the package."""
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    sys.modules.pop("venn_abers", None)
    state = np.geterr()
    from venn_abers.venn_abers import VennAbers  # sets np.seterr at import

    np.seterr(**state)
    return VennAbers


def peer(s: np.ndarray, y: np.ndarray, test: np.ndarray) -> np.ndarray:
    VennAbers = _import_peer()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        va = VennAbers().fit(np.column_stack([1 - s, s]), y)
        return va.predict_proba(np.column_stack([1 - test, test]))[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n up to 1e4, fewer repeats")
    args = parser.parse_args(argv)
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    repeats = 3 if args.quick else 5
    rng = np.random.default_rng(0)
    test = rng.uniform(size=N_TEST)
    ours(np.array([0.1, 0.5, 0.9]), np.array([0.0, 1.0, 1.0]), test)  # numba warm-up
    print(f"{'n':>8} {'bayescal s':>11} {'venn-abers s':>13} {'ratio':>8} {'max |diff|':>11}")
    for n in sizes:
        s = np.round(rng.uniform(size=n), 6)
        y = (rng.uniform(size=n) < s**2).astype(float)
        t_ours, p_ours = _best(ours, (s, y, test), repeats)
        t_peer, p_peer = _best(peer, (s, y, test), max(1, repeats // 2))
        diff = float(np.max(np.abs(p_ours - p_peer)))
        print(f"{n:>8} {t_ours:>11.4f} {t_peer:>13.4f} {t_peer / t_ours:>7.1f}x {diff:>11.1e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Fit time of bayescal's BBQ against netcal's BBQ, and of SBB/ABB fast vs exact.

Run ``python benchmarks/bbq.py`` (n = 1e3, 1e4, 1e5) or with ``--quick``
(n = 1e3, 1e4). Calibrated synthetic scores (``y ~ Bernoulli(s)``,
``s ~ U(0, 1)``); every row is the best of ``--repeats`` runs of
``fit(scores, y)`` under one BLAS thread, for bayescal and for the peer in the
same run, with the ratio ``peer / bayescal`` (above 1: bayescal is faster).
The target of issue 4 is a ratio of at least 10 at n = 1e5 (netcal 7.3 s there).

The peer is ``netcal.binning.BBQ`` (imported lazily; it scores binnings by
BIC rather than the paper's Bayesian score, and is skipped with a note when
netcal is missing). SBB and ABB have no peer package: their ``method="fast"``
(candidate cut points and pruning, :mod:`bayescal.probes.binning.pruned_dp`)
is timed against their own ``method="exact"`` ``O(m^2)`` programme at n = 1e3
and 3e3 (ratio ``exact / fast``), and alone at 1e4 and 1e5 (target of issue
15: n = 1e5 under 10 s). Every method prints its scaling exponent
``log(t(1e5) / t(1e4)) / log(10)`` (time vs n over a decade; 1e3 -> 1e4 with
``--quick``). numba compilation (or loading its disk cache) is excluded by a
warm-up fit.

Measured here (2026-11-22, one BLAS thread, heavily loaded 2-core machine):
BBQ 0.225 s vs netcal 0.495 s at n = 1e3 (2.2x), 0.300 vs 4.09 s at 1e4
(13.6x), 0.684 vs 158 s at 1e5 (231x; against the issue's quiet-machine 7.3 s
for netcal, 10.7x). SBB/ABB: 1.0/1.4 s at n = 300, 5.1/6.3 s at 1e3,
22.5/22.8 s at 3e3 (O(m^2)). 2026-11-23, loaded: SBB/ABB ``fast`` 1.0/7.2 s at
n = 1e5, 103x/6.8x faster than ``exact`` at 3e3. The latest table is in
``benchmarks/README.md``.
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

from bayescal.probes.binning import ABBCalibrator, BBQCalibrator, SBBCalibrator  # noqa: E402
from bayescal.threads import limit_blas_threads  # noqa: E402


def _best_of(fn, repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _netcal_fit(s: np.ndarray, y: np.ndarray):
    os.environ.setdefault("TQDM_DISABLE", "1")  # netcal draws a progress bar per fit
    try:
        from netcal.binning import BBQ
    except ImportError:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lambda: BBQ().fit(s, y)


def _exponent(times: dict[int, float]) -> str:
    sizes = sorted(times)
    lo, hi = sizes[-2], sizes[-1]
    return f"{np.log(times[hi] / times[lo]) / np.log(hi / lo):.2f} ({lo:.0e} -> {hi:.0e})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1e3, 1e4 only")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    rng = np.random.default_rng(0)
    data = {n: (lambda s: (s, rng.binomial(1, s)))(rng.uniform(size=n)) for n in sizes}
    print(f"{'method':<10} {'n':>8} {'bayescal s':>11} {'peer s':>9} {'peer/bayescal':>14}  peer")
    with limit_blas_threads(1):
        bbq_times = {}
        for n in sizes:
            s, y = data[n]
            ours = _best_of(lambda s=s, y=y: BBQCalibrator(random_state=0).fit(s, y), args.repeats)
            bbq_times[n] = ours
            peer_fn = _netcal_fit(s, y)
            if peer_fn is None:
                print(f"{'BBQ':<10} {n:>8} {ours:>11.3f} {'-':>9} {'-':>14}  (netcal missing)")
            else:
                peer = _best_of(peer_fn, 1 if n >= 100_000 else args.repeats)
                print(f"{'BBQ':<10} {n:>8} {ours:>11.3f} {peer:>9.3f} {peer / ours:>14.1f}  netcal BBQ")
        print(f"BBQ scaling exponent: {_exponent(bbq_times)}")
        warm_s, warm_y = data[sizes[0]]
        for cls in (SBBCalibrator, ABBCalibrator):  # numba compile / cache load
            cls(random_state=0).fit(warm_s[:200], warm_y[:200])
        exact_sizes = [1_000] if args.quick else [1_000, 3_000]
        for name, cls in (("SBB", SBBCalibrator), ("ABB", ABBCalibrator)):
            fast_times = {}
            for n in sorted(set(sizes) | set(exact_sizes)):
                s, y = data[n] if n in data else (lambda s: (s, rng.binomial(1, s)))(
                    rng.uniform(size=n))
                fast = _best_of(lambda cls=cls, s=s, y=y: cls(random_state=0).fit(s, y),
                                1 if n >= 100_000 else args.repeats)
                if n in sizes:
                    fast_times[n] = fast
                if n in exact_sizes:
                    exact = _best_of(
                        lambda cls=cls, s=s, y=y: cls(method="exact", random_state=0).fit(s, y), 1)
                    print(f"{name + ' fast':<10} {n:>8} {fast:>11.3f} {exact:>9.3f} "
                          f"{exact / fast:>14.1f}  own method='exact'")
                else:
                    print(f"{name + ' fast':<10} {n:>8} {fast:>11.3f} {'-':>9} {'-':>14}")
            print(f"{name} fast scaling exponent: {_exponent(fast_times)}")


if __name__ == "__main__":
    main()

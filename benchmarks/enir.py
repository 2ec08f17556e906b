"""ENIR speed and accuracy: bayescal's ENIRCalibrator against netcal's ENIR.

Issue 3 targets: at least 20x faster than netcal at n = 1e4 (netcal took 5.0 s
there on 2 cores, so <= 0.25 s), under 10 s at n = 1e6, with error to the true
calibration map no worse than netcal's; nothing quadratic in n.

Data: scores ``s ~ U(0, 1)`` and labels ``y ~ Bernoulli(p(s))`` for a monotone
truth ``p(s) = s^2`` and a non-monotone one ``p(s) = 0.5 + 0.35 sin(2 pi s)``
(what near-isotonic regression is for). Each row reports fit + predict time of
``n`` calibration samples (predicting 10,000 test scores; the median of a few
repeats where a run is short, numba compilation excluded by a warm-up), the
RMSE of the fitted map to the truth on the test scores, and for netcal the
same numbers and the ratio netcal / bayescal. scikit-learn's isotonic
regression is timed as well, to put the figures in proportion.

netcal (a benchmark-only peer that pulls in PyTorch) is imported lazily; it is
run at n = 1e3 and 1e4, and at 1e5 only with ``--full`` (it takes over 120 s
there). bayescal runs up to 1e6 (1e5 with ``--quick``).

Run ``python benchmarks/enir.py`` (``--quick`` for a small run, ``--full`` to
include netcal at 1e5).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import time
import warnings
from collections.abc import Callable

import numpy as np
from sklearn.isotonic import IsotonicRegression

from bayescal.calibration import ENIRCalibrator

TRUTHS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "s^2": lambda s: s**2,
    "sine": lambda s: 0.5 + 0.35 * np.sin(2 * np.pi * s),
}
N_TEST = 10_000


def _timed(
    method: Callable[..., np.ndarray], data: tuple[np.ndarray, ...], repeats: int
) -> tuple[float, np.ndarray]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = method(*data)
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def _rmse(p: np.ndarray, p_true: np.ndarray) -> float:
    return float(np.sqrt(np.mean((p - p_true) ** 2)))


def bayescal_enir(s: np.ndarray, y: np.ndarray, test: np.ndarray) -> np.ndarray:
    return ENIRCalibrator().fit(s, y).predict_proba(test)[:, 1]


def sklearn_isotonic(s: np.ndarray, y: np.ndarray, test: np.ndarray) -> np.ndarray:
    return IsotonicRegression(out_of_bounds="clip").fit(s, y).predict(test)


def netcal_enir(s: np.ndarray, y: np.ndarray, test: np.ndarray) -> np.ndarray:
    from netcal.binning import ENIR  # lazy: netcal imports PyTorch

    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(ENIR().fit(s, y).transform(test), dtype=float)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n up to 1e5, fewer repeats")
    parser.add_argument("--full", action="store_true", help="also run netcal at n = 1e5")
    parser.add_argument("--no-netcal", action="store_true", help="skip netcal entirely")
    args = parser.parse_args(argv)
    sizes = [1_000, 10_000, 100_000] if args.quick else [1_000, 10_000, 100_000, 1_000_000]
    netcal_sizes = (
        set() if args.no_netcal else {1_000, 10_000} | ({100_000} if args.full else set())
    )
    rng = np.random.default_rng(0)

    # warm-up: numba compiles (or loads its cache) on first use
    warm = rng.uniform(size=200)
    warm_y = (rng.uniform(size=200) < warm).astype(int)
    start = time.perf_counter()
    bayescal_enir(warm, warm_y, warm)
    print(f"first ENIR call (numba compile or cache load): {time.perf_counter() - start:.2f} s")
    if netcal_sizes:
        start = time.perf_counter()
        netcal_enir(warm, warm_y, warm)
        print(f"first netcal call (import of netcal/PyTorch): {time.perf_counter() - start:.2f} s")

    header = (
        f"{'truth':5s} {'n':>9s} {'bayescal s':>11s} {'netcal s':>9s} {'netcal/ours':>11s} "
        f"{'isotonic s':>10s} {'RMSE ours':>9s} {'RMSE netcal':>11s} {'RMSE iso':>8s}"
    )
    print(header)
    ok = True
    for name, truth in TRUTHS.items():
        for n in sizes:
            s = rng.uniform(size=n)
            y = (rng.uniform(size=n) < truth(s)).astype(int)
            test = rng.uniform(size=N_TEST)
            p_true = truth(test)
            repeats = 1 if n >= 100_000 or args.quick else 5
            t_ours, p_ours = _timed(bayescal_enir, (s, y, test), repeats)
            t_iso, p_iso = _timed(sklearn_isotonic, (s, y, test), repeats)
            if n in netcal_sizes:
                t_net, p_net = _timed(netcal_enir, (s, y, test), 1)
                net = f"{t_net:9.3f} {t_net / t_ours:11.1f}"
                net_rmse = f"{_rmse(p_net, p_true):11.4f}"
                if n == 10_000:
                    ok &= t_net / t_ours >= 20 and t_ours <= 0.25
                ok &= _rmse(p_ours, p_true) <= _rmse(p_net, p_true) * 1.05
            else:
                net, net_rmse = f"{'-':>9s} {'-':>11s}", f"{'-':>11s}"
            if n == 1_000_000:
                ok &= t_ours < 10
            print(
                f"{name:5s} {n:9d} {t_ours:11.3f} {net} {t_iso:10.3f} "
                f"{_rmse(p_ours, p_true):9.4f} {net_rmse} {_rmse(p_iso, p_true):8.4f}",
                flush=True,
            )
    print(
        f"targets (>= 20x netcal and <= 0.25 s at 1e4, < 10 s at 1e6, RMSE <= netcal): "
        f"{'met' if ok else 'MISSED'}"
        + ("" if netcal_sizes else " (netcal comparisons not run)")
        + ("" if 1_000_000 in sizes else " (n = 1e6 not run)")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

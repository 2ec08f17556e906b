"""Speed of smooth ECE and CORP against their peers, in the same run.

Run ``python benchmarks/corp_smooth_ece.py`` (n = 1e3, 1e4, 1e5) or with ``--quick``
(n = 1e3, 1e4). Calibrated synthetic forecasts (``p ~ U(0, 1)``,
``y ~ Bernoulli(p**1.3)``); every row is the best of ``--repeats`` runs, with the
ratio ``peer / bayescal`` (above 1: bayescal is faster).

- ``smooth_ece`` against ``relplot.smECE`` (the authors' package; same numbers to
  1e-6, same discretisation, bayescal convolves by FFT);
- ``score_decomposition`` (CORP, one PAV fit) against the same decomposition
  computed with scikit-learn's ``IsotonicRegression`` for the PAV step (the R
  package ``reliabilitydiag`` is not callable from Python);
- ``corp_reliability`` with 100 resamples: bayescal's band against 100
  scikit-learn isotonic fits on the same resampled outcomes.

Measured here (2026-11-23, heavily loaded 2-core machine shared with 7 other
sessions; peer/bayescal, best of 3): smooth ECE 1.63 / 1.25 / 0.83 at n = 1e3 /
1e4 / 1e5 (par with relplot); CORP decomposition 2.8 / 11.9 / 2.0; CORP bands
with 100 resamples 6.3 / 2.3 / 1.7 (8.0 s at n = 1e5).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bayescal.metrics import corp_reliability, score_decomposition, smooth_ece  # noqa: E402


def _best_of(fn, repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _sklearn_decomposition(y: np.ndarray, p: np.ndarray) -> float:
    from sklearn.isotonic import IsotonicRegression

    recal = IsotonicRegression(y_min=0, y_max=1).fit(p, y).predict(p)
    rate = y.mean()
    s, s_hat, s_bar = np.mean((p - y) ** 2), np.mean((recal - y) ** 2), np.mean((rate - y) ** 2)
    return (s - s_hat) - (s_bar - s_hat) + s_bar


def _sklearn_bands(p: np.ndarray, n_resamples: int) -> np.ndarray:
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(0)
    curves = [
        IsotonicRegression(y_min=0, y_max=1)
        .fit(p, (rng.random(p.size) < p).astype(float))
        .predict(p)
        for _ in range(n_resamples)
    ]
    return np.quantile(np.asarray(curves), [0.05, 0.95], axis=0)


def _rows(y: np.ndarray, p: np.ndarray, relplot) -> list:
    """(name, bayescal call, peer call) for one data set."""
    return [
        ("smooth_ece vs relplot", lambda: smooth_ece(y, p), lambda: relplot.smECE(p, y)),
        (
            "CORP decomposition vs sklearn",
            lambda: score_decomposition(y, p),
            lambda: _sklearn_decomposition(y, p),
        ),
        (
            "CORP bands (100) vs sklearn",
            lambda: corp_reliability(y, p, n_resamples=100, random_state=0),
            lambda: _sklearn_bands(p, 100),
        ),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1e3 and 1e4 only")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    import relplot

    sizes = (1_000, 10_000) if args.quick else (1_000, 10_000, 100_000)
    print(f"{'what':<28}{'n':>8}{'bayescal s':>12}{'peer s':>10}{'peer/bayescal':>15}")
    for n in sizes:
        rng = np.random.default_rng(n)
        p = rng.uniform(size=n)
        y = (rng.uniform(size=n) < p**1.3).astype(int)
        rows = _rows(y, p, relplot)
        for name, ours, peer in rows:
            t_ours = _best_of(ours, args.repeats)
            t_peer = _best_of(peer, args.repeats)
            print(f"{name:<28}{n:>8}{t_ours:>12.4f}{t_peer:>10.4f}{t_peer / t_ours:>15.2f}")


if __name__ == "__main__":
    main()

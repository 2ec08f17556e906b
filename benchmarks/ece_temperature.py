"""Binned ECE against a bare ``np.bincount``; temperature scaling against scikit-learn.

Run ``python benchmarks/ece_temperature.py`` (``--repeats`` best of, default 7).
Issue 26's targets: ``expected_calibration_error`` within 2x the floor of a
10-bin histogram (one bin index, one weighted ``np.bincount``) at 10^6 rows,
and ``TemperatureScaling`` fit + predict at most 1x scikit-learn's
``_TemperatureScaling`` (what ``CalibratedClassifierCV(method="temperature")``
fits) from 10^4 rows. Every row is timed with this process's CPU time (the
machine is shared; the runners are single-threaded, one BLAS thread), the
runners taking turns repeat by repeat, and prints ``bayescal / peer``. The
load average is printed first.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibrators import _multiclass, _sk_temperature  # noqa: E402

from bayescal.calibration import TemperatureScaling  # noqa: E402
from bayescal.metrics import expected_calibration_error  # noqa: E402
from bayescal.threads import limit_blas_threads  # noqa: E402


def _best(fns, repeats):
    best = [np.inf] * len(fns)
    for _ in range(repeats):
        for k, fn in enumerate(fns):
            start = time.process_time()
            fn()
            best[k] = min(best[k], time.process_time() - start)
    return best


def _row(name, n, ours, peer_name, peer, repeats):
    ours()  # compile / cache load, not timed
    peer()
    t_ours, t_peer = _best([ours, peer], repeats)
    print(f"{name:<24}{n:>9}{t_ours:>11.5f}  {peer_name:<30}{t_peer:>10.5f}{t_ours / t_peer:>8.2f}")
    sys.stdout.flush()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    print(f"{'what':<24}{'n':>9}{'ours CPU s':>11}  {'peer':<30}{'peer CPU s':>10}{'ratio':>8}")
    with limit_blas_threads(1):
        for n in (10**4, 10**5, 10**6):
            rng = np.random.default_rng(0)
            s = rng.beta(2.0, 3.0, size=n)
            y = (rng.uniform(size=n) < s**1.5).astype(np.int64)
            _row(
                "ECE (10 bins)", n, lambda s=s, y=y: expected_calibration_error(y, s),
                "bare bincount", lambda s=s, y=y: np.bincount(
                    np.minimum((s * 10).astype(np.intp), 9), weights=y, minlength=10),
                args.repeats,
            )
        for k in (2, 4):
            for n in (10**3, 10**4, 10**5):
                z, y = _multiclass(n, k=k)
                _row(
                    f"temperature (K={k})", n,
                    lambda z=z, y=y: TemperatureScaling(input="decision").fit(z, y).predict_proba(z),
                    "sklearn _TemperatureScaling", lambda z=z, y=y: _sk_temperature(z, y),
                    args.repeats,
                )
    print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()

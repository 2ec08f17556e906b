"""Fit + predict time of bayescal's binary calibrators against their peers.

Run ``python benchmarks/calibrators.py`` (n = 1e3 ... 1e6) or with ``--quick``
(n = 1e3, 1e4); ``--only NAME`` runs one calibrator. Every row times
``fit(scores, y)`` followed by ``predict_proba(scores)`` on the same n scores
(best of ``--repeats`` runs, ``--repeats-large`` at n = 1e6; one BLAS thread) for bayescal and for its peers measured in the same run, taking
turns repeat by repeat (the same load for both on a busy machine), and
prints the ratio ``bayescal / peer`` (below 1: bayescal is faster), and each
calibrator's scaling exponent ``log(t(n2) / t(n1)) / log(n2 / n1)`` over the
last decade. The floors of issue 15 at 1e6 are printed as peers too: isotonic
against one ``np.sort`` of the scores, histogram binning against a bare
``np.bincount`` (bin index + one weighted count), ENIR against scikit-learn's
isotonic regression.

Peers
-----
* isotonic: ``sklearn.isotonic.IsotonicRegression(out_of_bounds="clip")``
  (what ``CalibratedClassifierCV(method="isotonic")`` fits);
* Platt: scikit-learn's ``_SigmoidCalibration`` (``method="sigmoid"``, the same
  smoothed-target Platt fit);
* histogram binning: the same binning assembled from scikit-learn parts
  (``KBinsDiscretizer(strategy="uniform")`` + per-bin weighted mean), as
  scikit-learn has no histogram calibrator;
* beta: the authors' ``betacal`` package;
* logistic GAM: ``SplineTransformer`` + ``LogisticRegression`` at one fixed
  penalty (bayescal also selects the smoothing parameter, about 15 fits);
* temperature scaling: scikit-learn's ``_TemperatureScaling`` on 4-class logits;
* netcal (``HistogramBinning``, ``IsotonicRegression``, ``LogisticCalibration``,
  ``BetaCalibration``), imported lazily and skipped with a note when missing.
  netcal's scaling methods optimise with PyTorch; they are run up to n = 1e5.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bayescal.calibration import (  # noqa: E402
    BetaCalibrator,
    ENIRCalibrator,
    HistogramBinningCalibrator,
    IsotonicCalibrator,
    LogisticGAMCalibrator,
    PlattCalibrator,
    TemperatureScaling,
    UndersamplingCorrection,
)
from bayescal.threads import limit_blas_threads  # noqa: E402

Runner = Callable[[np.ndarray, np.ndarray], object]


def _data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.beta(2.0, 3.0, size=n)
    y = (rng.uniform(size=n) < s**1.5).astype(np.int64)
    return s, y


def _multiclass(n: int, seed: int = 0, k: int = 4) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * 2.0
    p = np.exp(z / 1.5)
    p /= p.sum(axis=1, keepdims=True)
    y = (p.cumsum(axis=1) > rng.uniform(size=(n, 1))).argmax(axis=1)
    return z, y


def _ours(make) -> Runner:
    return lambda s, y: make().fit(s, y).predict_proba(s)


def _sk_isotonic(s, y):
    from sklearn.isotonic import IsotonicRegression

    return IsotonicRegression(out_of_bounds="clip").fit(s, y).predict(s)


def _sk_sigmoid(s, y):
    from sklearn.calibration import _SigmoidCalibration

    return _SigmoidCalibration().fit(s, y).predict(s)


def _sk_histogram(s, y):
    from sklearn.preprocessing import KBinsDiscretizer

    kb = KBinsDiscretizer(n_bins=10, encode="ordinal", strategy="uniform")
    kb.fit(np.array([[0.0], [1.0]]))  # uniform edges on [0, 1], as the calibrator
    idx = kb.transform(s[:, None])[:, 0].astype(np.int64)
    count = np.bincount(idx, minlength=10)
    pos = np.bincount(idx, weights=y, minlength=10)
    values = np.divide(pos, count, out=np.zeros(10), where=count > 0)
    return values[kb.transform(s[:, None])[:, 0].astype(np.int64)]


def _np_sort(s, y):
    return np.sort(s)


def _bare_bincount(s, y):
    # the floor of a 10-bin histogram: one bin index and one weighted bincount
    return np.bincount(np.minimum((s * 10).astype(np.intp), 9), weights=y, minlength=10)


def _betacal(s, y):
    from betacal import BetaCalibration

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BetaCalibration(parameters="abm").fit(s, y).predict(s)


def _sk_spline_logistic(s, y):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import SplineTransformer

    model = make_pipeline(
        SplineTransformer(n_knots=8, degree=3, extrapolation="linear"),
        LogisticRegression(C=1.0),
    )
    return model.fit(s[:, None], y).predict_proba(s[:, None])


def _sk_temperature(z, y):
    from sklearn.calibration import _TemperatureScaling

    return _TemperatureScaling().fit(z, y).predict(z)


def _netcal(name: str) -> Runner | None:
    try:
        import netcal.binning as nb
        import netcal.scaling as ns
    except ImportError:
        return None
    make = {
        "HistogramBinning": lambda: nb.HistogramBinning(bins=10),
        "IsotonicRegression": lambda: nb.IsotonicRegression(),
        "LogisticCalibration": lambda: ns.LogisticCalibration(),
        "BetaCalibration": lambda: ns.BetaCalibration(),
    }[name]

    def run(s, y):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = make()
            model.fit(s, y)
            return model.transform(s)

    return run


#: The clock of :func:`_time_interleaved` (``--clock``): wall time, or the CPU
#: time of this process, which on a machine shared with other busy processes
#: leaves out the time the scheduler ran someone else (the runners are
#: single-threaded: one BLAS thread, no numba threads).
_CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
_clock = time.perf_counter


def _time_interleaved(fns: list[Runner], s, y, repeats: int) -> list[float]:
    """Best time of each runner, the runners taking turns in every repeat.

    On a loaded machine the load drifts over seconds; alternating bayescal and
    its peers repeat by repeat exposes them to the same load, so the ratio of
    their best times is steadier than timing one after the other.
    """
    best = [np.inf] * len(fns)
    for _ in range(repeats):
        for k, fn in enumerate(fns):
            start = _clock()
            fn(s, y)
            best[k] = min(best[k], _clock() - start)
    return best


#: (name, bayescal runner, [(peer name, peer runner, largest n for the peer)], data maker)
def _cases() -> list[tuple[str, Runner, list[tuple[str, Runner | None, float]], Callable]]:
    inf = float("inf")
    return [
        (
            "isotonic",
            _ours(IsotonicCalibrator),
            [
                ("sklearn IsotonicRegression", _sk_isotonic, inf),
                ("np.sort (one sort; floor target <= 4x)", _np_sort, inf),
                ("netcal IsotonicRegression", _netcal("IsotonicRegression"), inf),
            ],
            _data,
        ),
        (
            "ENIR",
            _ours(ENIRCalibrator),
            [("sklearn IsotonicRegression (target <= 1.5x)", _sk_isotonic, inf)],
            _data,
        ),
        (
            "Platt",
            _ours(PlattCalibrator),
            [
                ("sklearn sigmoid", _sk_sigmoid, inf),
                ("netcal LogisticCalibration", _netcal("LogisticCalibration"), 1e5),
            ],
            _data,
        ),
        (
            "Platt (logit)",
            _ours(lambda: PlattCalibrator(input="logit")),
            [("sklearn sigmoid", _sk_sigmoid, inf)],
            _data,
        ),
        (
            "histogram",
            _ours(HistogramBinningCalibrator),
            [
                ("sklearn KBinsDiscretizer+bincount", _sk_histogram, inf),
                ("bare bincount (floor target <= 2x)", _bare_bincount, inf),
                ("netcal HistogramBinning", _netcal("HistogramBinning"), inf),
            ],
            _data,
        ),
        (
            "beta",
            _ours(BetaCalibrator),
            [
                ("betacal", _betacal, inf),
                ("netcal BetaCalibration", _netcal("BetaCalibration"), 1e5),
            ],
            _data,
        ),
        (
            "logistic GAM",
            _ours(LogisticGAMCalibrator),
            [("sklearn SplineTransformer+LR (fixed penalty)", _sk_spline_logistic, inf)],
            _data,
        ),
        ("undersampling", _ours(lambda: UndersamplingCorrection(pi0=0.1)), [], _data),
        (
            "temperature (K=4)",
            _ours(lambda: TemperatureScaling(input="decision")),
            [("sklearn temperature", _sk_temperature, inf)],
            _multiclass,
        ),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1e3 and 1e4 only")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs")
    parser.add_argument(
        "--repeats-large", type=int, default=2, help="best of this many runs at n = 1e6"
    )
    parser.add_argument("--only", default=None, help="run only calibrators whose name has this (comma-separated: any of them)")
    parser.add_argument(
        "--clock",
        choices=sorted(_CLOCKS),
        default="wall",
        help="wall time (default) or this process's CPU time (steadier on a loaded machine)",
    )
    args = parser.parse_args(argv)
    global _clock
    _clock = _CLOCKS[args.clock]
    print(f"clock: {args.clock}")
    sizes = [10**3, 10**4] if args.quick else [10**3, 10**4, 10**5, 10**6]
    wanted = None if args.only is None else args.only.split(",")
    cases = [c for c in _cases() if wanted is None or any(w in c[0] for w in wanted)]
    if _netcal("HistogramBinning") is None:
        print("note: netcal is not installed; its columns are skipped.")
    header = (
        f"{'calibrator':<20}{'n':>9}{'bayescal s':>12}  {'peer':<46}{'peer s':>10}{'ratio':>8}"
    )
    print(header)
    print("-" * len(header))
    with limit_blas_threads(1):
        for name, ours, peers, make_data in cases:
            if name == "ENIR":
                ours(*make_data(200))  # numba compile or cache load, not timed
            times = {}
            for n in sizes:
                s, y = make_data(n)
                repeats = args.repeats_large if n >= 10**6 else args.repeats
                rows = [(p, fn, cap) for p, fn, cap in peers if fn is not None and n <= cap]
                t_ours, *t_peers = _time_interleaved(
                    [ours] + [fn for _, fn, _ in rows], s, y, repeats
                )
                times[n] = t_ours
                if not rows:
                    print(f"{name:<20}{n:>9}{t_ours:>12.4f}  {'-':<46}{'':>10}{'':>8}")
                for (peer, _, _), t_peer in zip(rows, t_peers, strict=True):
                    print(
                        f"{name:<20}{n:>9}{t_ours:>12.4f}  {peer:<46}{t_peer:>10.4f}"
                        f"{t_ours / t_peer:>8.2f}"
                    )
                sys.stdout.flush()
            lo, hi = sizes[-2], sizes[-1]
            exponent = np.log(times[hi] / times[lo]) / np.log(hi / lo)
            print(f"{name}: scaling exponent {exponent:.2f} (time vs n, {lo:.0e} -> {hi:.0e})")


if __name__ == "__main__":
    main()

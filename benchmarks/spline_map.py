"""Bayesian spline calibration map under NUTS: mixing and bulk ESS per second.

Issue 11 reports that :class:`BayesianSplineCalibrator` mixed badly under its
default NUTS (min bulk ESS 6-49 of 2 x 1000 draws at n=1000) and asks for a
reparameterisation reaching R-hat <= 1.01 and min bulk ESS >= 400 on
well-specified scores. This benchmark fits, for several seeds, n well-specified
scores (``s ~ U(0.02, 0.98)``, ``y ~ Bernoulli(s)``: the true map is the
identity, which the spline's linear part holds exactly) with the default
sampler (nutpie, 2 chains x 1000 draws after 1000 tuning steps) and reports per
seed: max R-hat, min bulk and tail ESS over the map's parameters
(``intercept``, ``coef``, ``tau``, ``innovations``), divergences, the fit's
seconds (sampling only: the first fit, which compiles, is repeated and the
repeat is timed) and min bulk ESS per second.

Measured on a loaded 2-core machine (issue 11), seeds 0-5: the orthogonal,
fully non-centred basis gave min bulk ESS 345/864/375/442/670/399 (R-hat <=
1.008, no divergences; spline ESS/s : Platt ESS/s median 0.047); the
Demmler-Reinsch basis, partially non-centred, 757/991/757/686/890/516 (R-hat
<= 1.010, no divergences; ratio 0.078).

The peer in the same run is :class:`BayesianPlattCalibrator` (a two-parameter
map, same data, same sampler), so that the ratio "spline ESS/s : Platt ESS/s"
is comparable between runs on a loaded machine. To measure the code before a
change, run this file with ``PYTHONPATH`` pointing at that code.

Run ``python benchmarks/spline_map.py`` (n=1000, seeds 0-5) or
``python benchmarks/spline_map.py --quick`` (n=300, 2 seeds, 500 + 500 draws).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

# ``summarize_diagnostics`` (the builder's former name) and key access, so that this
# script also runs on the code before issue 11 (to measure "before").
from bayescal.inference.posterior import PosteriorDiagnosticsWarning, summarize_diagnostics
from bayescal.probes.calibration_maps import BayesianPlattCalibrator, BayesianSplineCalibrator


def well_specified(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.02, 0.98, n)
    return s, (rng.random(n) < s).astype(np.int64)


def fit_once(cls, s, y, *, draws, tune, seed) -> dict[str, float]:
    cal = cls(draws=draws, tune=tune, chains=2, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
        start = time.perf_counter()
        cal.fit(s, y)
        seconds = time.perf_counter() - start
    names = [v for v in ("intercept", "coef", "tau", "innovations")
             if v in cal.idata_["posterior"].data_vars]
    diag = summarize_diagnostics(cal.idata_, sampler="nutpie", seconds=seconds,
                                 var_names=names)
    return {
        "rhat": diag["rhat_max"],
        "ess_bulk": diag["ess_bulk_min"],
        "ess_tail": diag["ess_tail_min"],
        "div": diag["divergences"],
        "seconds": seconds,
        "ess_per_s": diag["ess_bulk_min"] / seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n=300, 2 seeds, 500+500 draws")
    parser.add_argument("--n", type=int, default=None)
    parser.add_argument("--seeds", type=int, default=None)
    args = parser.parse_args()
    n = args.n or (300 if args.quick else 1000)
    n_seeds = args.seeds or (2 if args.quick else 6)
    draws = tune = 500 if args.quick else 1000
    print(f"n={n}, 2 chains x {draws} draws ({tune} tune), nutpie; machine possibly loaded")
    # compile both models once so the timed fits measure sampling only
    s0, y0 = well_specified(n, 999)
    for cls in (BayesianPlattCalibrator, BayesianSplineCalibrator):
        fit_once(cls, s0, y0, draws=50, tune=50, seed=0)
    header = f"{'model':<8}{'seed':>5}{'R-hat':>8}{'bulk ESS':>10}{'tail ESS':>10}" \
             f"{'div':>5}{'sec':>7}{'ESS/s':>9}"
    print(header)
    ratios, spline_rows = [], []
    for seed in range(n_seeds):
        s, y = well_specified(n, seed)
        rows = {}
        for name, cls in (("platt", BayesianPlattCalibrator), ("spline", BayesianSplineCalibrator)):
            r = fit_once(cls, s, y, draws=draws, tune=tune, seed=seed)
            rows[name] = r
            print(f"{name:<8}{seed:>5}{r['rhat']:>8.3f}{r['ess_bulk']:>10.0f}"
                  f"{r['ess_tail']:>10.0f}{r['div']:>5}{r['seconds']:>7.1f}{r['ess_per_s']:>9.1f}")
        ratios.append(rows["spline"]["ess_per_s"] / rows["platt"]["ess_per_s"])
        spline_rows.append(rows["spline"])
    ess = [r["ess_bulk"] for r in spline_rows]
    rhat = [r["rhat"] for r in spline_rows]
    print(f"spline: min bulk ESS over seeds {min(ess):.0f} (median {np.median(ess):.0f}), "
          f"max R-hat {max(rhat):.3f}, median ESS/s {np.median([r['ess_per_s'] for r in spline_rows]):.1f}")
    print(f"spline ESS/s relative to Platt ESS/s (same run): median {np.median(ratios):.3f}")


if __name__ == "__main__":
    main()

"""Which NUTS sampler should be the default: sampling cost to a fixed ESS, per sampler.

Run ``python benchmarks/sampler_choice.py`` (``--quick``: the two smaller
sizes only). Issue 15 asks that a second process fitting the same BLR
structure pay at most 3 s before sampling; ``benchmarks/compile_cache.py``
measures that cost (per process, cold and warm disk caches). This script
measures the other half of the choice, the sampling itself, so that the two
together give the total time to a fixed effective sample size.

For each sampler (``--samplers``) one fresh process fits, one after the
other, :class:`~bayescal.probes.logistic.BayesianLogisticRegression` at
every size (n, d) and the Bayesian calibration maps (Platt, beta and spline
maps on n scores), each first with a tiny warm-up fit (compiles the
structure in this process; its wall and CPU time are printed) and then with
the estimators' defaults (2 chains x (1000 tune + 1000 draws), fixed seed).
Printed per fit: the sampling wall time and the process's CPU time during
it, the smallest bulk ESS over the parameters, the seconds per 1000 bulk
ESS (wall / ESS x 1000), and the ratio of that figure to ``nutpie``'s in
the same run. Options:

* ``nutpie``: nutpie on PyTensor's Numba backend (chains are Rust threads);
* ``nutpie-c``: nutpie on callbacks into PyTensor's C backend;
* ``pymc-c``: PyMC's own NUTS with PyTensor's C linker
  (``PYTENSOR_FLAGS=linker=cvm``; chains in forked processes, so its CPU
  column misses the chains: compare its wall time).

Data: ``x ~ N(0, I_d)``, ``y ~ Bernoulli(expit(x beta))`` with
``beta ~ N(0, 4/d I)`` (a signal whose scale does not grow with d); the maps
fit the scores ``expit(x beta)`` of the first column pair against ``y``.
One BLAS thread (the estimators' default).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = textwrap.dedent(
    """
    import json, sys, time, warnings
    import numpy as np
    from scipy.special import expit
    from bayescal.probes.logistic import BayesianLogisticRegression
    from bayescal.probes.calibration_maps import (
        BayesianBetaCalibrator, BayesianPlattCalibrator, BayesianSplineCalibrator)
    from bayescal.inference.posterior import PosteriorDiagnosticsWarning

    sampler = sys.argv[1]
    jobs = json.loads(sys.argv[2])
    MAPS = {"platt": BayesianPlattCalibrator, "beta": BayesianBetaCalibrator,
            "spline": BayesianSplineCalibrator}

    def data(n, d):
        rng = np.random.default_rng(n * 1000 + d)
        x = rng.normal(size=(n, d))
        eta = x @ rng.normal(scale=2.0 / np.sqrt(d), size=d)
        return x, rng.binomial(1, expit(eta)), expit(eta)

    def make(kind, **kw):
        if kind == "blr":
            return BayesianLogisticRegression(sampler=sampler, **kw)
        return MAPS[kind](sampler=sampler, **kw)

    def timed(kind, args, **kw):
        est = make(kind, random_state=0, **kw)
        t, c = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
            est.fit(*args)
        return est, time.perf_counter() - t, time.process_time() - c

    for kind, n, d in jobs:
        x, y, s = data(n, d)
        args = (x, y) if kind == "blr" else (s, y)
        _, warm_s, warm_cpu = timed(kind, args, draws=10, tune=10)
        est, wall, cpu = timed(kind, args)
        diag = est.diagnostics_
        print(json.dumps({"kind": kind, "n": n, "d": d, "warm_s": warm_s,
                          "warm_cpu_s": warm_cpu, "wall_s": wall, "cpu_s": cpu,
                          "ess": float(diag.ess_bulk_min), "rhat": float(diag.rhat_max),
                          "div": int(diag.divergences)}), flush=True)
    """
)

#: Options measured side by side: label -> (estimator ``sampler``, extra PyTensor flags).
OPTIONS = {
    "nutpie": ("nutpie", ""),
    "nutpie-c": ("nutpie-c", ""),
    "pymc-c": ("pymc", "linker=cvm"),
}

BLR_SIZES = [(n, d) for n in (300, 2000, 10000) for d in (5, 20, 50)]
MAP_SIZES = [300, 2000]


def _run(label: str, jobs: list) -> list[dict]:
    sampler, flags = OPTIONS[label]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTENSOR_FLAGS"] = ",".join(p for p in (env.get("PYTENSOR_FLAGS", ""), flags) if p)
    proc = subprocess.Popen([sys.executable, "-c", CHILD, sampler, json.dumps(jobs)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    rows = []
    for line in proc.stdout:
        if line.startswith("{"):
            row = json.loads(line)
            rows.append(row)
            _print_row(label, row, None)
    if proc.wait() != 0:
        raise RuntimeError(f"{label} child failed:\n{proc.stderr.read()[-3000:]}")
    return rows


def _per_kess(row: dict) -> float:
    return row["wall_s"] / max(row["ess"], 1.0) * 1000.0


def _print_row(label: str, row: dict, ratio: float | None) -> None:
    ratio_text = "" if ratio is None else f"{ratio:>8.2f}"
    print(f"{label:<10}{row['kind']:<8}{row['n']:>7}{row['d']:>4}{row['warm_s']:>9.2f}"
          f"{row['warm_cpu_s']:>9.2f}{row['wall_s']:>9.2f}{row['cpu_s']:>9.2f}"
          f"{row['ess']:>8.0f}{row['rhat']:>7.3f}{row['div']:>5}{_per_kess(row):>10.2f}"
          f"{ratio_text}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n in (300, 2000), d in (5, 20)")
    parser.add_argument("--samplers", default=",".join(OPTIONS),
                        help=f"comma-separated, from {sorted(OPTIONS)}")
    parser.add_argument("--only", default="blr,maps", help="blr, maps or both")
    args = parser.parse_args(argv)
    sizes = [s for s in BLR_SIZES if s[0] <= 2000 and s[1] <= 20] if args.quick else BLR_SIZES
    jobs = []
    if "blr" in args.only:
        jobs += [("blr", n, d) for n, d in sizes]
    if "maps" in args.only:
        jobs += [(kind, n, 1) for kind in ("platt", "beta", "spline") for n in MAP_SIZES]
    header = (f"{'sampler':<10}{'model':<8}{'n':>7}{'d':>4}{'warm s':>9}{'warm CPU':>9}"
              f"{'wall s':>9}{'CPU s':>9}{'ESS':>8}{'R-hat':>7}{'div':>5}{'s/1k ESS':>10}")
    load = os.getloadavg()
    print(f"sampling to the defaults (2 x (1000 + 1000)), one BLAS thread; load average "
          f"{load[0]:.1f}/{load[1]:.1f}/{load[2]:.1f} on {os.cpu_count()} CPUs")
    print(header)
    results = {label: _run(label, jobs) for label in args.samplers.split(",")}
    print(f"load average at end {os.getloadavg()[0]:.1f}")
    if "nutpie" in results:
        print("\nratio = s/1k ESS of the sampler / nutpie's (same run)")
        print(header + f"{'ratio':>8}")
        base = {(r["kind"], r["n"], r["d"]): _per_kess(r) for r in results["nutpie"]}
        for label, rows in results.items():
            for row in rows:
                ref = base.get((row["kind"], row["n"], row["d"]))
                _print_row(label, row, None if ref is None else _per_kess(row) / ref)


if __name__ == "__main__":
    main()

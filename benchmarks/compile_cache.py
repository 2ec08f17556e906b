"""Compile once across processes: BLR's time to first draw in two fresh processes.

Run ``python benchmarks/compile_cache.py`` (``--quick``: n=300, d=5). For each
option (``--options``, default all) the script starts two fresh Python
processes one after the other, each fitting the same
:class:`~bayescal.probes.logistic.BayesianLogisticRegression` structure
(2 chains, 20 tuning + 20 draws, so that sampling itself is short), and prints
for each: the import time of numpy/nutpie/PyMC/bayescal (reported apart: it is
PyMC's, not ours), the time from ``fit`` to the start of sampling ("before
draws": graph building, compilation, loading caches), the time to first draw
(import + before draws), and the short sampling that follows; the last two
columns are the process's own CPU time for the import and before draws (less
sensitive to other processes' load than the wall times). Options:

* ``nutpie``: nutpie on PyTensor's Numba backend (bayescal's default);
* ``nutpie-c``: nutpie on PyTensor's C backend (``sampler="nutpie-c"``);
* ``pymc-numba`` / ``pymc-c``: PyMC's own NUTS (``sampler="pymc"``) with
  PyTensor's Numba or C linker (``PYTENSOR_FLAGS=linker=...``); PyMC runs the
  chains in forked processes.

Each option's two processes share on-disk caches in a fresh temporary
directory (the first process starts cold): PyTensor's ``compiledir`` (its
C modules and Numba kernels) and ``NUMBA_CACHE_DIR``. ``--warm`` uses the
user's own caches instead. Target of issue 15: the second process pays at most
3 s before sampling.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = textwrap.dedent(
    """
    import json, sys, time
    start, start_cpu = time.perf_counter(), time.process_time()
    import numpy as np
    import nutpie
    import pymc
    import pymc.sampling.mcmc as mcmc
    from bayescal.probes.logistic import BayesianLogisticRegression
    from bayescal.probes import calibration_maps as maps
    imported, imported_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    spent = {"compile": 0.0, "sampling_start": None, "sampling_start_cpu": None}

    def timed(original, key=None):
        def wrapper(*args, **kwargs):
            if spent["sampling_start"] is None and key == "sample":
                spent["sampling_start"] = time.perf_counter()
                spent["sampling_start_cpu"] = time.process_time()
            t = time.perf_counter()
            out = original(*args, **kwargs)
            if key == "compile":
                spent["compile"] += time.perf_counter() - t
            return out
        return wrapper

    nutpie.compile_pymc_model = timed(nutpie.compile_pymc_model, "compile")
    nutpie.sample = timed(nutpie.sample, "sample")
    for name in ("_sample_many", "_mp_sample"):  # PyMC's loops start after compiling
        setattr(mcmc, name, timed(getattr(mcmc, name), "sample"))
    n, d, sampler, kind = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, d))
    p = 1 / (1 + np.exp(-x @ rng.normal(size=d)))
    y = rng.binomial(1, p)
    make = {"blr": BayesianLogisticRegression, "platt": maps.BayesianPlattCalibrator,
            "beta": maps.BayesianBetaCalibrator, "spline": maps.BayesianSplineCalibrator}[kind]
    t, t_cpu = time.perf_counter(), time.process_time()
    est = make(draws=20, tune=20, chains=2, random_state=0, sampler=sampler)
    est.fit(x if kind == "blr" else p, y)
    end = time.perf_counter()
    before = spent["sampling_start"] - t
    print(json.dumps({"import_s": imported, "compile_s": spent["compile"],
                      "before_s": before, "fit_s": end - t, "import_cpu_s": imported_cpu,
                      "before_cpu_s": spent["sampling_start_cpu"] - t_cpu,
                      "compiled": est.diagnostics_.sampler}))
    """
)


#: Options measured side by side: label -> (BLR ``sampler``, extra PyTensor flags).
OPTIONS = {
    "nutpie": ("nutpie", ""),
    "nutpie-c": ("nutpie-c", ""),
    "pymc-numba": ("pymc", "linker=numba"),
    "pymc-c": ("pymc", "linker=cvm"),
}


def _child(n: int, d: int, sampler: str, kind: str, env: dict[str, str]) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(d), sampler, kind], env=env,
                         capture_output=True, text=True, check=False, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"child process failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n=300, d=5")
    parser.add_argument("--warm", action="store_true", help="use the user's caches")
    parser.add_argument("--options", default=",".join(OPTIONS),
                        help=f"comma-separated, from {sorted(OPTIONS)}")
    parser.add_argument("--model", default="blr", choices=["blr", "platt", "beta", "spline"],
                        help="BLR or a Bayesian calibration map (on n scores)")
    parser.add_argument("--n", type=int, default=None, help="rows (overrides --quick)")
    parser.add_argument("--d", type=int, default=None, help="BLR inputs (overrides --quick)")
    args = parser.parse_args(argv)
    n, d = (300, 5) if args.quick else (1000, 20)
    n, d = args.n or n, (args.d or d) if args.model == "blr" else 1
    print(f"{args.model} n={n} d={d}, 2 chains x (20 tune + 20 draws); caches: "
          f"{'user' if args.warm else 'fresh temporary per option (first process cold)'}; "
          f"load average at start {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'option':<12}{'process':>8}{'import s':>10}{'nutpie compile s':>18}"
          f"{'before draws s':>16}{'first draw s':>14}{'fit s':>8}{'sampling s':>12}"
          f"{'CPU import s':>14}{'CPU before draws s':>20}{'load':>6}")
    for label in args.options.split(","):
        sampler, flags = OPTIONS[label]
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ)
            env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
            parts = [env.get("PYTENSOR_FLAGS", ""), flags]
            if not args.warm:
                env["NUMBA_CACHE_DIR"] = str(Path(tmp) / "numba")
                parts.append(f"compiledir={Path(tmp) / 'pytensor'}")
            env["PYTENSOR_FLAGS"] = ",".join(p for p in parts if p)
            for k in (1, 2):
                r = _child(n, d, sampler, args.model, env)
                first = r["import_s"] + r["before_s"]
                print(f"{label:<12}{k:>8}{r['import_s']:>10.2f}{r['compile_s']:>18.2f}"
                      f"{r['before_s']:>16.2f}{first:>14.2f}{r['fit_s']:>8.2f}"
                      f"{r['fit_s'] - r['before_s']:>12.2f}{r['import_cpu_s']:>14.2f}"
                      f"{r['before_cpu_s']:>20.2f}{os.getloadavg()[0]:>6.1f}")
                sys.stdout.flush()


if __name__ == "__main__":
    main()

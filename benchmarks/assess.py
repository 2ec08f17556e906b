"""``bayescal assess`` on 10^5 rows (one model, with the Bayesian curve) against ``rms::val.prob``.

Both run in the same session on the same file: simulated predictions
``p ~ Beta(2, 3)`` with outcomes from the miscalibrated curve
``logit P(y=1) = -0.2 + 0.8 logit p``. ``bayescal assess`` runs as the command a
user types (a fresh process: imports, numba and PyTensor caches as found, the
Bayesian spline and Platt maps by Laplace, 200 bootstrap resamples, the CORP
test, the HTML page); ``rms::val.prob(p, y, pl=FALSE)`` runs in ``Rscript``, timed
both as a whole process (with R's start-up and ``library(rms)``) and inside R
(``system.time``). Reports wall and CPU seconds (CPU: the child processes'
user + system time), best of ``--repeats``, and the load average.

Run from the repository root: ``python benchmarks/assess.py [--rows 100000] [--repeats 2]``.
Target (issue 23): under 30 s on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit, logit


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    p = rng.beta(2.0, 3.0, args.rows)
    y = (rng.random(args.rows) < expit(-0.2 + 0.8 * logit(p))).astype(int)
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(root))
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "preds.csv"
        pd.DataFrame({"p": p, "y": y}).to_csv(csv, index=False, float_format="%.17g")
        runs = {}
        bayescal_cmd = [sys.executable, "-m", "bayescal.cli", "assess", str(csv), "--proba",
                        "p", "--label", "y", "--out", str(Path(tmp) / "out")]
        runs["bayescal assess (CLI, Bayesian curve, 200 bootstrap)"] = [
            _timed(bayescal_cmd, env)[:2] for _ in range(args.repeats)]
        if shutil.which("Rscript"):
            code = (f"suppressMessages(library(rms)); d <- read.csv('{csv}'); "
                    "t <- system.time(v <- val.prob(d$p, d$y, pl=FALSE)); "
                    "cat(t[['elapsed']], t[['user.self']] + t[['sys.self']], '\\n')")
            whole, inside = [], []
            for _ in range(args.repeats):
                wall, cpu, out = _timed(["Rscript", "-e", code], env)
                whole.append((wall, cpu))
                inside.append(tuple(float(v) for v in out.split()))
            runs["rms::val.prob (Rscript process)"] = whole
            runs["rms::val.prob (inside R, system.time)"] = inside
    load = os.getloadavg()
    print(f"rows: {args.rows}, repeats: {args.repeats}, load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} CPUs")
    print(f"{'run':<58} {'wall s':>8} {'CPU s':>8}")
    for name, values in runs.items():
        wall = min(v[0] for v in values)
        cpu = min(v[1] for v in values)
        print(f"{name:<58} {wall:8.2f} {cpu:8.2f}")


if __name__ == "__main__":
    main()

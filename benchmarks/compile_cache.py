"""Compile once across processes: BLR's time to first draw in two fresh processes.

Run ``python benchmarks/compile_cache.py`` (``--quick``: n=300, d=5). The script
starts two fresh Python processes one after the other, each fitting the same
:class:`~bayescal.probes.logistic.BayesianLogisticRegression` structure
(nutpie, 2 chains, 20 tuning + 20 draws so that sampling itself is short), and
prints for each: the import time of bayescal/PyMC, the time nutpie's
``compile_pymc_model`` took (timed by wrapping it), the fit's wall time, and
the time to first draw (``import + compile``; the remaining sampling of 40
iterations per chain is reported apart).

Both processes share on-disk caches in fresh temporary directories (the first
process starts cold): PyTensor's ``compiledir`` (where its Numba backend keeps
the compiled kernels of the log-density and gradient) and ``NUMBA_CACHE_DIR``.
``--warm`` uses the user's own caches instead. Target of issue 15: the second
process pays at most 3 s before sampling.
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
    start = time.perf_counter()
    import numpy as np
    import nutpie
    import pymc  # noqa: F401
    from bayescal.probes.logistic import BayesianLogisticRegression
    imported = time.perf_counter() - start
    spent = {"compile": 0.0}
    original = nutpie.compile_pymc_model

    def timed(*args, **kwargs):
        t = time.perf_counter()
        out = original(*args, **kwargs)
        spent["compile"] += time.perf_counter() - t
        return out

    nutpie.compile_pymc_model = timed
    n, d = int(sys.argv[1]), int(sys.argv[2])
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, d))
    y = rng.binomial(1, 1 / (1 + np.exp(-x @ rng.normal(size=d))))
    t = time.perf_counter()
    BayesianLogisticRegression(draws=20, tune=20, chains=2, random_state=0).fit(x, y)
    fit = time.perf_counter() - t
    print(json.dumps({"import_s": imported, "compile_s": spent["compile"], "fit_s": fit}))
    """
)


def _child(n: int, d: int, env: dict[str, str]) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(d)], env=env,
                         capture_output=True, text=True, check=False, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"child process failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n=300, d=5")
    parser.add_argument("--warm", action="store_true", help="use the user's caches")
    args = parser.parse_args(argv)
    n, d = (300, 5) if args.quick else (1000, 20)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory() as tmp:
        if not args.warm:
            env["NUMBA_CACHE_DIR"] = str(Path(tmp) / "numba")
            flags = env.get("PYTENSOR_FLAGS", "")
            env["PYTENSOR_FLAGS"] = ",".join(
                f for f in (flags, f"compiledir={Path(tmp) / 'pytensor'}") if f)
        print(f"BLR n={n} d={d}, nutpie, 2 chains x (20 tune + 20 draws); caches: "
              f"{'user' if args.warm else 'fresh temporary (first process cold)'}")
        print(f"{'process':<9}{'import s':>10}{'compile s':>11}{'first draw s':>14}"
              f"{'fit s':>8}{'sampling s':>12}")
        for k in (1, 2):
            r = _child(n, d, env)
            first = r["import_s"] + r["compile_s"]
            print(f"{k:<9}{r['import_s']:>10.2f}{r['compile_s']:>11.2f}{first:>14.2f}"
                  f"{r['fit_s']:>8.2f}{r['fit_s'] - r['compile_s']:>12.2f}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

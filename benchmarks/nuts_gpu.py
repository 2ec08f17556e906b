"""NUTS on the BLR probe on an accelerator: bulk ESS per wall-second against numpyro.

Issue 26 asks that a user with an accelerator run the same probes on it
(``sampler="numpyro"`` / ``"blackjax"``) and that, where a GPU is lent, BLR at n = 10^6 be
measured on it. This benchmark fits one simulated binary data set (d = 20, the simulation of
``benchmarks/nuts_ess.py``) per size, in one process, all methods with the same chains,
draws and tuning steps (4 x (1000 + 1000) by default), on the device JAX finds:

* ``numpyro direct``: the hand-written numpyro model of ``benchmarks/nuts_ess.py`` (the same
  posterior: inputs scaled as bayescal scales them, Cauchy priors 2.5 / 10), the data as
  arguments, compiled once; chains vectorised on the one device (``chain_method=
  "vectorized"``) -- the peer;
* ``bayescal numpyro`` / ``bayescal blackjax``: ``BayesianLogisticRegression(sampler=...)``,
  i.e. PyMC's JAX translation of the model sampled by ``pm.sample(nuts_sampler=...)``; the
  fit includes bayescal's own work (scaling, diagnostics, the posterior container).

Each method fits ``--repeats`` times (different seeds, same data); the first fit pays JAX's
start and compilation and is reported apart; the figure is the best later fit's smallest
bulk ESS (intercept and slopes) per wall-second. Wall time, not CPU time: on an accelerator
the host waits. ``bayescal`` recompiles on every fit (PyMC puts the data into the JAX program
as constants), so its later fits are not compile-free; numpyro direct reuses its program.

Run ``python benchmarks/nuts_gpu.py`` (n = 10^6) or ``--sizes 2000 --draws 200 --tune 200``
for a quick look on a CPU.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from nuts_ess import bayescal_fitter, numpyro_fitter, simulate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--d", type=int, default=20)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--methods", nargs="+",
                        default=["numpyro direct", "bayescal numpyro", "bayescal blackjax"])
    args = parser.parse_args()
    import jax

    jax.config.update("jax_enable_x64", True)  # float64 as PyMC uses
    device = jax.devices()[0]
    print(f"JAX {jax.__version__}, backend {jax.default_backend()}, device {device.device_kind}"
          f" x {jax.local_device_count()}; load average {os.getloadavg()}")
    print(f"d={args.d}, {args.chains} chains x ({args.tune} tune + {args.draws} draws); "
          f"first fit apart, best of fits 2-{args.repeats}")
    fitters = {
        "numpyro direct": lambda: numpyro_fitter(args.draws, args.tune, args.chains,
                                                 chain_method="vectorized"),
        "bayescal numpyro": lambda: bayescal_fitter("numpyro", args.draws, args.tune,
                                                    args.chains),
        "bayescal blackjax": lambda: bayescal_fitter("blackjax", args.draws, args.tune,
                                                     args.chains),
        "bayescal default": lambda: bayescal_fitter(None, args.draws, args.tune, args.chains),
    }
    print(f"{'n':>8} {'method':<30} {'1st wall-s':>10} {'wall-s':>7} {'bulk ESS':>8} "
          f"{'ESS/s':>8} {'vs numpyro':>10}", flush=True)
    for n in args.sizes:
        X, y = simulate(n, args.d, seed=n)
        results = {}
        for name in args.methods:
            fit = fitters[name]()
            rows = []
            for seed in range(args.repeats):
                start = time.perf_counter()
                ess = fit(X, y, seed)
                rows.append((ess, time.perf_counter() - start))
            later = rows[1:] or rows
            ess, wall = max(later, key=lambda r: r[0] / r[1])
            results[name] = ess / wall
            ref = results.get("numpyro direct")
            ratio = ess / wall / ref if ref else float("nan")
            label = f"{name} ({fit.ran})" if getattr(fit, "ran", None) else name
            print(f"{n:>8} {label:<30} {rows[0][1]:10.1f} {wall:7.1f} {ess:8.0f} "
                  f"{ess / wall:8.1f} {ratio:10.2f}", flush=True)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()

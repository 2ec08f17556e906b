"""NUTS on the BLR probe: bulk ESS per CPU-second against numpyro used directly.

Issue 26 asks that bayescal's BLR reach numpyro's bulk ESS per CPU-second at n >= 10^4.
This benchmark fits one simulated binary data set (d = 20) per size, in one process, with the
same chains, draws and tuning steps (2 x (1000 + 1000) by default), one BLAS thread:

* ``bayescal default``: ``BayesianLogisticRegression()``, i.e. ``sampler="auto"``, which
  runs ``"nutpie-glm"`` from 2000 rows (so at both default sizes) and ``"nutpie"`` below;
* ``bayescal nutpie``: ``BayesianLogisticRegression(sampler="nutpie")`` (the default before
  ``"auto"``);
* ``bayescal numpyro``: ``BayesianLogisticRegression(sampler="numpyro")``, i.e. PyMC's JAX
  translation of the same model sampled by ``pm.sample(nuts_sampler="numpyro")``;
* ``bayescal nutpie-glm``: ``BayesianLogisticRegression(sampler="nutpie-glm")``, nutpie's
  NUTS on the NumPy log posterior of :mod:`bayescal.inference.laplace_glm`
  (:mod:`bayescal.inference.nutpie_glm`);
* ``nutpie numpy-grad`` (a prototype, not in the library): nutpie's NUTS on a hand-written
  NumPy log density and gradient of the same posterior (:func:`numpy_gradient_nutpie_fitter`),
  to measure what a cheaper gradient would buy;
* ``numpyro direct``: a hand-written numpyro model of the same posterior (the inputs scaled
  the same way, Cauchy priors of the same scales: 2.5 on the slopes, 10 on the intercept),
  ``numpyro.infer.MCMC(NUTS(model), jit_model_args=True)``, chains one after another
  (``chain_method="sequential"``; on CPU JAX sees one device).

Each method fits three times on the same data with different seeds; the first fit pays any
compilation and is reported apart, the figure is the best of the second and third fits
(bulk ESS per CPU-second: the smallest bulk ESS over the intercept and the 20 slopes,
divided by the CPU time of the fit, all threads of the process counted). The estimators'
fits include their own work beyond sampling (scaling, diagnostics). ``bayescal numpyro``
recompiles on every fit (PyMC puts the data into the JAX program as constants), so its
second fit is not compile-free; the direct numpyro model takes the data as arguments and
reuses its compiled program.

Run ``python benchmarks/nuts_ess.py`` (n = 10^4 and 5x10^4) or ``--sizes 2000 --draws 300``
for a quick look. The load average is printed: on a shared machine CPU-seconds are the
fairer measure, but they still depend on cache and memory-bandwidth contention.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from bayescal.inference.posterior import PosteriorDiagnosticsWarning  # noqa: E402
from bayescal.probes.logistic import BayesianLogisticRegression, scale_inputs  # noqa: E402

PRIOR_SCALE, INTERCEPT_SCALE = 2.5, 10.0


def simulate(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    beta = rng.normal(0.0, 1.0 / np.sqrt(d), size=d)
    p = 1.0 / (1.0 + np.exp(-(X @ beta - 0.5)))
    return X, (rng.random(n) < p).astype(np.int64)


def min_bulk_ess(posterior) -> float:
    """Smallest bulk ESS over ``intercept`` and ``beta`` of a Dataset (chain, draw, ...)."""
    import arviz as az

    ess = az.ess(posterior[["intercept", "beta"]], method="bulk")
    return float(min(np.min(ess[v].values) for v in ("intercept", "beta")))


def bayescal_fitter(sampler: str | None, draws: int, tune: int, chains: int):
    """``BayesianLogisticRegression`` with ``sampler`` (None: the default)."""
    chosen = {} if sampler is None else {"sampler": sampler}

    def fit(X, y, seed):
        est = BayesianLogisticRegression(
            draws=draws, tune=tune, chains=chains, random_state=seed, **chosen
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
            est.fit(X, y)
        fit.ran = est.diagnostics_.sampler  # what sampler="auto" chose
        return min_bulk_ess(est.idata_["posterior"].to_dataset())

    return fit


def numpyro_fitter(draws: int, tune: int, chains: int, chain_method: str = "sequential"):
    """numpyro's NUTS on a hand-written model of the same posterior, the data as arguments
    (``jit_model_args=True``: compiled once, reused across fits); ``chain_method`` as
    numpyro's (``"vectorized"`` on one GPU)."""
    import jax
    import numpyro
    import numpyro.distributions as dist
    import xarray as xr
    from numpyro.infer import MCMC, NUTS

    def model(X, y):
        intercept = numpyro.sample("intercept", dist.Cauchy(0.0, INTERCEPT_SCALE))
        beta = numpyro.sample("beta", dist.Cauchy(0.0, PRIOR_SCALE).expand([X.shape[1]]))
        numpyro.sample("obs", dist.Bernoulli(logits=intercept + X @ beta), obs=y)

    mcmc = MCMC(
        NUTS(model),
        num_warmup=tune,
        num_samples=draws,
        num_chains=chains,
        chain_method=chain_method,
        progress_bar=False,
        jit_model_args=True,
    )

    def fit(X, y, seed):
        center, scale = scale_inputs(X)
        Xs = ((X - center) / scale).astype(np.float64)
        mcmc.run(jax.random.PRNGKey(seed), Xs, y.astype(np.int32))
        samples = mcmc.get_samples(group_by_chain=True)
        posterior = xr.Dataset(
            {
                "intercept": (("chain", "draw"), np.asarray(samples["intercept"])),
                "beta": (("chain", "draw", "feature"), np.asarray(samples["beta"])),
            }
        )
        return min_bulk_ess(posterior)

    return fit


def numpy_gradient_nutpie_fitter(draws: int, tune: int, chains: int):
    """Prototype: nutpie's NUTS on a hand-written NumPy log density and gradient.

    The same posterior as :func:`bayescal.probes.logistic.blr_model` (binary, Cauchy priors),
    with ``eta = c + X beta`` and the gradient ``(sum r, X^T r)``, ``r = y - expit(eta)``: two
    BLAS matrix-vector products and NumPy's vectorised ``exp``/``log1p`` per evaluation,
    called from nutpie's Rust sampler through ``nutpie.compiled_pyfunc.from_pyfunc`` (a Python call per
    gradient; the chains share the GIL outside NumPy's kernels). Not part of the library:
    it measures what a cheaper gradient would buy.
    """
    import nutpie
    from nutpie.compiled_pyfunc import from_pyfunc

    def fit(X, y, seed):
        import xarray as xr

        center, scale = scale_inputs(X)
        Xs = np.ascontiguousarray((X - center) / scale)
        XT = np.ascontiguousarray(Xs.T)
        yf = y.astype(np.float64)
        d = Xs.shape[1]
        scale2 = np.concatenate([[INTERCEPT_SCALE**2], np.full(d, PRIOR_SCALE**2)])

        def make_logp_fn():
            def logp(x, **_):
                eta = Xs @ x[1:]
                eta += x[0]
                e = np.exp(-np.abs(eta))
                value = yf @ eta - np.maximum(eta, 0.0).sum() - np.log1p(e).sum()
                p = np.where(eta >= 0.0, 1.0, e) / (1.0 + e)
                r = yf - p
                grad = np.empty(d + 1)
                grad[0] = r.sum()
                grad[1:] = XT @ r
                value -= np.log1p(x * x / scale2).sum()  # Cauchy priors, up to a constant
                grad -= 2.0 * x / (scale2 + x * x)
                return float(value), grad

            return logp

        def make_expand_fn(*_):
            return lambda x, **__: {"theta": np.asarray(x, dtype=np.float64).copy()}

        def initial_point(seed):
            return np.random.default_rng(seed).uniform(-2.0, 2.0, size=d + 1)

        model = from_pyfunc(
            ndim=d + 1,
            make_logp_fn=make_logp_fn,
            make_expand_fn=make_expand_fn,
            expanded_dtypes=[np.dtype("float64")],
            expanded_shapes=[(d + 1,)],
            expanded_names=["theta"],
            make_initial_point_fn=initial_point,
        )
        idata = nutpie.sample(model, draws=draws, tune=tune, chains=chains, seed=seed,
                              progress_bar=False)
        theta = idata["posterior"]["theta"].values
        posterior = xr.Dataset({
            "intercept": (("chain", "draw"), theta[..., 0]),
            "beta": (("chain", "draw", "feature"), theta[..., 1:]),
        })
        return min_bulk_ess(posterior)

    return fit


def measure(fit, X, y, repeats: int) -> dict[str, float]:
    rows = []
    for seed in range(repeats):
        cpu, wall = time.process_time(), time.perf_counter()
        ess = fit(X, y, seed)
        rows.append((ess, time.process_time() - cpu, time.perf_counter() - wall))
    first = rows[0]
    best = max(rows[1:], key=lambda r: r[0] / r[1])
    return {
        "first_cpu": first[1],
        "ess": best[0],
        "cpu": best[1],
        "wall": best[2],
        "ess_per_cpu_s": best[0] / best[1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000])
    parser.add_argument("--d", type=int, default=20)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--methods", nargs="+",
                        default=["numpyro direct", "bayescal default"])
    args = parser.parse_args()
    import jax

    jax.config.update("jax_enable_x64", True)  # float64 as PyMC and nutpie use
    fitters = {
        "numpyro direct": lambda: numpyro_fitter(args.draws, args.tune, args.chains),
        "bayescal default": lambda: bayescal_fitter(None, args.draws, args.tune, args.chains),
        "bayescal nutpie": lambda: bayescal_fitter("nutpie", args.draws, args.tune, args.chains),
        "bayescal numpyro": lambda: bayescal_fitter(
            "numpyro", args.draws, args.tune, args.chains
        ),
        "bayescal nutpie-glm": lambda: bayescal_fitter(
            "nutpie-glm", args.draws, args.tune, args.chains
        ),
        "nutpie numpy-grad": lambda: numpy_gradient_nutpie_fitter(
            args.draws, args.tune, args.chains
        ),
    }
    print(f"load average at start: {os.getloadavg()}  (CPUs: {os.cpu_count()})")
    print(f"d={args.d}, {args.chains} chains x ({args.tune} tune + {args.draws} draws), "
          "one BLAS thread; best of fits 2-3")
    header = (f"{'n':>7} {'method':<29} {'1st CPU-s':>9} {'CPU-s':>7} {'wall-s':>7} "
              f"{'bulk ESS':>8} {'ESS/CPU-s':>9} {'vs numpyro':>10}")
    print(header)
    for n in args.sizes:
        X, y = simulate(n, args.d, seed=n)
        results = {}
        for name in args.methods:
            fitter = fitters[name]()
            results[name] = r = measure(fitter, X, y, repeats=3)
            if getattr(fitter, "ran", None):
                name = f"{name} ({fitter.ran})"
            ref = results.get("numpyro direct")
            ratio = r["ess_per_cpu_s"] / ref["ess_per_cpu_s"] if ref else float("nan")
            print(f"{n:>7} {name:<29} {r['first_cpu']:9.1f} {r['cpu']:7.1f} {r['wall']:7.1f} "
                  f"{r['ess']:8.0f} {r['ess_per_cpu_s']:9.1f} {ratio:10.2f}", flush=True)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()

"""Does the Bayesian beta map's NUTS posterior mix? Original vs centred intercept.

Run ``python benchmarks/beta_map_mixing.py`` (``--quick``: seeds 0-1 only).
:class:`~bayescal.probes.calibration_maps.BayesianBetaCalibrator` samples its
intercept at the feature mean (``c_0 = c + m^T (a, b)``, the prior kept on
``c``); the "original" rows sample ``c`` itself, as the map did before. Both
are fitted with the defaults (nutpie, 2 chains x (1000 tune + 1000 draws),
``random_state=0``) on the same scores, at ``target_accept`` 0.8 (PyMC's,
the map's default before) and 0.95 (its default now), and each row prints
the smallest bulk ESS, the largest R-hat and the divergences. Score sets:

* ``synthetic``: ``x ~ N(0, 1)``, ``s = expit(beta x)`` with ``beta ~ N(0, 4)``
  drawn from ``default_rng(seed)``, ``y ~ Bernoulli(s)`` (the calibration-map
  data of ``benchmarks/sampler_choice.py``);
* ``narrow``: that script's own n = 300 set (its seed 300001 draws
  ``beta = 0.009``: all scores in [0.495, 0.506]);
* ``gnb``: GaussianNB scores on spambase (``BAYESCAL_DATA``), trained on
  1000 rows and scored on n other rows chosen by ``seed`` (needs the data).

At n = 2000 it also prints the largest gap between the first and last
variants' posterior-mean maps on a grid, against the Monte-Carlo error of
the first's.
"""

from __future__ import annotations

import argparse
import os
import warnings

import numpy as np
from scipy.special import expit


def _synthetic(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 1))
    s = expit(x @ rng.normal(scale=2.0, size=1))
    return s, rng.binomial(1, s)


def _gnb(n: int, seed: int) -> tuple[np.ndarray, np.ndarray] | None:
    from sklearn.naive_bayes import GaussianNB

    from bayescal.datasets import load_dataset

    data_dir = os.environ.get("BAYESCAL_DATA")
    if not data_dir:
        return None
    ds = load_dataset("spambase", data_dir=data_dir)
    X, y = ds.X, ds.y
    idx = np.random.default_rng(seed).permutation(len(y))
    train, cal = idx[:1000], idx[1000:1000 + n]
    s = GaussianNB().fit(X[train], y[train]).predict_proba(X[cal])[:, 1]
    return s, y[cal]


#: (parametrisation, target_accept): the map as it was, the old step size alone, the map now.
VARIANTS = (("original", 0.8), ("original", 0.95), ("centred", 0.95))


def main() -> None:
    from bayescal.inference.diagnostics import PosteriorDiagnosticsWarning
    from bayescal.probes import BayesianBetaCalibrator

    class Original(BayesianBetaCalibrator):
        _centre_features = False

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sets", default="synthetic,narrow,gnb")
    args = parser.parse_args()
    seeds = range(2) if args.quick else range(6)
    sets = args.sets.split(",")
    jobs = [("narrow", 300, -1)] if "narrow" in sets else []
    for kind in ("synthetic", "gnb"):
        if kind in sets:
            jobs += [(kind, n, seed) for n in (300, 2000) for seed in seeds]
    grid = np.linspace(0.01, 0.99, 99)
    head = "".join(f"  {f'{c} {a}: ess rhat div':>24}" for c, a in VARIANTS)
    print(f"{'set':>9} {'n':>5} {'seed':>4}{head}  map gap / MC se")
    for kind, n, seed in jobs:
        if kind == "narrow":
            s, y = _synthetic(300, 300_001)
        elif kind == "synthetic":
            s, y = _synthetic(n, seed)
        else:
            got = _gnb(n, seed)
            if got is None:
                print("gnb: set BAYESCAL_DATA to the data folder")
                continue
            s, y = got
        cols, fits = [], []
        for cls, accept in VARIANTS:
            cls = Original if cls == "original" else BayesianBetaCalibrator
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
                est = cls(target_accept=accept, random_state=0).fit(s, y)
            d = est.diagnostics_
            cols.append(f"{d.ess_bulk_min:8.0f} {d.rhat_max:6.3f} {int(d.divergences):4d}")
            fits.append(est)
        gap = ""
        if n == 2000:
            draws = fits[0]._proba_draws(grid)[..., 1]
            se = draws.std(axis=0) / np.sqrt(max(fits[0].diagnostics_.ess_bulk_min, 1.0))
            diff = np.abs(fits[-1].predict_proba(grid)[:, 1] - draws.mean(axis=0))
            gap = f"{diff.max():.4f} / {se[diff.argmax()]:.4f}"
        row = "".join(f"  {c:>24}" for c in cols)
        print(f"{kind:>9} {n:5d} {seed:4d}{row}  {gap}", flush=True)


if __name__ == "__main__":
    main()

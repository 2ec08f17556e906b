"""Synthetic result cubes with the schema of :mod:`bayescal.cube`, built fast.

Used by the report tests and by ``benchmarks/report.py`` (which imports it from
the repository root). Every dataset is binary with known true probabilities
``p ~ Beta(a, b)`` and labels ``y ~ Bernoulli(p)``; each classifier's raw
score distorts ``p`` on the logit scale and each calibrated scenario undoes
part of the distortion, so the pictures look like a study's. The metrics are
computed from these predictions with :mod:`bayescal.metrics`, so the cube is
consistent. Bayesian classifiers (``bayesian``) get credible intervals in the
raw scenario (Beta quantiles around the probability) and diagnostics.
"""

from __future__ import annotations

import json

import numpy as np
import xarray as xr
from scipy.special import expit, logit
from scipy.stats import beta

from bayescal import metrics as bm
from bayescal.cube import StoreLayout

SPEC_TEXT = """[study]
name = "synthetic <cube> & 'friends'"
seed = 7
[tests]
names = ["cv_ttest"]
baseline = "raw"
"""


def make_cube(
    *,
    datasets: tuple[str, ...] = ("alpha", "beta"),
    classifiers: tuple[str, ...] = ("nb", "blr"),
    scenarios: tuple[str, ...] = ("raw", "platt", "isotonic"),
    folds: int = 5,
    n_samples: int | dict[str, int] = 300,
    bayesian: tuple[str, ...] = ("blr",),
    applicable: dict[str, tuple[str, ...]] | None = None,
    perfect: bool = False,
    failed_diagnostics: bool = False,
    truth: tuple[str, ...] | None = None,
    sampled: bool = True,
    probe: str | None = None,
    seed: int = 0,
) -> xr.DataTree:
    """A cube of ``datasets × classifiers × scenarios × folds``.

    ``perfect=True`` makes every probability equal the true one (a perfectly
    calibrated model); ``failed_diagnostics=True`` gives the Bayesian cells of
    fold 0 an R-hat of 1.2 and 3 divergences. ``applicable`` maps a scenario
    to the classifiers it runs for (default: all). ``n_samples`` may differ
    per dataset (a dict). ``truth`` names the datasets whose true
    probabilities the cube keeps (default: all); the others are "real data":
    no ``p_true`` and NaN ``rmse_true``/``mae_true``. ``sampled=False`` makes
    the Bayesian fits Laplace-like: no R-hat or ESS, no divergences, one
    chain. ``probe`` names the reference probe in the stored layout.
    """
    rng = np.random.default_rng(seed)
    nd, nc, ns = len(datasets), len(classifiers), len(scenarios)
    app = np.ones((nc, ns), dtype=bool)
    for s, scen in enumerate(scenarios):
        if applicable and scen in applicable:
            app[:, s] = [c in applicable[scen] for c in classifiers]
    names = (
        "brier",
        "log_loss",
        "ece",
        "accuracy",
        "rmse_true",
        "mae_true",
        "fit_seconds",
        "predict_seconds",
        "rhat_max",
        "ess_bulk_min",
        "divergences",
    )
    shape = (nd, nc, ns, folds)
    values = {m: np.full(shape, np.nan) for m in names}
    done = np.zeros(shape, dtype=bool)
    tree: dict[str, xr.Dataset] = {}
    for d, name in enumerate(datasets):
        n_samples_d = n_samples[name] if isinstance(n_samples, dict) else n_samples
        known = truth is None or name in truth
        p = rng.beta(1.2, 1.2, size=n_samples_d)
        y = rng.binomial(1, p)
        fold = rng.permutation(np.arange(n_samples_d) % folds)
        proba = np.full((n_samples_d, nc, ns, 2), np.nan)
        interval = np.full((n_samples_d, nc, ns, 2, 2), np.nan)
        for c, clf in enumerate(classifiers):
            sharp = 1.0 if perfect else rng.uniform(1.5, 2.5)
            for s in range(ns):
                if not app[c, s]:
                    continue
                if perfect:
                    q = p.copy()
                else:
                    power = sharp if s == 0 else 1.0 + (sharp - 1.0) * rng.uniform(0.0, 0.3)
                    z = logit(np.clip(p, 1e-6, 1 - 1e-6)) * power
                    q = expit(z + rng.normal(0, 0.15, n_samples_d))
                proba[:, c, s] = np.column_stack([1 - q, q])
                if clf in bayesian and s == 0:
                    k = 40.0
                    a, b = q * k + 1e-3, (1 - q) * k + 1e-3
                    for cls, (lo, hi) in enumerate(
                        (
                            (beta.ppf(0.05, b, a), beta.ppf(0.95, b, a)),
                            (beta.ppf(0.05, a, b), beta.ppf(0.95, a, b)),
                        )
                    ):
                        interval[:, c, s, cls, 0], interval[:, c, s, cls, 1] = lo, hi
                for f in range(folds):
                    t = fold == f
                    P = proba[t, c, s]
                    cell = (d, c, s, f)
                    done[cell] = True
                    values["brier"][cell] = bm.brier_score(y[t], P)
                    values["log_loss"][cell] = bm.log_loss(y[t], P, eps=1e-15)
                    values["ece"][cell] = bm.expected_calibration_error(y[t], P, 10)
                    values["accuracy"][cell] = bm.accuracy(y[t], P)
                    if known:
                        values["rmse_true"][cell] = bm.rmse_true(p[t], P)
                        values["mae_true"][cell] = bm.mae_true(p[t], P)
                    values["fit_seconds"][cell] = rng.uniform(0.01, 0.1)
                    values["predict_seconds"][cell] = rng.uniform(0.001, 0.01)
                    if clf in bayesian and s == 0:
                        bad = failed_diagnostics and f == 0
                        if sampled:
                            values["rhat_max"][cell] = 1.2 if bad else 1.002
                            values["ess_bulk_min"][cell] = 900.0
                        values["divergences"][cell] = 3.0 if bad else 0.0
        pred = xr.Dataset(
            {
                "proba": (("sample", "classifier", "scenario", "class"), proba),
                "y": ("sample", y),
                "fold": ("sample", fold),
            },
            coords={
                "sample": np.arange(n_samples_d),
                "classifier": list(classifiers),
                "scenario": list(scenarios),
                "class": ["0", "1"],
            },
        )
        if known:
            pred["p_true"] = ("sample", p)
        if bayesian:
            pred = pred.assign_coords(bound=["lower", "upper"])
            pred["interval"] = (("sample", "classifier", "scenario", "class", "bound"), interval)
        tree[f"/predictions/{name}"] = pred
    dims = ("dataset", "classifier", "scenario", "fold")
    kinds = ["raw" if s == 0 else "full" for s in range(ns)]
    ds = xr.Dataset(
        {m: (dims, v) for m, v in values.items()},
        coords={
            "dataset": list(datasets),
            "classifier": list(classifiers),
            "scenario": list(scenarios),
            "fold": np.arange(folds),
            "scenario_kind": ("scenario", kinds),
        },
    )
    ds["done"] = (dims, done)
    ds["failed"] = (dims, np.zeros(shape, dtype=bool))
    converged = ~((values["rhat_max"] > 1.01) | (values["divergences"] > 0))
    ds["converged"] = (dims, converged)
    ds["applicable"] = (("classifier", "scenario"), app)
    layout = StoreLayout(
        name="synthetic <cube> & 'friends'", seed=7, spec_text=SPEC_TEXT, spec_hash="0" * 16,
        datasets=tuple(datasets), classifiers=tuple(classifiers), scenarios=tuple(scenarios),
        scenario_kinds=tuple(kinds), applicable=tuple(tuple(map(bool, row)) for row in app),
        repeats=1, folds=folds, has_repeat_dim=False,
        metric_names=("brier", "log_loss", "ece", "accuracy"),
        probe=None if probe is None else classifiers.index(probe),
        probe_scenario=None if probe is None else 0,
        tests=("cv_ttest",), baseline="raw", test_metrics=("brier",))
    tree["/metrics"] = ds
    tree["/"] = xr.Dataset(
        attrs={
            "study": "synthetic <cube> & 'friends'",
            "spec": SPEC_TEXT,
            "spec_hash": "0" * 16,
            "seed": 7,
            "versions": json.dumps({"bayescal": "test", "numpy": np.__version__}),
            "started": "2026-01-01T10:00:00+00:00",
            "finished": "2026-01-01T10:03:25+00:00",
            "cells_done": int(done.sum()),
            "cells_total": int(done.sum()),
            "errors": "{}",
            "layout": layout.to_json(),
        }
    )
    return xr.DataTree.from_dict(tree)


def make_quickstart_cube() -> xr.DataTree:
    """A cube shaped like the quick-start study's (``models/quickstart.toml``), in seconds.

    Two binary datasets of the quick-start's sizes (breast cancer, 569 samples,
    real: no true probabilities; the thesis synthetic set, 300 samples, with
    them), its four classifiers (the Bayesian probe ``blr`` a Laplace fit run
    raw only, with credible intervals and no R-hat or ESS), its five scenarios
    and 5-fold CV: 160 cells, the report's figures and tables of the real
    study.
    """
    calibrated = ("nb", "rf", "lr")
    return make_cube(
        datasets=("breast_cancer", "synthetic"),
        classifiers=("nb", "rf", "lr", "blr"),
        scenarios=("raw", "platt_cv", "isotonic_split", "isotonic_full", "enir_dgg"),
        folds=5,
        n_samples={"breast_cancer": 569, "synthetic": 300},
        bayesian=("blr",),
        applicable={s: calibrated for s in ("platt_cv", "isotonic_split", "isotonic_full",
                                             "enir_dgg")},
        truth=("synthetic",),
        sampled=False,
        probe="blr",
        seed=20240601,
    )

"""A small store written by hand (no study run): 1 dataset, 2 classifiers, 2 scenarios."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pytest

from bayescal.cube import CellResult, CellStore, StoreLayout

LAYOUT = StoreLayout(
    name="hand", seed=1, spec_text="[study]\nseed = 1\n", spec_hash="f" * 64,
    datasets=("toy",), classifiers=("nb", "probe"), scenarios=("raw", "cal"),
    scenario_kinds=("raw", "full"), applicable=((True, True), (True, False)), repeats=1,
    folds=2, has_repeat_dim=False, metric_names=("brier",), probe=1, probe_scenario=0,
    tests=(), baseline=None)


def cell(key, test, seed, *, error="", converged=True) -> CellResult:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, len(test))
    proba = np.column_stack([1 - p, p])
    interval = None
    if key[1] == 1:
        interval = np.stack([np.clip(proba - 0.1, 0, 1), np.clip(proba + 0.1, 0, 1)], axis=-1)
    values = {"brier": float(rng.uniform()), "fit_seconds": 0.1, "predict_seconds": 0.01,
              "rhat_max": 1.5 if not converged else np.nan}
    return CellResult(key, test, proba, interval, values, error=error,
                      traceback="Traceback ...\nRuntimeError: boom\n" if error else "",
                      converged=converged, diagnostic_failures="" if converged else "R-hat")


def fill(store: CellStore, skip: tuple = ()) -> list:
    store.root.mkdir(parents=True, exist_ok=True)
    store.write_meta({"layout": asdict(LAYOUT), "started": "t0", "versions": {}})
    y = np.array([0, 1] * 10)
    fold = (np.arange(20) % 2)[None, :]
    store.write_data("toy", y=y, fold=fold, p_true=None, class_names=("a", "b"))
    keys = [k for k in LAYOUT.cells() if k not in skip]
    for i, key in enumerate(keys):
        store.write_cell(LAYOUT, cell(key, np.flatnonzero(fold[0] == key[4]), i))
    return keys


@pytest.fixture
def store(tmp_path) -> CellStore:
    """A complete store of :data:`LAYOUT`."""
    s = CellStore(tmp_path / "store")
    fill(s)
    return s

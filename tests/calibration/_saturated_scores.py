"""Naive-Bayes scores of spambase, most of them exactly 0 or 1 (shared by tests)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

DATA_DIR = Path(os.environ.get("BAYESCAL_DATA", "/work/shared/data"))
HAVE_SPAMBASE = (DATA_DIR / "spambase.tsv.gz").is_file()


@functools.cache
def spambase_naive_bayes_scores(rows: int = 333, seed: int = 0):
    """Out-of-fold GaussianNB class-1 probabilities of a stratified spambase sample."""
    from sklearn.model_selection import cross_val_predict
    from sklearn.naive_bayes import GaussianNB

    from bayescal.datasets import load_dataset

    data = load_dataset("spambase", DATA_DIR)
    rng = np.random.default_rng(seed)
    keep = np.sort(np.concatenate([
        rng.choice(np.flatnonzero(data.y == c), size=round(rows * np.mean(data.y == c)),
                   replace=False)
        for c in (0, 1)
    ]))
    X, y = data.X[keep], data.y[keep]
    s = cross_val_predict(GaussianNB(), X, y, cv=2, method="predict_proba")[:, 1]
    return s, y

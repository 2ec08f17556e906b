# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Quick start: calibrating a classifier's scores
#
# A tutorial of the core loop of bayescal: load a bundled dataset, get
# cross-validated scores from a classifier, fit several calibrators on one half
# of the scores, and compare them on the other half with proper scoring rules
# (Brier score, log loss) and the expected calibration error, then look at
# reliability diagrams.
#
# Step functions (isotonic, histogram binning, ENIR) can give probability 0 to
# a test row of the positive class; `log_loss` then returns `inf` with a
# warning, so the table passes `eps=1e-15` to clip explicitly.
#
# Figures go to the directory named by the environment variable
# `BAYESCAL_NOTEBOOK_OUT` (a fresh temporary directory when it is unset), never
# into the repository.

# %%
import os
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold, cross_val_predict, train_test_split
from sklearn.naive_bayes import GaussianNB

from bayescal.calibration import (
    BetaCalibrator,
    ENIRCalibrator,
    HistogramBinningCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
)
from bayescal.datasets import list_datasets, load_dataset
from bayescal.metrics import brier_score, expected_calibration_error, log_loss
from bayescal.probes import BBQCalibrator
from bayescal.report import plot_reliability_diagram

OUT = Path(os.environ.get("BAYESCAL_NOTEBOOK_OUT") or tempfile.mkdtemp(prefix="bayescal-nb-"))
OUT.mkdir(parents=True, exist_ok=True)

# %% [markdown]
# ## Data
#
# `list_datasets()` shows the bundled scikit-learn sets (and any file in the
# data directory); `load_dataset` returns a `Dataset` with `X`, integer codes
# `y` and names.

# %%
print(list_datasets().head(8).to_string())
data = load_dataset("breast_cancer")
print(data.name, data.X.shape, "classes:", data.class_names)

# %% [markdown]
# ## Cross-validated scores
#
# Naive Bayes is the textbook example of a badly calibrated classifier: its
# probabilities are pushed towards 0 and 1. Out-of-fold scores from 5-fold CV
# stand in for scores on unseen data.

# %%
cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
scores = cross_val_predict(GaussianNB(), data.X, data.y, cv=cv, method="predict_proba")[:, 1]
s_cal, s_test, y_cal, y_test = train_test_split(
    scores, data.y, test_size=0.5, stratify=data.y, random_state=0
)
print(f"{len(s_cal)} calibration scores, {len(s_test)} test scores")

# %% [markdown]
# ## Calibrators
#
# Every calibrator is a scikit-learn estimator: `fit(scores, y)` then
# `predict_proba(scores)` returns `(n, 2)` rows that sum to 1. `BBQCalibrator`
# (Bayesian binning into quantiles) comes from `bayescal.probes` because it has
# a posterior; it is used here like any other calibrator.

# %%
calibrators = {
    "Platt": PlattCalibrator(),
    "Platt (logit)": PlattCalibrator(input="logit", clip=1e-12),
    "isotonic": IsotonicCalibrator(),
    "beta": BetaCalibrator(clip=1e-12),  # NB scores hit exactly 0 and 1
    "histogram (10 bins)": HistogramBinningCalibrator(n_bins=10),
    "ENIR": ENIRCalibrator(),
    "BBQ": BBQCalibrator(n_draws=200, random_state=0),
}
probabilities = {"uncalibrated": s_test}
for name, calibrator in calibrators.items():
    probabilities[name] = calibrator.fit(s_cal, y_cal).predict_proba(s_test)[:, 1]

rows = []
for name, p in probabilities.items():
    assert np.all((p >= 0) & (p <= 1)), name
    rows.append(
        {
            "method": name,
            "brier": brier_score(y_test, p),
            "log_loss": log_loss(y_test, p, eps=1e-15),
            "ece": expected_calibration_error(y_test, p, n_bins=10),
        }
    )
table = pd.DataFrame(rows).set_index("method")
print(table.round(4).to_string())

# %% [markdown]
# A check that the tutorial still tells the truth: the calibrators fitted on
# held-out scores should lower naive Bayes' log loss (its over-confident
# mistakes cost a lot).

# %%
best = table["log_loss"].drop("uncalibrated").idxmin()
print(
    f"lowest log loss: {best} ({table.loc[best, 'log_loss']:.4f} vs uncalibrated "
    f"{table.loc['uncalibrated', 'log_loss']:.4f})"
)
assert table.loc[best, "log_loss"] < table.loc["uncalibrated", "log_loss"]

# %% [markdown]
# ## Reliability diagrams
#
# Bars are the observed positive rate per score bin, with Wilson intervals;
# the inset histogram counts the scores per bin; the diagonal is perfect
# calibration.

# %%
shown = ["uncalibrated", "Platt", "isotonic", "beta", "ENIR", "BBQ"]
fig, axes = plt.subplots(2, 3, figsize=(12, 8))
for ax, name in zip(axes.ravel(), shown, strict=True):
    plot_reliability_diagram(y_test, probabilities[name], n_bins=10, ax=ax, label=name)
    ax.set_title(f"{name}: ECE {table.loc[name, 'ece']:.3f}")
fig.subplots_adjust(hspace=0.6, bottom=0.15)
figure_path = OUT / "01_reliability_diagrams.png"
fig.savefig(figure_path, dpi=70, bbox_inches="tight")
plt.close(fig)
print("saved", figure_path)
assert figure_path.stat().st_size > 0

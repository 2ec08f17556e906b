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
# # Reproduction: the thesis' Tables 3-5 through `bayescal reproduce`
#
# Alasalmi (2020), *Uncertainty of classification on limited data* (doctoral thesis), §3.3.1:
#
# * **Tables 3-4** (Publication III): naive Bayes raw, and calibrated by isotonic
#   regression tuned on a split of the training data (IR), on DG-generated data and on
#   DGG-generated data, on Mushroom (Table 3) and Biodegradation (Table 4); CR
#   (classification rate), log loss and MSE. Reproduction `seed000_tables3_4`.
# * **Table 5** (Publication IV): the MSE against the true probabilities on the
#   synthetic set, six classifiers, ENIR on a split / on the full training set / on DG
#   / on DGG data, out-of-bag ENIR for RF and Platt scaling for SVM. Reproduction
#   `seed000_table5`.
#
# From a shell (the real data sets come from `BAYESCAL_DATA`, e.g. `../shared/data`):
#
# ```
# bayescal reproduce seed000_tables3_4 [--full]
# bayescal reproduce seed000_table5 [--full]
# ```
#
# This notebook runs both quick sizes, prints the paper beside ours and discusses
# every disagreement.

# %%
import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from bayescal.reproduce import load_reproduction, set_default_data_dir
from bayescal.reproduce.runner import run_reproduction, verdict_section

set_default_data_dir()  # BAYESCAL_DATA, else the shared data beside the repository
out = Path(os.environ.get("BAYESCAL_NOTEBOOK_OUT") or tempfile.mkdtemp()) / "seed000"

# %% [markdown]
# ## Mushroom: naive Bayes over categories
#
# Mushroom's 22 attributes are categories coded as integers (PMLB). A Gaussian naive
# Bayes on those codes treats them as numbers and reached 85.7 % in our earlier
# comparison, against the thesis' 97.4 %. The thesis' naive Bayes models each
# attribute as a categorical distribution; scikit-learn's `CategoricalNB` does (Laplace
# smoothing, alpha = 1). The thesis lists Mushroom with 20 features (its Table 1): the
# constant veil-type and stalk-root (missing in 2480 rows) are dropped. 10-fold CV on
# all 8124 rows:

# %%
from sklearn.model_selection import StratifiedKFold, cross_val_score  # noqa: E402
from sklearn.naive_bayes import CategoricalNB, GaussianNB  # noqa: E402

from bayescal.datasets import load_dataset  # noqa: E402

mush = load_dataset("mushroom")
keep = [j for j, n in enumerate(mush.feature_names) if n not in ("veil-type", "stalk-root")]
X_m, y_m = np.asarray(mush.X), np.asarray(mush.y)
folds = StratifiedKFold(10, shuffle=True, random_state=0)
acc = {
    "GaussianNB, 22 label codes": cross_val_score(GaussianNB(), X_m, y_m, cv=folds).mean(),
    "CategoricalNB, 20 attributes": cross_val_score(
        CategoricalNB(min_categories=12), X_m[:, keep], y_m, cv=folds).mean(),
}
for name, a in acc.items():
    print(f"{name:<30} accuracy {a:.1%}   (thesis 97.4 %)")
assert acc["CategoricalNB, 20 attributes"] > 0.95 > acc["GaussianNB, 22 label codes"]

# %% [markdown]
# ## Tables 3-4, quick size
#
# Quick: Mushroom a stratified 2000 of its 8124 rows, both sets 5-fold CV (full: all
# rows, 10-fold CV; the thesis reports "average results of 10 runs"). The MSE of these
# tables is the thesis' Eq. 10, the squared error summed over both classes (the cube's
# `brier_sum`, twice scikit-learn's binary Brier score): with it our raw Gaussian NB on
# Biodegradation scores 0.56 against the thesis' 0.570, with the binary form 0.28.

# %%
rep34 = load_reproduction("seed000_tables3_4")
lines: list[str] = []
rec34 = run_reproduction(rep34, out / "tables3_4", full=False, n_jobs=2, echo=lines.append,
                         keep_cubes=True)  # Fig. 11 below reuses the Table 3 cells
print("\n".join(lines))
# judged against the paper's numbers and their uncertainty only (reproduction.toml)
assert rec34["verdict"] == "partly reproduced (4 of 10 checks)", rec34["verdict"]
t34 = pd.read_csv(out / "tables3_4" / "comparison.csv")

# %% [markdown]
# ### What differs in Tables 3-4, and why
#
# **Verdict at the quick size: partly reproduced (4 of 10 checks)**, judged against
# the thesis' numbers and their sampling error at its sizes (binomial for CR, a mean of
# bounded per-row losses for MSE and log loss, n = the set's rows under 10-fold CV).
# The orders the thesis separates beyond that error hold for Mushroom (log loss, MSE)
# and Biodegradation's MSE; our log losses are lower throughout (point 3 below), and
# Biodegradation's raw NB rate differs (point 4).
#
# Descriptive figures, measured at full size (all rows, 10-fold CV, 60 s):
#
# | metric | best matched | pairs in order | ours / paper: median [range] |
# | --- | --- | --- | --- |
# | CR | 2/2 | 6/11 (54.5 %) | 0.994 [0.849, 1.009] |
# | Logloss | 1/2 | 9/12 (75.0 %) | 0.281 [0.095, 0.487] |
# | MSE | 1/2 | 11/12 (91.7 %) | 0.823 [0.676, 0.979] |
#
# 1. **Calibration helps, as in the thesis.** On both sets every calibration lowers
#    the log loss and the MSE of raw naive Bayes, and DG/DGG beat IR on a split in MSE
#    on both sets (thesis: both sets too). These are the orders the thesis draws its
#    conclusions from; they hold at both sizes.
# 2. **CR.** The thesis' four classification rates per table lie within 0.3 points
#    (Mushroom 97.1-97.4 %, Biodegradation except raw 83.2-84.7 %); in one 10-fold run
#    on 1055 rows 0.3 points are 3 test rows, so their order is noise: the order check
#    counts only pairs the thesis separates beyond its binomial error. Raw NB on Biodegradation is
#    the exception: ours 71.9 %, the thesis' 84.6 % (see 4).
# 3. **Mushroom: our naive Bayes is better calibrated than the thesis'.** Raw log loss
#    0.115 against 0.359, MSE 0.055 against 0.081, at a slightly lower CR (96.2 % vs
#    97.4 %). Laplace smoothing (alpha = 1) keeps our probabilities away from 0 and 1;
#    an unsmoothed or differently smoothed categorical NB is more confident and
#    more accurate (alpha = 0.5 gives 97.2 %). The thesis' log loss of 0.359 is what
#    2.6 % errors cost at probabilities near 1e-6 (0.026 x 13.8 nats), so its NB made
#    near-certain mistakes where ours does not. Calibrated, ours stays lower (log loss
#    0.05-0.08 vs 0.19-0.38) and the best method differs: the thesis' DG (log loss
#    0.192 vs DGG 0.223), ours DGG (0.054 vs DG 0.071) -- a 0.02-0.03 nat difference
#    on both sides. The thesis' IR log loss above raw (0.376 vs 0.359: zero
#    probabilities from isotonic steps on a small split) is not reproduced: our IR is
#    below raw (0.084 vs 0.115), since our raw NB leaves fewer such errors to expose.
# 4. **Biodegradation raw: the thesis' row cannot be one set of predictions at our
#    clipping.** With CR 84.6 %, at most 15.4 % of rows are misclassified; clipped at
#    1e-15 a row costs at most 34.5 nats if wrong and log 2 if right, so the log loss
#    is at most 5.9 -- the thesis prints 13.77. Its log loss must have been clipped
#    far below 1e-15 (or not at all), which also explains its IR/DG log losses of
#    4.81 and 3.42 against our 0.45 and 0.39 (isotonic maps put exact zeros on some
#    rows). The cell below checks the bound. Our MSE (Eq. 10), which needs no
#    clipping, agrees: 0.558 vs 0.570 raw, 0.238-0.248 vs 0.246-0.278 calibrated.
#    Our raw CR (71.9 %) is far below the thesis' 84.6 %: Gaussian NB on the 41 raw
#    molecular descriptors (heavy-tailed counts); the thesis does not state its
#    preprocessing, and once calibrated our CR (82.7-84.3 %) is the thesis'.
# 5. **Biodegradation best method by log loss and MSE**: the thesis' DGG, ours DG (MSE
#    0.238 vs DGG 0.240, log loss tied at 0.39 at the paper's precision). A 1 %
#    difference; the thesis' DGG advantage (0.246 vs 0.268) is not reproduced.


# %%
def bound_log_loss(cr: float, eps: float = 1e-15) -> float:
    """Largest mean log loss of predictions with classification rate ``cr``."""
    return (1 - cr) * -np.log(eps) + cr * np.log(2)


print(f"largest log loss at CR 84.6 %, clipped at 1e-15: {bound_log_loss(0.846):.2f}"
      " (thesis: 13.77)")
assert bound_log_loss(0.846) < 13.77
for _, r in t34.iterrows():  # every one of our cells respects the bound
    if r["metric"] == "Logloss":
        cr = t34[(t34["metric"] == "CR") & (t34["dataset"] == r["dataset"])
                 & (t34["method"] == r["method"])]["ours"].item() / 100
        assert r["ours"] <= bound_log_loss(cr) + 1e-9, r.to_dict()
# calibration lowers log loss and MSE of raw NB on both sets, in ours as in the thesis
for (metric, dataset), g in t34[t34["metric"] != "CR"].groupby(["metric", "dataset"]):
    ours = g.set_index("method")["ours"]
    assert (ours.drop("raw") < ours["raw"]).all(), (metric, dataset, ours.to_dict())

# %% [markdown]
# ## Table 5, quick size
#
# The synthetic set: the thesis gives no parameters of its three normals (§3.1.1).
# `make_thesis_synthetic` has our own; with them the raw MSEs of our classifiers were
# 1.4-6.7x below the thesis'. Its new `mean_scale` moves the two negative components
# towards the positive one. A small search
# (`models/reproductions/seed000_table5/search_mean_scale.py`: two draws of the set,
# 10-fold CV of NB, SVM, RF and NN, criterion the sum of squared log ratios of our raw
# MSE to the thesis') chose 0.3:
#
# | mean_scale | criterion | NB | SVM | RF | NN (ours / thesis, raw MSE) |
# | --- | --- | --- | --- | --- | --- |
# | 1.0 (before) | 6.55 | 0.70 | 0.27 | 0.34 | 0.15 |
# | 0.7 | 2.42 | 1.61 | 0.50 | 0.55 | 0.31 |
# | 0.5 | 1.07 | 1.69 | 0.72 | 0.76 | 0.46 |
# | 0.4 | 0.72 | 1.46 | 0.77 | 0.76 | 0.52 |
# | **0.3** | **0.53** | 1.13 | 0.68 | 0.89 | 0.56 |
# | 0.2 | 0.81 | 0.85 | 0.51 | 0.97 | 0.56 |
#
# No single scale matches all four: our NN stays at about half the thesis' error at
# every scale, NB rises above it as the classes overlap more.
#
# Quick: 3-fold CV, 200 DG/DGG samples in groups of 4 (full: 10-fold, 5000 in groups
# of 100), RF with 50 trees (500), NN with at most 500 epochs (2000), BLR by a Laplace
# approximation (NUTS).

# %%
rep5 = load_reproduction("seed000_table5")
lines = []
rec5 = run_reproduction(rep5, out / "table5", full=False, n_jobs=2, echo=lines.append)
print("\n".join(lines))
assert rec5["verdict"] == "partly reproduced (1 of 2 checks)", rec5["verdict"]
t5 = pd.read_csv(out / "table5" / "comparison.csv")
print(t5.pivot_table(index="classifier", columns="method", values=["paper", "ours"])
      .round(3).to_string())

# %% [markdown]
# ### What differs in Table 5, and why
#
# **Verdict at the quick size: partly reproduced (1 of 2 checks).** The order check
# holds (31 of the 32 pairs the thesis separates beyond its uncertainty, se = MSE x
# sqrt(2/200) for 200 rows); the values do not: our MSEs are about half the thesis'
# (the synthetic generator's parameters are not in the thesis; see the search below).
#
# Descriptive figures, quick size, measured: best method matched in 4 of 6 rows, 42 of 52 ordered pairs
# (80.8 %), ours / paper median 0.61 [0.25, 2.17]. Full size (`--full`: 10-fold CV,
# 5000 DG/DGG samples in groups of 100, RF 500 trees, NN up to 2000 epochs, BLR by
# NUTS; 1080 CPU-s), measured: best matched in 5 of 6 rows, 44 of 52 pairs (84.6 %),
# median 0.50 [0.23, 1.66]. Full-size MSEs (ours / thesis): RF raw 0.041 / 0.052,
# split 0.034 / 0.088, E.full 0.153 / 0.092, DG 0.027 / 0.041, DGG 0.027 / 0.039,
# OOB 0.027 / 0.041; NN raw 0.020 / 0.047, split 0.032 / 0.106, E.full 0.037 / 0.053,
# DG 0.019 / 0.039, DGG 0.019 / 0.039. The eight pairs out of order at full size: NB
# four (item 2), RF raw vs split (with 500 trees and 162 training rows ENIR on a 30 %
# split lowers RF's error, 0.041 to 0.034; the thesis' split made it worse, 0.052 to
# 0.088, and so does our quick size with 50 trees and 3 folds -- which way the split
# goes depends on how many rows the forest loses to it), RF DG vs DGG (0.0267 against
# 0.0269: a tie at the printed precision; the thesis 0.041 / 0.039), NN split vs
# E.full (ours split better), SVM E.full vs Platt split (0.035 / 0.031; the thesis
# 0.064 / 0.074).
#
# 1. **The thesis' conclusions that hold here.** ENIR on a split is worse than raw for
#    SVM, RF and NN, and ENIR on the full training set is worse for SVM, NN and -- by
#    far -- RF (0.200: a forest fits its own training rows almost perfectly, so the
#    calibrator learns that its scores are certain; the thesis' 0.092 is its worst RF
#    cell too). DG and DGG lower RF's MSE (0.034 / 0.030 against 0.051); out-of-bag
#    ENIR lowers it as well (0.027; thesis 0.041, "not significant"). Platt scaling on
#    a split or on the full set makes SVM worse (0.037, 0.035 against 0.029), as in the
#    thesis (0.074, 0.053 against 0.039). SVM with DG/DGG stays near raw.
# 2. **Naive Bayes (rows disagree on the best method).** The thesis' NB gains nothing
#    from calibration (DG 0.071 vs raw 0.072); ours gains from every ENIR variant and
#    most from ENIR on the full training set (0.028 vs raw 0.053). Our NB's error on
#    this set is mostly a monotone distortion (Gaussian class densities on skewed
#    derived features), which a monotone map removes; the thesis' NB "was not flexible
#    enough to model the data", i.e. its error was not monotone in the score. Which of
#    the two the thesis' unknown generator produced cannot be recovered from the table.
# 3. **NN (best method disagrees at the printed precision at quick size; matches at
#    full size).** Quick: ours DGG 0.017 against raw 0.018, a tie in effect; full: DG
#    0.0194 against raw 0.0196; the thesis has DG = DGG 0.039 against raw 0.047. Our NN is
#    already at half the thesis' raw error at every mean_scale searched (see the search
#    table), which leaves DG/DGG less to fix.
# 4. **The Bayesian rows.** BLR 0.016 against the thesis' 0.063, GPC 0.017 against
#    0.041: on our set a linear logistic model in the six derived features is close to
#    the truth, on the thesis' it was not (it ranks BLR with NB). With one generator
#    parameter we cannot make logistic regression misspecified while keeping the
#    other classifiers' raw errors near the thesis'; the ratio range (0.25-2.17)
#    comes from these rows and from RF's E.full.
# 5. **Quick against full settings.** The quick size trains on 2/3 of 200 rows (full:
#    9/10) and generates 200 DG samples (full: 5000); the thesis' orders above are the
#    ones its text draws conclusions from, and they hold at this size.

# %%
row = t5.set_index(["classifier", "method"])["ours"]
assert row["rf", "enir_full"] > row["rf", "raw"] and row["rf", "enir_split"] > row["rf", "raw"]
assert row["rf", "enir_dgg"] < row["rf", "raw"] and row["rf", "enir_dg"] < row["rf", "raw"]
assert row["svm", "platt_split"] > row["svm", "raw"] < row["svm", "platt_full"]
for clf in ("svm", "nn"):
    assert row[clf, "enir_split"] > row[clf, "raw"] and row[clf, "enir_full"] > row[clf, "raw"]

# %%
print(json.dumps({k: {"verdict": v["verdict"], "failing checks": v["failing_checks"]}
                  for k, v in {"tables3_4": rec34, "table5": rec5}.items()}, indent=1))

# %% [markdown]
# ## Fig. 11: the calibration plots behind Table 3
#
# The thesis shows the reliability curves of the Table 3 cells (naive Bayes on
# Mushroom) and states what they show: raw "differed from perfect calibration ... by
# a clear margin", isotonic regression on a split "a clear improvement", DGG improved
# "clearly compared to raw", and "DG was closest to the optimum by visual inspection".
# The reproduction `seed000_fig11` reruns the Table 3 cells, redraws the four curves
# and checks each statement on their expected calibration errors (how the words are
# read -- a clear margin: ECE at least 0.05; clearly better: at least 25 % lower -- is
# stated in its `paper.csv`).

# %%
import shutil  # noqa: E402

rep11 = load_reproduction("seed000_fig11")
# the same spec's cells, already computed above: the block resumes them, computes nothing
shutil.copytree(out / "tables3_4" / "cube_table3", out / "fig11" / "block_fig11" / "cube",
                dirs_exist_ok=True)
lines11: list[str] = []
rec11 = run_reproduction(rep11, out / "fig11", n_jobs=2, echo=lines11.append)
print("\n".join(verdict_section(lines11)))
assert rec11["verdict"] == "reproduced", rec11["verdict"]
print(pd.read_csv(out / "fig11" / "block_fig11" / "ece.csv", index_col=0).round(4).to_string())

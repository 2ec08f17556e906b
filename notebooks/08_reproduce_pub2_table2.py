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
# # Reproduction: Publication II Table 2, confidence maps for incomplete data
#
# Alasalmi (2020), *Uncertainty of classification on limited data* (§3.2, Fig. 7), estimates how likely each
# prediction of a classifier on incomplete data is to be right: naive Bayes on `m`
# multiple imputations, Rubin's rules for the total uncertainty `T` of each prediction
# (0/1-loss between variance), and a support vector regression `f(T) = CR` from
# uncertainty to classification rate trained by Monte-Carlo cross-validation
# (`bayescal.missing.ConfidenceMap`). Table 2 (from Publication II) checks the
# predicted classification rate of test rows against the true one with a linear
# model -- intercept, slope, R^2 and residual standard error sigma -- on Mushroom with
# 25/50/75 % and Iris and Wine with 50 % of the feature values missing completely
# at random. The registered reproduction is `models/reproductions/pub2_table2/`:
#
# ```
# bayescal reproduce pub2_table2          # quick size
# bayescal reproduce pub2_table2 --full   # every Mushroom row, m = 10, two 3-fold passes
# ```
#
# The paper gives neither its test protocol nor its imputation models nor how it
# grouped test rows; ours (module `bayescal.reproduce.confidence_maps`):
#
# * the MCAR cells are removed once per data set (`add_missing`), then repeated
#   stratified 3-fold cross-validation: a confidence map is fitted on the training
#   folds and predicts each test row's classification rate;
# * Iris and Wine (continuous): Gaussian naive Bayes, chained-equation imputation
#   (scikit-learn's `IterativeImputer(sample_posterior=True)`, a stochastic
#   regression imputer as §2.2.2 describes); Mushroom (22 categorical attributes):
#   categorical naive Bayes -- the thesis' naive Bayes treated categories as
#   categories -- and random hot-deck draws from each column's observed codes
#   (`HotDeckImputer`), which keep every imputed value a valid category;
# * the pooled test rows are sorted by predicted rate and averaged in equal-count
#   groups (8 in the quick size, 20 in the full), and the line
#   *true = intercept + slope x predicted* is fitted to the groups.
#
# The verdict is judged against the uncertainty of the paper's own lines: it prints
# no standard errors, so they follow from its R^2 and sigma with k = 20 points per
# line (an assumption, stated in `reproduction.toml`): se(slope) 0.03-0.05, se(R^2)
# 0.006-0.014, se(sigma) about 0.003. A value agrees within 2 x sqrt(2) of them.
#
# **Verdict at the quick size: not reproduced (0 of 4 checks).** Mushroom's lines
# agree (slope within 0.06 of the paper's, R^2 and sigma close); Iris and Wine do
# not: at the quick size their lines rest on 8 groups of about 20 test rows, so their
# R^2 falls to 0.67-0.84 against the paper's 0.97-0.99 (disagreement 1 below), and
# with two of five sets off no metric reaches 90 % of its values. The order of the
# data sets is never checked: the paper's five lines do not differ beyond their own
# uncertainty.

# %%
import os
import tempfile
from pathlib import Path

import pandas as pd

from bayescal.reproduce import load_reproduction
from bayescal.reproduce.runner import run_reproduction, verdict_section
from bayescal.reproduce.confidence_maps import QUICK, regression_line

out = Path(os.environ.get("BAYESCAL_NOTEBOOK_OUT") or tempfile.mkdtemp()) / "pub2"
rep = load_reproduction("pub2_table2")
print(rep.title, "--", rep.source, rep.tables)
lines = []
record = run_reproduction(rep, out, full=False, n_jobs=2, echo=lines.append)
print("\n".join(verdict_section(lines)))  # the checks and the verdict
# judged against the paper's numbers and their uncertainty only (reproduction.toml)
assert record["verdict"] == "not reproduced", record["verdict"]

# %% [markdown]
# ## Side by side

# %%
table = pd.read_csv(out / "comparison.csv")
wide = table.pivot_table(index="method", columns="metric", values=["paper", "ours"])
wide = wide.reindex(columns=["intercept", "slope", "R2", "sigma"], level=1)
print(wide.round(4).to_string())
print("figure:", record["figures"])

# %% [markdown]
# ## Disagreement 1: Iris and Wine are noisier than the paper's
#
# On Mushroom (8124 rows; 2000 in the quick size) our lines are close to the
# paper's: slopes within 0.1 of 1, R^2 0.97-0.99, sigma 0.015-0.03 (the paper:
# 0.94-0.98, 0.97-0.98, 0.015-0.023). On Iris (150 rows) and Wine (178) our R^2 is lower and sigma higher.
# The cause is the number of test rows per regression point: a group of `g` rows
# with true rate `p` has a binomial standard error `sqrt(p (1 - p) / g)`, which for
# the quick size's groups of about 19 rows at p = 0.85 is 0.08 -- the size of our
# sigma. The paper's sigma of 0.024 on Iris needs groups of ~200 rows, i.e. it
# pooled many more test predictions than one pass over 150 rows gives (its protocol
# is not stated). The full size pools two passes into 20 groups and does not remove
# this either; it is a property of the data sets' size, not of the method.

# %%
groups = pd.read_csv(out / "block_nb_mcar" / "groups.csv")
n_rows = {"mushroom": QUICK.max_rows, "iris": 150, "wine": 178}
for label, g in groups.groupby("method", sort=False):
    size = n_rows[label.split("_")[0]] * QUICK.cv_repeats / len(g)
    p = g["true_rate"].mean()
    print(f"{label:16s} {len(g)} groups of ~{size:.0f} test rows; binomial s.e. at the "
          f"mean rate {p:.2f}: {(p * (1 - p) / size) ** 0.5:.3f}")

# %% [markdown]
# ## Disagreement 2: the direction of the regression
#
# The caption reads "predicted versus true classification rate" without saying
# which is the response. We regress the true rate on the predicted one: the groups
# are formed on the predicted rate, so the binomial noise of a group is in the
# response, where least squares leaves the slope unbiased. The two directions'
# slopes multiply to R^2, so they differ only where R^2 is far from 1 -- on our
# Iris and Wine, where neither direction gives the paper's slope near 1 (for Wine
# predicted-on-true happens to be closer). With R^2 near 0.97 as in the paper, the
# direction would change a slope by at most 3 %: the paper's table cannot tell us
# which it used, and our Mushroom lines are near 1 either way.

# %%
rows = []
for label, g in groups.groupby("method", sort=False):
    ours = regression_line(g["predicted"], g["true_rate"])
    other = regression_line(g["true_rate"], g["predicted"])
    assert abs(ours["slope"] * other["slope"] - ours["R2"]) < 1e-9  # b_yx b_xy = r^2
    rows.append({"method": label, "slope (true on predicted)": ours["slope"],
                 "slope (predicted on true)": other["slope"], "R2": ours["R2"]})
directions = pd.DataFrame(rows).set_index("method").round(3)
print(directions.to_string())

# %% [markdown]
# ## Disagreement 3: the ranking of the data sets
#
# The paper's five lines are all near the ideal and close to each other (slopes
# 0.94-1.11, R^2 0.97-0.99, sigma 0.015-0.023), so its ranking of the data sets is
# decided by differences smaller than their own uncertainty: the verdict has no
# order check for Table 2. What is robust, and agrees, is that the Mushroom lines are nearly
# ideal at every missing share, and that Iris and Wine are the noisier data sets by
# sigma.

# %%
mine = table.pivot_table(index="method", columns="metric", values="ours")
assert (mine.loc[mine.index.str.startswith("mushroom"), "slope"] - 1).abs().max() < 0.2
assert mine.loc[mine.index.str.startswith("mushroom"), "R2"].min() > 0.9
assert mine["sigma"].idxmax() in ("iris_mcar50", "wine_mcar50")

# %% [markdown]
# ## Summary
#
# * Mushroom at 25/50/75 % MCAR: the confidence map's predicted rates fall on the
#   ideal line as in the paper (slope near 1, R^2 near 0.98, sigma near 0.02).
# * Iris and Wine: the method works (positive slopes, predicted rates track true
#   ones), but with 150 and 178 rows our regression points are noisier than the
#   paper's, whose test protocol must have pooled many more predictions.
# * Full size (`--full`, 1032 s on the loaded machine): Mushroom slopes 0.99-1.07,
#   R^2 0.98-0.99, sigma 0.013-0.015; Iris and Wine slopes 1.03 and 1.28, R^2 0.83
#   and 0.91, sigma 0.096 and 0.046 (the paper: 0.024 and 0.023). Median ratio
#   ours/paper: slope 1.05, R^2 1.01, sigma 0.97; pairs of data sets in the paper's
#   order 8, 7, 4 and 7 of 10 (intercept, slope, R^2, sigma).
# * The regression is true-on-predicted; the caption does not fix the direction,
#   which matters only where R^2 is far from 1 (our Iris and Wine).

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
# # Reproduction: boundary uncertainty (Proposal 2), Figs. 6, 9, 11 and 14 through `bayescal reproduce`
#
# The boundary-uncertainty paper (*Proposal 2*: classifier selection without resampling; the source text names no authors) proposes *boundary uncertainty* `U` ("Proposal 2",
# §4): a classifier status is good when the true class posteriors are equal along
# its decision boundary, and `U` is estimated from the training set alone.
# `models/reproductions/seed003_figs6_11_14/` reruns its Section 6 figures with
# `bayescal.selection` (the estimator) and `bayescal.reproduce.boundary_figures`
# (the sweeps):
#
# * **Fig. 6** -- an RBF SVM's `γ` over the paper's grid 2^-15 ... 2^15 on the GMM
#   set: `U_tr` (training set), `U_te` (a large test set), the test error `L_te`,
#   the training, 75/25 hold-out and stratified CV errors; Panels 1bis/3bis
#   without the perturbed set;
# * **Fig. 11** -- the same without the perturbed training set (Algorithm 1), on the
#   GMM set and Breast Cancer (WDBC, one of the paper's Fig. 8/11 sets);
# * **Fig. 14** -- well separated classes (GMM_separable): Eq. 39 gives `U_max`;
# * **Fig. 9** -- MLP early stopping (full size only). Issue 14 calls this "Fig. 14";
#   in the paper Fig. 14 is the separable-classes figure, so both are here.
#
# ```
# bayescal reproduce seed003_figs6_11_14          # quick size (Figs. 6, 11, 14)
# bayescal reproduce seed003_figs6_11_14 --full   # + Fig. 9; the paper's full grid
# ```
#
# **What the paper gives to compare with.** The text prints no number for these
# figures, and the figure images are not in the seed. `paper.csv` therefore holds
# the *statements the text makes* about each figure, quoted and citing the section,
# each with the figure we measure and when the statement holds (`holds_if`): e.g.
# "the blue and black curves in Fig. 6 are nearly identical" holds when the Spearman
# correlation of `U_tr` and `U_te` over the grid is at least 0.9 and their mean
# distance at most 0.05 (readings of the words, stated); "hitting a minimum for the
# same Λ" holds when the test error at `U`'s optimum exceeds the smallest on the grid
# by no more than the binomial error at the paper's 10 000 test points (8.5 %). Each
# statement is one check: it holds or it does not, and the measured figure is shown.
#
# **Verdict at the quick size: partly reproduced (8 of 13 checks).** What does not
# hold: `U_tr` and `U_te` are not "nearly identical" in level or rank (Spearman 0.80,
# mean distance 0.086, below), the CV error at `U_tr`'s optimum on the quick grid's
# factor-8 steps (GMM 1.29, Breast Cancer 1.79), and `U_tr`'s optimum on
# GMM_separable covers 64 % of the grid, not "sharply" one status.

# %%
import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from bayescal.datasets import make_gmm
from bayescal.reproduce import load_reproduction
from bayescal.reproduce.runner import run_reproduction, verdict_section
from bayescal.selection import BoundaryUncertaintyEstimator

out = Path(os.environ.get("BAYESCAL_NOTEBOOK_OUT") or tempfile.mkdtemp()) / "seed003"
rep = load_reproduction("seed003_figs6_11_14")
print(rep.title, "--", rep.source, rep.tables, rep.figures)
lines = []
record = run_reproduction(rep, out, full=False, n_jobs=2, echo=lines.append)
print("\n".join(verdict_section(lines)))  # the checks and the verdict
# judged against the paper's numbers and their uncertainty only (reproduction.toml)
assert record["verdict"] == "partly reproduced (8 of 13 checks)", record["verdict"]

# %% [markdown]
# ## The claims side by side (quick size)

# %%
table = pd.read_csv(out / "comparison.csv")
print(table[["block", "dataset", "method", "metric", "paper", "ours"]].round(3).to_string())

# %% [markdown]
# ## Fig. 6: `U_tr`, `U_te` and the errors over `γ`
#
# The quick size has 300 training and 1 500 test points and every third power of
# two; the full size 1 000 and 10 000 points and the paper's 31 values (the paper's
# GMM sizes are in its Table 2, which is not in the seed).

# %%
sweep = pd.read_csv(out / "block_fig6" / "fig6_sweep.csv")
sweep["log2_gamma"] = np.log2(sweep["gamma"]).round().astype(int)
cols = ["log2_gamma", "U_tr", "U_te", "U_tr_naive", "L_tr", "L_HO", "L_val", "L_te"]
print(sweep[cols].round(3).to_string(index=False))
rho_after = spearmanr(sweep["U_tr"], sweep["U_te"]).statistic
print(f"Spearman(U_tr, U_te) over the grid: {rho_after:.2f}; "
      f"without the perturbed set: {spearmanr(sweep['U_tr_naive'], sweep['U_te']).statistic:.2f}")
assert rho_after > 0.6

# %% [markdown]
# ## The Spearman 0.37 finding
#
# Notebook 04 measured Spearman(`U_tr`, `U_te`) = 0.37 where the paper's Panel 3
# shows near-identical curves. We read the paper's definition again against
# `bayescal/selection/boundary.py`:
#
# * Eq. 27: counts of the *given* labels of the cluster `N^M(x)` (the point and its
#   `M - 1` nearest training points, Eq. 26), each weighted by the kernel at
#   `0 - f(x̃')` -- `f` at the **perturbed** member -- as ours.
# * Eq. 32, Silverman's bandwidth over the cluster's perturbed `f` values; `h = 0`
#   gives zero counts (§4.4.2) -- as ours. (The typeset Eq. 32 puts `M^-1/5` inside
#   the `min`, on the IQR term only; we keep the textbook rule the text cites, and
#   measured on one GMM draw that the typeset form moves `U` by a few hundredths.)
# * Eqs. 36-40: triangle uncertainty of `P̂ = k^m / k`, `U_min` where the top pair is
#   not the prototype classifier's, separable cases by the error on the perturbed
#   set, pairs weighted by `P̂(C_kl)` -- as ours. The "on-boundary cluster contained
#   in [-h_x; h_x]" (§4.4.1) keeps our compact-support (Epanechnikov) kernel.
# * `U_te`: "using the testing set as input of Algorithm 3" (§6.4.1), i.e. clusters,
#   perturbation and prototypes of the test set, scoring the classifier trained on
#   the training set -- as ours.
# * **Algorithm 1** (a figure missing from the seed): `x̃ = x + r_x ||x - x(1)||`
#   (§4.5) with the perturbation "uniform across the features" (§4.2.2). Ours
#   divided `r_x ~ U[-1, 1]^d` by `√d`, a factor the paper does not have; it is
#   removed (`perturbation_scale=1`, the old behaviour is `1/√d`).
#
# The cell below measures that change on this quick size's data and grid (with
# `d = 2` the old draws are the new ones times `1/√2`).

# %%
X, y, _ = make_gmm("overlap", 300, random_state=3)
X_te, y_te, _ = make_gmm("overlap", 1500, random_state=103)
scaler = StandardScaler().fit(X)
X, X_te = scaler.transform(X), scaler.transform(X_te)
models = [SVC(gamma=g).fit(X, y) for g in sweep["gamma"]]


def u_curve(Xs: np.ndarray, ys: np.ndarray, scale: float, seed: int = 3) -> np.ndarray:
    est = BoundaryUncertaintyEstimator(perturbation_scale=scale, random_state=seed).fit(Xs, ys)
    return np.array([est.score(m) for m in models])


def u_curves(scale: float) -> tuple[np.ndarray, np.ndarray]:
    return u_curve(X, y, scale), u_curve(X_te, y_te, scale)


before_tr, before_te = u_curves(1 / np.sqrt(2))
after_tr, after_te = u_curves(1.0)
np.testing.assert_allclose(after_tr, sweep["U_tr"])  # the block's numbers
rho = {k: spearmanr(a, b).statistic for k, (a, b) in
       {"before (1/sqrt d)": (before_tr, before_te), "after": (after_tr, after_te)}.items()}
print({k: round(float(v), 2) for k, v in rho.items()})
assert min(rho.values()) > 0.6  # both high on the paper's grid; they differ by noise

# %% [markdown]
# Measured once more widely (three GMM training draws, seeds 0-2, with test draws
# 100-102 and the estimator seeded alike; `SVC(C=1)`), Spearman(`U_tr`, `U_te`), mean
# over the draws:
#
# | training / test points | grid | before (`1/√d`) | after |
# | --- | --- | --- | --- |
# | 400 / 4 000 | notebook 04's six values 2^-6 ... 2^6 | 0.49 | 0.49 |
# | 400 / 4 000 | the paper's 31 values 2^-15 ... 2^15 | 0.71 | 0.69 |
# | 1 000 / 10 000 | six values | 0.20 | 0.07 |
# | 1 000 / 10 000 | the paper's 31 values | 0.67 | 0.58 |
#
# and on this quick size's single draw (cell above) 0.89 before and 0.80 after; the
# full size of this reproduction (1 000 / 10 000, the paper's grid, seed 3) reaches
# 0.87 after, the favourable end of a wide spread (seeds 0-2 at the same size: 0.72,
# 0.55, 0.47). The change follows the text's formula (no `√d` in it) and is kept for
# that reason, but it does **not** raise the Spearman: on average it lowers it by
# 0-0.13, less than the draw-to-draw spread. The perturbation's `√d` was not the
# cause, and `perturbation_scale=1/np.sqrt(d)` restores the old amplitude.
#
# **What moves the Spearman is the grid, then the draw.** On six values, four of
# them within a factor 8 of the best `γ`, `U_tr` and `U_te` differ by about their own
# noise and their ranks are nearly a coin toss (-0.26 to 0.66 over draws); over the
# paper's grid both curves share the flat, low plateau of too wide kernels and the
# collapse of too narrow ones, and the ranks largely agree (0.47 to 0.90 over draws).
# The 0.37 of notebook 04 is mostly its six-value grid; what is left is the noise of
# one draw and the systematic excess below.
#
# What does remain different from "nearly identical" is measured below: the noise of
# `U_tr` between perturbation draws, and a systematic excess of `U_tr` over `U_te`
# for moderately over-fitted kernels.

# %%
draws = np.array([u_curve(X, y, 1.0, seed=s) for s in range(4)])
noise = draws.std(axis=0, ddof=1)
gap = after_tr - after_te
print(pd.DataFrame({"log2_gamma": sweep["log2_gamma"], "U_tr": after_tr.round(3),
                    "U_te": after_te.round(3), "U_tr - U_te": gap.round(3),
                    "sd of U_tr over 4 perturbation draws": noise.round(3)}).to_string(index=False))
over = (sweep["gamma"] >= 2**3) & (sweep["gamma"] <= 2**9)
print(f"mean U_tr - U_te for 2^3 <= γ <= 2^9: {gap[over].mean():.3f}; "
      f"elsewhere {gap[~over].mean():.3f}; median sd over draws {np.median(noise):.3f}")
assert gap[over].mean() > gap[~over].mean()

# %% [markdown]
# **Remaining difference, and why.** For `γ` between about 2^3 and 2^9 (kernels
# narrower than the structure of the classes' overlap, wider than the spacing of the
# training points), `U_tr` stays above `U_te` by 0.1-0.25 (full size: 0.21 at
# 2^5, 0.23 at 2^7 and 2^8, mean 0.14 over 2^3-2^9). There each training point
# still lies inside its own kernel bump, and a perturbation of at most one
# nearest-neighbour distance does not leave it: the covariate shift of §4.2.2 is
# reduced (`U_tr_naive` is higher still and climbs back to about 1 for the
# narrowest kernels) but not removed. Elsewhere the two differ by about their own
# noise (the standard deviation over perturbation draws above). The paper's Fig. 11 discussion admits
# the same for Spambase ("may call for refinements of the definition of T̃
# (Algorithm 1)"). Because Algorithm 1's figure is missing from the seed, we cannot
# tell whether the paper's amplitude is larger; a larger one (2 nearest-neighbour
# distances) lowers the excess but is not what the text says, so it is not the
# default (`perturbation_scale` lets one try it). Both curves still peak in the same
# region, and the `γ` they select have test errors within 2 % of the best (quick)
# or equal to it.

# %% [markdown]
# ## Fig. 11: the perturbation ablation
#
# Without the perturbed set, `U_tr` keeps its best value up to the most over-fitted
# `γ` (`overfit_preference` = 1 on both sets), as the paper says. With it, the
# selected `γ` is near the CV minimum on the GMM set (CV-error ratio 1.29 at quick
# size: the quick grid's step is a factor 8; 1.05 at full) and on Breast Cancer
# `U_tr` nearly ties between 2^-9 (0.396) and 2^-6 (0.380) and picks the former,
# whose CV error is 4.4 % against the best 2.5 % (ratio 1.79; 1.31 at full, where it picks 2^-8 at 3.0 % against 2.3 %). The
# paper's Breast Cancer panel is not in the seed; its text says Proposal 2 matches
# CV "for most of the datasets". Beyond 2^-3 every kernel is so narrow in 30
# dimensions that the SVM predicts the majority class off the training points
# (CV error 37 %), and the perturbed `U_tr` gives all of them `U_min`.

# %%
abl = pd.read_csv(out / "block_fig11" / "fig11_sweep.csv")
abl["log2_gamma"] = np.log2(abl["gamma"]).round().astype(int)
print(abl.pivot_table(index="log2_gamma", columns="dataset",
                      values=["U_tr", "U_tr_naive", "L_val"]).round(3).to_string())

# %% [markdown]
# ## Fig. 14: well separated classes
#
# Eq. 39 gives `U_max = 1` to a boundary that leaves no training point near it and
# errs nowhere on the perturbed set: reproduced (`u_max_separable` = 1). The paper's
# second claim, that `U` singles out the Bayes-like `γ3` among four statuses that all
# have a favourable CV error, is reproduced only on the over-fitted side: `U_tr`
# falls from 1 to 0 in one grid step once the boundary encircles the crowds (between
# 2^3 and 2^6 on the quick grid, where `L_val` is still 0.7 %), while `L_val` rises
# slowly. On the wide-kernel side our GMM_separable
# (`make_gmm("separable")`, two crowds per class left and right of an empty band) is
# *linearly* separable, so every wide kernel also passes through the empty band and
# also gets `U = 1`; the paper's set (shown only as a scatter plot) evidently needs a
# curved boundary, since its `γ1` "diagonally crosses the two classes". Hence our
# `optimum_width` of `U_tr` is 0.64 of the grid, not the paper's 1 of 4 marked
# statuses -- a difference of data set, not of the estimator; the order against CV
# (0.73) agrees. At full size the extremely wide kernels (2^-15 ... 2^-12) also get
# `U = 0` while their CV error is still 0 (their nearly flat `f` puts pure-label
# clusters inside the bandwidth: Eq. 39's case 2, the paper's biased `γ1`), so `U_tr`
# is 1 on 16 of the 31 values and `L_val` favourable on 25 (0.52 against 0.81).

# %% [markdown]
# ## Fig. 9: MLP early stopping (full size)
#
# Substitutions, stated in the block: scikit-learn's `digits` (1 797 images, 10
# classes, bundled) for Letter Recognition, split in halves as the paper split
# Letter; Adam for RMSProp; `f` is read off the output layer before the softmax (the
# softmax saturates, and Silverman's bandwidth of saturated values is 0); the
# prototype classifier uses `K = 3` per class, since AIC picked the largest candidate
# (39) for every digit class and cost a minute (the paper's Fig. 13 finds `U`
# insensitive to `K`; measured here with `f` from the probabilities, `K = 3` and
# `K` by AIC gave `U` within 0.003 over 40 epochs). Measured at full size (60
# epochs): `U_tr` and `U_te` are both flat after the third epoch, between 0.085 and
# 0.114, and differ by 0.011 on average -- near-identical levels, as the paper's
# Panel 3 -- but over such flat curves their ranks are noise (Spearman -0.22).
# `U_tr` peaks at epoch 12 (test error 2.3 % against the best 1.9 % at epoch 57:
# ratio 1.24), `U_te` at epoch 5 (5.0 %, ratio 2.65), while the test error keeps
# falling slowly to epoch 60: digits hardly over-fits in 60 epochs, so there is no
# early-stopping optimum for `U` to find, and `U` stays far from 1 because the
# classes are almost separable (few samples near any boundary; the paper makes a
# like remark on Letter, §6.4.2). A harder set (Letter itself, 20 000 rows and 26
# classes) is left for a later run.

# %% [markdown]
# ## At full size (measured once)
#
# `bayescal reproduce seed003_figs6_11_14 --full` on the shared 2-core machine under
# load (average about 14): 889 s (Fig. 6 550 s, Fig. 11 122 s, Fig. 14 167 s, Fig. 9
# 51 s). Against the text's claims:
#
# | claim (paper.csv; the paper's column is the figure at which the words hold exactly) | as stated | ours, full | ours, quick |
# | --- | --- | --- | --- |
# | Fig. 6: test error at `U_tr`'s / `U_te`'s optimum over the best | 1, 1 | 1.018, 1.064 | 1.015, 1.000 |
# | Fig. 6: Spearman(`U_tr`, `U_te`) | 1 | 0.867 | 0.80 |
# | Fig. 6: mean abs(`U_tr` - `U_te`) | 0 | 0.078 | 0.086 |
# | Fig. 11: `U` at the largest `γ` / max `U`, perturbed < naive | 0 < 1 | GMM 0.41 < 0.98, WDBC 0 < 1 | 0 < 1, 0 < 1 |
# | Fig. 6 (GMM) / Fig. 8 (Breast Cancer): CV error at `U_tr`'s optimum over the best | 1 | GMM 1.05, WDBC 1.31 | 1.29, 1.79 |
# | Fig. 14: max `U_tr` on separable classes | 1 (`U_max`) | 1 | 1 |
# | Fig. 14: share of statuses within 10 % of the best, `U_tr` < `L_val` | 1/4 < 4/4 | 0.52 < 0.81 | 0.64 < 0.73 |
# | Fig. 9: test error at `U_tr`'s / `U_te`'s optimum over the best | 1, 1 | 1.24, 2.65 | (full only) |
# | Fig. 9: Spearman / mean abs(`U_tr` - `U_te`) | 1 / 0 | -0.22 / 0.011 | (full only) |
#
# Every order the text states holds at both sizes. The numbers that stay away from
# the claims, and why (above): `U_tr`'s excess over `U_te` for moderately
# over-fitted kernels (Algorithm 1's amplitude), the quick grid's factor-8 steps
# (Fig. 11 ratios), our linearly separable GMM_separable (Fig. 14 widths), and the
# flat MLP curves on an easy substitute data set (Fig. 9).

# %%
print(json.dumps(record["figures"]))
assert all((out / name).stat().st_size > 0 for name in record["figures"])

# %% [markdown]
# ## Fig. 12: insensitivity to the cluster size M (§6.6)
#
# The paper reruns the SVM selection for M = 20, 40, 80, 120, 160 and states that
# "the minimum and trend of U^(3) seem quite insensitive to M, although the value of
# U^(3) itself may slightly change". The reproduction `seed003_fig12` redraws the GMM
# panel (Wine Quality White is not available) and checks each part against M = 40.
#
# **Quick size (300 points): not reproduced (0 of 3).** With 300 training points a
# cluster of M = 160 holds more than half the set, U rises with M (0.26 to 0.77 at the
# best γ) and M = 160's optimum moves by 9 powers of two. **Full size (1000 points, the
# paper's 31 γ, measured once, 21 s): partly reproduced (2 of 3)**: the trend holds
# (smallest Spearman against M = 40: 0.97), the level changes by at most 19 %, but
# the optimal γ still moves by 4 powers of two (a factor 16) for one M. So the
# insensitivity the paper reports needs many more points than the largest M; at the
# paper's sizes it holds for the curve's shape and level, not exactly for its optimum.

# %%
rep12 = load_reproduction("seed003_fig12")
lines12: list[str] = []
record12 = run_reproduction(rep12, out / "fig12", echo=lines12.append)
print("\n".join(verdict_section(lines12)))
assert record12["verdict"] == "not reproduced", record12["verdict"]

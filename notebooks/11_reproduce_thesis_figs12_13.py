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
# # Reproduction: Alasalmi (2020) Figs. 12 and 13 through `bayescal reproduce`
#
# Section 3.3.1 of the small-data calibration thesis (Alasalmi 2020, *Uncertainty of classification on limited data*,
# Publication IV) runs naive Bayes (NB), an RBF support vector machine (SVM), random
# forest (RF), a one-hidden-layer neural network (NN) and the Bayesian probes BLR
# (Cauchy priors) and GPC (EP) on six real-world binary sets, raw and calibrated by
# ENIR on a split of the training set (ENIR), on the full training set (E.full), on
# DG- and DGG-generated data, and classifier-specifically (CS: out-of-bag ENIR for
# RF, Platt scaling on the full training set for SVM). Fig. 12 shows the average log
# loss and Fig. 13 the average MSE over the six sets, one group of bars per
# classifier.
#
# `models/reproductions/seed000_figs12_13/` reruns that study
# (`bayescal.reproduce.thesis_averages`):
#
# ```
# bayescal reproduce seed000_figs12_13          # quick size (below)
# bayescal reproduce seed000_figs12_13 --full   # models/thesis_binary.toml (~1 h CPU)
# ```
#
# **Units.** Log loss as the thesis' Eq. 11 (nats, true-class probability clipped
# at 1e-15, as the Tables 3-4 reproduction); MSE as its Eq. 10, the squared error
# summed over both classes (the cube's `brier_sum`, twice scikit-learn's binary
# Brier score). A bar is the mean over folds per set, then the plain mean over the
# six sets.
#
# **What the thesis gives to compare with.** No bar heights: the figures' images
# are not in the seed, and the text prints no numbers for them. It does make 27
# statements about them (lines 1775-1821); `paper.csv` transcribes each as a *check*
# on the bars (`bayescal.reproduce.claims`), 45 lines over the two charts, citing
# the line. E.g. line 1788, "DG ... led to a clear increase in logloss" for RF,
# is `gt rf.DG rf.Raw` on Fig. 12. Each statement is one check of the verdict,
# printed as the quoted words with holds / does not hold and the bars it compared --
# never as a number in the paper's column. Where the text leaves a word open we fix it and say
# so: "similar", "identical", "no difference" = within 10 %; "slightly" worse or
# higher = within 25 %; "significantly" is checked as a direction only (the figure
# averages carry no test). Statements about classification rate (lines 1809, 1817)
# and training times (line 1823) are not about these figures and are left out.
#
# **Verdict at the quick size: partly reproduced (34 of 45 checks)**; the statements
# that do not hold are listed and discussed below.

# %%
import os
import tempfile
from pathlib import Path

import matplotlib.image as mpimg
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from bayescal.cube import open_results
from bayescal.reproduce import load_reproduction, set_default_data_dir
from bayescal.reproduce.claims import evaluate_check
from bayescal.reproduce.runner import run_reproduction, verdict_section

pd.set_option("display.width", 160)
set_default_data_dir()  # BAYESCAL_DATA, else the shared data beside the repository
out = Path(os.environ.get("BAYESCAL_NOTEBOOK_OUT") or tempfile.mkdtemp()) / "seed000"
rep = load_reproduction("seed000_figs12_13")
print(rep.title, "--", rep.source, rep.tables, rep.figures)
lines = []
record = run_reproduction(rep, out, full=False, n_jobs=2, echo=lines.append)
print("\n".join(verdict_section(lines)))  # the checks and the verdict
# judged against the paper's numbers and their uncertainty only (reproduction.toml)
assert record["verdict"] == "partly reproduced (34 of 45 checks)", record["verdict"]
block = out / "block_figs12_13"

# %% [markdown]
# ## The two charts (quick size)
#
# The quick size (`quick.toml`) keeps the thesis' sets, classifiers and scenarios
# and cuts their cost so that it runs in under a minute on two cores: at most 300
# rows a set (the thesis: all, 748-2201), 3-fold CV (10), 200 DG/DGG samples in DGG
# groups of 4 (5000 in groups of 100), RF with 50 trees (500), NN with at most 300
# epochs (2000), BLR by a Laplace approximation (NUTS).

# %%
fig, axes = plt.subplots(2, 1, figsize=(8.5, 7.6))
for ax, name in zip(axes, ["fig12_log_loss.png", "fig13_brier_sum.png"], strict=True):
    ax.imshow(mpimg.imread(block / name))
    ax.axis("off")
fig.tight_layout()
Path(out.parent).mkdir(parents=True, exist_ok=True)
fig.savefig(out.parent / "seed000_figs12_13.png", dpi=90)

# %%
means = pd.read_csv(block / "dataset_means.csv")
order = ["Raw", "ENIR", "E.full", "DG", "DGG", "CS"]
bars = {}
for metric, g in means.groupby("metric"):
    bars[metric] = (g.groupby(["classifier", "label"], sort=False)["value"].mean().unstack()
                    .reindex(columns=order).reindex(["nb", "svm", "rf", "nn", "blr", "gpc"]))
    print(f"{metric}: average over the six sets\n{bars[metric].round(3)}\n")

# %% [markdown]
# ## The claims, one line each

# %%
claims = pd.read_csv(block / "claims.csv")
shown = claims.assign(chart=claims["metric"].str[:5], holds=claims["ours"].astype(bool))
print(shown[["claim", "chart", "holds", "detail"]].to_string(index=False, max_colwidth=95))
share = claims.groupby("metric")["ours"].agg(["sum", "count", "mean"])
print(share)
failing = set(zip(claims.loc[claims["ours"] == 0, "claim"],
                  claims.loc[claims["ours"] == 0, "metric"].str[:5], strict=True))

# %% [markdown]
# At the quick size 15 of the 22 Fig. 12 claims and 19 of the 23 Fig. 13 claims
# hold. What holds: NB is the worst uncalibrated classifier and every calibration
# helps it, E.full more than a split, DGG lowest in log loss; RF's uncalibrated
# error is above NN, SVM and GPC, ENIR on a split and on the full set raise it (E.full
# far more: the in-sample RF scores are almost 0/1, and ENIR fitted on them learns
# that certainty), DG lowers its MSE slightly and DGG lowers both; SVM and NN are
# the best calibrated non-Bayesian classifiers without calibration, ENIR on a split
# or the full set hurts both, E.full less than the split; in MSE their DG/DGG bars
# are within 10 % of Raw; GPC has the lowest log loss. Every claim that does not
# hold is discussed below.

# %% [markdown]
# ## Claims that do not hold, and why
#
# ### A diagnostic: confident misses
#
# Log loss is dominated by test rows whose true class gets a probability near 0
# (clipped at 1e-15, such a row costs up to 34.5 nats). The cell below counts, per
# classifier and bar, the share of test rows with a true-class probability below
# 0.05 and their part of the average log loss, then RF's log loss per set.

# %%
tree = open_results(block / "cube")
rows = []
for d in (str(x) for x in tree["/metrics"].ds["dataset"].to_numpy()):
    p = tree[f"/predictions/{d}"].ds
    y = p["y"].to_numpy()
    for clf in ("nb", "svm", "rf", "nn"):
        for sc, label in [("raw", "Raw"), ("enir_split", "ENIR"), ("enir_full", "E.full"),
                          ("enir_dg", "DG"), ("enir_dgg", "DGG")]:
            proba = p["proba"].sel(classifier=clf, scenario=sc).to_numpy()
            true = np.clip(proba[np.arange(y.size), y], 1e-15, 1)
            miss = true < 0.05
            rows.append({"dataset": d, "classifier": clf, "label": label,
                         "share_below_0.05": miss.mean(),
                         "their_log_loss": -np.log(true[miss]).sum() / y.size + 0.0})
rows = pd.DataFrame(rows)
misses = rows.groupby(["classifier", "label"], sort=False).mean(numeric_only=True)
print(misses.unstack().round(3).to_string())
ll = means[means["metric"] == "log_loss"]
rf_sets = ll[ll["classifier"] == "rf"].pivot(index="dataset", columns="label", values="value")
rf_sets["Raw misses"] = rows[(rows["classifier"] == "rf") & (rows["label"] == "Raw")].set_index(
    "dataset")["their_log_loss"]
print(rf_sets[["Raw", "Raw misses", "DG", "DGG", "CS"]].round(3).to_string())
dg_raises = rf_sets.index[rf_sets["DG"] > rf_sets["Raw"]].tolist()
print("RF: DG raises the log loss on", dg_raises)

# %% [markdown]
# ### RF: "DG ... led to a clear increase in logloss" (Fig. 12, line 1788)
#
# Ours: on average DG *lowers* RF's log loss (0.59 against Raw's 0.81), but per set
# it raises it on three of the six (Biodegradation, Contraceptive, Letter O/Q), as
# the thesis reports for the average. The average falls because of two sets: on
# Blood donation and Mammographic mass (4 features each, few distinct values) our
# fully grown trees agree unanimously against the true class on about 5 % of the
# test rows, and those confident misses carry most of RF's raw log loss there
# (table above). Any ENIR map moves such scores off 0, so DG, DGG and OOB ENIR cut
# them.
#
# Measured once with the thesis' 500 trees (the quick spec with RF only, Raw / DG /
# DGG / OOB, 200 generated samples; 267 s wall, 76 CPU-s at load average 13): RF's
# raw log loss falls from 0.81 to 0.62 (Blood donation 1.16 to 0.76, Mammographic
# 1.65 to 1.15: fewer, not no, confident misses), DG's is 0.52, still *below* Raw,
# so the claim fails with 500 trees too; DG raises it on 3 sets (Biodegradation,
# Contraceptive, Letter O/Q) again. OOB ENIR then improves RF on 2 sets in log loss
# (the thesis: 1) and its average (0.73) is above Raw's, as the thesis' CS bar; in
# MSE it still improves 4 sets. The rest of the gap is the data: 200 training rows
# a set (the thesis 673-1981) and our KEEL Titanic.
#
# ### RF: out-of-bag ENIR "improved on one data set but deteriorated on all others" (line 1790)
#
# Ours: OOB ENIR (CS) improves RF on 3 of the 6 sets in log loss and 4 of 6 in MSE
# (500 trees: 2 and 4).
# Same cause: OOB ENIR removes most of the raw forest's confident misses on Blood
# donation, Contraceptive and Mammographic (the table above), so it improves there;
# it is worse than Raw on the other three, as the thesis says of five of its six.
#
# ### SVM and NN: DG/DGG "identical to the uncalibrated case" (Fig. 12, line 1803)
#
# Holds in MSE (within 10 %), not in log loss: SVM's DG/DGG are 11-13 % and NN's
# 42-46 % above Raw. ENIR fitted on 200 generated samples (quick; the thesis 5000)
# is a coarse map, and its steps put some scores close to 0 or 1 (the
# confident-miss counts of DG/DGG above are higher than Raw's for NN).
#
# Measured once, to test that explanation: the quick spec with SVM and NN only,
# Raw / DG / DGG, and **1000** generated samples in DGG groups of 20 (everything
# else as quick; 148 s wall, 42 CPU-s at load average 13). Raw is the same cells as
# here; DG and DGG come within 10 % of it in both charts:
#
# | log loss (MSE) over Raw - 1 | DG, 200 samples | DGG, 200 | DG, 1000 | DGG, 1000 |
# | --- | --- | --- | --- | --- |
# | SVM | +12.5 % (+6.3 %) | +11.4 % (+4.9 %) | +5.6 % (+2.3 %) | +1.9 % (+2.4 %) |
# | NN | +46.4 % (+3.0 %) | +42.2 % (+2.3 %) | +7.7 % (+0.2 %) | +8.0 % (+0.4 %) |
#
# So the "identical" claim holds once ENIR gets more of the generated data (the
# thesis used 5000); the quick size keeps 200 samples to stay under a minute (RF's
# DG would cost five times more).
#
# ### SVM: Platt scaling "slightly worse than ... no calibration ... or DG/DGG" (line 1805)
#
# Half holds: our Platt on the full training set (CS) is slightly worse than Raw in
# both charts (within 25 %, as "slightly" is read), but better than our DG/DGG,
# which are themselves worse than Raw (previous point). The check needs CS above
# all three. With 1000 generated samples it still fails by a hair: CS log loss
# 0.463 against DG 0.471 and DGG 0.454, MSE 0.296 against 0.297 and 0.297.
#
# ### NB: DG "similar performance as using the training data set" (Fig. 12, line 1780)
#
# Holds in MSE (DG 0.35 against E.full 0.32), not in log loss, where our DG (0.72)
# is 24 % *better* than E.full (0.94): E.full's ENIR map, fitted on NB's in-sample
# scores, is overconfident on Biodegradation (1.27 nats against DG's 0.47), whose 41
# continuous features make Gaussian NB's training scores nearly all 0 or 1. That DG
# beats E.full is the thesis' own argument for DG; only "similar" fails.
#
# ### BLR: "no difference in logloss" from NN, SVM and RF at their best (line 1813)
#
# BLR's log loss (0.44) is within 10 % of SVM's best (0.45) and NN's best (0.47),
# not of RF's best (0.54, DGG), which keeps an excess on Contraceptive (0.96 against
# Raw's 0.74, table above): the RF's DG/DGG maps on 200 generated samples are coarse.
#
# ### BLR and GPC: MSE "higher than" NN, SVM and RF at their best (lines 1811, 1819)
#
# Ours: BLR (0.286) and GPC (0.279) have the *lowest* MSE of all bars at the quick
# size, below SVM's best (0.290, Raw). On 200 training rows a set, the Bayesian
# probes (few effective parameters, priors) are at an advantage over the flexible
# models; the thesis trained on 673-1981 rows, where NN, SVM and RF gain more from
# their flexibility. GPC's log loss is lowest, as the thesis says, and the "slightly
# higher" part holds within 25 %.

# %%
DISCUSSED = {("nb_dg_similar_full", "fig12"), ("rf_dg_raises_logloss", "fig12"),
             ("rf_oob_improves_one_set", "fig12"), ("rf_oob_improves_one_set", "fig13"),
             ("svm_dg_dgg_identical_raw", "fig12"), ("nn_dg_dgg_identical_raw", "fig12"),
             ("svm_platt_worse", "fig12"), ("svm_platt_worse", "fig13"),
             ("blr_logloss_no_difference", "fig12"), ("blr_mse_above_best", "fig13"),
             ("gpc_mse_above_best", "fig13")}
print("failing and not discussed:", sorted(failing - DISCUSSED))
assert failing <= DISCUSSED, failing - DISCUSSED
assert len(dg_raises) >= 2  # DG raises RF's log loss on some sets, as the thesis says
assert (rf_sets.loc[["blood_donation", "mammographic"], "Raw misses"]
        > 0.4 * rf_sets.loc[["blood_donation", "mammographic"], "Raw"]).all()

# %% [markdown]
# ### The strict reading of "uncalibrated naive Bayes was the worst performer"
#
# `paper.csv` reads line 1775 as "worst of the uncalibrated classifiers". Read as
# "worst of every bar", it fails on Fig. 12 at the quick size: RF's E.full log loss
# (4.3, the bias the thesis itself reports at line 1786) is above NB's raw 2.1.

# %%
bars12 = means[means["metric"] == "log_loss"].groupby(["classifier", "label"])["value"].mean()
print(evaluate_check("worst nb.Raw", bars12))

# %% [markdown]
# ## Full size
#
# The full size (`--full`: `models/thesis_binary.toml` itself, all rows, 10-fold CV,
# 5000 generated samples in groups of 100, RF 500 trees, NN up to 2000 epochs, BLR by
# NUTS, exact EP-GPC; 1750 cells) was measured on 2026-11-24: 1364 s wall, 2420 CPU-s
# with `--n-jobs 2` on the 2-core machine at rest. Fig. 12 claims hold 17 of 22
# (77.3 %; quick 15 of 22), Fig. 13 claims 19 of 23 (82.6 %; quick 19 of 23). The
# claims that do not hold at full size:
#
# - NB, DG "similar" to E.full in log loss (line 1778): ours DG is more than 10 %
#   apart, as at the quick size.
# - RF, ENIR on a split and on the full set "did not improve ... but increased the
#   error" (line 1785): with 500 trees our E.full raises the error but the split
#   lowers it slightly (both charts), as in our full-size Table 5 (notebook 06).
# - RF, DG "led to a clear increase in logloss" (line 1788): still a decrease on
#   average (the raw forest's near-zero true-class probabilities on a few rows).
# - RF, out-of-bag ENIR "improved on one data set" (line 1790): ours improves on more.
# - SVM, ENIR split/full worsen MSE (line 1797): ours E.full is level with raw.
# - NN, E.full better than the split in log loss (line 1799).
# - GPC's MSE "higher than" the best flexible models (line 1819): our GPC has the
#   lowest MSE bar.
#
# Claims that failed at the quick size and hold at full size: the "identical" DG/DGG
# of SVM and NN in log loss (line 1803, as the 1000-sample check above predicted),
# Platt's "slightly worse", BLR's "no difference" in log loss and BLR's MSE above the
# best flexible models (line 1811).

# %%
print({k: round(float(v), 3) for k, v in share["mean"].items()})

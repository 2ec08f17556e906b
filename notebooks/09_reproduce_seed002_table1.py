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
# # Reproduction: histogram binning theory paper, Tables 1-2, multi-label binning (generated data)
#
# *A theoretical insight of histogram binning and extending to multi-label classification* (anonymous, under review at TMLR) calibrates every label of a multi-label network
# separately with histogram binning (M = 10 equal-width bins) and reports the total
# ECE (Eq. 5, the sum of the per-label ECEs) and the prevalence-weighted ECE (Eq. 6)
# before and after, on a Kaggle image set and PASCAL-VOC (ResNet-50) and the PTSI-PRC
# propaganda tweets (BERT). The registered reproduction is
# `models/reproductions/seed002_table1/`; from a shell:
#
# ```
# bayescal reproduce seed002_table1          # quick size, 3 partitions per set
# bayescal reproduce seed002_table1 --full   # 20 partitions per set
# ```
#
# **Substitution.** The paper's data sets and networks are not available. Each set
# is replaced by a generated one with the same number of labels and rows
# (`make_multilabel`: 7843 x 10, 10 000 x 20 -- the paper gives no size for
# PASCAL-VOC -- and 9950 x 20), and the network by an over-confident scorer of known
# error: each label's true probability with N(0, 0.5^2) log-odds noise
# (`base_model_scores(kind="noisy")`), so a score far from 0.5 is more extreme than
# the rate of its label, as a deep network's sigmoid outputs are. Every random
# partition halves the rows into a calibration and a test half;
# `MultiLabelCalibrator(HistogramBinningCalibrator(n_bins=10))` is fitted on the
# first and both ECEs are measured on the second. `ECE_wavg` is Eq. 6 as printed,
# `(1/n) sum_l n_l ECE_l` (`ece_weighted(..., normalize="samples")`).
#
# What can agree, then, is the direction and the size of histogram binning's effect,
# not the paper's absolute values. The verdict is judged against the spreads Table 1
# prints beside each value (e.g. 0.0406 ± 0.0052): a value agrees within 2 x sqrt(2)
# of them. Table 2 (Hamming loss) is reproduced at the end.

# %%
import json
import os
import tempfile
from pathlib import Path

import pandas as pd

from bayescal.datasets import make_multilabel
from bayescal.reproduce import load_reproduction
from bayescal.reproduce.agreement import agreement
from bayescal.reproduce.runner import run_reproduction, verdict_section
from bayescal.reproduce.multilabel_binning import QUICK, SETS

out = Path(os.environ.get("BAYESCAL_NOTEBOOK_OUT") or tempfile.mkdtemp()) / "seed002"
rep = load_reproduction("seed002_table1")
print(rep.title, "--", rep.citation, rep.tables)
lines = []
record = run_reproduction(rep, out, full=False, echo=lines.append)
print("\n".join(lines))
# Verdict: the values differ (generated data, see below); of the orders the paper
# separates beyond its spreads, ECE_tot's hold and ECE_wavg's PASCAL-VOC pair does not
# (the misprinted ".22", disagreement 1).
# judged against the paper's numbers and their uncertainty only (reproduction.toml)
assert record["verdict"] == "partly reproduced (1 of 4 checks)", record["verdict"]

# %% [markdown]
# ## Side by side, with our spread over the partitions

# %%
table = pd.read_csv(out / "comparison.csv")
spread = pd.read_csv(out / "block_hb_m10" / "partitions.csv")
wide = table.pivot_table(index=["dataset", "method"], columns="metric",
                         values=["paper", "ours"]).round(4)
print(wide.to_string())
print("\nour mean and standard deviation over", QUICK.n_partitions, "partitions:")
print(spread.round(4).to_string(index=False))

# %% [markdown]
# ## Disagreement 1: the paper's PASCAL-VOC calibrated ECE_wavg, printed ".22"
#
# The best method differs in one row: the paper prints the calibrated ECE_wavg of
# PASCAL-VOC as `.22`, above the uncalibrated 0.03819, so by the printed numbers
# histogram binning made that row *worse*. The printed value cannot be right:
# ECE_wavg weights each label's ECE by its share of positives (at most 1), so it
# never exceeds ECE_tot, and the same cell's ECE_tot is `.207`; its printed
# spread (+-0.0169) and the text ("both ECE_wavg and ECE_tot are decreasing
# significantly after calibration") point to 0.022. `paper.csv` keeps the printed
# value (transcribed exactly); read with 0.022 the row's order agrees (descriptive
# figures of bayescal.reproduce.agreement, not a verdict):

# %%
ours = table[table["metric"] == "ECE_wavg"].copy()
assert (ours["ours"].to_numpy() <= table[table["metric"] == "ECE_tot"]["ours"].to_numpy()).all()
pascal = (ours["dataset"] == "pascal_voc") & (ours["method"] == "histogram_binning")
ours.loc[pascal, "paper"] = 0.022
read_as = agreement(ours, row=["block", "dataset"])
print(f"ECE_wavg with 0.022: best matched {read_as.best_matched}/{read_as.rows}, "
      f"pairs in order {read_as.pairs_in_order}/{read_as.pairs}")
assert read_as.best_matched == read_as.rows

# %% [markdown]
# ## Disagreement 2: our ECEs are larger, ECE_wavg much larger
#
# Ours are 1.5-3x the paper's ECE_tot and 3.5-6x its ECE_wavg. Two causes, both in
# the substitution, not in the metrics:
#
# * `make_multilabel`'s labels are dense (each label's base rate between about
#   0.15 and 0.6, a mean of 0.34-0.45 per set): a label near 0.5 has more room for
#   miscalibration and a noisier empirical ECE on the test half than a rare label.
# * ECE_wavg as printed weights each label by its prevalence, so
#   ECE_wavg / ECE_tot is a prevalence-weighted mean prevalence. The paper's
#   uncalibrated ratios (0.20, 0.13, 0.18) say its labels are rare -- PASCAL-VOC
#   images carry one or two of 20 labels --, ours are 0.35-0.47 (mean prevalence
#   of the generated sets 0.34-0.45, printed below).

# %%
paper = table.pivot_table(index=["dataset", "method"], columns="metric", values="paper")
mine = table.pivot_table(index=["dataset", "method"], columns="metric", values="ours")
ratio = pd.DataFrame({"paper ECE_wavg/ECE_tot": paper["ECE_wavg"] / paper["ECE_tot"],
                      "ours ECE_wavg/ECE_tot": mine["ECE_wavg"] / mine["ECE_tot"]})
print(ratio.round(3).to_string())
for index, (name, n, n_labels) in enumerate(SETS):
    _, Y, _ = make_multilabel(n, n_labels, random_state=QUICK.seed + index)
    print(f"{name}: mean label prevalence of the generated set {Y.mean():.2f}")

# %% [markdown]
# ## What agrees: the size of the reduction
#
# The relative reduction of each ECE by histogram binning is comparable between the
# paper and us even though the absolute values are not: the paper's ECE_tot falls by
# 27-46 %, ours by about 35-40 %.

# %%
rel = {}
for source, frame in (("paper", paper), ("ours", mine)):
    after = frame.xs("histogram_binning", level="method")
    before = frame.xs("uncalibrated", level="method")
    rel[source] = (1 - after / before).round(2)
rel_table = pd.concat(rel, axis=1)
print(rel_table.to_string())
assert (rel["ours"] > 0.2).all().all()
assert ((rel["paper"]["ECE_tot"] - rel["ours"]["ECE_tot"]).abs() < 0.2).all()

# %% [markdown]
# ## Summary of Table 1
#
# * Verdict **partly reproduced (1 of 4 checks)**: the only check that holds is the
#   order of ECE_tot (binning lowers it on every set, as the paper finds). Histogram
#   binning lowers ECE_wavg on every set too; the paper's order check fails only on
#   its misprinted `.22` (read as 0.022 the order agrees).
# * The values do not reproduce, and are not expected to: they are of generated
#   data with denser labels than the paper's image and text sets (a factor 1.5-6);
#   the reduction by binning is of the paper's size (ECE_tot -35 to -40 % against
#   -27 to -46 %).

# %%
print(json.dumps({"verdict": record["verdict"], "failing": record["failing_checks"]},
                 indent=1))

# %% [markdown]
# ## Table 2: Hamming loss before and after
#
# The paper's Table 2 gives the Hamming loss (Eq. 7) of the same outputs before and
# after binning (Kaggle 0.0379 -> 0.03552, PASCAL-VOC 0.0711 -> 0.07, Propaganda PRC
# 0.0242 -> 0.0229) and the text claims binning "does not hamper the accuracy". The
# reproduction `seed002_table2` thresholds our probabilities at 0.5 (the paper does not
# say) on the same generated sets. Hamming losses of generated labels are not the
# paper's (ours are 0.24-0.28: dense labels, noisy scores), so the values check fails
# by design of the substitution; the claim is what it can test, with a tolerance of
# 2 binomial standard errors of the paper's smallest Hamming loss at its test size.

# %%
rep2 = load_reproduction("seed002_table2")
lines2: list[str] = []
record2 = run_reproduction(rep2, out / "table2", full=False, echo=lines2.append)
print("\n".join(verdict_section(lines2)))
assert record2["verdict"] == "partly reproduced (3 of 4 checks)", record2["verdict"]
t2 = pd.read_csv(out / "table2" / "comparison.csv")
diff = t2[t2["metric"] == "claim"].set_index("dataset")["ours"]
print(diff.round(5).to_string())
assert (diff.abs() < 0.001).all()  # binning moves few label decisions across 0.5

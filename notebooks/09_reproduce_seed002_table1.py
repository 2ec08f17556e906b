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
# # Reproduction: seed 002 Table 1, multi-label histogram binning (generated data)
#
# Seed `002_dd5c7e48848fc1f2.txt` calibrates every label of a multi-label network
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
# not the paper's absolute values.

# %%
import json
import os
import tempfile
from pathlib import Path

import pandas as pd

from bayescal.datasets import make_multilabel
from bayescal.reproduce import load_reproduction
from bayescal.reproduce.agreement import agreement
from bayescal.reproduce.command import run_reproduction
from bayescal.reproduce.multilabel_binning import QUICK, SETS

out = Path(os.environ.get("BAYESCAL_NOTEBOOK_OUT") or tempfile.mkdtemp()) / "seed002"
rep = load_reproduction("seed002_table1")
print(rep.title, "--", rep.source, rep.tables)
lines = []
record = run_reproduction(rep, out, full=False, echo=lines.append)
print("\n".join(lines))
assert record["failed"] == [], record["failed"]

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
# value (transcribed exactly); read with 0.022 the row agrees:

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
# ## Summary
#
# * Histogram binning lowers both ECEs on every set, as the paper finds: the best
#   method is matched in 3/3 rows of ECE_tot and 2/3 of ECE_wavg, the third being
#   the misprinted `.22` (3/3 read as 0.022).
# * The absolute values differ by a factor 1.5-6 because the data are generated
#   (denser labels than the paper's image and text sets); the reduction by
#   binning is of the paper's size (ECE_tot -35 to -40 % against -27 to -46 %).
# * The full size (20 partitions) gives the same figures; see `thresholds.toml`.

# %%
print(json.dumps({k: {m: round(v, 3) for m, v in f.items() if isinstance(v, float)}
                  for k, f in record["agreement"].items()}, indent=1))

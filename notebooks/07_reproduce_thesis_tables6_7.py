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
# # Reproduction: thesis Tables 6-7, multi-class one-vs-rest vs all pairs
#
# Alasalmi (2020), *Uncertainty of classification on limited data* (doctoral thesis), §3.3.2:
# naive Bayes (Table 6) and random forest (Table 7) on multi-class sets, raw and
# calibrated by DGG + ENIR per binary problem -- one-vs-rest with normalisation, all
# pairs with pairwise coupling -- scored by MSE (the thesis' Eq. 10 averaged over the
# classes: the cube's `brier_class_mean`) and log loss, 10-fold CV. The registered
# reproduction is `models/reproductions/seed000_tables6_7/`; from a shell
#
# ```
# BAYESCAL_DATA=../shared/data bayescal reproduce seed000_tables6_7          # quick
# BAYESCAL_DATA=../shared/data bayescal reproduce seed000_tables6_7 --full
# ```
#
# The quick size (this notebook) is naive Bayes on the nine available sets, three
# Monte Carlo 90/10 splits (training sets as large as the thesis' 10-fold ones), DGG
# with the thesis' 5000 generated samples in groups of 100. The full size adds the
# thesis' 10 folds for naive Bayes and a reduced random-forest block (see
# `full_rf.toml`).
#
# **Defaults follow the thesis.** All pairs couples its pairwise probabilities by
# Wu, Lin & Weng (2004), method 2 -- the method the thesis cites --, and the sets are
# those of its Table 1: Ecoli with `im` and `imU` merged (4 classes), Wholesale with
# the region as the target (440 x 7, 3 classes), Yeast 1479 x 8 with 9 classes.
#
# **Verdict at the quick size: not reproduced (0 of 4 checks).** The headline
# disagreement: with the cited coupling, all pairs beats or ties one-vs-rest on
# almost every set; the thesis finds the reverse: its all pairs roughly *doubles* the
# MSE on Forest, Pendigits, Steel and Yeast, for naive Bayes and random forest alike,
# while it ties one-vs-rest on the three-class sets (Contraceptive, Seeds, Waveform,
# Wholesale).
#
# **A hypothesis, with its evidence (below).** That pattern -- harmless for three
# classes, harmful from four -- is what R's `kernlab::couple(coupler = "minpair")`
# produces when its pairwise probabilities are passed in lexicographic pair order: it
# fills the upper triangle of its pairwise matrix column by column, which for three
# classes is the same order and for four or more permutes the pairs. bayescal has that
# coupling as `AllPairsCalibrator(coupling="kernlab_minpair")` (tested against the R
# matrices written out by hand). The thesis names no software, so it is run beside the
# cited coupling in this notebook, not used by the reproduction. For it: it reproduces
# the all-pairs losses on Forest, Pendigits, Steel and Yeast (with it the full-size
# run matched the thesis' best method in 8 of 9 MSE rows, against 3 of 9 with the
# cited coupling) and leaves three-class sets unchanged, as the thesis' ties. Against
# it: nothing in the thesis names kernlab, and on Development, Ecoli and Heart (four
# or five classes) the thesis' all pairs is as good as or better than one-vs-rest
# (0.060 vs 0.065, 0.032 vs 0.033, 0.098 vs 0.099), which the scrambled coupling
# does not predict for every class coding.

# %%
import json
import os
import tempfile
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd

from bayescal.reproduce import load_reproduction, set_default_data_dir
from bayescal.reproduce.runner import run_reproduction, verdict_section

set_default_data_dir()  # BAYESCAL_DATA, else the shared data beside the repository
figures = Path(os.environ.get("BAYESCAL_NOTEBOOK_OUT") or tempfile.mkdtemp())
out = figures / "seed000_t67"  # the reproduction's cube, comparison and agreement
rep = load_reproduction("seed000_tables6_7")
print(rep.title, "--", rep.source, rep.tables)
lines = []
record = run_reproduction(rep, out, full=False, n_jobs=2, echo=lines.append)
print("\n".join(verdict_section(lines)))  # the checks and the verdict
# judged against the paper's numbers and their uncertainty only (reproduction.toml)
assert record["verdict"] == "not reproduced", record["verdict"]

# %% [markdown]
# ## Side by side (Table 6, naive Bayes)
#
# Paper's values and ours; `ap` = all pairs DGG + ENIR, `ovr` = one-vs-rest
# DGG + ENIR.

# %%
table = pd.read_csv(out / "comparison.csv")
short = {"raw": "raw", "ovr_dgg_enir": "ovr", "allpairs_dgg_enir": "ap"}
table["m"] = table["method"].map(short)
wide = table.pivot_table(index=["metric", "dataset"], columns="m", values=["paper", "ours"])
print(wide.round(3).to_string())

# %% [markdown]
# ## One-vs-rest or all pairs?
#
# Per set, which of the two reductions has the lower MSE, in the paper and in ours
# (a difference under 0.0015, i.e. within one unit of the paper's third decimal, is a
# tie). With the cited coupling, all pairs wins on every set where the thesis'
# one-vs-rest wins clearly with four or more classes.

# %%
mse = table[table["metric"] == "MSE"].pivot_table(index="dataset", columns="m",
                                                  values=["paper", "ours"])


def winner(ovr: float, ap: float) -> str:
    return "tie" if abs(ovr - ap) < 0.0015 else ("ovr" if ovr < ap else "ap")


k_classes = {"contraceptive": 3, "ecoli": 4, "forest": 4, "heart": 5, "pendigits": 10,
             "seeds": 3, "steel": 7, "waveform": 3, "wholesale": 3, "yeast": 9}
verdict = pd.DataFrame({
    "K (ours)": pd.Series(k_classes),
    "paper": [winner(mse.loc[d, ("paper", "ovr")], mse.loc[d, ("paper", "ap")])
              for d in k_classes],
    "ours": [winner(mse.loc[d, ("ours", "ovr")], mse.loc[d, ("ours", "ap")]) for d in k_classes],
}, index=list(k_classes))
print(verdict.to_string())
print("same verdict:", int((verdict["paper"] == verdict["ours"]).sum()), "of", len(verdict))
# Where the paper's one-vs-rest wins clearly with four or more classes, our all pairs
# (the cited coupling) wins instead: the headline disagreement.
clear = verdict.index[verdict["paper"] == "ovr"].intersection(
    verdict.index[verdict["K (ours)"] >= 4])
print("one-vs-rest clearly better in the paper, K >= 4:", list(clear))
assert len(clear) == 4 and (verdict.loc[clear, "ours"] == "ap").all()

# %% [markdown]
# ## The coupling is what decides it
#
# The same fitted pairwise calibrators, coupled two ways: Wu, Lin & Weng's method 2
# solved correctly (`wu2004`, bayescal's default) and as kernlab computes it given
# lexicographic pairs (`kernlab_minpair`). One Monte Carlo 90/10 split per set, DGG
# data (5000 samples, groups of 100) from naive Bayes, ENIR per pair. For three
# classes the two are identical (Seeds); from four classes on, kernlab's coupling
# loses what the calibrated pairs know -- and lands near the thesis' all-pairs
# values.

# %%
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402

from bayescal.calibration import AllPairsCalibrator, ENIRCalibrator  # noqa: E402
from bayescal.calibration.coupling import couple_kernlab_minpair, couple_wu2004  # noqa: E402
from bayescal.calibration.generation import (  # noqa: E402
    generate_calibration_data,
    group_binary_problems,
)
from bayescal.datasets import load_dataset  # noqa: E402


def class_mean_mse(P: np.ndarray, y: np.ndarray) -> float:
    return float(((np.eye(P.shape[1])[y] - P) ** 2).mean())


rows = []
for name, source in [("seeds", "seeds"), ("forest", "forest_type_mapping"),
                     ("steel", "steel_plates_faults")]:
    data = load_dataset(source)
    X, y = np.asarray(data.X, dtype=float), np.asarray(data.y)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.1, stratify=y, random_state=0)
    k = np.unique(y).size
    P_test = GaussianNB().fit(Xtr, ytr).predict_proba(Xte)
    P_cal, y_cal = generate_calibration_data(GaussianNB(), Xtr, ytr, method="dgg",
                                             n_samples=5000, random_state=0)
    ap = AllPairsCalibrator(ENIRCalibrator())
    ap.fit_binary_problems(group_binary_problems(ap, P_cal, y_cal, 100), n_outputs=k)
    Q = np.clip(ap._binary_probabilities(P_test), 1e-7, 1 - 1e-7)
    R = np.zeros((len(yte), k, k))
    for col, (i, j) in enumerate(ap.problem_keys_):
        R[:, i, j], R[:, j, i] = Q[:, col], 1 - Q[:, col]
    rows.append({"set": name, "K": k, "raw": class_mean_mse(P_test, yte),
                 "ap wu2004": class_mean_mse(couple_wu2004(R), yte),
                 "ap kernlab_minpair": class_mean_mse(couple_kernlab_minpair(R), yte),
                 "paper ap": mse.loc[name, ("paper", "ap")],
                 "paper ovr": mse.loc[name, ("paper", "ovr")]})
coupling = pd.DataFrame(rows).set_index("set")
print(coupling.round(3).to_string())
assert np.isclose(coupling.loc["seeds", "ap wu2004"], coupling.loc["seeds", "ap kernlab_minpair"])
for name in ("forest", "steel"):
    assert coupling.loc[name, "ap kernlab_minpair"] > coupling.loc[name, "ap wu2004"]

# %% [markdown]
# A consistent four-class pairwise matrix shows the mechanism without any data:
# method 2 returns the class probabilities it was built from, kernlab's order does
# not.

# %%
p = np.array([0.4, 0.3, 0.2, 0.1])
R4 = p[:, None] / (p[:, None] + p[None, :])
print("wu2004          ", couple_wu2004(R4).round(3))
print("kernlab_minpair ", couple_kernlab_minpair(R4).round(3))

# %% [markdown]
# ## Every disagreement, listed
#
# Rows (set x metric) whose best method differs from the paper's, pairs of methods
# ordered differently (with the paper's gap), and the ratios ours / paper outside
# [0.67, 1.5]. Each is then put down to one of four causes.


# %%
def disagreements(t: pd.DataFrame) -> pd.DataFrame:
    found = []
    for (metric, dataset), g in t.groupby(["metric", "dataset"]):
        s = g.set_index("m")
        paper_best = s.index[s["paper"] == s["paper"].min()].tolist()
        ours_best = s["ours"].idxmin()
        if ours_best not in paper_best:
            found.append({"metric": metric, "dataset": dataset, "kind": "best",
                          "paper": ", ".join(paper_best), "ours": ours_best,
                          "gap": abs(s.loc[ours_best, "paper"] - s["paper"].min())})
        for a, b in (("raw", "ovr"), ("raw", "ap"), ("ovr", "ap")):
            dp, do = s.loc[a, "paper"] - s.loc[b, "paper"], s.loc[a, "ours"] - s.loc[b, "ours"]
            if dp != 0 and np.sign(dp) != np.sign(do):
                found.append({"metric": metric, "dataset": dataset, "kind": "pair",
                              "paper": f"{a} {s.loc[a, 'paper']:.3f} / {b} "
                                       f"{s.loc[b, 'paper']:.3f}",
                              "ours": f"{a} {s.loc[a, 'ours']:.3f} / {b} {s.loc[b, 'ours']:.3f}",
                              "gap": abs(dp)})
    return pd.DataFrame(found)


found = disagreements(table)
print(found.to_string())
ratio = table.assign(ratio=table["ours"] / table["paper"])
far = ratio[(ratio["ratio"] < 0.67) | (ratio["ratio"] > 1.5)]
print(far[["metric", "dataset", "m", "paper", "ours", "ratio"]].round(3).to_string())

# %% [markdown]
# What each one is (quick size, measured; the run is seeded):
#
# * **Ecoli and Yeast, raw naive Bayes far worse than the thesis'** (e.g. Yeast MSE
#   0.18 vs 0.064, log loss 8.4 vs 2.1). Both sets have features nearly constant
#   within a class (Ecoli's `lip` and `chg`, Yeast's `erl` and `pox`): scikit-learn's
#   Gaussian naive Bayes gives them a tiny variance and its probabilities become 0
#   or 1. The thesis' naive Bayes (an R implementation, not named) was far less
#   extreme. This is the classifier, not the calibration.
# * **All pairs against one-vs-rest on four or more classes**: the coupling (the
#   kernlab hypothesis above).
# * **Log loss is lower in ours throughout** (e.g. Waveform raw 0.73 vs 1.55), while
#   MSE mostly agrees. The thesis does not say how it guarded log loss against zero
#   probabilities; ENIR and DGG outputs reach 0 and 1, so the clipping constant
#   decides the log loss of every confident mistake. Ours clips the true-class
#   probability at 1e-15 (scikit-learn's convention, the cube's default).
# * **Ties**: the paper's two methods within 0.002, less than the split-to-split
#   spread of 30-500 test rows.

# %%


def cause(r: pd.Series) -> str:
    text = f"{r['paper']} {r['ours']}"
    if k_classes[r["dataset"]] >= 4 and "ovr" in text and "ap" in text:
        return "coupling (kernlab hypothesis)"
    if r["dataset"] in ("ecoli", "yeast"):
        return "raw naive Bayes on near-constant features"
    if k_classes[r["dataset"]] >= 4 and "ap" in text:
        return "coupling (kernlab hypothesis)"
    if r["metric"] == "Logloss":
        return "log loss clipping"
    if r["gap"] <= 0.002:
        return "tie in the paper"
    return "unexplained"


found["cause"] = [cause(r) for _, r in found.iterrows()]
print(found[["metric", "dataset", "kind", "paper", "ours", "cause"]].to_string())
assert (found["cause"] != "unexplained").all()

# %% [markdown]
# ## Full size (measured once, with the kernlab coupling as the default then)
#
# Measured before the reproduction's default became the cited coupling, so these
# descriptive figures are those of the kernlab hypothesis, with the cited coupling's
# beside them; the full size has not been rerun with the new default and with
# Wholesale and the 4-class Ecoli (an hour of CPU on this machine).
# `BAYESCAL_DATA=../shared/data bayescal reproduce seed000_tables6_7 --full` on the
# shared 2-core machine under load (load average 15-19), `--n-jobs 2`: the naive Bayes
# block (the thesis' 10 folds, DGG 5000 / 100, 360 cells) ran in 356 s, the random
# forest block (3 Monte Carlo 90/10 splits, forests of 20 trees, DGG 5000 / 100, 81
# cells) in 726 s. Agreement with Tables 6-7 (rows: data set x classifier; ties at
# the paper's three decimals count as best on both sides):
#
# | metric | best matched NB + RF | pairs in order | ours / paper: median [range] |
# | --- | --- | --- | --- |
# | MSE | 8/9 + 7/9 | 46/52 (88.5 %) | 1.059 [0.693, 2.693] |
# | Logloss | 8/9 + 4/9 | 42/54 (77.8 %) | 0.608 [0.328, 3.813] |
#
# The NB block also ran all pairs with Wu, Lin & Weng's method 2 computed correctly
# (scenario `allpairs_wu2004_dgg_enir`, its own DGG draw). Put in place of the
# thesis' all pairs, it matches the paper's best method in 3 of 9 rows for MSE
# (kernlab coupling: 8 of 9) and orders 17 of 27 pairs as the paper (kernlab: 24);
# log loss 5 of 9 and 22 of 27 (kernlab: 8 and 24). With method 2, all pairs has the
# lowest or equal MSE of the two reductions on every one of the nine sets (e.g.
# Forest 0.054 vs one-vs-rest 0.055, Pendigits 0.020 vs 0.022; with kernlab's
# coupling 0.130 and 0.076) -- the "all pairs beats one-vs-rest on 8 of 9 sets"
# measured by hand before this reproduction. The thesis' conclusion that
# one-vs-rest is the better reduction (its §3.3.2 and §5) holds for its coupling,
# not for pairwise coupling as Wu, Lin & Weng define it.
#
# The rows that still disagree at full size:
#
# 1. **Naive Bayes on Ecoli and Yeast** (MSE and log loss, 5 rows or pairs): our raw
#    naive Bayes is far worse than the thesis' (near-constant features, see the
#    quick-size list), so raw loses where the thesis has it best (Ecoli MSE 0.029)
#    and the raw-vs-all-pairs pairs flip (Yeast: ours raw 0.172 / all pairs 0.083,
#    the paper's 0.064 / 0.116). On Ecoli (5 classes here, 4 in the thesis) our
#    kernlab all pairs is worse than one-vs-rest (0.082 vs 0.052), the paper's equal.
# 2. **Naive Bayes, Pendigits, log loss raw vs all pairs** (paper 2.077 / 1.909,
#    ours 1.325 / 2.062): both of ours sit within 10 % of the paper's all-pairs value;
#    the raw log loss is the clipping question (our log losses are lower throughout,
#    median ratio 0.61, while MSE agrees at 1.06).
# 3. **Random forest, log loss (9 rows or pairs)**: our forests have 20 trees (the
#    thesis' count is not stated; R's default is 500), so their raw probabilities are
#    multiples of 1/20 and often exactly 0 for the true class -- a clipped 1e-15 costs
#    34.5 nats. Raw RF log loss is therefore too high (Contraceptive 2.33 vs 1.68,
#    Yeast 2.75 vs 1.95) and loses rows the thesis' raw forest wins (Forest, Steel,
#    Yeast); after DGG + ENIR the zeros are gone and our values are below the
#    paper's, as for naive Bayes. MSE is not affected this way: 7 of 9 best match.
# 4. **Random forest, Heart and Waveform, one-vs-rest vs all pairs** (MSE and log
#    loss): three classes (Waveform) and five (Heart), where kernlab's coupling does
#    little; the two reductions differ by 0.001-0.002 in the paper and in ours, less
#    than the split-to-split spread of three Monte Carlo splits.
# 5. **Random forest, Ecoli MSE raw vs all pairs** (paper 0.031 / 0.029, ours 0.045 /
#    0.052): the 4- vs 5-class Ecoli again.
#
# What remains ours to do: a naive Bayes that handles near-constant features as the
# thesis' did (a variance floor, to be identified), the thesis' Ecoli and Yeast class
# sets, and the thesis-sized forest run (10 folds, hundreds of trees: about 25 times
# the reduced block, an hour-scale run for a many-core machine or Dask).

# %% [markdown]
# ## Figs. 12-13
#
# The thesis' Figs. 12-13 are the *binary* study's averages (Publication IV: six
# binary sets, six classifiers, log loss and MSE per calibration scenario), printed
# only as bar charts; the seed's text carries no values for them, so they cannot be
# compared number by number. Their multi-class analogue -- average MSE and log loss
# over the nine sets per scenario -- is drawn from this run below, beside the
# thesis' averages over the same nine sets.

# %%
from matplotlib.figure import Figure  # noqa: E402

matplotlib.use("Agg")
avg = table.groupby(["metric", "m"])[["paper", "ours"]].mean().round(3)
print(avg.to_string())
fig = Figure(figsize=(8, 3.2))
for ax, metric in zip(fig.subplots(1, 2), ("Logloss", "MSE"), strict=True):
    a = avg.loc[metric].reindex(["raw", "ovr", "ap"])
    x = np.arange(3)
    ax.bar(x - 0.2, a["paper"], width=0.4, label="thesis")
    ax.bar(x + 0.2, a["ours"], width=0.4, label="bayescal")
    ax.set_xticks(x, ["raw", "one-vs-rest", "all pairs"])
    ax.set_title(f"naive Bayes, average {metric} (9 sets)")
ax.legend()
fig.tight_layout()
fig.savefig(figures / "fig12_13_multiclass_analogue.png", dpi=90)
print(json.dumps({"figure": "fig12_13_multiclass_analogue.png"}))

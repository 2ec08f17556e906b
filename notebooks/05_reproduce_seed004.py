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
# # Reproduction: Phelps, Lizotte & Woolford (2024), Tables 1-4 through `bayescal reproduce`
#
# Notebook 02 rebuilt Phelps & Woolford's simulation study (seed
# `004_bfebc07763fe5d27.txt`, Section 3) by hand. This notebook runs the same study
# as a registered reproduction, `models/reproductions/seed004_tables1_4/`: three
# study specs (quick; full with 1e5 and with 1e6 calibration rows, 1e6 test rows as
# the paper), the paper's 576 numbers in `paper.csv` (each line citing its table),
# and in `reproduction.toml` the paper's uncertainty that the verdict is judged
# against (BS and NLS: the sampling error of the paper's 10^6 test rows; RMSE and
# MAE: the paper reports no spread, 10 % of the value assumed). From a shell:
#
# ```
# bayescal reproduce seed004_tables1_4            # quick size, ~2.5 min loaded
# bayescal reproduce seed004_tables1_4 --full     # both blocks of the paper
# ```
#
# Units are the paper's: RMSE and MAE against the true probability x 10^4, the
# Brier score BS (scikit-learn's `brier_score_loss`, the cube's `brier`) x 10^3,
# and NLS, the log loss summed over the paper's 10^6 test rows with predictions
# clipped at 1e-5 (the spec sets `[metrics] clip = { log_loss = 1e-5 }`).
#
# The quick size uses 20 000 calibration rows and 100 000 test rows and is compared
# with the paper's 100 000-row block, so methods that need data (isotonic
# regression, the GAMs) are expected to be worse than the paper's.
#
# **Verdict at the quick size: partly reproduced (2 of 8 checks).** The orders of BS
# and NLS hold (every pair the paper separates beyond its test-set error is in its
# order). The values do not: a fifth of the paper's calibration rows makes every
# fitted map noisier than the paper's, and BS and NLS are judged at the paper's
# 10^6 test rows, a tolerance of about 2 % that our 10^5 test rows alone exceed. The
# RMSE and MAE orders fall just short of 90 % (114 of 127 and 102 of 114 pairs): the
# rows listed below, where data-hungry methods lose at 20 000 rows.

# %%
import json
import os
import tempfile
from pathlib import Path

import pandas as pd

from bayescal.reproduce import load_reproduction
from bayescal.reproduce.runner import run_reproduction, verdict_section

out = Path(os.environ.get("BAYESCAL_NOTEBOOK_OUT") or tempfile.mkdtemp()) / "seed004"
rep = load_reproduction("seed004_tables1_4")
print(rep.title, "--", rep.source, rep.tables, rep.figures)
lines = []
record = run_reproduction(rep, out, full=False, n_jobs=2, echo=lines.append)
print("\n".join(verdict_section(lines)))  # the checks and the verdict
# judged against the paper's numbers and their uncertainty only (reproduction.toml)
assert record["verdict"] == "partly reproduced (2 of 8 checks)", record["verdict"]

# %% [markdown]
# ## Side by side: RMSE (x 10^4)

# %%
table = pd.read_csv(out / "comparison.csv")
rmse = table[table["metric"] == "RMSE"].pivot_table(
    index=["dataset", "classifier"], columns="method", values=["paper", "ours"])
print(rmse.round(2).to_string())

# %% [markdown]
# ## Every disagreement on the best method, listed
#
# A row disagrees when our best method is not among the paper's best (ties at the
# paper's printed precision all count as best).


# %%
def disagreements(t: pd.DataFrame) -> pd.DataFrame:
    out_rows = []
    for (metric, dataset, classifier), g in t.groupby(["metric", "dataset", "classifier"]):
        paper_best = g.loc[g["paper"] == g["paper"].min(), "method"].tolist()
        ours_best = g.loc[g["ours"].idxmin(), "method"]
        if ours_best not in paper_best:
            gap = g.set_index("method")["ours"]
            out_rows.append({
                "metric": metric, "dataset": dataset, "classifier": classifier,
                "paper best": ", ".join(paper_best), "ours best": ours_best,
                "our gap to the paper's best (%)": round(
                    100 * (gap[paper_best[0]] / gap[ours_best] - 1), 2),
            })
    return pd.DataFrame(out_rows)


quick_disagreements = disagreements(table)
print(quick_disagreements.to_string())

# %% [markdown]
# ### Quick size
#
# Fourteen rows of 48 have another strict best method at the quick size (measured;
# the run is seeded; with ties at the paper's precision counted, 8 remain).
# Each is of one of three kinds, and the cell below checks that every row listed
# above is one of them:
#
# * **A tie (gap under 0.01 %).** Where UBRE chooses the linear fit, a GAM *is* its
#   Platt fit (PS and PS w/ GAM, or PS w/ logit and PS w/ logit and GAM give the same
#   predictions), so the best is a tie that the paper's printed numbers break one way
#   and ours the other. Nine rows.
# * **BS and NLS within 0.1 %.** Both depend on the test labels as much as on the
#   method; our test draw is not the paper's, and methods differ in the fifth
#   significant figure. Three rows.
# * **The 0.0022 base rate with 20 000 calibration rows** (about 44 positives; the
#   paper's block has 220). RMSE and MAE, noisy base model: the analytical correction
#   (which needs no calibration data) beats PS w/ logit by 8 % -- the paper already
#   has it second best at 1e5 rows and explains that more calibration data is what
#   lets the Platt variants pass it (its §3.2.4). RMSE, base model towards 0.5: PS
#   (= PS w/ GAM) beats PS w/ logit, as the paper's Theorem 2 predicts; the paper's
#   own table has PS w/ logit winning there and calls it "randomness in the
#   simulation" (its §3.2.2). Two rows plus the MAE twin.
#
# At full size the third kind disappears; the rows that still disagree there are
# discussed below.

# %%
def kind_of(r: pd.Series) -> str | None:
    gap = abs(r["our gap to the paper's best (%)"])
    if gap < 0.01:
        return "tie"
    if r["metric"] in ("BS", "NLS") and gap < 0.1:
        return "test-label noise"
    if r["dataset"] == "rate_0022":
        return "44 positives in the calibration set"
    return None


for _, r in quick_disagreements.iterrows():
    kind = kind_of(r)
    print(f"{r['metric']:>5} {r['dataset']} {r['classifier']:<16} {kind}")
    assert kind is not None, r.to_dict()

# %% [markdown]
# ## At full size (measured once, both blocks)
#
# `bayescal reproduce seed004_tables1_4 --full` on the shared 2-core machine under
# load: the 1e5 block (100 000 calibration rows, 1 000 000 test rows, 72 cells) ran in
# 564 s, the 1e6 block in 547 s. Agreement with the paper's Tables 1-4 (rows: 12 per
# block; ties at the paper's printed precision count as best on both sides):
#
# | metric | best matched 1e5 / 1e6 | pairs in order, both blocks | ours / paper: median [range] |
# | --- | --- | --- | --- |
# | RMSE | 12/12, 12/12 | 330/348 (94.8 %) | 0.987 [0.234, 3.639] |
# | MAE | 10/12, 12/12 | 324/350 (92.6 %) | 0.996 [0.275, 2.289] |
# | BS | 12/12, 12/12 | 182/188 (96.8 %) | 1.002 [0.996, 1.077] |
# | NLS | 11/12, 6/12 | 314/339 (92.6 %) | 1.002 [0.995, 1.066] |
#
# The disagreements on the best method at full size:
#
# 1. **MAE, 1e5 block, rate 0.0022, noisy base model**: the paper's best is PS w/
#    logit (3.52), ours the analytical correction (3.49, with PS w/ logit at 3.52,
#    the paper's value). A 1 % gap; the analytical correction needs no calibration
#    data, so its error is the base model's noise seen on a different test draw.
# 2. **MAE, 1e5 block, rate 0.1109, towards 0.5**: the paper has PS = PS w/ GAM
#    (13.23) best; ours PS w/ logit and GAM (5.92) against PS (6.11) -- both half the
#    paper's value. PS is correctly specified for this base model (the paper's
#    Theorem 2), so its error is the estimation noise of one calibration draw; the
#    RMSE order agrees with the paper.
# 3. **NLS: 1 row of the 1e5 block, 6 of the 1e6 block.** NLS sums the log loss over
#    the test labels. Our test draw is not the paper's: every method's NLS in a row
#    moves together by up to 7 % (ratios 0.995-1.066), while at 1e6 calibration rows
#    the methods the paper ranks first differ by 1-10 nats in 95 000-320 000 (e.g.
#    rate 0.0208, perfect model: the paper's 94 812 / 94 812 / 94 813 for PS w/ logit,
#    analytical, PS w/ GAM; ours 95 199.2 / 95 199.1 / 95 197.0). Which of such
#    near-ties wins is decided by the test draw, not by the method; RMSE and MAE
#    against the true probabilities, which do not depend on the test labels, match
#    in 24 and 22 of 24 rows. The pairs the paper separates clearly stay in order
#    (92.6 %).
#
# The ties rule matters in rows like MAE, 1e5 block, rate 0.0022, towards 0 and 1:
# the paper's PS w/ logit (1.11) beats its PS w/ logit and GAM (2.69); ours tie at
# 1.46 because UBRE chose the linear fit, which *is* PS w/ logit. The paper's mgcv fit
# kept a wiggle at 2 200 positives; ours did not -- the same origin as the low ratios
# (0.34, 0.38) of PS w/ logit and GAM at rate 0.0022, perfect model: the paper's GAM
# value there (4.51) equals its plain PS value, ours (1.51) its PS w/ logit value.
#
# The largest ratio (3.64 for RMSE, 1e5 block, rate 0.0208) is PS w/ logit on the
# perfect model and PS on the model towards 0.5 -- the same number twice, in the
# paper (2.05, 2.05) as in ours (7.46, 7.46), because Eq. 7 is a logistic transform of
# the logit, so Platt's scaling on its score is Platt's scaling on the perfect
# model's logit. Both fits are correctly specified; their error is the sampling
# error of two fitted parameters from one calibration draw, which varies between
# draws by such factors. The paper reports one draw, so do we.

# %% [markdown]
# ## Figs. 3-5
#
# Estimates against the true probabilities, one panel per method, 5000 test rows
# (the quick size draws Fig. 3 from the 1e5 block; the paper's is the 1e6 block).

# %%
print(json.dumps(record["figures"]))
assert all((out / name).stat().st_size > 0 for name in record["figures"])

# %% [markdown]
# ## Figs. 1-2: the base models, against what the text states
#
# The paper's Figs. 1-2 show its hypothetical base models; the text states what they
# do (§3.1.2): a perfect model, Eq. 7 "pushes probability estimates towards 0.5",
# Eq. 8 "towards extreme values (i.e., 0 and 1)", and log-odds noise N(0, 0.2)
# "results in γ̂'s with a mean slightly larger than the mean of the γ's" (Fig. 2: 5000
# rows, mean outcome probability 0.0208). The reproduction `seed004_figs1_2` redraws
# both figures and checks each statement on the simulation (measured on 400 000 rows:
# the noisy model's mean shift is about +0.1 %, and on Fig. 2's 5000 rows its
# sampling error is 0.25 %, so the sign of a 5000-row mean is a coin toss).

# %%
rep12 = load_reproduction("seed004_figs1_2")
lines12: list[str] = []
record12 = run_reproduction(rep12, out / "figs1_2", echo=lines12.append)
print("\n".join(verdict_section(lines12)))
assert record12["verdict"] == "reproduced", record12["verdict"]
assert sorted(record12["figures"]) == ["block_figs/fig1_base_models.png",
                                       "block_figs/fig2_noisy_model.png"]

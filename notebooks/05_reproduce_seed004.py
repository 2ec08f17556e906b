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
# # Reproduction: seed 004 Tables 1-4 through `bayescal reproduce`
#
# Notebook 02 rebuilt Phelps & Woolford's simulation study (seed
# `004_bfebc07763fe5d27.txt`, Section 3) by hand. This notebook runs the same study
# as a registered reproduction, `models/reproductions/seed004_tables1_4/`: three
# study specs (quick; full with 1e5 and with 1e6 calibration rows, 1e6 test rows as
# the paper), the paper's 576 numbers in `paper.csv` (each line citing its table)
# and the agreement thresholds in `thresholds.toml`. From a shell the same is
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

# %%
import json
import os
import tempfile
from pathlib import Path

import pandas as pd

from bayescal.reproduce import load_reproduction
from bayescal.reproduce.command import run_reproduction

out = Path(os.environ.get("BAYESCAL_NOTEBOOK_OUT") or tempfile.mkdtemp()) / "seed004"
rep = load_reproduction("seed004_tables1_4")
print(rep.title, "--", rep.source, rep.tables, rep.figures)
lines = []
record = run_reproduction(rep, out, full=False, n_jobs=2, echo=lines.append)
print("\n".join(lines[-7:]))  # the agreement summary (the full comparison is above it)
assert record["failed"] == [], record["failed"]

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
# Every disagreement at the quick size is of one of three kinds; the list above is
# checked against them below.
#
# * **Isotonic regression and the GAMs with five times less calibration data.** At
#   20 000 rows (about 44 positives at the 0.0022 base rate) the flexible methods
#   lose ground to the two-parameter Platt fits; at the full size they recover
#   (below).
# * **A GAM that reduces to its Platt fit.** Where UBRE chooses the linear fit, PS
#   and PS w/ GAM (or PS w/ logit and PS w/ logit and GAM) give the same predictions,
#   so the "best" is a tie that the paper's printed numbers break one way and ours
#   the other.
# * **BS and NLS at the 0.0022 base rate** depend on the test labels as much as on
#   the method: 100 000 test rows hold about 220 positives, and methods differ in the
#   fifth significant figure.

# %%
flexible = {"isotonic", "ps_gam", "ps_logit_gam"}
for _, r in quick_disagreements.iterrows():
    explained = (r["ours best"] in flexible or bool(set(r["paper best"].split(", ")) & flexible)
                 or r["metric"] in ("BS", "NLS") or abs(r["our gap to the paper's best (%)"]) < 5)
    print(f"{r['metric']:>5} {r['dataset']} {r['classifier']:<16} explained: {explained}")
    assert explained, r.to_dict()

# %% [markdown]
# ## At full size (measured once, 1e5 block)
#
# `bayescal reproduce seed004_tables1_4 --full` on the shared 2-core machine under
# load: the 1e5 block (100 000 calibration rows, 1 000 000 test rows, 72 cells) ran
# in 564 s. Agreement with the paper's Tables 1-4, that block:
#
# | metric | best method matched | pairs in the same order | ours / paper: median [range] |
# | --- | --- | --- | --- |
# | RMSE | 12 / 12 | 163 / 171 (95.3 %) | 0.972 [0.335, 3.639] |
# | MAE | 9 / 12 | 160 / 176 (90.9 %) | 0.999 [0.378, 2.289] |
# | BS | 12 / 12 | 93 / 95 (97.9 %) | 1.000 [0.996, 1.077] |
# | NLS | 11 / 12 | 162 / 171 (94.7 %) | 1.000 [0.995, 1.066] |
#
# The four disagreements on the best method at full size, one by one:
#
# 1. **MAE, rate 0.0022, noisy base model**: the paper's best is PS w/ logit (3.52),
#    ours the analytical correction (3.49, with PS w/ logit at 3.52 exactly the
#    paper's value). A 1 % gap between two methods; the analytical correction
#    needs no calibration data, so its error is the base model's noise seen on a
#    different test draw.
# 2. **MAE, rate 0.0022, base model towards 0 and 1**: the paper's PS w/ logit
#    (1.11) beats its PS w/ logit and GAM (2.69); ours tie at 1.46, because UBRE
#    chose the linear fit, which *is* PS w/ logit. The paper's mgcv fit kept a
#    wiggle at 2 200 positives; ours did not. Same origin as the low ratios (0.34,
#    0.38) of PS w/ logit and GAM at rate 0.0022, perfect model: the paper's GAM
#    value there (4.51) equals its plain PS value, ours (1.51) its PS w/ logit value.
# 3. **MAE, rate 0.1109, towards 0.5**: the paper has PS = PS w/ GAM (13.23) best;
#    ours PS w/ logit and GAM (5.92) against PS (6.11) -- both half the paper's
#    value. PS is correctly specified for this base model (the paper's Theorem 2), so
#    its error is pure estimation noise of one calibration draw; the RMSE order
#    agrees with the paper.
# 4. **NLS, rate 0.0022, noisy base model**: the paper's analytical (14 702) beats
#    PS w/ logit (14 712) by 0.07 %; ours reverse by 0.02 % (15 212.7 vs 15 209.7).
#    NLS is a sum over test labels and our test draw differs from the paper's (about
#    2 200 positives in 10^6 rows): the ratio of ours to the paper's NLS is 1.034
#    for every method in that row, a property of the draw, not the methods.
#
# The largest ratios (3.64 for RMSE, rate 0.0208) are PS w/ logit on the perfect
# model and PS on the model towards 0.5 -- the same number twice, in the paper
# (2.05, 2.05) as in ours (7.46, 7.46), because Eq. 7 is a logistic transform of
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

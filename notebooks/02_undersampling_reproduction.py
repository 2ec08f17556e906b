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
# # Reproduction: Platt's scaling after undersampling (seed 004), reduced size
#
# Seed `004_bfebc07763fe5d27.txt` (Phelps & Woolford) simulates an imbalanced
# problem with known probabilities (its Eq. A1), undersamples the negatives with
# rate `pi0` to train a base model, and calibrates the base model's scores back
# to the original distribution with six methods:
#
# | name | method |
# | --- | --- |
# | PS | Platt's scaling on the score |
# | PS logit | Platt's scaling on `logit(score)` |
# | PS GAM | logistic GAM on the score |
# | PS logit GAM | logistic GAM on `logit(score)` |
# | analytical | `kappa(g) = g pi0 / (1 - g + g pi0)` (its Eq. 1) |
# | isotonic | isotonic regression |
#
# The base models are hypothetical: functions of the true undersampled
# probability `gamma` — perfect, pushed towards 0.5 (its Eq. 7), pushed towards
# the extremes (its Eq. 8). The paper uses 100 000 to 1 000 000 calibration rows;
# here 20 000 calibration and 20 000 test rows, and the two larger base rates
# (mean outcome about 0.0208 and 0.1109), so it runs in seconds. The tables
# print RMSE and MAE to the true probability (x 10^4), the Brier score
# (x 10^3) and the negative logarithmic score NLS (a sum over test rows, with
# predictions clipped to [1e-5, 1 - 1e-5] as in the paper), like its
# Tables 1-3.

# %%
import pandas as pd

from bayescal.calibration import (
    IsotonicCalibrator,
    LogisticGAMCalibrator,
    PlattCalibrator,
    UndersamplingCorrection,
)
from bayescal.datasets import (
    base_model_scores,
    make_undersampling_simulation,
    undersample,
    undersampled_probability,
)
from bayescal.metrics import brier_score, log_loss, mae_true, rmse_true

N_CALIBRATION = N_TEST = 20_000
# (b of Eq. A1, pi0 of the paper for that b)
SETTINGS = {1.5: 0.02125, 1.1: 0.125}
KINDS = ("perfect", "toward_half", "toward_extremes")

# %% [markdown]
# ## The undersampled training set
#
# `undersample` keeps every positive and each negative with probability
# `pi0`; the kept rows follow `gamma(x) = P(y=1 | x, S=1)`, which is what a
# base model trained on them estimates. The paper picks `pi0` so that the
# training set is about balanced.

# %%
for b, pi0 in SETTINGS.items():
    X, y, p = make_undersampling_simulation(N_CALIBRATION, b, random_state=0)
    kept = undersample(X, y, pi0, random_state=0, p_true=p)
    print(
        f"b={b}: mean outcome {y.mean():.4f}; after undersampling with pi0={pi0}: "
        f"{len(kept.y)} rows, positive share {kept.y.mean():.3f} "
        f"(mean gamma {kept.gamma_true.mean():.3f})"
    )
    assert kept.y.sum() == y.sum()  # every positive kept
    assert abs(kept.y.mean() - kept.gamma_true.mean()) < 0.05

# %% [markdown]
# ## Calibration on the original distribution
#
# Calibration and test rows come from the full (not undersampled) population;
# the base model scores them with its estimate of `gamma`.


# %%
def methods(pi0: float) -> dict:
    return {
        "PS": PlattCalibrator(target_smoothing=False),
        "PS logit": PlattCalibrator(input="logit", target_smoothing=False, clip=1e-12),
        # UBRE: the smoothness criterion mgcv::gam (used by the paper) applies to a binomial.
        "PS GAM": LogisticGAMCalibrator(criterion="ubre", target_smoothing=False),
        "PS logit GAM": LogisticGAMCalibrator(input="logit", criterion="ubre", clip=1e-12,
                                              target_smoothing=False),
        "analytical": UndersamplingCorrection(pi0=pi0),
        "isotonic": IsotonicCalibrator(),
    }


rows = []
for b, pi0 in SETTINGS.items():
    _, y_cal, p_cal = make_undersampling_simulation(N_CALIBRATION, b, random_state=1)
    _, y_test, p_test = make_undersampling_simulation(N_TEST, b, random_state=2)
    for kind in KINDS:
        s_cal = base_model_scores(undersampled_probability(p_cal, pi0), kind)
        s_test = base_model_scores(undersampled_probability(p_test, pi0), kind)
        for name, calibrator in methods(pi0).items():
            p_hat = calibrator.fit(s_cal, y_cal).predict_proba(s_test)[:, 1]
            rows.append(
                {
                    "b": b,
                    "base model": kind,
                    "mean outcome": round(float(p_test.mean()), 4),
                    "method": name,
                    "RMSE x1e4": 1e4 * rmse_true(p_test, p_hat),
                    "MAE x1e4": 1e4 * mae_true(p_test, p_hat),
                    "BS x1e3": 1e3 * brier_score(y_test, p_hat),
                    "NLS": len(y_test) * log_loss(y_test, p_hat, eps=1e-5),
                }
            )
results = pd.DataFrame(rows)
for number, kind in enumerate(KINDS, start=1):
    print(f"\nTable {number} (reduced): base model '{kind}'")
    table = results[results["base model"] == kind].drop(columns=["b", "base model"])
    print(table.set_index(["mean outcome", "method"]).round(2).to_string())

# %% [markdown]
# ## The paper's orderings, checked at this size
#
# Each claim is printed with its verdict. Claims that hold at 20 000
# calibration rows with these seeds and that the paper reports without
# exception are asserted. "PS beats PS logit towards 0.5" is asserted only at
# the larger base rate: the paper itself saw PS logit win on RMSE at a small
# base rate with its smallest calibration set (§3.2.2), and at this reduced
# size that happens at mean outcome 0.021 too. "PS logit GAM is best towards
# the extremes" is asserted at the larger base rate, where the paper reports it
# without exception.


# %%
def check(claim: str, holds: bool, *, asserted: bool) -> None:
    verdict = "holds" if holds else "does NOT hold"
    print(f"[{'asserted' if asserted else 'reported'}] {claim}: {verdict}")
    if asserted:
        assert holds, claim


for b in SETTINGS:
    sub = results[results["b"] == b]
    r = {kind: sub[sub["base model"] == kind].set_index("method")["RMSE x1e4"] for kind in KINDS}
    print(f"\nb = {b} (mean outcome {sub['mean outcome'].iloc[0]}):")
    # Table 1: a perfect base model.
    check(
        "perfect: analytical is exact (RMSE ~ 0)", r["perfect"]["analytical"] < 1e-8, asserted=True
    )
    check(
        "perfect: the logit fixes Platt's scaling (PS logit < PS)",
        r["perfect"]["PS logit"] < r["perfect"]["PS"],
        asserted=True,
    )
    check(
        "perfect: isotonic is behind PS logit",
        r["perfect"]["isotonic"] > r["perfect"]["PS logit"],
        asserted=True,
    )
    # Table 2: base model pushing towards 0.5 (Theorem 2: PS is exact in the limit).
    check(
        "toward 0.5: PS beats PS logit",
        r["toward_half"]["PS"] < r["toward_half"]["PS logit"],
        asserted=b == 1.1,
    )
    check(
        "toward 0.5: the analytical correction fails (> 5x PS)",
        r["toward_half"]["analytical"] > 5 * r["toward_half"]["PS"],
        asserted=True,
    )
    # Table 3: base model pushing towards the extremes.
    platt_family = ["PS", "PS logit", "PS GAM", "PS logit GAM"]
    winner = min(platt_family, key=r["toward_extremes"].get)
    check(
        f"toward extremes: PS logit GAM is best of the Platt family (best: {winner})",
        winner == "PS logit GAM",
        asserted=b == 1.1,
    )

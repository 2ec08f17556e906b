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
# # A Bayesian reference probe
#
# A *probe* is a Bayesian model whose posterior predictive probability is the
# yard-stick for other classifiers' probabilities. Here: Bayesian logistic
# regression with Cauchy priors (Gelman et al. 2008; seed `000`, §2.1.1) on the
# thesis' synthetic set, whose true probabilities are known, so the probe's
# posterior mean and credible intervals can be checked against the truth.
#
# Every probe keeps the posterior contract: `idata_` (ArviZ data),
# `predict_proba` (posterior mean), `predict_interval(X, prob=0.9)` (credible
# interval per class, shape `(n, K, 2)`) and `diagnostics_` (R-hat, ESS,
# divergences, sampler, seconds). Draws are kept tiny so that the notebook runs
# in seconds; a real study uses the defaults (2 chains x 1000 + 1000).

# %%
import os
import tempfile
import warnings
from pathlib import Path

import matplotlib

matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
import arviz as az
import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_predict, train_test_split
from sklearn.naive_bayes import GaussianNB

from bayescal.datasets import make_thesis_synthetic
from bayescal.inference.posterior import PosteriorDiagnosticsWarning
from bayescal.metrics import probe_distance, rmse_true
from bayescal.probes import BayesianLogisticRegression, BayesianPlattCalibrator
from bayescal.report import plot_calibration_map, plot_instance_intervals
from bayescal.threads import limit_blas_threads

OUT = Path(os.environ.get("BAYESCAL_NOTEBOOK_OUT") or tempfile.mkdtemp(prefix="bayescal-nb-"))
OUT.mkdir(parents=True, exist_ok=True)

X, y, p_true = make_thesis_synthetic(n_per_class=150, random_state=0)
X_train, X_test, y_train, y_test, p_train, p_test = train_test_split(
    X, y, p_true, test_size=0.5, stratify=y, random_state=0
)
print("train", X_train.shape, "test", X_test.shape)

# %% [markdown]
# ## Fitting by NUTS
#
# `sampler="pymc"` runs PyMC's NUTS directly (no compilation step of its own);
# the default `"nutpie"` compiles once per model structure and pays off when
# the same model is refitted many times (folds, repeats). BLAS threads are
# limited to one while sampling on a shared machine.

# %%
probe = BayesianLogisticRegression(
    inference="nuts", sampler="pymc", draws=250, tune=250, chains=2, random_state=0
)
with limit_blas_threads(1), warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", PosteriorDiagnosticsWarning)
    probe.fit(X_train, y_train)
diag = probe.diagnostics_
print(
    {
        key: diag[key]
        for key in ("sampler", "rhat_max", "ess_bulk_min", "ess_tail_min", "divergences")
    }
)
print(f"sampling took {diag['seconds']:.1f} s")
for warning in caught:
    if issubclass(warning.category, PosteriorDiagnosticsWarning):
        print("diagnostics warning:", warning.message)

# %% [markdown]
# With so few draws a `PosteriorDiagnosticsWarning` is likely (R-hat above 1.01
# or bulk ESS below 200): the contract is that a posterior failing its
# diagnostics is never silent. The same failures are listed in
# `diagnostics_["failures"]` and recorded in a study's result cube.

# %%
print("failures:", diag.get("failures"))

# %% [markdown]
# The posterior itself is ArviZ data: `intercept` and `beta` (on the scaled
# inputs) with named dims.

# %%
posterior = probe.idata_["posterior"]
print(posterior["beta"].dims, dict(posterior["beta"].sizes))
print(az.summary(probe.idata_, var_names=["intercept", "beta"]).round(2).to_string())

# %% [markdown]
# ## Posterior mean, credible intervals and the truth

# %%
mean = probe.predict_proba(X_test)[:, 1]
interval = probe.predict_interval(X_test, prob=0.9)[:, 1, :]  # (n, 2) for the positive class
# An equal-tailed interval need not contain the mean of a skewed posterior
# (probabilities near 0 or 1), but its bounds are ordered and inside [0, 1].
assert np.all((0 <= interval[:, 0]) & (interval[:, 0] <= interval[:, 1]) & (interval[:, 1] <= 1))
width = interval[:, 1] - interval[:, 0]
inside_truth = np.mean((interval[:, 0] <= p_test) & (p_test <= interval[:, 1]))
print(f"probe RMSE to the true probability: {rmse_true(p_test, mean):.4f}")
print(f"mean 90 % interval width: {width.mean():.3f}; truth inside: {inside_truth:.0%}")

# %% [markdown]
# The interval describes the uncertainty of *this model's* probability; the
# truth of this set is not linear-logistic in the six derived features, so the
# truth falls inside a 90 % interval less often than 90 % of the time. That gap
# is model misspecification, which no amount of sampling removes.

# %% [markdown]
# ## The probe as a yard-stick
#
# `probe_distance` measures another classifier's probabilities against the
# probe: RMSE to its posterior mean and the share of predictions inside its
# credible interval. Here the truth is known too, so we can see that the
# distance to the probe ranks the classifiers as the distance to the truth does.

# %%
others = {
    "logistic (sklearn)": LogisticRegression(max_iter=1000).fit(X_train, y_train),
    "naive Bayes": GaussianNB().fit(X_train, y_train),
}
rows = {}
for name, model in others.items():
    p_other = model.predict_proba(X_test)[:, 1]
    d = probe_distance(p_other, mean, interval)
    rows[name] = (d.rmse, d.inside, rmse_true(p_test, p_other))
    print(
        f"{name:20s} RMSE to probe {d.rmse:.4f}  inside probe's interval {d.inside:.0%}  "
        f"RMSE to truth {rows[name][2]:.4f}"
    )
by_probe = sorted(rows, key=lambda k: rows[k][0])
by_truth = sorted(rows, key=lambda k: rows[k][2])
print("ranking by probe:", by_probe, "| by truth:", by_truth)
assert by_probe == by_truth

# %% [markdown]
# ## A fast approximation: Laplace
#
# `inference="laplace"` finds the posterior mode and draws from the Gaussian
# around it (Jacobian-aware): a fraction of the cost of NUTS, close here where
# the posterior is nearly Gaussian.

# %%
laplace = BayesianLogisticRegression(inference="laplace", draws=600, random_state=0)
laplace.fit(X_train, y_train)
mean_laplace = laplace.predict_proba(X_test)[:, 1]
gap = np.max(np.abs(mean_laplace - mean))
print(
    f"largest |Laplace - NUTS| posterior-mean gap: {gap:.3f} "
    f"(Laplace {laplace.diagnostics_['seconds']:.2f} s vs NUTS {diag['seconds']:.1f} s)"
)
assert gap < 0.1

# %% [markdown]
# ## Per-instance intervals

# %%
order = np.argsort(mean)[:: max(1, len(mean) // 40)]
fig, ax = plt.subplots(figsize=(9, 4))
plot_instance_intervals(
    interval[order],
    mean[order],
    others={"true probability": p_test[order]},
    y=y_test[order],
    ax=ax,
    label="BLR-Cauchy probe (90 %)",
)
figure_path = OUT / "03_probe_intervals.png"
fig.savefig(figure_path, dpi=70, bbox_inches="tight")
plt.close(fig)
print("saved", figure_path)


# %% [markdown]
# ## A Bayesian calibration map
#
# Probes also come as calibrators. `BayesianPlattCalibrator` learns
# `logit p = a + b logit(s)` with Cauchy priors, so the whole calibration map
# has a credible band (`map_band`). Here it calibrates naive Bayes'
# out-of-fold scores on the training half (Laplace inference, for speed); the
# band is wide where there are few scores to learn from. Naive Bayes gives
# scores of exactly 0 or 1, where the logit is infinite; the calibrator clips
# them to [clip, 1 - clip] (the package's one clip rule, `clip=1e-12` by
# default) and counts them in `n_clipped_`.

# %%
nb_scores_train = cross_val_predict(GaussianNB(), X_train, y_train, cv=5, method="predict_proba")[
    :, 1
]
nb_scores_test = others["naive Bayes"].predict_proba(X_test)[:, 1]
bayes_platt = BayesianPlattCalibrator(
    input="logit", inference="laplace", draws=500, random_state=0
).fit(nb_scores_train, y_train)
print("scores clipped:", bayes_platt.n_clipped_)
grid = np.linspace(0.01, 0.99, 99)
band_mean, band_lower, band_upper = bayes_platt.map_band(grid, prob=0.9)
assert np.all((band_lower <= band_upper) & (band_upper - band_lower < 1))
calibrated = bayes_platt.predict_proba(np.clip(nb_scores_test, 1e-12, 1 - 1e-12))[:, 1]
rmse_raw, rmse_cal = rmse_true(p_test, nb_scores_test), rmse_true(p_test, calibrated)
print(f"naive Bayes RMSE to the truth: raw {rmse_raw:.4f}, Bayesian Platt {rmse_cal:.4f}")
print(f"band width at s = 0.5: {np.interp(0.5, grid, band_upper - band_lower):.3f}")
assert rmse_cal < rmse_raw

fig, ax = plt.subplots(figsize=(5, 5))
plot_calibration_map(bayes_platt, grid, prob=0.9, ax=ax)
ax.set_title("Bayesian Platt (logit) on naive Bayes scores")
figure_path = OUT / "03_bayesian_platt_map.png"
fig.savefig(figure_path, dpi=70, bbox_inches="tight")
plt.close(fig)
print("saved", figure_path)

"""
Bayesian binning: BBQ, SBB and ABB
==================================

Bayesian binning averages many binnings instead of choosing one: BBQ over
equal-frequency binnings of different sizes weighted by their marginal
likelihood, SBB over the cut points of a single Bayesian binning, ABB over all
binnings. Their posterior gives the calibration map a credible band; the true
map of this over-confident base model is known.
"""

import matplotlib.pyplot as plt
import numpy as np

from bayescal.datasets import base_model_scores
from bayescal.probes import ABBCalibrator, BBQCalibrator, SBBCalibrator
from bayescal.report import plot_calibration_map

rng = np.random.default_rng(0)
p_cal = rng.uniform(size=400)
y_cal = rng.binomial(1, p_cal)
s_cal = base_model_scores(p_cal, kind="toward_extremes")

grid = np.linspace(0.007, 0.993, 199)
true_map = np.clip(0.5 + np.log(grid / (1 - grid)) / 10, 0, 1)
fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), layout="constrained", sharey=True)
for ax, (name, calibrator) in zip(axes, {
    "BBQ": BBQCalibrator(random_state=0),
    "SBB": SBBCalibrator(random_state=0),
    "ABB": ABBCalibrator(random_state=0),
}.items(), strict=True):
    plot_calibration_map({name: calibrator.fit(s_cal, y_cal)}, grid, ax=ax, reference=true_map,
                         reference_label="true map")
    ax.set_title(f"{name} (400 calibration samples)")
plt.show()

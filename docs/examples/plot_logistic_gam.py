"""
Logistic GAM calibration
========================

A logistic generalised additive model lets the calibration map bend where
Platt's single sigmoid cannot. Here a base model pushes its estimates towards
0.5 (one of the hypothetical base models of Phelps, Lizotte & Woolford 2024),
so the true map from score to probability is S-shaped in the logit; the GAM
on the logit follows it, Platt on the logit does not.
"""

import matplotlib.pyplot as plt
import numpy as np

from bayescal.calibration import LogisticGAMCalibrator, PlattCalibrator
from bayescal.datasets import base_model_scores
from bayescal.report import plot_calibration_map

rng = np.random.default_rng(0)
p_true = rng.beta(0.6, 0.6, size=3000)
y = rng.binomial(1, p_true)
scores = base_model_scores(p_true, kind="toward_half")

maps = {
    'Platt, input="logit"': PlattCalibrator(input="logit").fit(scores, y),
    'logistic GAM, input="logit"': LogisticGAMCalibrator(input="logit").fit(scores, y),
}
# The true map inverts the base model: score s came from p = expit(10 (s - 0.5)).
grid = np.linspace(0.005, 0.995, 199)
true_map = 1.0 / (1.0 + np.exp(-10.0 * (grid - 0.5)))

fig, ax = plt.subplots(figsize=(6, 4.5), layout="constrained")
plot_calibration_map(maps, grid, ax=ax, reference=true_map, reference_label="true map")
ax.set_title("A base model pushed towards 0.5")
plt.show()

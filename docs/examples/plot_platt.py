"""
Platt scaling
=============

A base model trained after undersampling over-predicts the positive class.
Platt scaling fits a logistic regression of the label on the score (or on its
logit); with a perfect base model the true map is linear in the logit, so
``input="logit"`` recovers it while ``input="score"`` cannot bend far enough.
"""

import matplotlib.pyplot as plt
import numpy as np

from bayescal.calibration import PlattCalibrator
from bayescal.datasets import (
    base_model_scores,
    make_undersampling_simulation,
    undersampled_probability,
)
from bayescal.report import plot_calibration_map

X, y, p_true = make_undersampling_simulation(4000, b=1.1, random_state=0)
pi0 = 0.125
gamma = undersampled_probability(p_true, pi0)
scores = base_model_scores(gamma, kind="perfect")

maps = {
    'Platt, input="score"': PlattCalibrator(input="score").fit(scores, y),
    'Platt, input="logit"': PlattCalibrator(input="logit").fit(scores, y),
}
grid = np.linspace(0.001, 0.999, 201)
true_map = grid * pi0 / (1 - grid + grid * pi0)

fig, ax = plt.subplots(figsize=(6, 4.5), layout="constrained")
plot_calibration_map(maps, grid, ax=ax, reference=true_map, reference_label="true map")
ax.set_title("Platt scaling after undersampling")
plt.show()

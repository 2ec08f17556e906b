"""
Beta calibration
================

Beta calibration fits ``logit p = a log s - b log(1 - s) + c``: a family that
contains the identity and both sigmoid and inverse-sigmoid shapes, which
Platt's sigmoid in the score does not. On an over-confident base model the
beta map bends towards the true map from both ends.
"""

import matplotlib.pyplot as plt
import numpy as np

from bayescal.calibration import BetaCalibrator, PlattCalibrator
from bayescal.datasets import base_model_scores
from bayescal.report import plot_calibration_map

rng = np.random.default_rng(0)
p_cal = rng.uniform(size=1000)
y_cal = rng.binomial(1, p_cal)
s_cal = base_model_scores(p_cal, kind="toward_extremes")

maps = {
    'beta, parameters="abm"': BetaCalibrator(parameters="abm").fit(s_cal, y_cal),
    'beta, parameters="am"': BetaCalibrator(parameters="am").fit(s_cal, y_cal),
    "Platt (on the score)": PlattCalibrator().fit(s_cal, y_cal),
}
grid = np.linspace(0.007, 0.993, 199)
true_map = np.clip(0.5 + np.log(grid / (1 - grid)) / 10, 0, 1)
fig, ax = plt.subplots(figsize=(6, 4.5), layout="constrained")
plot_calibration_map(maps, grid, ax=ax, reference=true_map, reference_label="true map")
ax.set_title("Beta calibration of an over-confident base model")
plt.show()

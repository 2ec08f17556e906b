"""
Bayesian calibration maps
=========================

A Bayesian Platt, beta or spline map is a calibration map with a posterior:
its credible band says where the map itself is uncertain. On 150 calibration
samples of the over-confident base model the beta map's band covers the true
map; Platt on the logit is too rigid for it. (Laplace approximation here;
``inference="nuts"`` is the default for real use.)
"""

import matplotlib.pyplot as plt
import numpy as np

from bayescal.datasets import base_model_scores
from bayescal.probes import BayesianBetaCalibrator, BayesianPlattCalibrator
from bayescal.report import plot_calibration_map

rng = np.random.default_rng(0)
p_cal = rng.uniform(size=150)
y_cal = rng.binomial(1, p_cal)
s_cal = base_model_scores(p_cal, kind="toward_extremes")

grid = np.linspace(0.007, 0.993, 199)
true_map = np.clip(0.5 + np.log(grid / (1 - grid)) / 10, 0, 1)
maps = {
    "Bayesian Platt (logit)": BayesianPlattCalibrator(inference="laplace", random_state=0),
    "Bayesian beta": BayesianBetaCalibrator(inference="laplace", random_state=0),
}
fig, axes = plt.subplots(1, 2, figsize=(10, 4.3), layout="constrained", sharey=True)
for ax, (name, calibrator) in zip(axes, maps.items(), strict=True):
    plot_calibration_map({name: calibrator.fit(s_cal, y_cal)}, grid, ax=ax, reference=true_map,
                         reference_label="true map")
    ax.set_title(f"{name}: 90% credible band")
plt.show()

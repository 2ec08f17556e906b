"""
Venn-ABERS predictors
=====================

An inductive Venn-ABERS predictor gives, for every test score, two isotonic
probabilities ``p0 <= p1``: the isotonic fit with the test object added as a
negative and as a positive. Their gap is wide where few calibration samples
lie and narrows as they accumulate; the merged probability
``p1 / (1 - p0 + p1)`` lies between them.
"""

import matplotlib.pyplot as plt
import numpy as np

from bayescal.calibration import VennAbersCalibrator
from bayescal.datasets import base_model_scores

rng = np.random.default_rng(0)
grid = np.linspace(0.007, 0.993, 199)
true_map = np.clip(0.5 + np.log(grid / (1 - grid)) / 10, 0, 1)

fig, axes = plt.subplots(1, 2, figsize=(10, 4.3), layout="constrained", sharey=True)
for ax, n in zip(axes, (100, 1000), strict=True):
    p_cal = rng.uniform(size=n)
    y_cal = rng.binomial(1, p_cal)
    s_cal = base_model_scores(p_cal, kind="toward_extremes")
    va = VennAbersCalibrator().fit(s_cal, y_cal)
    interval = va.predict_interval(grid)[:, 1, :]  # class 1: columns p0, p1
    ax.fill_between(grid, interval[:, 0], interval[:, 1], step="post", alpha=0.35,
                    label="Venn-ABERS pair (p0, p1)")
    ax.plot(grid, va.predict_proba(grid)[:, 1], label="merged probability")
    ax.plot(grid, true_map, "k--", label="true map")
    ax.set(title=f"{n} calibration samples", xlabel="score", xlim=(0, 1), ylim=(0, 1))
axes[0].set_ylabel("probability of the positive class")
axes[0].legend(loc="upper left")
plt.show()

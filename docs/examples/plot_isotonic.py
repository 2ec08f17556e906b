"""
Isotonic regression
===================

Isotonic regression fits the best non-decreasing step function from score to
label (pool-adjacent-violators). The base model here is over-confident: it
pushes true probabilities towards 0 and 1 (one of the hypothetical base models
of Phelps, Lizotte & Woolford 2024), so the true map is known. The fitted
steps follow it, and held-out reliability moves onto the diagonal.
"""

import matplotlib.pyplot as plt
import numpy as np

from bayescal.calibration import IsotonicCalibrator
from bayescal.datasets import base_model_scores
from bayescal.report import plot_calibration_map, plot_reliability_diagram

rng = np.random.default_rng(0)
p_cal, p_test = rng.uniform(size=1000), rng.uniform(size=2000)
y_cal, y_test = rng.binomial(1, p_cal), rng.binomial(1, p_test)
s_cal = base_model_scores(p_cal, kind="toward_extremes")
s_test = base_model_scores(p_test, kind="toward_extremes")

iso = IsotonicCalibrator().fit(s_cal, y_cal)

# The base model drew s = expit(10 (p - 0.5)), so p = 0.5 + logit(s) / 10.
grid = np.linspace(0.007, 0.993, 199)
true_map = np.clip(0.5 + np.log(grid / (1 - grid)) / 10, 0, 1)

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.3), layout="constrained")
plot_calibration_map({"isotonic": iso}, grid, ax=left, reference=true_map,
                     reference_label="true map")
left.set_title("Fitted map (1000 calibration samples)")
plot_reliability_diagram(y_test, s_test, ax=right, style="points", label="base model",
                         show_histogram=False)
plot_reliability_diagram(y_test, iso.predict_proba(s_test)[:, 1], ax=right, style="points",
                         label="+ isotonic", show_histogram=False)
handles, labels = right.get_legend_handles_labels()
unique = dict(zip(labels, handles, strict=True))  # each call draws a diagonal
right.legend(unique.values(), unique.keys(), loc="upper left")
right.set_title("Held-out reliability (95% Wilson intervals)")
plt.show()

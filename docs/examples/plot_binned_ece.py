"""
Binned ECE and the reliability diagram
======================================

The expected calibration error averages, over bins of the predicted
probability, the gap between the bin's mean prediction and its observed
positive rate, weighted by the bin's share of samples. The reliability diagram
draws the same bins, each rate with its 95% Wilson score interval, and the
histogram below shows how many samples each bin holds.
"""

import matplotlib.pyplot as plt
import numpy as np

from bayescal.datasets import base_model_scores
from bayescal.metrics import expected_calibration_error
from bayescal.report import plot_reliability_diagram

rng = np.random.default_rng(0)
p_true = rng.uniform(size=1500)
y = rng.binomial(1, p_true)
scores = base_model_scores(p_true, kind="toward_extremes")
ece = expected_calibration_error(y, scores, n_bins=10)

fig, ax = plt.subplots(figsize=(6, 5), layout="constrained")
plot_reliability_diagram(y, scores, n_bins=10, ax=ax, label="over-confident base model")
ax.set_title(f"10 equal-width bins: ECE = {ece:.3f}")
plt.show()

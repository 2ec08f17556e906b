"""
Smooth ECE and the smoothed reliability diagram
===============================================

Smooth ECE (Błasiok & Nakkiran 2023) replaces bins by a Gaussian kernel
smoother of the labels against the predictions, with the bandwidth chosen as
the fixed point where it equals the smoothed error. Unlike the binned ECE it
does not jump when a bin edge moves.
"""

import matplotlib.pyplot as plt
import numpy as np

from bayescal.datasets import base_model_scores
from bayescal.metrics import smooth_ece
from bayescal.report import plot_smooth_reliability_diagram

rng = np.random.default_rng(0)
p_true = rng.uniform(size=1500)
y = rng.binomial(1, p_true)
forecasts = {
    "over-confident": base_model_scores(p_true, kind="toward_extremes"),
    "under-confident": base_model_scores(p_true, kind="toward_half"),
}

fig, axes = plt.subplots(1, 2, figsize=(10, 4.5), layout="constrained", sharey=True)
for ax, (name, scores) in zip(axes, forecasts.items(), strict=True):
    plot_smooth_reliability_diagram(y, scores, ax=ax, label=f"{name} base model")
    ax.set_title(f"{name}: smooth ECE = {smooth_ece(y, scores):.3f}")
plt.show()

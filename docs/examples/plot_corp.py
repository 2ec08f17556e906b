"""
CORP reliability diagram
========================

The CORP diagram (Dimitriadis, Gneiting & Jordan 2021) replaces ad-hoc bins
by the isotonic (pool-adjacent-violators) recalibration of the forecasts, with
a consistency band from resampling under calibration, and decomposes the
Brier score into miscalibration, discrimination and uncertainty.
"""

import matplotlib.pyplot as plt
import numpy as np

from bayescal.datasets import base_model_scores
from bayescal.report import plot_corp_reliability_diagram

rng = np.random.default_rng(0)
p_true = rng.uniform(size=800)
y = rng.binomial(1, p_true)
scores = base_model_scores(p_true, kind="toward_extremes")

fig, ax = plt.subplots(figsize=(6, 5.5), layout="constrained")
plot_corp_reliability_diagram(y, scores, ax=ax, n_resamples=200, random_state=0,
                              label="over-confident base model")
ax.set_title("CORP reliability diagram (800 samples)")
plt.show()

"""
Analytical correction after undersampling
=========================================

Undersampling the negatives (each kept with probability ``pi0``) raises every
probability a model learns. Bayes' rule gives the exact way back,
``p = gamma pi0 / (1 - gamma + gamma pi0)`` (Dal Pozzolo et al. 2015), which
needs no calibration data; it is exact for a perfect base model and off for
one whose estimates are pushed towards 0.5.
"""

import matplotlib.pyplot as plt
import numpy as np

from bayescal.calibration import UndersamplingCorrection
from bayescal.datasets import base_model_scores, undersampled_probability
from bayescal.report import plot_true_vs_predicted

rng = np.random.default_rng(0)
p_true = rng.beta(0.5, 4.0, size=3000)  # an imbalanced population: mean about 0.11
pi0 = 0.125
gamma = undersampled_probability(p_true, pi0)
correction = UndersamplingCorrection(pi0=pi0).fit(np.array([0.2, 0.8]), np.array([0, 1]))

fig, axes = plt.subplots(1, 2, figsize=(10, 4.3), layout="constrained", sharey=True)
for ax, kind in zip(axes, ("perfect", "toward_half"), strict=True):
    scores = base_model_scores(gamma, kind=kind)
    plot_true_vs_predicted(p_true, scores, ax=ax, label="base model (undersampled)")
    plot_true_vs_predicted(p_true, correction.predict_proba(scores)[:, 1], ax=ax,
                           label="corrected")
    ax.set_title(f'base model: "{kind}"')
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))  # each call draws a diagonal
    ax.legend(unique.values(), unique.keys(), loc="lower right")
plt.show()

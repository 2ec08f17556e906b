"""
Scoring rules: Brier score and log loss
=======================================

Both are strictly proper: if an event happens with probability 0.3, the
expected score is best when the forecast is exactly 0.3. The expected score of
a forecast ``q`` is computed here with bayescal's own metrics, weighting the
two outcomes by their probabilities. Log loss punishes confident mistakes far
harder than the Brier score.
"""

import matplotlib.pyplot as plt
import numpy as np

from bayescal.metrics import brier_score, log_loss

p = 0.3  # the true probability of the event
y = np.array([1, 0])
weights = np.array([p, 1 - p])
forecasts = np.linspace(0.01, 0.99, 99)
expected = {
    "Brier score": [brier_score(y, np.array([q, q]), sample_weight=weights) for q in forecasts],
    "log loss": [log_loss(y, np.array([q, q]), sample_weight=weights) for q in forecasts],
}

fig, axes = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
for ax, (name, values) in zip(axes, expected.items(), strict=True):
    ax.plot(forecasts, values)
    best = forecasts[int(np.argmin(values))]
    ax.axvline(p, color="k", linestyle="--", label=f"true probability {p}")
    ax.plot(best, min(values), "o", color="C3", label=f"minimum at q = {best:.2f}")
    ax.set(xlabel="forecast probability q", ylabel=f"expected {name}", title=name)
    ax.legend(loc="upper center")
plt.show()

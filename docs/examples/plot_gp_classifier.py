"""
Gaussian-process classifier
===========================

A Gaussian-process classifier puts a prior on the latent function and
squashes it through the probit link. With expectation propagation (EP) the
posterior is approximated in closed form, in a fraction of a second for 80
points; the credible band of the probability widens away from the data.
"""

import matplotlib.pyplot as plt
import numpy as np

from bayescal.probes import BayesianGPClassifier

rng = np.random.default_rng(0)
x = np.sort(rng.uniform(-3, 1.5, size=80))
p_true = 1 / (1 + np.exp(-2.5 * np.sin(1.5 * x)))
y = rng.binomial(1, p_true)

gpc = BayesianGPClassifier(inference="ep", random_state=0).fit(x[:, None], y)
grid = np.linspace(-3.5, 3.0, 200)
mean = gpc.predict_proba(grid[:, None])[:, 1]
band = gpc.predict_interval(grid[:, None], prob=0.9)[:, 1, :]

fig, ax = plt.subplots(figsize=(8, 4.3), layout="constrained")
ax.fill_between(grid, band[:, 0], band[:, 1], alpha=0.3, label="90% credible band")
ax.plot(grid, mean, label="posterior mean probability")
ax.plot(grid, 1 / (1 + np.exp(-2.5 * np.sin(1.5 * grid))), "k--", label="true probability")
ax.plot(x, y, "|", color="0.3", markersize=12, label="training labels")
ax.axvspan(1.5, 3.0, color="0.92", zorder=0, label="no training data")
ax.set(xlabel="x", ylabel="P(y = 1 | x)", ylim=(-0.05, 1.05),
       title="GP classifier (EP) on 80 points")
ax.legend(loc="upper left", fontsize="small", ncols=2)
plt.show()

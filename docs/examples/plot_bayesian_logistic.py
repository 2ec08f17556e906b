"""
Bayesian logistic regression with Cauchy priors
===============================================

The reference probe: logistic regression with weakly informative Cauchy priors
(Gelman, Jakulin, Pittau & Su 2008). Its posterior gives every prediction a
credible interval. Trained on 100 samples of a logistic model whose true
probabilities are known, its 90% intervals should cover the truth for about
nine new instances in ten (the title says how many did here), and they are
widest where the probability is least certain. (This example uses the Laplace approximation, which needs no
sampling; ``inference="nuts"`` is the default for real use.)
"""

import matplotlib.pyplot as plt
import numpy as np

from bayescal.probes import BayesianLogisticRegression
from bayescal.report import plot_instance_intervals

rng = np.random.default_rng(0)
coef = np.array([1.5, -1.0, 0.5])


def draw(n):
    """Features, labels and true probabilities of a logistic model."""
    X = rng.normal(size=(n, 3))
    p = 1 / (1 + np.exp(-(X @ coef - 0.3)))
    return X, rng.binomial(1, p), p


X, y, p_true = draw(100)
X_new, y_new, p_new = draw(40)

probe = BayesianLogisticRegression(inference="laplace", random_state=0).fit(X, y)
interval = probe.predict_interval(X_new, prob=0.9)[:, 1, :]  # positive class: lower, upper
mean = probe.predict_proba(X_new)[:, 1]
covered = np.mean((interval[:, 0] <= p_new) & (p_new <= interval[:, 1]))
print(f"90% intervals covering the true probability: {covered:.0%}")
print(f"diagnostics: {probe.diagnostics_}")

order = np.argsort(mean)
fig, ax = plt.subplots(figsize=(9, 4.3), layout="constrained")
plot_instance_intervals(interval[order], mean[order], others={"true probability": p_new[order]},
                        y=y_new[order], ax=ax, label="90% credible interval")
ax.set_title(f"40 new instances, sorted by posterior mean ({covered:.0%} of intervals cover "
             "the truth)")
plt.show()

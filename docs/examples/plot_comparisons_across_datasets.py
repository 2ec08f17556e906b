"""
Comparing calibrators across datasets
=====================================

Which calibrator is best *in general*? Following Demšar (2006), each of eight
small synthetic datasets ranks four calibration scenarios of a naive Bayes
classifier by held-out Brier score; the Friedman test asks whether the mean
ranks differ at all and the Nemenyi critical difference which pairs do.
Methods joined by a bar are not separated by the test. Eight datasets is
still few: Demšar advises against reading much into fewer than about five.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

from bayescal.calibration import BetaCalibrator, IsotonicCalibrator, PlattCalibrator
from bayescal.metrics import brier_score
from bayescal.report.method_comparison import plot_critical_difference
from bayescal.stats import friedman_test, nemenyi_test

names = ["uncalibrated", "Platt", "isotonic", "beta"]
scores = []
for seed in range(8):
    X, y = make_classification(n_samples=900, n_features=10, n_informative=4, n_redundant=4,
                               flip_y=0.05, random_state=seed)
    X_train, X_rest, y_train, y_rest = train_test_split(X, y, test_size=2 / 3, random_state=seed)
    X_cal, X_test, y_cal, y_test = train_test_split(X_rest, y_rest, test_size=0.5,
                                                    random_state=seed)
    model = GaussianNB().fit(X_train, y_train)
    s_cal, s_test = model.predict_proba(X_cal)[:, 1], model.predict_proba(X_test)[:, 1]
    row = [brier_score(y_test, s_test)]
    for calibrator in (PlattCalibrator(), IsotonicCalibrator(), BetaCalibrator()):
        row.append(brier_score(y_test, calibrator.fit(s_cal, y_cal).predict_proba(s_test)[:, 1]))
    scores.append(row)
scores = np.array(scores)

friedman = friedman_test(scores)
nemenyi = nemenyi_test(scores)
print("mean ranks:", ", ".join(f"{n} {r:.2f}" for n, r in zip(names, friedman.mean_ranks, strict=True)))
print(
    f"Friedman chi2 = {friedman.statistic:.2f}, Iman-Davenport p = {friedman.f_p_value:.3g}")

fig, ax = plt.subplots(figsize=(8, 3), layout="constrained")
plot_critical_difference(nemenyi.mean_ranks, nemenyi.critical_difference, names, ax=ax)
ax.set_title(f"Brier score over 8 datasets (Iman-Davenport p = {friedman.f_p_value:.3g})")
plt.show()

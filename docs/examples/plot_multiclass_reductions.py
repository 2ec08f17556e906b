"""
Multi-class reductions: one-vs-rest and all pairs
=================================================

Any binary calibrator becomes multi-class through a reduction. One-vs-rest
calibrates each class's column and renormalises; all pairs calibrates each
pair of classes on their own samples and couples the pairwise probabilities
(Wu, Lin & Weng 2004). Both are shown with Platt scaling on a
four-class naive Bayes classifier, scored on held-out data.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

from bayescal.calibration import AllPairsCalibrator, OneVsRestCalibrator, PlattCalibrator
from bayescal.metrics import brier_score, log_loss

X, y = make_classification(n_samples=2400, n_features=6, n_informative=4, n_classes=4,
                           n_clusters_per_class=1, class_sep=1.0, random_state=0)
X_train, X_rest, y_train, y_rest = train_test_split(X, y, test_size=0.6, random_state=0)
X_cal, X_test, y_cal, y_test = train_test_split(X_rest, y_rest, test_size=0.5, random_state=1)
model = GaussianNB().fit(X_train, y_train)
P_cal, P_test = model.predict_proba(X_cal), model.predict_proba(X_test)

methods = {
    "uncalibrated": P_test,
    "one-vs-rest": OneVsRestCalibrator(PlattCalibrator()).fit(P_cal, y_cal).predict_proba(P_test),
    "all pairs": AllPairsCalibrator(PlattCalibrator()).fit(P_cal, y_cal).predict_proba(P_test),
}
names = list(methods)
losses = np.array([[log_loss(y_test, P), brier_score(y_test, P)] for P in methods.values()])
for name, (ll, bs) in zip(names, losses, strict=True):
    print(f"{name:>13}: log loss {ll:.3f}, Brier {bs:.3f}")

fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
for ax, column, title in zip(axes, (0, 1), ("log loss", "Brier score"), strict=True):
    ax.barh(names, losses[:, column], color=["0.6", "C0", "C1"])
    ax.invert_yaxis()
    ax.set(title=f"held-out {title} (lower is better)", xlabel=title)
plt.show()

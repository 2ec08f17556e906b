"""The search that chose ``mean_scale`` of the seed 000 Table 5 reproduction.

The thesis (seed 000 §3.1.1) gives no parameters of its synthetic set. For each
``mean_scale`` of a grid this draws the set (100 + 100 samples, six derived
features) twice, runs 10-fold CV of the four non-Bayesian classifiers with the
settings of ``full.toml`` (RF with fewer trees, for speed) and scores the raw mean
squared error against the true probabilities, ours / the thesis' (Table 5: NB 0.072,
SVM 0.039, RF 0.052, NN 0.047). The criterion is the sum over the four classifiers
of the squared log ratio; the smallest wins. Run (minutes on 2 cores)::

    python models/reproductions/seed000_table5/search_mean_scale.py 1.0 0.7 0.5 0.4 0.3 0.2
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from bayescal.datasets import make_thesis_synthetic

THESIS_RAW_MSE = {"nb": 0.072, "svm": 0.039, "rf": 0.052, "nn": 0.047}


def _classifiers() -> dict:
    return {
        "nb": GaussianNB(),
        "svm": make_pipeline(StandardScaler(), SVC(probability=True, random_state=0)),
        "rf": RandomForestClassifier(n_estimators=100, random_state=0),
        "nn": make_pipeline(StandardScaler(), MLPClassifier(
            hidden_layer_sizes=(10,), alpha=0.01, max_iter=2000, random_state=0)),
    }


def raw_mse(mean_scale: float, seeds: tuple[int, ...] = (0, 1)) -> dict[str, float]:
    """Mean over draws and folds of each classifier's raw MSE against ``p_true``."""
    errors: dict[str, list[float]] = {name: [] for name in THESIS_RAW_MSE}
    for seed in seeds:
        X, y, p_true = make_thesis_synthetic(100, random_state=seed, mean_scale=mean_scale)
        for train, test in StratifiedKFold(10, shuffle=True, random_state=seed).split(X, y):
            for name, clf in _classifiers().items():
                proba = clf.fit(X[train], y[train]).predict_proba(X[test])[:, 1]
                errors[name].append(float(np.mean((proba - p_true[test]) ** 2)))
    return {name: float(np.mean(v)) for name, v in errors.items()}


def criterion(mse: dict[str, float]) -> float:
    """Sum of squared log ratios ours / thesis over the four classifiers."""
    return float(sum(np.log(mse[k] / v) ** 2 for k, v in THESIS_RAW_MSE.items()))


if __name__ == "__main__":
    warnings.filterwarnings("ignore", category=FutureWarning)  # SVC(probability=True)
    for arg in sys.argv[1:] or ["1.0", "0.7", "0.5", "0.4", "0.3", "0.2"]:
        mse = raw_mse(float(arg))
        print(f"mean_scale {arg}: criterion {criterion(mse):.2f}  "
              + "  ".join(f"{k} {v:.4f}" for k, v in mse.items()), flush=True)

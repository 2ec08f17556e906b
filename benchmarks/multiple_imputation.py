"""Cost of ``MultipleImputationClassifier`` against one imputer + classifier fit.

Run ``python benchmarks/multiple_imputation.py`` (needs ``BAYESCAL_DATA``
pointing at the shared data sets; ``--repeats`` best of, default 2). For each
data set (20 % MCAR, at most 2000 rows, half to train, the largest class
against the rest) it times, with this process's CPU time and one BLAS thread:

* ``simple``: ``SimpleImputer`` + ``StandardScaler`` + ``LogisticRegression``
  fit on the training half and predicted on the test half;
* ``one``: the same pipeline with the multiple-imputation default imputer
  (``IterativeImputer(sample_posterior=True, max_iter=10)``): *one imputer +
  classifier fit*, the unit of issue 26's target ``MI <= 3 m x one``;
* ``MI``: ``MultipleImputationClassifier(StandardScaler + LogisticRegression,
  n_imputations=m)`` fit + ``predict_proba`` on the test half;
* ``imputer share``: the part of ``MI`` spent in the imputer (``m``
  ``fit_transform`` on the training rows + ``m`` ``transform`` of the test
  rows, timed alone): where the time goes.

Brier scores (scikit-learn convention) are printed beside the times.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bayescal.datasets import add_missing, load_dataset  # noqa: E402
from bayescal.missing import MultipleImputationClassifier  # noqa: E402
from bayescal.threads import limit_blas_threads  # noqa: E402


def _cpu(fn, repeats):
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.process_time()
        out = fn()
        best = min(best, time.process_time() - start)
    return best, out


def main(argv=None):
    from sklearn.experimental import enable_iterative_imputer  # noqa: F401
    from sklearn.impute import IterativeImputer, SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import brier_score_loss
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("-m", type=int, default=10)
    parser.add_argument("--datasets", default="wine,waveform_21,qsar_biodeg,spambase")
    args = parser.parse_args(argv)
    m = args.m
    print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    print(f"{'data':<14}{'n x d':>10}{'simple s':>9}{'one s':>8}{'MI s':>8}{'MI/one':>8}"
          f"{'MI/(m one)':>11}{'MI/simple':>10}{'imputer':>8}   Brier simple / one / MI")
    lr = lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))  # noqa: E731
    imputer = lambda seed=0: IterativeImputer(sample_posterior=True, max_iter=10, random_state=seed)  # noqa: E731
    with limit_blas_threads(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in args.datasets.split(","):
            data = load_dataset(name)
            X = add_missing(data.X, 0.2, random_state=0)
            y = (data.y == np.bincount(data.y).argmax()).astype(int)
            idx = np.random.default_rng(0).permutation(len(y))[:2000]
            tr, te = idx[: len(idx) // 2], idx[len(idx) // 2 :]

            def run(model, X=X, y=y, tr=tr, te=te):
                return model.fit(X[tr], y[tr]).predict_proba(X[te])[:, 1]

            t_simple, p_simple = _cpu(lambda: run(make_pipeline(SimpleImputer(), lr())), args.repeats)
            t_one, p_one = _cpu(lambda: run(make_pipeline(imputer(), lr())), args.repeats)
            t_mi, p_mi = _cpu(
                lambda: run(MultipleImputationClassifier(lr(), n_imputations=m, random_state=0)),
                args.repeats,
            )

            def imputer_only(X=X, tr=tr, te=te):
                for seed in range(m):
                    imp = imputer(seed)
                    imp.fit_transform(X[tr])
                    copy.deepcopy(imp).transform(X[te])

            t_imp, _ = _cpu(imputer_only, 1)
            b = [brier_score_loss(y[te], p) for p in (p_simple, p_one, p_mi)]
            print(f"{name:<14}{len(idx):>5} x {X.shape[1]:<3}{t_simple:>9.3f}{t_one:>8.3f}{t_mi:>8.2f}"
                  f"{t_mi / t_one:>8.1f}{t_mi / (m * t_one):>11.2f}{t_mi / t_simple:>10.0f}"
                  f"{t_imp / t_mi:>8.0%}   {b[0]:.4f} / {b[1]:.4f} / {b[2]:.4f}")
            sys.stdout.flush()
    print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()

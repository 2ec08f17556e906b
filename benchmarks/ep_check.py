"""Is EP's importance-sampling check informative at the n of a GP fit? (issue 27)

For :class:`bayescal.probes.BayesianGPClassifier` with ``inference="ep"`` and
``"sparse"`` (default settings), and for EP stopped after two sweeps
(``max_sweeps=2``, a known-bad approximation), on the first ``n`` shuffled
rows of binary shared data sets: the Pareto shape ``k`` that ``fit`` records
in ``diagnostics_.pareto_k`` (the EP Gaussian's latent draws weighted against
the exact latent posterior at the fitted hyper-parameters), EP's own
convergence verdict, and the fit's wall time.

Run ``BAYESCAL_DATA=/path/to/shared/data python benchmarks/ep_check.py``
(``--quick``: n = 300 only).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bayescal.probes import BayesianGPClassifier

DATASETS = ("breast_cancer_wisconsin.tsv.gz", "mammographic_mass.csv.gz",
            "banknote_authentication.csv.gz", "spambase.tsv.gz", "blood_transfusion.csv.gz")


def load(path: Path, n: int) -> tuple[np.ndarray, np.ndarray]:
    frame = pd.read_csv(path, sep=None, engine="python").dropna()
    y = frame.pop("target").to_numpy()
    y = (y == np.unique(y)[-1]).astype(int)
    X = pd.get_dummies(frame).to_numpy(float)
    rows = np.random.default_rng(0).permutation(len(y))[:n]
    return X[rows], y[rows]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    data_dir = Path(os.environ.get("BAYESCAL_DATA", "../shared/data"))
    print(f"load average at start: {os.getloadavg()}")
    settings = {"ep": dict(inference="ep"), "ep, 2 sweeps": dict(inference="ep", max_sweeps=2),
                "sparse": dict(inference="sparse")}
    for name in DATASETS:
        for n in [300] if args.quick else [300, 1000]:
            X, y = load(data_dir / name, n)
            for label, kwargs in settings.items():
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    gp = BayesianGPClassifier(random_state=0, **kwargs).fit(X, y)
                diag = gp.diagnostics_
                print(f"{name:<34} n={n:<5} {label:<13} pareto k {diag.pareto_k:5.2f}  "
                      f"EP converged {diag['ep_converged']!s:<5}  "
                      f"{time.perf_counter() - start:5.1f} s", flush=True)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()

"""The yard-stick sweep of issue 11: every binary calibrator on real scores.

Every calibrator x every two-class data set in the shared data folder x four
classifiers researchers use (Gaussian naive Bayes, a small random forest,
standardised logistic regression, standardised SVC -- decision values) x 3
folds. Each fit must either give finite probabilities whose rows sum to one
(and, for the methods that smooth, no exact 0 or 1), or raise a bayescal
``ValueError`` that names an argument and says what to do; anything else -- a
traceback from scipy, numba or pytensor internals, another exception type, a
NaN -- is a crash.

Speed (the point is coverage): data sets are subsampled to at most
:data:`MAX_ROWS` rows; the classifier's scores are computed once per data set,
classifier and fold (calibration scores out-of-fold, 2 inner folds, inside the training part,
test scores from the classifier fitted on the whole training part); the
Bayesian maps use Laplace with few draws on the first fold only. Every
classifier runs behind a median imputer because ``mammographic_mass`` has
missing features (nothing is binarised: only two-class sets are used).

Run ``python tests/calibration/test_sweep.py`` for the counts per data set.
"""

from __future__ import annotations

import functools
import re
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from bayescal.calibration import (
    BetaCalibrator,
    ENIRCalibrator,
    HistogramBinningCalibrator,
    IsotonicCalibrator,
    LogisticGAMCalibrator,
    PlattCalibrator,
    TemperatureScaling,
    UndersamplingCorrection,
    VennAbersCalibrator,
)
from bayescal.calibration._scores import calibrator_for, score_method
from bayescal.datasets import list_datasets, load_dataset
from bayescal.probes import (
    ABBCalibrator,
    BayesianBetaCalibrator,
    BayesianPlattCalibrator,
    BayesianSplineCalibrator,
    BBQCalibrator,
    SBBCalibrator,
)

DATA_DIR = Path("/work/shared/data")
MAX_ROWS = 200
N_FOLDS = 3
_LAPLACE = dict(inference="laplace", draws=100, random_state=0)

#: name -> (calibrator, whether it promises no exact 0/1, first fold only).
#: Every map that ends in a sigmoid promises it, on log-scores too: an exact 0
#: or 1 score is clipped to 1e-12 and a steep map keeps its output within
#: ``validation.OUTPUT_FLOOR`` of 0 and 1 rather than rounding to them.
CALIBRATORS = {
    "platt": (PlattCalibrator(), True, False),
    "platt-logit": (PlattCalibrator(input="logit"), True, False),
    "gam": (LogisticGAMCalibrator(n_knots=5), True, False),
    "gam-logit": (LogisticGAMCalibrator(input="logit", n_knots=5), True, False),
    "beta": (BetaCalibrator(), True, False),
    "isotonic": (IsotonicCalibrator(), False, False),
    "enir": (ENIRCalibrator(), False, False),
    "histogram": (HistogramBinningCalibrator(), False, False),
    "histogram-quantile": (HistogramBinningCalibrator(strategy="quantile"), False, False),
    "temperature": (TemperatureScaling(), True, False),
    "venn-abers": (VennAbersCalibrator(), False, False),
    "undersampling": (UndersamplingCorrection(pi0=0.5), False, False),
    "bbq": (BBQCalibrator(n_draws=20, random_state=0), True, False),
    "sbb": (SBBCalibrator(n_draws=20, random_state=0), True, False),
    "abb": (ABBCalibrator(n_binnings=10, n_draws=20, random_state=0), True, False),
    "bayes-platt": (BayesianPlattCalibrator(**_LAPLACE), True, True),
    "bayes-beta": (BayesianBetaCalibrator(**_LAPLACE), True, True),
    "bayes-spline": (BayesianSplineCalibrator(n_basis=6, **_LAPLACE), True, True),
}

CLASSIFIERS = {
    "gnb": lambda: make_pipeline(SimpleImputer(strategy="median"), GaussianNB()),
    "rf": lambda: make_pipeline(
        SimpleImputer(strategy="median"),
        RandomForestClassifier(n_estimators=10, max_depth=6, random_state=0),
    ),
    "lr": lambda: make_pipeline(
        SimpleImputer(strategy="median"), StandardScaler(), LogisticRegression()
    ),
    "svc": lambda: make_pipeline(SimpleImputer(strategy="median"), StandardScaler(), SVC()),
}

#: A documented error names an argument (`name` or scikit-learn's 'name' parameter).
_NAMES_ARGUMENT = re.compile(r"`\w+`|'\w+' parameter")
#: ... and says what to do.
_REMEDY = re.compile(r"\b(use|pass|set|give|remove|impute|need|needs|must)\b", re.IGNORECASE)
_INTERNALS = ("/scipy/", "/numba/", "/pytensor/", "/pymc/", "/sklearn/", "/numpy/")


def binary_datasets() -> list[str]:
    """The two-class data sets in :data:`DATA_DIR`."""
    if not DATA_DIR.is_dir():
        return []
    table = list_datasets(DATA_DIR)
    files = table[(table["classes"] == 2) & (table["source"] != "sklearn")]
    return sorted(files["name"])


@dataclass
class SweepCounts:
    """Outcome counts of a sweep."""

    fits: int = 0
    documented_errors: int = 0
    crashes: list[str] = field(default_factory=list)
    errors_by_reason: dict[str, int] = field(default_factory=dict)


@functools.lru_cache(maxsize=2)
def _scores(dataset: str):
    """Per classifier and fold: (calibration scores, labels, test scores, method)."""
    data = load_dataset(dataset, DATA_DIR)
    X, y = data.X, data.y
    rng = np.random.default_rng(0)
    if X.shape[0] > MAX_ROWS:  # stratified subsample
        keep = np.concatenate([
            rng.choice(np.flatnonzero(y == c), size=max(2, round(MAX_ROWS * np.mean(y == c))),
                       replace=False)
            for c in (0, 1)
        ])
        X, y = X[np.sort(keep)], y[np.sort(keep)]
    out = []
    folds = StratifiedKFold(N_FOLDS, shuffle=True, random_state=0)
    for name, make in CLASSIFIERS.items():
        method = score_method(make())
        for fold, (train, test) in enumerate(folds.split(X, y)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cal = cross_val_predict(make(), X[train], y[train], cv=2, method=method)
                clf = make().fit(X[train], y[train])
                score_test = getattr(clf, method)(X[test])
            if method == "predict_proba":
                cal, score_test = cal[:, 1], score_test[:, 1]
            out.append((name, fold, method, cal, y[train], score_test))
    return out


def _classify(exc: BaseException) -> str | None:
    """The reason string of a documented error, or None for a crash."""
    if not isinstance(exc, ValueError):
        return None
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames or any(part in frames[-1].filename for part in _INTERNALS):
        return None
    if "/bayescal/" not in frames[-1].filename:
        return None
    message = str(exc)
    if not (_NAMES_ARGUMENT.search(message) and _REMEDY.search(message)):
        return None
    return _NAMES_ARGUMENT.search(message).group(0)


def sweep(dataset: str, calibrators: list[str] | None = None) -> SweepCounts:
    """Run the calibrators (all by default) on every classifier's scores of a data set."""
    counts = SweepCounts()
    names = list(CALIBRATORS) if calibrators is None else calibrators
    for clf_name, fold, method, s_cal, y_cal, s_test in _scores(dataset):
        for cal_name in names:
            calibrator, smooth, first_fold_only = CALIBRATORS[cal_name]
            if first_fold_only and fold > 0:
                continue
            where = f"{dataset}/{clf_name}/fold{fold}/{cal_name}"
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    cal = calibrator_for(calibrator, method, clf_name)
                    proba = np.asarray(cal.fit(s_cal, y_cal).predict_proba(s_test))
            except Exception as exc:  # noqa: BLE001 (classified below)
                reason = _classify(exc)
                if reason is None:
                    detail = traceback.format_exception_only(type(exc), exc)[-1].strip()
                    counts.crashes.append(f"{where}: {detail[:300]}")
                else:
                    counts.documented_errors += 1
                    key = f"{cal_name}: {reason}"
                    counts.errors_by_reason[key] = counts.errors_by_reason.get(key, 0) + 1
                continue
            counts.fits += 1
            problems = []
            if proba.shape != (s_test.shape[0], 2) or not np.all(np.isfinite(proba)):
                problems.append("non-finite or mis-shaped probabilities")
            elif not np.allclose(proba.sum(axis=1), 1.0):
                problems.append("rows do not sum to 1")
            elif smooth and np.any((proba == 0.0) | (proba == 1.0)):
                problems.append("exact 0/1 from a smoothing method")
            if problems:
                counts.crashes.append(f"{where}: {', '.join(problems)}")
    return counts


DATASETS = binary_datasets()


#: Known crashes, each with the issue that owns its fix (none at present: the
#: spline map's knot-span crash, issue 11 defect 1, is fixed).
KNOWN_CRASHES: dict[str, str] = {}


def _case(dataset: str, calibrator: str):
    reason = KNOWN_CRASHES.get(calibrator)
    marks = [pytest.mark.xfail(reason=reason, strict=False)] if reason else []
    return pytest.param(dataset, calibrator, marks=marks, id=f"{dataset}-{calibrator}")


@pytest.mark.slow
@pytest.mark.skipif(not DATASETS, reason=f"the shared data folder {DATA_DIR} is absent")
@pytest.mark.parametrize(
    ("dataset", "calibrator"), [_case(d, c) for d in DATASETS for c in CALIBRATORS]
)
def test_every_calibrator_fits_or_fails_documented(dataset, calibrator):
    counts = sweep(dataset, [calibrator])
    assert counts.fits + counts.documented_errors > 0
    assert not counts.crashes, "\n".join(counts.crashes)


def test_error_classifier_separates_documented_errors_from_crashes():
    with pytest.raises(ValueError) as documented:
        BetaCalibrator().fit([-1.0, 0.5, 2.0], [0, 1, 1])
    assert _classify(documented.value) == "`scores`"
    from scipy.interpolate import BSpline

    with pytest.raises(ValueError) as internal:
        BSpline.design_matrix(np.array([5.0]), np.arange(8.0), 3)
    assert _classify(internal.value) is None
    assert _classify(TypeError("`x` is bad; pass y")) is None


if __name__ == "__main__":  # pragma: no cover - the counts for the issue's closing note
    import time

    total = SweepCounts()
    start = time.perf_counter()
    for name in DATASETS:
        c = sweep(name)
        print(f"{name:35s} fits {c.fits:4d}  documented errors {c.documented_errors:3d}  "
              f"crashes {len(c.crashes)}", flush=True)
        total.fits += c.fits
        total.documented_errors += c.documented_errors
        total.crashes += c.crashes
        for k, v in c.errors_by_reason.items():
            total.errors_by_reason[k] = total.errors_by_reason.get(k, 0) + v
    print(f"TOTAL fits {total.fits}  documented errors {total.documented_errors}  "
          f"crashes {len(total.crashes)}  ({time.perf_counter() - start:.0f} s)")
    for k, v in sorted(total.errors_by_reason.items()):
        print(f"  error {k}: {v}")
    for line in total.crashes:
        print("  CRASH", line)

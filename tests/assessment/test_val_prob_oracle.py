"""Agreement with R's ``rms::val.prob`` on real prediction sets (an external oracle).

Predictions of naive Bayes, logistic regression and a random forest, each fitted on
half of a real dataset from ``../shared/data`` and evaluated on the other half,
are passed to both ``rms::val.prob(p, y, pl=FALSE)`` (run with ``Rscript``) and
:func:`bayescal.assessment.val_prob`. Needs R with the ``rms`` package (Debian:
``r-base-core r-cran-rms``; ``.ci/run`` installs them): skipped with the reason
where they are missing, unless the ``CI`` environment variable is set, where a
missing R fails the test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings

import numpy as np
import pytest

from bayescal.assessment.val_prob import val_prob

#: Statistics compared to 1e-6 and (LOWESS-based) to 1e-3.
EXACT = ("Intercept", "Slope", "S:z", "Brier", "Dxy", "U", "C (ROC)", "D", "Q", "R2")
SMOOTH = ("Eavg", "E90", "Emax")

#: (dataset, classifier) pairs: three real prediction sets.
CASES = [
    ("german_credit", "naive_bayes"),
    ("blood_transfusion", "logistic_regression"),
    ("breast_cancer_wisconsin", "random_forest"),
]

_R_SCRIPT = """
suppressMessages(library(rms))
d <- read.csv(commandArgs(TRUE)[1])
v <- suppressWarnings(val.prob(d$p, d$y, pl = FALSE))
cat(paste(names(v), format(v, digits = 17), sep = "\\t"), sep = "\\n")
"""


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _r_with_rms() -> str | None:
    """Why R with rms cannot be used here, or None when it can."""
    if shutil.which("Rscript") is None:
        return "Rscript not found (install r-base-core r-cran-rms)"
    done = subprocess.run(["Rscript", "-e", "library(rms)"], capture_output=True, text=True)
    if done.returncode != 0:
        return "the R package rms is not installed (install r-cran-rms)"
    return None


@pytest.fixture(scope="module")
def rscript() -> str:
    reason = _r_with_rms()
    if reason is not None:
        if _in_ci():
            pytest.fail(f"CI run without R: {reason}")
        pytest.skip(reason)
    return "Rscript"


def _predictions(dataset: str, classifier: str, data_dir) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.model_selection import train_test_split

    from bayescal.assessment.out_of_fold import make_classifier
    from bayescal.datasets import load_dataset

    ds = load_dataset(dataset, data_dir)
    y = (ds.y == 1).astype(int)
    X_fit, X_val, y_fit, y_val = train_test_split(ds.X, y, test_size=0.5, random_state=0,
                                                  stratify=y)
    model = make_classifier(classifier, 0).fit(X_fit, y_fit)
    return y_val, model.predict_proba(X_val)[:, 1]


def _r_val_prob(rscript: str, y: np.ndarray, p: np.ndarray, tmp_path) -> dict[str, float]:
    csv = tmp_path / "preds.csv"
    # 17 significant digits: R reads back exactly the doubles Python holds.
    np.savetxt(csv, np.column_stack([p, y]), delimiter=",", header="p,y", comments="",
               fmt="%.17g")
    script = tmp_path / "val_prob.R"
    script.write_text(_R_SCRIPT)
    done = subprocess.run([rscript, str(script), str(csv)], capture_output=True, text=True,
                          check=True)
    out = {}
    for line in done.stdout.strip().splitlines():
        name, value = line.split("\t")
        out[name] = float(value) if value.strip() != "NA" else float("nan")
    return out


@pytest.mark.parametrize(("dataset", "classifier"), CASES)
def test_val_prob_agrees_with_rms(dataset, classifier, rscript, shared_data_dir, tmp_path):
    y, p = _predictions(dataset, classifier, shared_data_dir)
    r = _r_val_prob(rscript, y, p, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # 0/1 predictions, as rms warns too
        ours = val_prob(y, p)
    for name in EXACT:
        assert ours[name] == pytest.approx(r[name], abs=1e-6, rel=1e-6), name
    for name in SMOOTH:
        assert ours[name] == pytest.approx(r[name], abs=1e-3), name
    assert ours["U:p"] == pytest.approx(r["U:p"], abs=1e-6)
    assert ours["S:p"] == pytest.approx(r["S:p"], abs=1e-6)


def test_lowess_agrees_with_r_lowess(rscript, tmp_path):
    """The LOWESS curve itself (iter=0, ties, delta) against R's ``lowess``, point by point."""
    from bayescal.assessment.lowess_curve import lowess

    rng = np.random.default_rng(3)
    x = np.round(rng.beta(2, 3, 700), 2)  # many ties
    y = (rng.random(700) < x).astype(float)
    csv = tmp_path / "xy.csv"
    np.savetxt(csv, np.column_stack([x, y]), delimiter=",", header="x,y", comments="",
               fmt="%.17g")
    code = ('d <- read.csv(commandArgs(TRUE)[1]); s <- lowess(d$x, d$y, iter = 0); '
            'cat(format(s$y, digits = 17), sep = "\\n")')
    done = subprocess.run([rscript, "-e", code, str(csv)], capture_output=True, text=True,
                          check=True)
    r_fit = np.array(done.stdout.split(), dtype=float)
    _, fit = lowess(x, y)
    np.testing.assert_allclose(fit, r_fit, atol=1e-12)

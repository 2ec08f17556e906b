"""Seed 003 figure blocks (``bayescal.reproduce.boundary_figures``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import softmax

from bayescal.datasets import make_gmm
from bayescal.reproduce import load_reproduction
from bayescal.reproduce.boundary_figures import (
    _logit_mlp,
    mlp_epoch_sweep,
    optimum_width,
    selected_error_ratio,
    svm_gamma_sweep,
)


def test_selected_error_ratio_by_hand():
    err = [0.30, 0.20, 0.10, 0.40]
    assert selected_error_ratio([0.1, 0.9, 0.5, 0.2], err, higher_is_better=True) == 2.0
    assert selected_error_ratio(err, err, higher_is_better=False) == 1.0
    assert selected_error_ratio([1, 0], [0.0, 0.5], higher_is_better=False) == np.inf
    assert selected_error_ratio([1, 0], [0.0, 0.5], higher_is_better=True) == 1.0


def test_optimum_width_by_hand():
    assert optimum_width([0.0, 0.05, 0.5, 1.0], higher_is_better=False) == 0.5
    assert optimum_width([1.0, 0.95, 0.0, 0.0], higher_is_better=True) == 0.5
    assert optimum_width([0.3, 0.3], higher_is_better=True) == 1.0


def test_logit_mlp_decision_function_is_the_softmax_input():
    """Oracle: softmax of the output layer is scikit-learn's predict_proba."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = np.digitize(X[:, 0] + X[:, 1], [-0.5, 0.5])
    mlp = _logit_mlp(hidden_layer_sizes=(8, 6), max_iter=50, random_state=0).fit(X, y)
    np.testing.assert_allclose(softmax(mlp.decision_function(X), axis=1),
                               mlp.predict_proba(X), rtol=1e-9, atol=1e-12)


def test_svm_gamma_sweep_columns_and_ranges():
    X, y, _ = make_gmm("overlap", 150, random_state=0)
    X_te, y_te, _ = make_gmm("overlap", 300, random_state=1)
    t = svm_gamma_sweep(X, y, X_te, y_te, gammas=[2.0**-3, 1.0, 2.0**15], cv=3)
    for col in ("U_tr", "U_tr_naive", "U_te", "L_tr", "L_HO", "L_val", "L_te"):
        assert t[col].between(0, 1).all(), col
    # an extremely narrow kernel is constant (its intercept) away from the training
    # points: on the test set no sample is near its boundary and it errs, U = U_min
    assert t["U_te"].iloc[-1] == 0.0
    assert t["L_tr"].iloc[-1] == 0.0


@pytest.mark.slow
def test_mlp_epoch_sweep_runs():
    from sklearn.datasets import load_digits

    d = load_digits()
    X, y = d.data[:300], d.target[:300]
    t = mlp_epoch_sweep(X[:200], y[:200], X[200:], y[200:], epochs=2)
    assert list(t["epoch"]) == [1, 2]
    assert t[["U_tr", "U_te", "L_tr", "L_te", "L_HO"]].apply(lambda c: c.between(0, 1)).all().all()


def test_reproduction_is_registered():
    rep = load_reproduction("seed003_figs6_11_14")
    assert set(rep.runs["quick"]) == {"fig6", "fig11", "fig14"}
    assert "fig9" in rep.runs["full"]
    assert all(line["source"].startswith("§6.") for line in rep.paper)  # section cited
    assert all(line["statement"] and line["holds_if"] for line in rep.paper)  # claims
    # no GMM line cites Fig. 8 (its panels are the ten real-world sets, none is GMM)
    assert not [line for line in rep.paper if line["dataset"].startswith("gmm")
                and "Fig. 8" in line["source"]]

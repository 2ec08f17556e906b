"""Tests of boundary uncertainty (seed 003, Proposal 2) and the selection table."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.dummy import DummyClassifier
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC

from bayescal.datasets import load_dataset, make_gmm
from bayescal.selection import (
    BoundaryUncertaintyEstimator,
    boundary_uncertainty,
    kmeans_aic,
    parzen_counts,
    select_by_boundary_uncertainty,
    silverman_bandwidth,
    triangle_uncertainty,
)

GAMMAS = [2.0**e for e in range(-15, 16, 2)]


def test_silverman_bandwidth_formula():
    rng = np.random.default_rng(0)
    values = rng.normal(size=(3, 40))
    sigma = values.std(axis=1, ddof=1)
    iqr = np.subtract(*np.percentile(values, [75, 25], axis=1)) / 1.34
    expected = 0.9 * np.minimum(sigma, iqr) * 40 ** (-1 / 5)
    np.testing.assert_allclose(silverman_bandwidth(values, axis=1), expected)
    # zero IQR gives zero bandwidth (the rule taken literally)
    assert silverman_bandwidth(np.array([0.0] * 9 + [10.0])) == 0.0


def test_triangle_uncertainty_values():
    np.testing.assert_allclose(triangle_uncertainty([0.0, 0.25, 0.5, 0.75, 1.0]), [0, 0.5, 1, 0.5, 0])


def test_parzen_counts_by_hand():
    f = np.array([[0.0, 0.1, -0.2, 5.0, 0.05]])
    labels = np.array([[0, 1, 1, 0, 0]])
    h = silverman_bandwidth(f, axis=1)[0]
    weight = np.clip(1 - (f[0] / h) ** 2, 0, None)  # Epanechnikov with φ(0) = 1
    counts = parzen_counts(f, labels, np.array([[0, 1]]))
    assert counts[0, 0] == pytest.approx(weight[[0, 3, 4]].sum())
    assert counts[0, 1] == pytest.approx(weight[[1, 2]].sum())
    assert weight[3] == 0.0  # far from the boundary: exactly zero weight
    # identical values: zero bandwidth gives zero counts (§4.4.2)
    np.testing.assert_array_equal(
        parzen_counts(np.ones((1, 4)), np.zeros((1, 4), int), np.array([[0, 1]])), [[0.0, 0.0]]
    )


def test_kmeans_aic_finds_the_number_of_clusters():
    X, _ = make_blobs(n_samples=300, centers=3, cluster_std=0.3, random_state=0)
    _, k, aic = kmeans_aic(X, range(1, 9), random_state=0)
    assert k == 3
    assert aic[3] < aic[1] and aic[3] < aic[8]


@pytest.fixture(scope="module")
def overlap_sweep():
    X, y, _ = make_gmm("overlap", 300, random_state=0)
    X_test, y_test, _ = make_gmm("overlap", 2000, random_state=100)
    on_train = BoundaryUncertaintyEstimator(random_state=0).fit(X, y)
    on_test = BoundaryUncertaintyEstimator(random_state=0).fit(X_test, y_test)
    naive = BoundaryUncertaintyEstimator(random_state=0, perturb=False).fit(X, y)
    rows = []
    for gamma in GAMMAS:
        model = SVC(gamma=gamma).fit(X, y)
        rows.append(
            (on_train.score(model), on_test.score(model), naive.score(model),
             np.mean(model.predict(X_test) != y_test))
        )
    return np.array(rows)


@pytest.mark.slow
def test_training_estimate_tracks_test_estimate(overlap_sweep):
    """Seed 003 Fig. 6 panel 3: U on the training set follows U on a large test set."""
    train_u, test_u = overlap_sweep[:, 0], overlap_sweep[:, 1]
    assert np.corrcoef(train_u, test_u)[0, 1] > 0.65
    # far too smooth and far too wiggly boundaries both score low
    assert train_u.max() > train_u[0] + 0.2 and train_u.max() > train_u[-1] + 0.2


@pytest.mark.slow
def test_selected_gamma_is_near_the_best(overlap_sweep):
    train_u, test_error = overlap_sweep[:, 0], overlap_sweep[:, 3]
    assert test_error[np.argmax(train_u)] <= test_error.min() + 0.02


@pytest.mark.slow
def test_without_perturbation_overfitted_gamma_is_favoured(overlap_sweep):
    """Seed 003 Fig. 11: f on the training points rewards overfitted boundaries."""
    train_u, naive_u, test_error = overlap_sweep[:, 0], overlap_sweep[:, 2], overlap_sweep[:, 3]
    naive_pick, pick = np.argmax(naive_u), np.argmax(train_u)
    assert GAMMAS[naive_pick] > GAMMAS[pick]
    assert test_error[naive_pick] > test_error.min() + 0.15
    assert naive_u[-1] > train_u[-1] + 0.3


def test_well_placed_boundary_on_separable_data_scores_one():
    """Seed 003 Fig. 14 / Eq. 39 case 1: no near-boundary mass and no error gives U_max."""
    X, y, _ = make_gmm("separable", 300, random_state=0)
    scorer = BoundaryUncertaintyEstimator(random_state=0).fit(X, y)
    lda = scorer.score_details(LinearDiscriminantAnalysis().fit(X, y))
    assert lda.value == pytest.approx(1.0)
    assert lda.pair_case == ["separable_correct"]
    for gamma in (2.0**-3, 2.0**-1, 2.0):
        assert scorer.score(SVC(gamma=gamma).fit(X, y)) > 0.9
    # a "boundary" that puts everything in one class (case 3) scores U_min
    assert scorer.score(DummyClassifier(strategy="prior").fit(X, y)) == pytest.approx(0.0)


def test_multiclass_pairs_and_weights():
    data = load_dataset("iris")
    value, details = boundary_uncertainty(
        SVC(gamma=0.5).fit(data.X, data.y), data.X, data.y, n_neighbors=20, n_prototypes=3,
        random_state=0, return_details=True,
    )
    assert 0.0 <= value <= 1.0
    assert details["pair_weights"].sum() == pytest.approx(1.0)
    assert all(len(p) == 2 and p[0] < p[1] for p in details["pairs"])
    assert value == pytest.approx(np.dot(details["pair_weights"], details["pair_uncertainty"]))


def test_probability_only_estimator_and_reproducibility():
    X, y, _ = make_gmm("overlap", 200, random_state=3)
    model = LogisticRegression().fit(X, y)
    first = boundary_uncertainty(model, X, y, random_state=1)
    assert first == boundary_uncertainty(model, X, y, random_state=1)


def test_perturbation_is_uniform_within_the_nearest_neighbour_distance():
    """Algorithm 1 (§4.5 form): every feature moves by at most scale x ||x - x(1)||."""
    from sklearn.neighbors import NearestNeighbors
    from sklearn.preprocessing import StandardScaler

    X, y, _ = make_gmm("overlap", 300, random_state=2)
    Z = StandardScaler().fit_transform(X)
    nn = NearestNeighbors(n_neighbors=2).fit(Z).kneighbors(Z)[0][:, 1]
    for scale in (0.5, 1.0):
        est = BoundaryUncertaintyEstimator(perturbation_scale=scale, random_state=0).fit(X, y)
        moved = np.abs(StandardScaler().fit(X).transform(est.X_perturbed_) - Z)
        assert (moved <= scale * nn[:, None] + 1e-12).all()
        # the per-feature step is uniform on [-1, 1] (not shrunk by sqrt(d)): its
        # largest share of the distance comes close to 1
        share = moved / np.where(nn > 0, nn, 1.0)[:, None] / scale
        assert share.max() > 0.95 and 0.4 < share.mean() < 0.6
    same = BoundaryUncertaintyEstimator(random_state=0).fit(X, y).X_perturbed_
    np.testing.assert_array_equal(same, BoundaryUncertaintyEstimator(random_state=0).fit(X, y).X_perturbed_)


def test_selection_table():
    X, y, _ = make_gmm("overlap", 200, random_state=1)
    table = select_by_boundary_uncertainty(
        SVC(), {"gamma": [2.0**-9, 1.0, 2.0**9]}, X, y, cv=3, random_state=0
    )
    assert list(table["gamma"]) == [2.0**-9, 1.0, 2.0**9]
    for col in ("boundary_uncertainty", "train_error", "holdout_error", "cv_error"):
        assert table[col].between(0, 1).all()
    for col in ("selected_by_boundary_uncertainty", "selected_by_holdout", "selected_by_cv"):
        assert table[col].sum() == 1
    assert table.loc[table["selected_by_boundary_uncertainty"], "gamma"].item() == 1.0


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda X, y: BoundaryUncertaintyEstimator(n_neighbors=1).fit(X, y), ValueError,
         "'n_neighbors' parameter of BoundaryUncertaintyEstimator must be an int in the range"),
        (lambda X, y: BoundaryUncertaintyEstimator(n_prototypes=0).fit(X, y), ValueError,
         "'n_prototypes' parameter.*Got 0 instead"),
        (lambda X, y: BoundaryUncertaintyEstimator(perturb="no").fit(X, y), ValueError,
         "'perturb' parameter"),
        (lambda X, y: BoundaryUncertaintyEstimator(perturbation_scale=0.0).fit(X, y), ValueError,
         "'perturbation_scale' parameter.*Got 0.0 instead"),
        (lambda X, y: BoundaryUncertaintyEstimator(n_neighbors=500).fit(X, y), ValueError, "needs at least 500"),
        (lambda X, y: BoundaryUncertaintyEstimator(kernel="box").fit(X, y), ValueError,
         "'kernel' parameter.*Got 'box' instead"),
        (lambda X, y: BoundaryUncertaintyEstimator().fit(X, y[:10]), ValueError, "inconsistent numbers"),
        (lambda X, y: BoundaryUncertaintyEstimator().fit(X, np.zeros_like(y)), ValueError, "single class"),
        (lambda X, y: BoundaryUncertaintyEstimator(n_prototypes=2).fit(X, y).score(SVC()), NotFittedError, "not fitted"),
        (
            lambda X, y: BoundaryUncertaintyEstimator(n_prototypes=2).fit(X, y).score(SVC().fit(X[y < 2], y[y < 2])),
            ValueError,
            "fit it on the same classes",
        ),
        (lambda X, y: select_by_boundary_uncertainty(SVC(), {"gama": [1]}, X, y), ValueError, "does not take"),
        (lambda X, y: select_by_boundary_uncertainty(SVC(), [], X, y), ValueError, "no candidate"),
        (lambda X, y: select_by_boundary_uncertainty(SVC(), {"gamma": [1]}, X, y, holdout=1.5), ValueError, "`holdout`"),
    ],
)
def test_bad_input(call, error, match):
    data = load_dataset("iris")
    with pytest.raises(error, match=match):
        call(data.X, data.y)

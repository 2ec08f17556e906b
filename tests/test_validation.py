"""Tests of the shared input checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from bayescal import validation as v


@pytest.mark.parametrize(
    ("func", "args", "error", "match"),
    [
        (v.check_binary_scores, ([0.1, np.nan],), ValueError, r"`scores` contains NaN or inf.*index \(1,\)"),
        (v.check_binary_scores, ([0.1, np.inf],), ValueError, "NaN or inf"),
        (v.check_binary_scores, ([0.1, 1.2],), ValueError, r"`scores` must be <= 1.0"),
        (v.check_binary_scores, ([-0.1, 0.2],), ValueError, r"`scores` must be >= 0.0"),
        (v.check_binary_scores, ([],), ValueError, "`scores` is empty"),
        (v.check_binary_scores, (np.zeros((3, 3)),), ValueError, "1-D array of scores"),
        (v.check_binary_scores, (np.zeros((3, 1)),), ValueError, r"use \.ravel\(\)"),
        (v.check_binary_scores, (["a", "b"],), TypeError, "must hold numbers"),
        (v.check_binary_scores, ([[0.5, 0.6]],), ValueError, "must sum to 1"),
        (v.check_probability_matrix, ([[0.2, 0.9]],), ValueError, "rows of `proba` must sum to 1"),
        (v.check_probability_matrix, ([[1.2, -0.2]],), ValueError, ">= 0.0"),
        (v.check_probability_matrix, (np.full((2, 3), 1 / 3),), {"n_classes": 2}, "3 columns but 2"),
        (v.check_labels, ([0, 1, -1],), ValueError, "negative"),
        (v.check_labels, ([0, 1.5],), ValueError, "fractional"),
        (v.check_labels, (["a", "b"],), TypeError, "LabelEncoder"),
        (v.check_labels, ([[0, 1]],), ValueError, "1-D"),
        (v.check_targets, ([0, 1, 2],), ValueError, r"`y` must be <= 1.0"),
        (v.check_matrix, ([1.0, 2.0],), ValueError, r"reshape\(-1, 1\)"),
        (v.check_matrix, ([[1.0, np.nan]],), ValueError, "`X` contains NaN or inf"),
        (v.check_positive_int, (0, "n_bins"), ValueError, "`n_bins` must be >= 1"),
        (v.check_positive_int, (2.5, "n_bins"), TypeError, "must be an integer"),
        (v.check_fraction, (1.0, "prob"), ValueError, r"`prob` must lie in \(0, 1\)"),
        (v.check_choice, ("x", "kind", ("a", "b")), ValueError, "`kind` must be one of"),
        (v.check_positive_number, (0.0, "tol"), ValueError, "`tol` must be a positive finite"),
        (v.check_positive_number, (np.inf, "tol"), ValueError, "positive finite number; got inf"),
        (v.check_positive_number, (True, "tol"), TypeError, "`tol` must be a positive number"),
        (v.check_positive_number, ("1", "tol"), TypeError, "`tol` must be a positive number"),
        (v.check_probability_pair, ([0.2, 0.3], [[0.5, 0.5]], "p", "q"), ValueError,
         r"`p` has shape \(2, 2\) but `q` has shape \(1, 2\)"),
        (v.check_probability_pair, ([0.2], [1.5], "p", "q"), ValueError, "`q` must be <= 1.0"),
    ],
)
def test_bad_input_names_argument(func, args, error, match):
    kwargs = {}
    if isinstance(error, dict):  # keyword arguments ride in the error slot
        kwargs, error = error, ValueError
    with pytest.raises(error, match=match):
        func(*args, **kwargs)


def test_label_range_with_n_classes():
    with pytest.raises(ValueError, match=r"class codes 0\.\.2 for 3 classes"):
        v.check_labels([0, 3], n_classes=3)
    np.testing.assert_array_equal(v.check_labels([0.0, 2.0], n_classes=3), [0, 2])


def test_consistent_length_names_both():
    with pytest.raises(ValueError, match="`scores` has 3, `y` has 2"):
        v.check_consistent_length(scores=[1, 2, 3], y=[1, 2])


def test_single_class_error_and_sample_weight():
    with pytest.raises(ValueError, match="single class"):
        v.check_n_classes_present(np.array([1, 1, 1]))
    with pytest.raises(ValueError, match="all zero"):
        v.check_sample_weight([0, 0], 2)
    with pytest.raises(ValueError, match="2 entries but there are 3"):
        v.check_sample_weight([1, 1], 3)
    np.testing.assert_array_equal(v.check_sample_weight(None, 3), np.ones(3))


def test_two_column_scores_take_positive_column():
    p = np.array([[0.3, 0.7], [0.9, 0.1]])
    np.testing.assert_array_equal(v.check_binary_scores(p), [0.7, 0.1])


def test_one_d_proba_becomes_two_columns():
    np.testing.assert_allclose(v.check_probability_matrix([0.25, 1.0]), [[0.75, 0.25], [0.0, 1.0]])


def test_logit_input_allows_any_real():
    np.testing.assert_array_equal(v.check_binary_scores([-5.0, 7.0], input="decision"), [-5.0, 7.0])


@given(arrays(np.float64, st.integers(1, 30), elements=st.floats(0, 1)))
def test_checks_never_modify_input(values):
    before = values.copy()
    out = v.check_binary_scores(values)
    out[...] = -1
    np.testing.assert_array_equal(values, before)


def test_positive_number_returns_float():
    assert v.check_positive_number(np.int64(3), "x") == 3.0
    assert isinstance(v.check_positive_number(2, "x"), float)


def test_probability_pair_returns_both_as_matrices():
    a, b = v.check_probability_pair([0.25], [[0.5, 0.5]], "p", "q")
    np.testing.assert_allclose(a, [[0.75, 0.25]])
    np.testing.assert_allclose(b, [[0.5, 0.5]])


def test_encode_labels_codes_any_sortable_labels():
    from bayescal.validation import encode_labels

    classes, codes = encode_labels(np.array(["b", "a", "b", "c"]))
    assert classes.tolist() == ["a", "b", "c"] and codes.tolist() == [1, 0, 1, 2]
    classes, codes = encode_labels([True, False, True])
    assert classes.tolist() == [False, True] and codes.dtype == np.int64
    classes, codes = encode_labels([3.0, -1.0, 3.0])
    assert classes.tolist() == [-1.0, 3.0] and codes.tolist() == [1, 0, 1]


@pytest.mark.parametrize(
    ("y", "error", "match"),
    [
        ([[0], [1]], ValueError, r"`y` must be 1-D .* y.ravel\(\)"),
        ([], ValueError, "`y` is empty"),
        ([0.0, np.nan, 1.0], ValueError, "y"),
        ([0.5, 1.0, 0.0], ValueError, "Unknown label type: continuous. `y`"),
        ([1, 1, 1], ValueError, "single class"),
        (np.array([1, "a"], dtype=object), TypeError, "mixed types"),
        (None, ValueError, "`y` is None: .*requires y to be passed, but the target y is None"),
        (np.array([0, 1]) + 1j, ValueError, "`y` holds complex numbers.*Complex data not supported"),
    ],
)
def test_encode_labels_bad_input(y, error, match):
    from bayescal.validation import encode_labels

    with pytest.raises(error, match=match):
        encode_labels(y)


def test_check_matrix_names_sparse_input():
    import scipy.sparse as sp

    from bayescal.validation import check_matrix

    with pytest.raises(TypeError, match=r"`X` is a sparse matrix.*X.toarray\(\)"):
        check_matrix(sp.csr_matrix(np.eye(3)))


def test_complex_values_are_rejected_with_scikit_learns_phrase():
    with pytest.raises(ValueError, match=r"`X` holds complex.*Complex data not supported.*X\.real"):
        v.check_matrix(np.ones((3, 2)) + 1j)
    with pytest.raises(ValueError, match="`scores` holds complex"):
        v.check_binary_scores(np.array([0.5 + 1j]))


class _Estimator:
    """The least an estimator needs for scikit-learn's ``validate_data``."""

    def __sklearn_tags__(self):
        from sklearn.utils import Tags, TargetTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=False))


def test_check_features_records_and_compares_the_feature_count():
    est = _Estimator()
    X = v.check_features(est, [[0, 1, 2], [3, 4, 5]], reset=True)
    assert X.dtype == np.float64 and est.n_features_in_ == 3
    np.testing.assert_array_equal(v.check_features(est, np.ones((4, 3)), reset=False), 1.0)
    with pytest.raises(
        ValueError,
        match=r"X has 2 features, but _Estimator is expecting 3 features as input\. "
        r"Pass `X` with the columns _Estimator was fitted on",
    ):
        v.check_features(est, np.ones((4, 2)), reset=False)
    with pytest.raises(ValueError, match="Reshape your data"):
        v.check_features(est, np.ones(3), reset=False)
    with pytest.raises(ValueError, match=r"0 feature\(s\) \(shape=\(4, 0\)\) while a minimum of 1"):
        v.check_features(est, np.ones((4, 0)), reset=True)


def test_check_features_keeps_dataframe_column_names():
    pd = pytest.importorskip("pandas")
    est = _Estimator()
    v.check_features(est, pd.DataFrame({"a": [0.0, 1.0], "b": [2.0, 3.0]}), reset=True)
    assert est.feature_names_in_.tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="feature names should match"):
        v.check_features(est, pd.DataFrame({"b": [0.0], "a": [1.0]}), reset=False)


@pytest.mark.parametrize(
    ("X", "y", "kwargs", "match"),
    [
        (np.ones((3, 2)), None, {}, "requires y to be passed"),
        (np.ones((3, 2)), [0, 1], {}, r"inconsistent numbers of samples: `X` has 3, `y` has 2"),
        (np.ones((1, 2)), [0], {"min_samples": 2}, "`X` has 1 samples but needs at least 2"),
        ([[0.0, np.nan], [1.0, 2.0]], [0, 1], {}, "`X` contains NaN or inf"),
        (np.ones((2, 2)), [1, 1], {}, r"single class .*1 class"),
    ],
)
def test_check_classification_data_bad_input(X, y, kwargs, match):
    with pytest.raises(ValueError, match=match):
        v.check_classification_data(_Estimator(), X, y, **kwargs)


def test_check_classification_data_encodes_labels_and_allows_nan_when_asked():
    est = _Estimator()
    X, classes, codes = v.check_classification_data(
        est, [[0.0, np.nan], [1.0, 2.0], [3.0, 4.0]], ["no", "yes", "no"], allow_nan=True
    )
    assert np.isnan(X[0, 1]) and est.n_features_in_ == 2
    assert classes.tolist() == ["no", "yes"] and codes.tolist() == [0, 1, 0]


def test_in_unit_interval_accepts_exactly_plus_zero_to_one():
    from bayescal.validation import in_unit_interval

    ok = np.array([0.0, 5e-324, 0.5, np.nextafter(1.0, 0.0), 1.0])
    assert in_unit_interval(ok)
    assert in_unit_interval(ok[::2])  # strided views too
    for bad in [-0.0, -5e-324, np.nextafter(1.0, 2.0), np.inf, -np.inf, np.nan, -np.nan]:
        assert not in_unit_interval(np.append(ok, bad)), bad
    assert not in_unit_interval(np.array([]))


def test_scores_checked_without_copy_are_the_input_itself():
    from bayescal.validation import check_binary_scores

    s = np.array([0.1, 0.7, 1.0])
    assert check_binary_scores(s, copy=False) is s
    assert check_binary_scores(s) is not s
    with pytest.raises(ValueError, match="`scores` must be <= 1"):
        check_binary_scores(np.array([0.1, 1.5]), copy=False)

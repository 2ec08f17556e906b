"""Tests of bayescal.study.data: dataset preparation from a spec."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_iris

from bayescal.study.data import check_dataset_source, prepare_dataset
from bayescal.study.imports import DEFAULT_ALLOWED_MODULES
from bayescal.study.spec import DatasetSpec


def _prep(spec, data_dir=None, seed=0):
    return prepare_dataset(spec, data_dir=data_dir, allowed=DEFAULT_ALLOWED_MODULES,
                           random_state=seed)


def test_class_subset_and_binarisation():
    iris = load_iris()
    sub = _prep(DatasetSpec("vv", source="iris", classes=("versicolor", "virginica")))
    assert sub.class_names == ("versicolor", "virginica") and len(sub.y) == 100
    np.testing.assert_array_equal(sub.y, iris.target[iris.target > 0] - 1)
    np.testing.assert_array_equal(sub.X, iris.data[iris.target > 0])
    binary = _prep(DatasetSpec("ovr", source="iris", positive=("setosa",)))
    np.testing.assert_array_equal(binary.y, (iris.target == 0).astype(int))
    assert binary.class_names == ("not setosa", "setosa")


def test_label_column_and_one_positive_label(tmp_path):
    (tmp_path / "visits.csv").write_text("age,outcome\n30,yes\n40,no\n50,yes\n60,no\n"
                                         "35,no\n45,yes\n")
    base = _prep(DatasetSpec("v", source="visits", label="outcome"), data_dir=str(tmp_path))
    assert base.class_names == ("no", "yes") and base.feature_names == ("age",)
    np.testing.assert_array_equal(base.y, [1, 0, 1, 0, 0, 1])
    flipped = _prep(DatasetSpec("v", source="visits", label="outcome", positive=("no",)),
                    data_dir=str(tmp_path))
    assert flipped.class_names == ("yes", "no")  # two classes keep their names
    np.testing.assert_array_equal(flipped.y, 1 - base.y)
    with pytest.raises(ValueError, match="no 'target' column"):
        _prep(DatasetSpec("v", source="visits"), data_dir=str(tmp_path))


def test_drop_features_and_max_samples():
    iris = load_iris()
    spec = DatasetSpec("small", source="iris", drop_features=("sepal length (cm)",),
                       max_samples=60)
    a, b = _prep(spec, seed=3), _prep(spec, seed=3)
    assert a.X.shape == (60, 3) and a.feature_names[0] == "sepal width (cm)"
    np.testing.assert_array_equal(a.X, b.X)
    assert np.bincount(a.y).tolist() == [20, 20, 20]  # stratified
    rows = [np.flatnonzero((iris.data[:, 1:] == x).all(axis=1))[0] for x in a.X]
    np.testing.assert_array_equal(iris.target[rows], a.y)


def test_generator_truth_follows_the_rows():
    spec = DatasetSpec("syn", generator="bayescal.datasets.make_thesis_synthetic",
                       params=(("n_per_class", 40),), max_samples=50)
    from bayescal.datasets import make_thesis_synthetic

    data = _prep(spec, seed=7)
    X, y, p = make_thesis_synthetic(n_per_class=40, random_state=7)
    rows = [np.flatnonzero((X == x).all(axis=1))[0] for x in data.X]
    np.testing.assert_array_equal(p[rows], data.p_true)
    np.testing.assert_array_equal(y[rows], data.y)


def test_thesis_mammographic_preparation(shared_data_dir):
    # seed 000 Table 1: 831 samples, 4 features (BI-RADS dropped, incomplete rows dropped)
    data = _prep(DatasetSpec("mm", source="mammographic_mass", drop_features=("BI_RADS",),
                             dropna=True), data_dir=str(shared_data_dir))
    assert data.X.shape == (831, 4) and not np.isnan(data.X).any()


def test_numeric_labels_match_text_class_names(shared_data_dir):
    # letter O (15) vs Q (17): numbers in the spec match the file's labels
    data = _prep(DatasetSpec("oq", source="letter", classes=(15, 17)),
                 data_dir=str(shared_data_dir))
    assert len(data.class_names) == 2 and set(np.unique(data.y)) == {0, 1}
    assert 1400 < len(data.y) < 1600  # the thesis' "Letter" binary set has 1536 rows


@pytest.mark.parametrize(("spec", "match"), [
    (DatasetSpec("x", source="iris", classes=("rose",)), "label 'rose' is not a class"),
    (DatasetSpec("x", source="iris", positive=("tulip",)), "label 'tulip' is not a class"),
    (DatasetSpec("x", source="iris", drop_features=("petal",)), r"drop_features \['petal'\]"),
    (DatasetSpec("x", source="iris", classes=("setosa",)), "fewer than two classes"),
    (DatasetSpec("x", generator="sklearn.datasets.load_iris"), "expected \\(X, y\\)"),
])
def test_bad_preparation(spec, match):
    with pytest.raises(ValueError, match=match):
        _prep(spec)


def test_check_dataset_source(tmp_path, monkeypatch):
    monkeypatch.delenv("BAYESCAL_DATA", raising=False)
    check_dataset_source("wine", None)
    (tmp_path / "mine.csv").write_text("a,target\n1,0\n2,1\n")
    check_dataset_source("mine", tmp_path)
    check_dataset_source(str(tmp_path / "mine.csv"), None)
    with pytest.raises(ValueError, match="unknown dataset 'mine'.*no data directory is set"):
        check_dataset_source("mine", None)
    with pytest.raises(ValueError, match="unknown dataset 'other'.*no dataset 'other'"):
        check_dataset_source("other", tmp_path)

"""Tests of bayescal.datasets.loaders on the real files and on files made here."""

from __future__ import annotations

import csv
import gzip
import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayescal.datasets import (
    DATA_DIR_ENV,
    DataFileWarning,
    Dataset,
    list_datasets,
    load_dataset,
)


def _manifest_entries() -> list[dict]:
    """Entries of the shared data's manifest.json (the README's table, as data).

    Looked up where the ``shared_data_dir`` fixture looks (``BAYESCAL_DATA``, else
    ``../shared/data``); read at collection time because it parametrizes tests.
    """
    env = os.environ.get(DATA_DIR_ENV)
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[2].parent / "shared" / "data")
    for directory in candidates:
        if (directory / "manifest.json").is_file():
            return json.loads((directory / "manifest.json").read_text())["datasets"]
    return []


MANIFEST = _manifest_entries()


@pytest.fixture(autouse=True)
def _no_env_data_dir(monkeypatch):
    """Tests control the data directory explicitly."""
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)


def _write(path: Path, text: str) -> Path:
    if path.name.endswith(".gz"):
        with gzip.open(path, "wt", newline="") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    return path


# --------------------------------------------------------------------------- #
# The real files: shapes, class counts and missing cells match the manifest
# --------------------------------------------------------------------------- #


def test_manifest_lists_every_file(shared_data_dir):
    files = sorted(
        p.name for p in shared_data_dir.iterdir() if ".csv" in p.name or ".tsv" in p.name
    )
    assert sorted(e["file"] for e in MANIFEST) == files
    assert len(files) == 28


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["file"] for e in MANIFEST])
def test_every_shared_file_loads_as_documented(shared_data_dir, entry):
    ds = load_dataset(entry["file"], shared_data_dir)
    assert ds.X.dtype == np.float64 and ds.y.dtype == np.int64
    assert ds.X.shape == (entry["rows"], entry["features"])
    assert ds.n_samples == entry["rows"] and ds.n_features == entry["features"]
    assert ds.n_classes == entry["n_classes"]
    assert ds.n_missing == entry["missing_cells"]
    counts = dict(zip(ds.class_names, np.bincount(ds.y).tolist(), strict=True))
    assert counts == entry["class_counts"]
    assert sorted(ds.categories) == sorted(entry["non_numeric_features"])
    assert TARGET not in ds.feature_names and len(ds.feature_names) == entry["features"]
    assert ds.source == str(shared_data_dir / entry["file"])
    # codes follow the sorted order of the original values
    try:
        keys = [float(c) for c in ds.class_names]
    except ValueError:
        keys = ds.class_names
    assert keys == sorted(keys)


TARGET = "target"


def test_mammographic_mass_missing_cells_match_raw_file(shared_data_dir):
    path = shared_data_dir / "mammographic_mass.csv.gz"
    with gzip.open(path, "rt", newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    feature_cols = [i for i, h in enumerate(header) if h != TARGET]
    raw = np.array([[r[i] for i in feature_cols] for r in body])
    ds = load_dataset("mammographic_mass", shared_data_dir)
    assert ds.n_samples == 961 and ds.n_missing == 162
    np.testing.assert_array_equal(np.isnan(ds.X), raw == "")
    observed = raw != ""
    np.testing.assert_array_equal(ds.X[observed], raw[observed].astype(float))
    labels = np.array([r[header.index(TARGET)] for r in body]).astype(int)
    np.testing.assert_array_equal(ds.y, labels)


def test_categorical_feature_codes_follow_sorted_strings(shared_data_dir):
    ds = load_dataset("abalone", shared_data_dir)
    raw = pd.read_csv(shared_data_dir / "abalone.csv.gz")["Sex"].to_numpy(dtype=str)
    assert ds.categories == {"Sex": ["F", "I", "M"]}
    col = ds.X[:, ds.feature_names.index("Sex")]
    np.testing.assert_array_equal(np.array(["F", "I", "M"])[col.astype(int)], raw)
    # numeric target sorted numerically, not as text ("10" after "9")
    assert ds.class_names[:3] == ["1", "2", "3"] and ds.class_names[-1] == "29"


def test_text_target_sorted(shared_data_dir):
    ds = load_dataset("forest_type_mapping", shared_data_dir)
    assert ds.class_names == ["d", "h", "o", "s"]
    raw = pd.read_csv(shared_data_dir / "forest_type_mapping.csv.gz")[TARGET].to_numpy(dtype=str)
    np.testing.assert_array_equal(np.array(ds.class_names)[ds.y], raw)


def test_name_forms_resolve_to_same_file(shared_data_dir, monkeypatch):
    by_dir = load_dataset("letter", shared_data_dir)
    by_path = load_dataset(shared_data_dir / "letter.tsv.gz")
    by_str = load_dataset(str(shared_data_dir / "letter.tsv.gz"))
    monkeypatch.setenv(DATA_DIR_ENV, str(shared_data_dir))
    by_env = load_dataset("letter")
    for other in (by_path, by_str, by_env):
        np.testing.assert_array_equal(other.X, by_dir.X)
        np.testing.assert_array_equal(other.y, by_dir.y)
        assert other.name == "letter"
    assert by_dir.n_samples == 20000


def test_locate_dataset_matches_load_source(shared_data_dir, tmp_path):
    from bayescal.datasets import locate_dataset

    assert locate_dataset("digits") == "sklearn"
    for name in ("letter", "iris.tsv.gz", str(shared_data_dir / "seeds.csv.gz")):
        assert locate_dataset(name, shared_data_dir) == load_dataset(name, shared_data_dir).source
    # it does not read the file: a broken file is located all the same
    _write(tmp_path / "broken.csv", "no target here\n")
    assert locate_dataset("broken", tmp_path) == str(tmp_path / "broken.csv")
    with pytest.raises(ValueError, match=r"`name`: no dataset 'nope'"):
        locate_dataset("nope", tmp_path)
    with pytest.raises(TypeError, match=r"`name` must be a str"):
        locate_dataset(None)


def test_bundled_name_wins_over_file_of_same_stem(shared_data_dir):
    bundled = load_dataset("iris", shared_data_dir)
    from_file = load_dataset("iris.tsv.gz", shared_data_dir)
    assert bundled.source == "sklearn"
    assert from_file.source.endswith("iris.tsv.gz")
    assert from_file.X.shape == bundled.X.shape


@pytest.mark.parametrize(
    "name, loader",
    [
        ("iris", "load_iris"),
        ("wine", "load_wine"),
        ("breast_cancer", "load_breast_cancer"),
        ("digits", "load_digits"),
    ],
)
def test_sklearn_sets_equal_sklearn(name, loader):
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, loader)()
    ds = load_dataset(name)
    np.testing.assert_array_equal(ds.X, bunch.data)
    np.testing.assert_array_equal(ds.y, bunch.target)
    assert ds.class_names == [str(t) for t in bunch.target_names]
    assert ds.feature_names == [str(f) for f in bunch.feature_names]
    assert (ds.name, ds.source) == (name, "sklearn")


def test_binary_callable_heart_disease(shared_data_dir):
    ds = load_dataset("heart_disease_cleveland", shared_data_dir, binary=lambda t: t > 0)
    assert ds.class_names == ["negative", "positive"]
    assert np.bincount(ds.y).tolist() == [164, 139]  # manifest: 164 rows with num = 0


def test_binary_label_value_one_vs_rest(shared_data_dir):
    ds = load_dataset("qsar_biodeg", shared_data_dir, binary="RB")
    full = load_dataset("qsar_biodeg", shared_data_dir)
    assert ds.class_names == ["not RB", "RB"]
    np.testing.assert_array_equal(ds.y, (np.array(full.class_names)[full.y] == "RB").astype(int))
    titanic = load_dataset("titanic", shared_data_dir, binary=1)
    assert titanic.class_names == ["not 1.0", "1.0"] and titanic.y.sum() == 711
    cancer = load_dataset("breast_cancer", binary="malignant")
    assert cancer.class_names == ["not malignant", "malignant"] and cancer.y.sum() == 212


def test_dropna_drops_only_incomplete_rows(shared_data_dir):
    full = load_dataset("mammographic_mass", shared_data_dir)
    kept = load_dataset("mammographic_mass", shared_data_dir, dropna=True)
    complete = ~np.isnan(full.X).any(axis=1)
    expected = pd.read_csv(shared_data_dir / "mammographic_mass.csv.gz").dropna()
    assert kept.n_samples == complete.sum() == len(expected)
    np.testing.assert_array_equal(kept.X, full.X[complete])
    np.testing.assert_array_equal(kept.y, full.y[complete])
    assert kept.n_missing == 0


def test_each_load_returns_fresh_arrays():
    a = load_dataset("wine")
    a.X[:] = 0.0
    b = load_dataset("wine")
    assert b.X.any()


def test_repr_is_short():
    text = repr(load_dataset("digits"))
    assert text.startswith("Dataset(name='digits'") and "n_samples=1797" in text
    assert len(text) < 200


# --------------------------------------------------------------------------- #
# list_datasets
# --------------------------------------------------------------------------- #


def test_list_datasets_without_directory_lists_sklearn_sets():
    table = list_datasets()
    assert list(table.columns) == ["name", "samples", "features", "classes", "source"]
    assert table["name"].tolist() == ["iris", "wine", "breast_cancer", "digits"]
    assert table.set_index("name").loc["digits", ["samples", "features", "classes"]].tolist() == [
        1797,
        64,
        10,
    ]
    assert (table["source"] == "sklearn").all()


def test_list_datasets_matches_manifest(shared_data_dir):
    table = list_datasets(shared_data_dir)
    files = table[table["source"] != "sklearn"]
    assert len(files) == len(MANIFEST) == 28
    by_source = files.set_index("source")
    for entry in MANIFEST:
        row = by_source.loc[str(shared_data_dir / entry["file"])]
        assert (row["samples"], row["features"], row["classes"]) == (
            entry["rows"],
            entry["features"],
            entry["n_classes"],
        )
        # the listed name loads that same file
        assert load_dataset(row["name"], shared_data_dir).source == str(
            shared_data_dir / entry["file"]
        )
    assert "iris.tsv.gz" in set(files["name"]) and "mammographic_mass" in set(files["name"])
    assert files["name"].is_unique and table["name"].is_unique


def test_list_datasets_uses_env_directory(shared_data_dir, monkeypatch):
    monkeypatch.setenv(DATA_DIR_ENV, str(shared_data_dir))
    assert len(list_datasets()) == 4 + 28


def test_list_datasets_skips_bad_file_with_warning(tmp_path):
    _write(tmp_path / "good.csv", "a,b,target\n1,2,x\n3,4,y\n")
    _write(tmp_path / "bad.csv", "a,b,label\n1,2,x\n")
    _write(tmp_path / "notes.txt", "not data")
    _write(tmp_path / "void.csv.gz", "")
    with pytest.warns(DataFileWarning) as record:
        table = list_datasets(tmp_path)
    messages = sorted(str(w.message) for w in record)
    assert len(messages) == 2
    assert re.search(r"bad\.csv.*no 'target' column.*\['a', 'b', 'label'\]", messages[0])
    assert re.search(r"void\.csv\.gz.*is empty", messages[1])
    assert table["name"].tolist()[4:] == ["good"]
    assert table.iloc[4][["samples", "features", "classes"]].tolist() == [2, 2, 2]


def test_list_datasets_names_ambiguous_stems_by_file(tmp_path):
    _write(tmp_path / "twin.csv", "a,target\n1,0\n2,1\n")
    _write(tmp_path / "twin.tsv.gz", "a\ttarget\n1\t0\n2\t1\n3\t1\n")
    table = list_datasets(tmp_path)
    assert sorted(table["name"].tolist()[4:]) == ["twin.csv", "twin.tsv.gz"]
    assert load_dataset("twin.tsv.gz", tmp_path).n_samples == 3


# --------------------------------------------------------------------------- #
# Files written here: formats, encoding rules, bad files
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("fname", ["t.csv", "t.tsv", "t.csv.gz", "t.tsv.gz"])
def test_all_suffixes_read(tmp_path, fname):
    sep = "\t" if ".tsv" in fname else ","
    text = sep.join(["x", "color", "target"]) + "\n"
    text += "\n".join(
        sep.join(r) for r in [["1.5", "red", "b"], ["", "blue", "a"], ["2", "", "b"]]
    )
    _write(tmp_path / fname, text + "\n")
    ds = load_dataset("t", tmp_path)
    assert ds.name == "t"
    np.testing.assert_array_equal(np.isnan(ds.X), [[False, False], [True, False], [False, True]])
    assert ds.categories == {"color": ["blue", "red"]}
    np.testing.assert_array_equal(ds.X[[0, 1], 1], [1.0, 0.0])
    assert ds.class_names == ["a", "b"] and ds.y.tolist() == [1, 0, 1]


def test_target_column_may_be_first(tmp_path):
    _write(tmp_path / "f.csv", "target,a,b\n2,1,5\n1,3,6\n")
    ds = load_dataset(tmp_path / "f.csv")
    assert ds.feature_names == ["a", "b"]
    np.testing.assert_array_equal(ds.X, [[1, 5], [3, 6]])
    assert ds.y.tolist() == [1, 0]


def test_na_like_text_is_not_missing_unless_asked(tmp_path):
    # "NA" is a legitimate category (e.g. North America); only empty fields are missing.
    _write(tmp_path / "f.csv", "region,target\nNA,0\nEU,1\n,0\n")
    ds = load_dataset(tmp_path / "f.csv")
    assert ds.categories == {"region": ["EU", "NA"]}
    assert np.isnan(ds.X[2, 0]) and ds.X[0, 0] == 1.0
    ds2 = load_dataset(tmp_path / "f.csv", na_values=["NA"])
    assert ds2.categories == {"region": ["EU"]} and np.isnan(ds2.X[0, 0])


def test_mixed_numbers_and_text_warn_with_remedy(tmp_path):
    _write(tmp_path / "f.csv", "a,target\n1,0\n?,1\n10,0\n2,1\n")
    with pytest.warns(DataFileWarning, match=r"mixes numbers and text.*na_values=\['\?'\]"):
        ds = load_dataset(tmp_path / "f.csv")
    assert ds.categories == {"a": ["1", "10", "2", "?"]}
    fixed = load_dataset(tmp_path / "f.csv", na_values=["?"])
    np.testing.assert_array_equal(fixed.X[:, 0], [1.0, np.nan, 10.0, 2.0])
    assert fixed.categories == {}


@pytest.mark.parametrize(
    "content, match",
    [
        ("a,label\n1,0\n2,1\n", r"has no 'target' column.*Columns present: \['a', 'label'\]"),
        ("a,target\n1,0\n2,\n3,1\n", r"'target' column .* has 1 missing values"),
        ("a,target\n1,0.5\n2,1.25\n", r"fractional numbers .*regression target"),
        ("a,target\n1,x\n2,x\n", r"single class"),
        ("", r"is empty"),
        ("a,target\n", r"no data rows"),
        ("target\n0\n1\n", r"no features"),
        ('a,target\n1,0\n2,1,7,8\n"x,1\n', r"could not be read"),
    ],
    ids=[
        "no-target",
        "target-nan",
        "fractional",
        "one-class",
        "empty",
        "header-only",
        "no-features",
        "ragged",
    ],
)
def test_bad_files(tmp_path, content, match):
    path = _write(tmp_path / "bad.csv", content)
    with pytest.raises(ValueError, match=match) as info:
        load_dataset(path)
    assert "bad.csv" in str(info.value)


def test_missing_target_column_names_the_label_option(tmp_path):
    path = _write(tmp_path / "o.csv", "a,outcome\n1,yes\n2,no\n")
    with pytest.raises(ValueError, match=r"no 'target' column; .* name it with label="):
        load_dataset(path)


def test_label_column_and_positive_class(tmp_path):
    path = _write(tmp_path / "o.csv", "a,outcome,b\n1,yes,5\n2,no,6\n3,yes,7\n4,no,8\n")
    ds = load_dataset(path, label="outcome")
    assert ds.feature_names == ["a", "b"] and ds.class_names == ["no", "yes"]
    np.testing.assert_array_equal(ds.y, [1, 0, 1, 0])  # default: the later class is positive
    flipped = load_dataset(path, label="outcome", positive="no")
    assert flipped.class_names == ["yes", "no"]  # the positive class is code 1, named last
    np.testing.assert_array_equal(flipped.y, [0, 1, 0, 1])
    np.testing.assert_array_equal(flipped.X, ds.X)
    assert load_dataset(path, label="outcome", positive="yes").class_names == ["no", "yes"]
    numbers = _write(tmp_path / "n.csv", "a,target\n1,0\n2,1\n3,1\n")
    as_zero = load_dataset(numbers, positive=0)  # numbers match the class names as text
    assert as_zero.class_names == ["1", "0"]
    np.testing.assert_array_equal(as_zero.y, [1, 0, 0])
    bc = load_dataset("breast_cancer", positive="malignant")
    np.testing.assert_array_equal(bc.y, 1 - load_dataset("breast_cancer").y)


def test_fractional_target_allowed_with_binary(tmp_path):
    path = _write(tmp_path / "r.csv", "a,target\n1,0.2\n2,0.7\n3,0.9\n")
    ds = load_dataset(path, binary=lambda t: t > 0.5)
    assert ds.y.tolist() == [0, 1, 1]


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"name": 3}, TypeError, r"`name` must be a str"),
        ({"name": ""}, ValueError, r"`name` is empty"),
        (
            {"name": "no_such_set"},
            ValueError,
            r"`name` 'no_such_set' is not a bundled.*BAYESCAL_DATA",
        ),
        (
            {"name": "no_such_set", "data_dir": "DIR"},
            ValueError,
            r"`name`: no dataset 'no_such_set'.*available: \['f'",
        ),
        ({"name": "missing.csv"}, ValueError, r"`name`: no file 'missing.csv'"),
        ({"name": "DIR/notes.txt"}, ValueError, r"`name`: file .*notes.txt.* not a supported"),
        (
            {"name": "f", "data_dir": "DIR/nope"},
            ValueError,
            r"`data_dir` .*nope.* not an existing",
        ),
        ({"name": "f", "data_dir": 7}, TypeError, r"`data_dir` must be a path"),
        (
            {"name": "f", "data_dir": "DIR", "binary": [1]},
            TypeError,
            r"`binary` must be a callable",
        ),
        (
            {"name": "f", "data_dir": "DIR", "binary": True},
            TypeError,
            r"`binary` must be a callable",
        ),
        (
            {"name": "f", "data_dir": "DIR", "binary": "z"},
            ValueError,
            r"`binary`='z' puts every row",
        ),
        (
            {"name": "f", "data_dir": "DIR", "binary": 3},
            ValueError,
            r"`binary`=3 cannot match the text",
        ),
        (
            {"name": "f", "data_dir": "DIR", "binary": lambda t: t[:1] == "a"},
            ValueError,
            r"`binary` must return one boolean per row",
        ),
        (
            {"name": "f", "data_dir": "DIR", "binary": lambda t: t + 1},
            ValueError,
            r"`binary` raised TypeError",
        ),
        (
            {"name": "f", "data_dir": "DIR", "binary": lambda t: t == "never"},
            ValueError,
            r"puts every row .* in one class",
        ),
        (
            {"name": "f", "data_dir": "DIR", "dropna": "yes"},
            TypeError,
            r"`dropna` must be True or False",
        ),
        (
            {"name": "f", "data_dir": "DIR", "na_values": "?"},
            TypeError,
            r"`na_values` must be a list",
        ),
        (
            {"name": "g", "data_dir": "DIR", "dropna": True},
            ValueError,
            r"`dropna`=True removed every row",
        ),
        ({"name": "twin", "data_dir": "DIR"}, ValueError, r"`name` 'twin' is ambiguous"),
        ({"name": "iris", "binary": 0}, ValueError, r"`binary`=0 cannot match the text"),
        ({"name": "f", "data_dir": "DIR", "label": "outcome"}, ValueError,
         r"has no 'outcome' column; check the label= name. Columns present: \['a', 'target'\]"),
        ({"name": "f", "data_dir": "DIR", "label": ""}, TypeError, r"`label` must be"),
        ({"name": "iris", "label": "species"}, ValueError, r"`label`='species' applies to data"),
        ({"name": "f", "data_dir": "DIR", "positive": "c"}, ValueError,
         r"`positive`='c' is not a class of 'f'; classes: \['a', 'b'\]"),
        ({"name": "iris", "positive": "setosa"}, ValueError,
         r"has 3 classes .* use binary='setosa'"),
        ({"name": "f", "data_dir": "DIR", "positive": True}, TypeError, r"`positive` must be"),
        ({"name": "f", "data_dir": "DIR", "positive": "a", "binary": "a"}, ValueError,
         r"either `binary`"),
    ],
)
def test_bad_arguments(tmp_path, kwargs, exc, match):
    _write(tmp_path / "f.csv", "a,target\n1,a\n2,b\n3,a\n")
    _write(tmp_path / "g.csv", "a,b,target\n1,,a\n,2,b\n")
    _write(tmp_path / "twin.csv", "a,target\n1,0\n2,1\n")
    _write(tmp_path / "twin.tsv", "a\ttarget\n1\t0\n2\t1\n")
    _write(tmp_path / "notes.txt", "x")
    kwargs = {
        k: (v.replace("DIR", str(tmp_path)) if isinstance(v, str) else v)
        for k, v in kwargs.items()
    }
    with pytest.raises(exc, match=match):
        load_dataset(**kwargs)


def test_bad_env_directory(monkeypatch, tmp_path):
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "gone"))
    with pytest.raises(ValueError, match=r"BAYESCAL_DATA=.*gone.* not an existing directory"):
        load_dataset("anything")
    with pytest.raises(ValueError, match=r"BAYESCAL_DATA"):
        list_datasets()
    with pytest.raises(ValueError, match=r"`data_dir`"):
        list_datasets(tmp_path / "gone")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"X": np.zeros(3)}, r"`X` must be 2-D"),
        ({"y": np.zeros(2, dtype=np.int64)}, r"`y` must have shape \(3,\)"),
        ({"feature_names": ["a"]}, r"`feature_names` has 1 names"),
        ({"y": np.array([0, 1, 2])}, r"`y` must hold codes 0..1"),
        ({"categories": {"zz": ["u"]}}, r"`categories` names unknown features"),
    ],
)
def test_dataset_checks_consistency(kwargs, match):
    parts = {
        "X": np.zeros((3, 2)),
        "y": np.array([0, 1, 0]),
        "feature_names": ["a", "b"],
        "class_names": ["n", "p"],
        "name": "toy",
        "source": "here",
    }
    parts.update(kwargs)
    with pytest.raises(ValueError, match=match):
        Dataset(**parts)


def test_dataset_is_frozen():
    ds = load_dataset("iris")
    with pytest.raises(AttributeError):
        ds.name = "other"  # type: ignore[misc]


# --------------------------------------------------------------------------- #
# Property: writing a frame and loading it recovers values and labels
# --------------------------------------------------------------------------- #

_words = st.text(alphabet="abcxyz", min_size=1, max_size=3)


@settings(max_examples=25, deadline=None)
@given(
    labels=st.lists(_words, min_size=2, max_size=30),
    numbers=st.data(),
)
def test_round_trip_property(tmp_path_factory, labels, numbers):
    if len(set(labels)) < 2:
        labels = [*labels, labels[0] + "q"]
    n = len(labels)
    values = numbers.draw(
        st.lists(
            st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: round(v, 3))),
            min_size=n,
            max_size=n,
        )
    )
    cats = numbers.draw(st.lists(st.one_of(st.none(), _words), min_size=n, max_size=n))
    frame = pd.DataFrame({"num": values, "cat": cats, "target": labels})
    if frame["cat"].notna().sum() == 0:
        frame.loc[0, "cat"] = "a"
    path = tmp_path_factory.mktemp("rt") / "data.tsv.gz"
    frame.to_csv(path, sep="\t", index=False, na_rep="")
    ds = load_dataset(path)
    np.testing.assert_array_equal(np.array(ds.class_names, dtype=object)[ds.y], frame["target"])
    assert ds.class_names == sorted(set(labels) | set(frame["target"]))
    num = frame["num"].to_numpy(dtype=float)
    np.testing.assert_allclose(ds.X[:, 0], num, equal_nan=True)
    cat_codes = ds.X[:, 1]
    observed = frame["cat"].notna().to_numpy()
    np.testing.assert_array_equal(np.isnan(cat_codes), ~observed)
    decoded = np.array(ds.categories["cat"], dtype=object)[cat_codes[observed].astype(int)]
    np.testing.assert_array_equal(decoded, frame["cat"][observed].to_numpy())

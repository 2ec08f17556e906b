"""Tests of bayescal.reproduce.data_dir: BAYESCAL_DATA defaulting for the notebooks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bayescal.reproduce import set_default_data_dir, shared_data_dir
from bayescal.reproduce.data_dir import _CHECKOUT


def _unset(monkeypatch) -> None:
    """Unset BAYESCAL_DATA so that what the test sets is undone afterwards too.

    ``monkeypatch.delenv`` of a variable that is not set records nothing, and a
    value ``set_default_data_dir`` then sets would leak into later tests (it did,
    in CI, where the variable is not set): setting it first records the original.
    """
    monkeypatch.setenv("BAYESCAL_DATA", "")
    monkeypatch.delenv("BAYESCAL_DATA")


@pytest.fixture
def no_env(monkeypatch):
    _unset(monkeypatch)


def _shared(base: Path) -> Path:
    data = base / "shared" / "data"
    data.mkdir(parents=True)
    return data


def test_shared_data_beside_the_checkout_or_its_parent(tmp_path):
    checkout = tmp_path / "wt" / "name"
    checkout.mkdir(parents=True)
    assert shared_data_dir(checkout) is None
    above = _shared(tmp_path)  # /work/shared/data for /work/wt/name
    assert shared_data_dir(checkout) == above
    beside = _shared(tmp_path / "wt")  # /work/wt/shared/data wins: nearer
    assert shared_data_dir(checkout) == beside
    assert shared_data_dir(str(checkout)) == beside


def test_a_file_named_like_the_folder_is_not_data(tmp_path):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").write_text("not a folder")
    assert shared_data_dir(tmp_path / "repo") is None


def test_default_checkout_is_the_one_imported():
    assert (_CHECKOUT / "bayescal" / "reproduce" / "data_dir.py").is_file()
    assert shared_data_dir() == shared_data_dir(_CHECKOUT)


def test_set_environment_variable_is_kept(tmp_path, monkeypatch):
    _shared(tmp_path)
    monkeypatch.setenv("BAYESCAL_DATA", "/elsewhere/data")  # kept even if missing
    assert set_default_data_dir(tmp_path / "repo") == Path("/elsewhere/data")
    assert os.environ["BAYESCAL_DATA"] == "/elsewhere/data"


@pytest.mark.parametrize("unset", ["delete", "empty"])
def test_unset_variable_points_at_the_shared_data(tmp_path, monkeypatch, unset):
    data = _shared(tmp_path)
    if unset == "empty":  # the loaders treat an empty value as unset too
        monkeypatch.setenv("BAYESCAL_DATA", "")
    else:
        _unset(monkeypatch)
    assert set_default_data_dir(tmp_path / "repo") == data
    assert os.environ["BAYESCAL_DATA"] == str(data)


def test_unset_and_no_shared_data_leaves_it_unset(tmp_path, no_env):
    from bayescal.datasets import load_dataset

    assert set_default_data_dir(tmp_path / "repo") is None
    assert "BAYESCAL_DATA" not in os.environ
    load_dataset("iris")  # bundled data sets still load
    with pytest.raises(ValueError, match="BAYESCAL_DATA"):
        load_dataset("blood_transfusion")  # a data file: the loader says where to point

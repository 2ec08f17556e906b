"""``bayescal reproduce``: the list, and every reproduction's quick size meets its thresholds."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from bayescal.cli import main
from bayescal.reproduce import list_reproductions
from tests.conftest import SHARED_DATA


def test_list_names_every_reproduction():
    result = CliRunner().invoke(main, ["reproduce", "--list"])
    assert result.exit_code == 0, result.output
    for rep in list_reproductions():
        assert rep.id in result.output and rep.source in result.output


def test_unknown_id_is_a_usage_error():
    result = CliRunner().invoke(main, ["reproduce", "nope"])
    assert result.exit_code == 2 and "unknown reproduction 'nope'" in result.output


@pytest.mark.slow
@pytest.mark.parametrize("rep_id", [r.id for r in list_reproductions()])
def test_quick_size_meets_its_thresholds(tmp_path, rep_id, request, monkeypatch):
    rep = next(r for r in list_reproductions() if r.id == rep_id)
    specs = rep.runs["quick"].values()
    reads_data = any(isinstance(spec, Path) and "source =" in spec.read_text() for spec in specs)
    if SHARED_DATA is not None and any(not isinstance(spec, Path) for spec in specs):
        reads_data = True  # a function block (python:...) may read the real data sets too
    if reads_data and "BAYESCAL_DATA" not in os.environ:
        monkeypatch.setenv("BAYESCAL_DATA", str(request.getfixturevalue("shared_data_dir")))
    result = CliRunner().invoke(main, ["reproduce", rep_id, "--out", str(tmp_path),
                                       "--n-jobs", "2"])
    record = json.loads((tmp_path / "agreement.json").read_text())
    assert record["failed"] == [], result.output
    assert result.exit_code == 0, result.output
    assert "paper | bayescal" in result.output
    for name in record["figures"]:
        assert (tmp_path / name).stat().st_size > 0
    assert all(f["rows"] > 0 for f in record["agreement"].values())

"""``bayescal reproduce``: the list, and every reproduction's quick size meets its thresholds."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bayescal.cli import main
from bayescal.reproduce import list_reproductions


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
def test_quick_size_meets_its_thresholds(tmp_path, rep_id, shared_data_env):
    result = CliRunner().invoke(main, ["reproduce", rep_id, "--out", str(tmp_path),
                                       "--n-jobs", "2"])
    record = json.loads((tmp_path / "agreement.json").read_text())
    assert record["failed"] == [], result.output
    assert result.exit_code == 0, result.output
    assert "paper | bayescal" in result.output
    for name in record["figures"]:
        assert (tmp_path / name).stat().st_size > 0
    assert all(f["rows"] > 0 for f in record["agreement"].values())

"""``bayescal reproduce``: the list, the exit status, --strict, --data-dir, missing data,
and a regression guard of our own quick-size verdicts."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bayescal.cli import main
from bayescal.reproduce import list_reproductions


def test_list_names_every_reproduction_its_paper_and_data_need():
    result = CliRunner().invoke(main, ["reproduce", "--list"])
    assert result.exit_code == 0, result.output
    for rep in list_reproductions():
        assert rep.id in result.output and rep.citation in result.output
        line = next(x for x in result.output.splitlines() if x.startswith(rep.id + " "))
        assert ("not needed" not in line) == rep.needs_data
    assert ".txt" not in result.output  # papers by author, year and title, not file names


def test_unknown_id_is_a_usage_error():
    result = CliRunner().invoke(main, ["reproduce", "nope"])
    assert result.exit_code == 2 and "unknown reproduction 'nope'" in result.output


def test_exit_status_says_it_ran_and_strict_makes_disagreement_an_error(tmp_path):
    # the lecture notes' examples: milliseconds; two of their printed values disagree
    args = ["reproduce", "seed001_worked_examples", "--out", str(tmp_path)]
    ran = CliRunner().invoke(main, args)
    assert ran.exit_code == 0, ran.output
    record = json.loads((tmp_path / "agreement.json").read_text())
    assert record["verdict"].startswith("partly reproduced")
    assert f"Verdict: {record['verdict']}" in ran.output
    assert record["failing_checks"] and "<< differs" in ran.output
    assert "Sigg (2022)" in ran.output.splitlines()[0]
    strict = CliRunner().invoke(main, [*args, "--strict"])
    assert strict.exit_code == 1


def test_missing_dataset_is_one_line_naming_it(tmp_path, monkeypatch):
    empty = tmp_path / "data"
    empty.mkdir()
    monkeypatch.setenv("BAYESCAL_DATA", str(tmp_path / "elsewhere"))
    result = CliRunner().invoke(main, ["reproduce", "pub2_table2", "--data-dir", str(empty),
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    error = [x for x in result.output.splitlines() if x.startswith("Error")]
    assert len(error) == 1 and "'mushroom'" in error[0] and "--data-dir" in error[0]
    assert "Traceback" not in result.output
    bad = CliRunner().invoke(main, ["reproduce", "pub2_table2", "--data-dir",
                                    str(tmp_path / "nowhere")])
    assert bad.exit_code == 2 and "is not an existing folder" in bad.output


#: REGRESSION GUARD of our own output (not agreement with the paper): the verdict each
#: reproduction's quick size gave when last measured (2026-11-27, deterministic seeds).
#: A change here means bayescal computes something else than it did; whether that is
#: closer to the paper is what the verdict itself says.
QUICK_VERDICTS = {
    "pub2_table2": "not reproduced",
    "seed000_fig11": "reproduced",
    "seed000_figs12_13": "partly reproduced (34 of 45 checks)",
    "seed000_table5": "partly reproduced (1 of 2 checks)",
    "seed000_tables3_4": "partly reproduced (4 of 10 checks)",
    "seed000_tables6_7": "not reproduced",
    "seed001_worked_examples": "partly reproduced (2 of 3 checks)",
    "seed002_table1": "partly reproduced (1 of 4 checks)",
    "seed002_table2": "partly reproduced (3 of 4 checks)",
    "seed003_fig12": "not reproduced",
    "seed003_figs6_11_14": "partly reproduced (8 of 13 checks)",
    "seed004_figs1_2": "reproduced",
    "seed004_tables1_4": "partly reproduced (2 of 8 checks)",
}


def test_regression_guard_lists_every_reproduction():
    assert set(QUICK_VERDICTS) == {r.id for r in list_reproductions()}


@pytest.mark.slow
@pytest.mark.parametrize("rep_id", sorted(QUICK_VERDICTS))
def test_regression_guard_quick_verdict_unchanged(tmp_path, rep_id, shared_data_env):
    result = CliRunner().invoke(main, ["reproduce", rep_id, "--out", str(tmp_path),
                                       "--n-jobs", "2"])
    assert result.exit_code == 0, result.output
    record = json.loads((tmp_path / "agreement.json").read_text())
    assert record["verdict"] == QUICK_VERDICTS[rep_id], result.output[-3000:]
    for name in record["figures"]:
        assert (tmp_path / name).stat().st_size > 0
    size = sum(p.stat().st_size for p in tmp_path.rglob("*") if p.is_file())
    assert size < 20e6, f"quick output {size / 1e6:.0f} MB"

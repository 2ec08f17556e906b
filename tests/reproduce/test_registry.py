"""The registry of reproductions loads, and wrong folders fail with a named key."""

from __future__ import annotations

import shutil

import pytest

from bayescal.reproduce import list_reproductions, load_reproduction
from bayescal.reproduce.registry import DEFAULT_ROOT, FUNCTION_PREFIX
from bayescal.study import load_spec


def test_every_reproduction_loads_and_its_specs_parse(shared_data_env):
    reps = list_reproductions()
    assert "seed004_tables1_4" in [r.id for r in reps]
    for rep in reps:
        specs = [spec for blocks in rep.runs.values() for spec in blocks.values()
                 if not str(spec).startswith(FUNCTION_PREFIX)]
        for spec in specs:
            load_spec(spec)
        assert rep.citation and "txt" not in rep.citation, rep.id  # author, year, title
        for label, m in rep.metrics.items():  # every number has the paper's uncertainty
            assert m.get("claims") or m["uncertainty"]["reason"], (rep.id, label)
        if specs:
            methods = {line["method"] for line in rep.paper}
            scenarios = {s.name for spec in specs for s in load_spec(spec).scenarios}
            assert methods <= scenarios


def test_seed004_transcription_spot_checks():
    rep = load_reproduction("seed004_tables1_4")
    assert len(rep.paper) == 4 * 36 * 4  # tables x lines x metrics
    value = {(p["block"], p["dataset"], p["classifier"], p["method"], p["metric"]): p["value"]
             for p in rep.paper}
    # read off the seed's tables by eye
    assert value["cal1e5", "rate_0022", "perfect", "ps", "RMSE"] == "4.51"
    assert value["cal1e6", "rate_1109", "noisy", "ps_logit_gam", "RMSE"] == "205.14"
    assert value["cal1e5", "rate_0208", "toward_half", "analytical", "NLS"] == "97148"
    assert value["cal1e6", "rate_0022", "toward_extremes", "isotonic", "BS"] == "2.065"
    assert all(p["source"].startswith("004_bfebc07763fe5d27.txt §3.2.") for p in rep.paper)


def test_unknown_reproduction_lists_the_known():
    with pytest.raises(ValueError, match="unknown reproduction 'seed999'.*seed004_tables1_4"):
        load_reproduction("seed999")


def test_no_reproductions_folder(tmp_path):
    with pytest.raises(ValueError, match="no reproductions folder"):
        list_reproductions(tmp_path / "missing")


@pytest.mark.parametrize(("edit", "match"), [
    (lambda d: (d / "paper.csv").write_text("block,method\nx,y\n"), "paper.csv: <header>"),
    (lambda d: (d / "reproduction.toml").write_text(
        (d / "reproduction.toml").read_text().replace('cube = "brier"', 'cube = "bs"')),
     "unknown metric 'bs'"),
    (lambda d: (d / "quick.toml").unlink(), "runs.quick.cal1e5: no spec file"),
    (lambda d: (d / "reproduction.toml").write_text(
        (d / "reproduction.toml").read_text().replace("cal1e5 = \"quick", "cal2 = \"quick")),
     "runs.quick.cal2: no line of paper.csv"),
    (lambda d: (d / "reproduction.toml").write_text(
        (d / "reproduction.toml").read_text().replace('row = ["block", ', "row = [")),
     "must name the 'block' column"),
    (lambda d: (d / "reproduction.toml").write_text(
        (d / "reproduction.toml").read_text().replace('kind = "relative"', 'kind = "guess"', 1)),
     "metrics.RMSE.uncertainty.kind: 'guess' is not one of"),
    (lambda d: (d / "reproduction.toml").write_text(
        (d / "reproduction.toml").read_text().replace("fraction = 0.1\n", "", 1)),
     "metrics.RMSE.uncertainty.fraction: missing"),
    (lambda d: (d / "paper.csv").write_text(
        (d / "paper.csv").read_text().replace(",4.51,", ",n/a,", 1)), "is not a number"),
])
def test_broken_folder_names_file_and_key(tmp_path, edit, match):
    folder = tmp_path / "seed004_tables1_4"
    shutil.copytree(DEFAULT_ROOT / "seed004_tables1_4", folder)
    edit(folder)
    with pytest.raises(ValueError, match=match):
        load_reproduction("seed004_tables1_4", root=tmp_path)

"""Reproductions whose blocks are Python functions (tables that are not study cubes)."""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

from bayescal.cli import main
from bayescal.reproduce import load_reproduction

MODULE = '''
import pandas as pd

def table(out, n_jobs=None):
    (out / "curve.png").write_bytes(b"png")
    return pd.DataFrame({
        "dataset": ["iris"] * 4,
        "method": ["a", "b", "a", "b"],
        "metric": ["slope", "slope", "sigma", "sigma"],
        "ours": [0.9, 1.3, 0.02, 0.05],
    })

def broken(out, n_jobs=None):
    return pd.DataFrame({"method": ["a"], "metric": ["slope"], "ours": [1.0]})
'''

META = '''
[reproduction]
title = "toy"
paper = "Doe (2020), A toy"
source = "000_x.txt"
tables = "Table 2"
row = ["block", "dataset"]

[runs.quick]
mcar = "python:toyrep_{tag}:{fn}"

[runs.full]
mcar = "python:toyrep_{tag}:{fn}"

[metrics.slope]
target = 1.0
[metrics.slope.uncertainty]
kind = "absolute"
se = 0.05
reason = "stated"

[metrics.sigma]
direction = "lower"
scale = 100
[metrics.sigma.uncertainty]
kind = "absolute"
se = 0.5
reason = "stated"
'''

PAPER = """block,dataset,method,metric,value,source
mcar,iris,a,slope,0.95,000_x.txt Table 2
mcar,iris,b,slope,1.10,000_x.txt Table 2
mcar,iris,a,sigma,1.5,000_x.txt Table 2
mcar,iris,b,sigma,6.0,000_x.txt Table 2
"""


def _make(tmp_path, monkeypatch, fn="table", meta=META):
    tag = f"{abs(hash((str(tmp_path), fn))) % 10**8}"
    (tmp_path / f"toyrep_{tag}.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    folder = tmp_path / "reps" / "toy"
    folder.mkdir(parents=True)
    (folder / "reproduction.toml").write_text(meta.format(tag=tag, fn=fn))
    (folder / "paper.csv").write_text(PAPER)
    return folder.parent


def test_function_block_runs_and_is_compared(tmp_path, monkeypatch):
    root = _make(tmp_path, monkeypatch)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["reproduce", "toy", "--root", str(root),
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    record = json.loads((out / "agreement.json").read_text())
    checks = {c["name"]: c for c in record["all_checks"]}
    # slope: tolerance 2 sqrt(2) 0.05 = 0.141: a 0.9 (paper 0.95) agrees, b 1.3 (1.10) not;
    # the paper's |1 - value| 0.05 and 0.10 are not separated beyond 2 sqrt(2) 0.05: no order
    assert checks["mcar, slope: values"]["measured"].startswith("1 of 2")
    assert "mcar, slope: order" not in checks
    # sigma is scaled by 100 first: ours 2 and 5 against 1.5 and 6 (tolerance 1.41): both
    # agree, and the order (1.5 < 6, separated by more than 2 sqrt(2) 0.5) is kept
    assert checks["mcar, sigma: values"]["holds"] and checks["mcar, sigma: order"]["holds"]
    assert record["verdict"] == "partly reproduced (2 of 3 checks)"
    assert record["failing_checks"] == ["mcar, slope: values"]
    assert record["figures"] == ["block_mcar/curve.png"]
    assert "Verdict: partly reproduced (2 of 3 checks)" in result.output
    assert "<< differs" in result.output


def test_function_block_missing_column_is_named(tmp_path, monkeypatch):
    root = _make(tmp_path, monkeypatch, fn="broken")
    with pytest.raises(ValueError, match=r"lacks the column\(s\) \['dataset'\]"):
        from bayescal.reproduce.runner import run_reproduction

        run_reproduction(load_reproduction("toy", root=root), tmp_path / "out",
                         echo=lambda *a: None)


@pytest.mark.parametrize(("fn", "meta_edit", "match"), [
    ("nothere", None, "has no function 'nothere'"),
    ("table", ("target = 1.0", 'direction = "up"'), "metrics.slope.direction"),
    ("table", ("target = 1.0", ""), "name a `cube` metric, or a `direction` or `target`"),
    ("table", ('se = 0.05\n', ""), "metrics.slope.uncertainty.se: missing"),
])
def test_bad_function_blocks_name_the_key(tmp_path, monkeypatch, fn, meta_edit, match):
    meta = META if meta_edit is None else META.replace(*meta_edit)
    root = _make(tmp_path, monkeypatch, fn=fn, meta=meta)
    with pytest.raises(ValueError, match=match):
        load_reproduction("toy", root=root)


def test_unimportable_module_is_named(tmp_path, monkeypatch):
    root = _make(tmp_path, monkeypatch)
    meta = (root / "toy" / "reproduction.toml").read_text()
    (root / "toy" / "reproduction.toml").write_text(meta.replace("python:toyrep_", "python:nope_"))
    with pytest.raises(ValueError, match=r"runs\.quick\.mcar: .*cannot import 'nope_"):
        load_reproduction("toy", root=root)

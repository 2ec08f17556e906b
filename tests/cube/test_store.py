"""Tests of bayescal.cube.store: verified reads, quarantine, consolidation that never dies."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest
import xarray as xr

from bayescal.cube import CellStore, DamagedCellError, consolidate, open_results
from bayescal.cube.store import STORE_FORMAT

from .conftest import LAYOUT


def _damage(path, how):
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "flipped":  # one byte inside the first array's data: CRC-32 mismatch
        raw = bytearray(data)
        raw[120] ^= 0xFF
        path.write_bytes(bytes(raw))
    elif how == "foreign":  # a valid npz that is not a cell
        np.savez(path, something=np.arange(3))


@pytest.mark.parametrize("how", ["truncated", "empty", "flipped", "foreign"])
def test_a_damaged_cell_is_detected_quarantined_and_skipped(store, how):
    key = (0, 0, 1, 0, 1)
    path = store.cell_path(LAYOUT, key)
    intact = consolidate(store)
    _damage(path, how)
    with pytest.raises(DamagedCellError, match="r0_f1.npz"):
        store.read_cell(LAYOUT, key)
    assert key not in store.done_cells(LAYOUT)
    # consolidation skips it and names it
    tree = consolidate(store)
    assert not bool(tree["metrics"]["done"].sel(classifier="nb", scenario="cal", fold=1))
    assert "toy/nb/cal/r0/f1" in json.loads(tree.attrs["damaged"])
    assert tree.attrs["cells_done"] == intact.attrs["cells_done"] - 1
    moved = store.verify_cells(LAYOUT)
    assert len(moved) == 1 and not path.exists()
    target, why = moved[0]
    assert target.is_file() and "quarantine" in target.parts and "r0_f1" in target.name
    assert store.verify_cells(LAYOUT) == []


def test_every_array_is_read_in_full(store):
    # the zip container's CRC-32 is checked because every member is read
    key = (0, 1, 0, 0, 0)
    with zipfile.ZipFile(store.cell_path(LAYOUT, key)) as z:
        assert {"proba.npy", "interval.npy", "converged.npy"} <= set(z.namelist())
    cell = store.read_cell(LAYOUT, key)
    assert cell.interval.shape == (*cell.proba.shape, 2) and cell.converged


def test_failed_cells_keep_their_traceback(tmp_path):
    from .conftest import cell, fill

    s = CellStore(tmp_path / "s")
    fill(s)
    key = (0, 0, 0, 0, 0)
    s.write_cell(LAYOUT, cell(key, np.arange(10), 0, error="RuntimeError: boom"))
    text = s.traceback_path(LAYOUT, key).read_text()
    assert text.startswith("Traceback") and s.traceback_path(LAYOUT, key).parts[-5] == "tracebacks"


def test_probe_is_not_scored_against_itself_and_unconverged_is_recorded(tmp_path):
    from .conftest import cell, fill

    s = CellStore(tmp_path / "s")
    fill(s)
    s.write_cell(LAYOUT, cell((0, 1, 0, 0, 1), np.flatnonzero(np.arange(20) % 2 == 1), 9,
                              converged=False))
    tree = consolidate(s)
    m = tree["metrics"].to_dataset()
    assert np.isnan(m["probe_rmse"].sel(classifier="probe", scenario="raw")).all()
    assert np.isfinite(m["probe_rmse"].sel(classifier="nb")).all()
    assert m["converged"].dtype == bool
    assert not bool(m["converged"].sel(classifier="probe", scenario="raw", fold=1))
    assert int((~m["converged"]).sum()) == 1  # true where there is no posterior
    assert json.loads(tree.attrs["unconverged"]) == {"toy/probe/raw/r0/f1": "R-hat"}


def test_the_sampler_of_each_bayesian_cell_is_kept_and_consolidated(tmp_path):
    from dataclasses import replace

    from bayescal.report.diagnostics import diagnostics_table, with_samplers

    from .conftest import cell, fill

    s = CellStore(tmp_path / "s")
    fill(s)
    for fold, sampler in ((0, "nutpie"), (1, "pymc")):  # a fallback on one fold
        key = (0, 1, 0, 0, fold)
        base = cell(key, np.flatnonzero(np.arange(20) % 2 == fold), 5 + fold, converged=False)
        s.write_cell(LAYOUT, replace(base, sampler=sampler))
    assert s.read_cell(LAYOUT, (0, 1, 0, 0, 1)).sampler == "pymc"
    assert s.read_cell(LAYOUT, (0, 0, 0, 0, 0)).sampler == ""  # no posterior: no array
    with zipfile.ZipFile(s.cell_path(LAYOUT, (0, 0, 0, 0, 0))) as z:
        assert "sampler.npy" not in z.namelist()  # so cells written before read the same
    tree = consolidate(s)
    assert json.loads(tree.attrs["samplers"]) == {"toy/probe/raw": "nutpie+pymc"}
    table = with_samplers(diagnostics_table(tree), tree)
    assert list(table["sampler"]) == ["nutpie+pymc"] * 2
    assert list(table.columns).index("sampler") == list(table.columns).index("fold") + 1
    del tree.attrs["samplers"]  # a cube consolidated before the record existed
    assert "sampler" not in with_samplers(diagnostics_table(tree), tree)


def test_open_results_round_trips_the_written_cube(store):
    tree = consolidate(store, finished="t1")
    store.write_cube(tree)
    back = open_results(store.root)
    xr.testing.assert_identical(tree["metrics"].to_dataset(), back["metrics"].to_dataset())
    assert back.attrs["finished"] == "t1" and not list(store.root.glob("*.tmp"))


def test_an_old_store_format_is_refused(store):
    meta = json.loads(store.meta_path.read_text())
    del meta["sha256"]  # a record written before study records carried a checksum
    meta["layout"]["format"] = 1
    store.meta_path.write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=f"format 1 and this bayescal reads format {STORE_FORMAT}"):
        store.layout()

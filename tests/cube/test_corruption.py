"""Corruption of a store: every single-bit flip is detected or harmless, and resume heals.

A real (tiny) study is run once; then every bit of one cell file, of one data
file and of a sample of the cube's zarr files is flipped in turn. A flip must
either be detected (a :class:`DamagedCellError` for a cell or data file, a
:class:`CorruptCubeError` naming the right array for the cube) or leave what
is read back identical: 0 silent changes and 0 other exceptions. Detected
cells are quarantined, and a resume recomputes them into the same cube.
"""

from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from click.testing import CliRunner

from bayescal.cube import CellStore, CorruptCubeError, DamagedCellError, open_results
from bayescal.cube.manifest import verify_manifest

SPEC = """
[study]
name = "flip"
seed = 3

[protocol]
kind = "kfold"
n_splits = 3

[datasets.blobs]
generator = "sklearn.datasets.make_classification"
params = { n_samples = 60, n_features = 3, n_informative = 2, n_redundant = 0 }

[classifiers.nb]
class = "sklearn.naive_bayes.GaussianNB"

[scenarios.raw]
kind = "raw"

[scenarios.platt]
kind = "full"
calibrator = "bayescal.calibration.PlattCalibrator"

[metrics]
names = ["brier", "log_loss"]
"""

#: Variables that differ between runs of the same spec (wall-clock timings).
_TIMED = ("fit_seconds", "predict_seconds", "cell_seconds", "cell_cpu_seconds")


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(spec path, store) of a finished tiny study (6 cells); never modified."""
    from bayescal.study import run

    root = tmp_path_factory.mktemp("flip")
    spec = root / "flip.toml"
    spec.write_text(SPEC)
    run(spec, root / "store", n_jobs=1, progress=False)
    return spec, root / "store"


@pytest.fixture
def copy(study: tuple[Path, Path], tmp_path: Path) -> CellStore:
    """A copy of the study's store that a test may damage."""
    shutil.copytree(study[1], tmp_path / "store")
    return CellStore(tmp_path / "store")


def _flip(data: bytes, bit: int) -> bytes:
    out = bytearray(data)
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


def _same(a: object, b: object) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f")))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (np.isnan(a) and np.isnan(b))
    return type(a) is type(b) and a == b


def _bits(size: int, stride: int) -> list[int]:
    """Every bit of every ``stride``-th byte (and of the last 22: the zip's end record)."""
    nbytes = sorted(set(range(0, size, stride)) | set(range(max(size - 22, 0), size)))
    return [8 * b + i for b in nbytes for i in range(8)]


#: Byte strides of the sweeps: every bit of every 11th byte in the quick run,
#: every bit of the file in the slow one (about 28 000 flips of a cell file).
STRIDES = [11, pytest.param(1, marks=pytest.mark.slow)]


def _sweep(path: Path, read, same, stride: int) -> tuple[list[int], list[int], list[str]]:
    """Flip each bit of ``path`` in turn: (detected bits, silent bits, crashes)."""
    original = path.read_bytes()
    reference = read()
    detected, silent, crashes = [], [], []
    try:
        for bit in _bits(len(original), stride):
            path.write_bytes(_flip(original, bit))
            try:
                back = read()
            except DamagedCellError:
                detected.append(bit)
                continue
            except Exception as exc:  # noqa: BLE001  (what the test is looking for)
                crashes.append(f"bit {bit}: {type(exc).__name__}: {exc}")
                continue
            if not same(reference, back):
                silent.append(bit)
    finally:
        path.write_bytes(original)
    return detected, silent, crashes


def _first_detected_flip(path: Path, bit: int, read) -> None:
    """Leave ``path`` with the first flip at or after ``bit`` that ``read`` detects."""
    original = path.read_bytes()
    while True:
        path.write_bytes(_flip(original, bit))
        try:
            read()
        except DamagedCellError:
            return
        bit += 1


def _cell_fields(cell) -> dict:
    return {k: getattr(cell, k) for k in ("key", "test_index", "proba", "interval", "values",
                                          "error", "converged", "diagnostic_failures",
                                          "posterior")}


@pytest.mark.parametrize("stride", STRIDES)
def test_every_bit_flip_of_a_cell_file_is_detected_or_harmless(copy, stride):
    layout = copy.layout()
    key = sorted(copy.present_cells(layout))[-1]  # a Platt cell: values, proba
    path = copy.cell_path(layout, key)
    detected, silent, crashes = _sweep(
        path, lambda: _cell_fields(copy.read_cell(layout, key)), _same, stride)
    assert crashes == [] and silent == []
    # most flips matter (the rest hit bytes nobody reads: zip time stamps, padding)
    assert len(detected) > 0.7 * len(_bits(path.stat().st_size, stride))
    # a detected flip is quarantined (so the cell is computed again); a sample of them
    original = path.read_bytes()
    for bit in detected[:: max(len(detected) // 20, 1)]:
        path.write_bytes(_flip(original, bit))
        moved = copy.verify_cells(layout)
        assert [p.parent.name for p, _ in moved] == [path.parent.name] and not path.exists()
        assert key not in copy.done_cells(layout)
        shutil.move(moved[0][0], path)
        path.write_bytes(original)


@pytest.mark.parametrize("stride", STRIDES)
def test_every_bit_flip_of_a_data_file_is_detected_or_harmless(copy, stride):
    path = copy.data_path("blobs")
    detected, silent, crashes = _sweep(path, lambda: copy.read_data("blobs"), _same, stride)
    assert crashes == [] and silent == [] and detected


def _zarr_sample(cube: Path) -> list[tuple[Path, str]]:
    """Chunks and metadata of the cube to flip: (file, the array it belongs to)."""
    def chunk(array: str) -> Path:
        return next(p for p in sorted((cube / array / "c").rglob("*")) if p.is_file())

    return [(chunk("metrics/brier"), "metrics/brier"), (chunk("metrics/done"), "metrics/done"),
            (chunk("predictions/blobs/proba"), "predictions/blobs/proba"),
            (cube / "metrics" / "brier" / "zarr.json", "metrics/brier")]


def test_every_bit_flip_of_a_zarr_chunk_is_refused_naming_the_array(copy):
    n = 0
    for path, array in _zarr_sample(copy.cube_path):
        original = path.read_bytes()
        # every bit of a small chunk; of the metadata, one bit in 31
        bits = range(0, 8 * len(original), 1 if len(original) < 150 else 31)
        for bit in bits:
            path.write_bytes(_flip(original, bit))
            with pytest.raises(CorruptCubeError) as info:
                verify_manifest(copy.cube_path)
            assert info.value.array == array
            n += 1
        path.write_bytes(original)
    assert n > 500
    verify_manifest(copy.cube_path)  # restored: intact again


def test_show_and_report_refuse_a_corrupted_cube_in_one_line(copy, tmp_path):
    from bayescal.cli import main

    brier = _zarr_sample(copy.cube_path)[0][0]
    brier.write_bytes(_flip(brier.read_bytes(), 77))
    for args in (["show", str(copy.root)],
                 ["report", str(copy.root), "--out", str(tmp_path / "r"), "-q"]):
        out = CliRunner().invoke(main, args)
        assert out.exit_code == 1, out.output
        assert out.output.count("\n") == 1 and "'metrics/brier'" in out.output
        assert "--resume" in out.output and "Traceback" not in out.output
    assert not (tmp_path / "r" / "report.html").exists()


def test_a_deleted_done_chunk_is_refused_not_read_as_nothing_done(copy):
    from bayescal.cli import main

    _zarr_sample(copy.cube_path)[1][0].unlink()
    with pytest.raises(CorruptCubeError, match="is missing") as info:
        open_results(copy.root)
    assert info.value.array == "metrics/done"
    out = CliRunner().invoke(main, ["show", str(copy.root)])
    assert out.exit_code == 1 and "'metrics/done'" in out.output and "0 done" not in out.output


def test_resume_heals_every_damage_to_the_same_cube(study, copy):
    from bayescal.study import run

    spec, _ = study
    before = open_results(study[1])
    layout = copy.layout()
    keys = sorted(copy.present_cells(layout))
    # each cell damaged differently: the first detected flip after the zip
    # header's start, the .npy header, the data, the central directory; truncation; zeros
    for i, key in enumerate(keys):
        path = copy.cell_path(layout, key)
        data = path.read_bytes()
        start = [20, 100, 400, len(data) - 60][i] if i < 4 else None
        if start is not None:
            _first_detected_flip(path, 8 * start, lambda k=key: copy.read_cell(layout, k))
        else:
            path.write_bytes([data[: len(data) // 2], b""][i - 4])
        with pytest.raises(DamagedCellError):
            copy.read_cell(layout, key)
    data_file = copy.data_path("blobs")
    _first_detected_flip(data_file, 8 * 300, lambda: copy.read_data("blobs"))
    sample = _zarr_sample(copy.cube_path)
    sample[0][0].write_bytes(_flip(sample[0][0].read_bytes(), 9))  # a Brier chunk flipped
    sample[1][0].unlink()  # and a done chunk deleted
    with pytest.raises(CorruptCubeError):
        open_results(copy.root)
    lines: list[str] = []
    tree = run(spec, copy.root, resume=True, n_jobs=1, progress=False, log=lines.append)
    assert len(lines) == len(keys) + 1 and all("quarantined" in line for line in lines)
    assert len([p for p in copy.quarantine_path.rglob("*") if p.is_file()]) == len(keys) + 1
    verify_manifest(copy.cube_path)
    after = open_results(copy.root)
    assert int(after["metrics"]["done"].sum()) == len(keys) == int(tree.attrs["cells_done"])
    strip = [v for v in _TIMED if v in before["metrics"].data_vars]
    xr.testing.assert_identical(before["metrics"].to_dataset().drop_vars(strip),
                                after["metrics"].to_dataset().drop_vars(strip))
    xr.testing.assert_identical(before["predictions/blobs"].to_dataset(),
                                after["predictions/blobs"].to_dataset())


def test_a_read_only_store_is_shown_and_opened(copy, monkeypatch):
    """A read-only file system refuses to open the lock file for writing (EROFS)."""
    from bayescal.cli import main
    from bayescal.cube.lock import StoreLock

    def read_only(self):
        raise OSError(errno.EROFS, "Read-only file system", str(self.path))

    monkeypatch.setattr(StoreLock, "acquire", read_only)
    tree = open_results(copy.root)
    assert int(tree["metrics"]["done"].sum()) == 6
    out = CliRunner().invoke(main, ["show", str(copy.root)])
    assert out.exit_code == 0 and "6 done" in out.output and "Traceback" not in out.output
    # another error of the lock file is not mistaken for a read-only store
    monkeypatch.setattr(StoreLock, "acquire",
                        lambda self: (_ for _ in ()).throw(OSError(errno.EIO, "I/O error")))
    with pytest.raises(OSError, match="I/O error"):
        open_results(copy.root)


def test_every_bit_flip_of_the_study_record_is_detected_or_harmless(copy):
    """``study.json`` holds what the cube is consolidated from (ROPE, seed, names): a flip
    of a digit there ('0.01' -> '0.11' is one bit) would change a re-consolidated cube."""
    from bayescal.cube import DamagedStudyRecordError

    path = copy.meta_path
    reference = copy.read_meta()
    original = path.read_bytes()
    detected, silent, crashes = 0, [], []
    try:
        for bit in range(0, 8 * len(original), 3):
            path.write_bytes(_flip(original, bit))
            try:
                back = copy.read_meta()
            except DamagedStudyRecordError:
                detected += 1
                continue
            except Exception as exc:  # noqa: BLE001  (what the test is looking for)
                crashes.append(f"bit {bit}: {type(exc).__name__}: {exc}")
                continue
            if back != reference:
                silent.append(bit)
    finally:
        path.write_bytes(original)
    assert crashes == [] and silent == []
    assert detected > 0.9 * len(range(0, 8 * len(original), 3))


def test_a_damaged_study_record_refuses_resume_in_one_line_and_the_cube_still_shows(
        study, copy):
    from bayescal.cli import main
    from bayescal.cube import DamagedStudyRecordError
    from bayescal.study import run

    text = copy.meta_path.read_text()
    assert '"rope": 0.01' in text
    copy.meta_path.write_text(text.replace('"rope": 0.01', '"rope": 0.11'))  # one bit
    with pytest.raises(DamagedStudyRecordError, match="fails its SHA-256 checksum"):
        run(study[0], copy.root, resume=True, n_jobs=1, progress=False)
    out = CliRunner().invoke(main, ["run", str(study[0]), "--store", str(copy.root),
                                    "--resume", "-q"])
    assert out.exit_code != 0 and "Traceback" not in out.output
    assert "study.json is damaged" in out.output and "new store" in out.output
    shown = CliRunner().invoke(main, ["show", str(copy.root)])
    assert shown.exit_code == 0, shown.output
    # a record written before the checksum (no sha256 key, only known keys) is read as
    # it is; one with its checksum key's name damaged is not
    record = json.loads(text)
    del record["sha256"]
    copy.meta_path.write_text(json.dumps(record))
    assert copy.read_meta() == {k: v for k, v in json.loads(text).items() if k != "sha256"}
    copy.meta_path.write_text(text.replace('"sha256"', '"sha2v6"'))
    with pytest.raises(DamagedStudyRecordError, match="unknown keys"):
        copy.read_meta()

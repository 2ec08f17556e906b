"""The result store: one small file per finished cell, written atomically.

Layout of a store directory::

    <store>/study.json                 what the study is (spec text, hash, layout)
    <store>/data/<dataset>.npz         labels, true probabilities, fold of each row
    <store>/cells/<dataset>/<classifier>/<scenario>/r<repeat>_f<fold>.npz
    <store>/results.zarr               the consolidated cube (xarray.DataTree)
    <store>/tracebacks/<dataset>/<classifier>/<scenario>/r<repeat>_f<fold>.txt
                                       full traceback of a failed cell
    <store>/quarantine/...             damaged cell files moved aside on resume
    <store>/writer.lock, cube.lock     see :mod:`bayescal.cube.lock`

Why one file per cell rather than zarr region writes
----------------------------------------------------
A zarr region write replaces whole chunks. Unless every chunk held exactly one
cell, a process killed in the middle of writing a chunk can leave that chunk
truncated — damaging cells written long before — and two workers finishing
cells of the same chunk race each other. Instead every finished cell is
written to a temporary file in its final directory, flushed and fsync-ed, and
then moved into place with :func:`os.replace`, which is atomic on POSIX and
Windows: a cell file is either absent or complete, whatever moment the run is
killed at, and no write ever touches another cell's file. Leftover temporary
files of a killed run are removed on resume. The cube is consolidated from the
cell files at the end (cheap: cells are small) and written the same way, to a
temporary directory renamed into place. Files are NumPy ``.npz`` read with
``allow_pickle=False``: nothing in a store is ever unpickled.

A store that heals
------------------
Every cell and data file carries a SHA-256 of its content (each array's name,
dtype, shape and bytes; the array ``sha256``), verified when it is read, after
the zip container's own CRC-32 of each member; the arrays must also be
consistent (names, shapes, one value per name). *Any* failure to read a cell
file — whatever the exception a damaged zip or ``.npy`` header raises deep in
NumPy or :mod:`zipfile` — is a :class:`DamagedCellError`.
:meth:`CellStore.verify_cells` moves a damaged file (truncated, zero bytes,
corrupted, written by something else) to ``quarantine/`` under its own
relative path with a time stamp, so that the runner computes the cell again;
consolidation skips a damaged file rather than failing on it. The cube
carries a manifest of hashes (:mod:`bayescal.cube.manifest`) and is refused by
readers when it fails it. The study record (``study.json``: the layout the cube
is consolidated from, its ROPE, seed, names and spec) carries a SHA-256 of its
content too; a record that fails it (or does not parse) is a
:class:`DamagedStudyRecordError`, which refuses resuming and re-consolidating
(nothing can tell which spec the cells belong to) while the consolidated cube,
checked by its own manifest, can still be shown and reported. Records written
before the checksum (no ``sha256`` key, only the record's known keys) are read
as they are.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["CellResult", "CellStore", "DamagedCellError", "DamagedStudyRecordError",
           "StoreLayout", "StoredCell"]

#: 3: cell and data files carry a SHA-256 of their content; the cube a manifest.
STORE_FORMAT = 3
_CHECKSUM = "sha256"


@dataclass(frozen=True)
class StoreLayout:
    """Names, dimensions and settings of a study's cube (JSON-serialisable).

    This is the parsed spec as readers need it: it is stored in
    ``study.json`` and, as JSON, in the cube's root attribute ``layout``, so
    tables and reports never parse the spec text again (see
    :func:`bayescal.cube.cube_layout`).

    Attributes
    ----------
    name, seed, spec_text, spec_hash, description
        The study.
    datasets, classifiers, scenarios, scenario_kinds
        Coordinates (scenario kinds: ``raw``, ``cv``, ...).
    applicable : tuple of tuple of bool
        ``[classifier][scenario]``: whether the scenario runs for it.
    repeats, folds, has_repeat_dim
        The protocol's shape.
    metric_names : tuple of str
        The spec's metrics, in its order.
    probe, probe_scenario : int or None
        Indices of the reference probe and of its raw scenario.
    tests, baseline, test_metrics, test_train_ratio, rope
        Significance tests (per-fold and across datasets), their baseline
        scenario, the metrics tested, ``n_test / n_train`` of the protocol (for
        the corrected resampled t-test) and the region of practical
        equivalence of the Bayesian comparisons.
    keep_posteriors : int
        Draws per chain kept for each Bayesian cell (0: none).
    """

    name: str
    seed: int
    spec_text: str
    spec_hash: str
    datasets: tuple[str, ...]
    classifiers: tuple[str, ...]
    scenarios: tuple[str, ...]
    scenario_kinds: tuple[str, ...]
    applicable: tuple[tuple[bool, ...], ...]
    repeats: int
    folds: int
    has_repeat_dim: bool
    metric_names: tuple[str, ...]
    probe: int | None
    probe_scenario: int | None
    description: str = ""
    tests: tuple[str, ...] = ()
    baseline: str | None = None
    test_metrics: tuple[str, ...] = ()
    test_train_ratio: float | None = None
    rope: float = 0.01
    keep_posteriors: int = 0
    format: int = STORE_FORMAT

    @classmethod
    def from_spec(cls, spec: Any) -> StoreLayout:
        """The layout of ``spec`` (a :class:`bayescal.study.spec.Spec`)."""
        cnames = [c.name for c in spec.classifiers]
        probe = probe_scenario = None
        if spec.metrics.probe is not None:
            probe = cnames.index(spec.metrics.probe)
            probe_scenario = next(i for i, s in enumerate(spec.scenarios)
                                  if s.kind == "raw" and s.applies_to(spec.metrics.probe))
        return cls(
            name=spec.name, seed=spec.seed, spec_text=spec.text, spec_hash=spec.hash,
            datasets=tuple(d.name for d in spec.datasets), classifiers=tuple(cnames),
            scenarios=tuple(s.name for s in spec.scenarios),
            scenario_kinds=tuple(s.kind for s in spec.scenarios),
            applicable=tuple(tuple(s.applies_to(c) for s in spec.scenarios) for c in cnames),
            repeats=spec.protocol.repeats, folds=spec.protocol.folds,
            has_repeat_dim=spec.protocol.has_repeat_dim,
            metric_names=tuple(spec.metrics.names), probe=probe, probe_scenario=probe_scenario,
            description=spec.description, tests=tuple(spec.tests.names),
            baseline=spec.tests.baseline, test_metrics=tuple(spec.tests.metrics),
            test_train_ratio=spec.protocol.test_train_ratio, rope=spec.tests.rope,
            keep_posteriors=spec.metrics.keep_posteriors,
        )

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> StoreLayout:
        """Inverse of ``asdict`` after a JSON round trip.

        Raises
        ------
        ValueError
            If the record is not a layout of this store format.
        """
        if raw.get("format") != STORE_FORMAT:
            raise ValueError(f"the store was written in format {raw.get('format')!r} and this "
                             f"bayescal reads format {STORE_FORMAT}; run the study again "
                             "into a new store")
        known = {f.name for f in fields(cls)}
        tuples = {k: tuple(v) for k, v in raw.items() if isinstance(v, list)}
        tuples["applicable"] = tuple(tuple(row) for row in raw["applicable"])
        return cls(**{k: v for k, v in {**raw, **tuples}.items() if k in known})

    def to_json(self) -> str:
        """The layout as JSON text (inverse of ``from_json(json.loads(...))``)."""
        return json.dumps(asdict(self), sort_keys=True)

    def cells(self) -> Iterator[tuple[int, int, int, int, int]]:
        """Every applicable cell key (dataset, classifier, scenario, repeat, fold)."""
        for d in range(len(self.datasets)):
            for c in range(len(self.classifiers)):
                for s in range(len(self.scenarios)):
                    if not self.applicable[c][s]:
                        continue
                    for r in range(self.repeats):
                        for f in range(self.folds):
                            yield (d, c, s, r, f)

    def label(self, key: tuple[int, int, int, int, int]) -> str:
        """``dataset/classifier/scenario/r<repeat>/f<fold>`` of a cell key."""
        d, c, s, r, f = key
        return "/".join((self.datasets[d], self.classifiers[c], self.scenarios[s],
                         f"r{r}", f"f{f}"))


@dataclass
class CellResult:
    """The outcome of one cell, as a worker returns it and the store keeps it.

    Attributes
    ----------
    key : tuple of int
        (dataset, classifier, scenario, repeat, fold) indices in the spec.
    test_index : ndarray of int
        Rows of the dataset predicted in this cell.
    proba : ndarray (n_test, K)
        Predicted probabilities (NaN if the cell failed).
    interval : ndarray (n_test, K, 2) or None
        Credible interval of each probability where the model has one.
    values : dict of str to float
        Metrics, timings and posterior diagnostics.
    error : str
        Empty, or the one-line error that made the cell fail.
    traceback : str
        The full traceback of a failed cell (written to ``tracebacks/``).
    converged : bool
        False when the cell's posterior failed its diagnostics.
    diagnostic_failures : str
        The failed diagnostics (``"; "``-joined), empty when converged.
    posterior : dict of str to ndarray, optional
        Posterior draws kept for the cube (``name -> (chain, draw, ...)``).
    sampler : str
        The inference that produced the cell's posterior as its
        ``diagnostics_`` names it (``"nutpie"``, ``"laplace"``, ``"ep"``, ...;
        an ``"auto"`` setting resolved), empty for a model without one.
    """

    key: tuple[int, int, int, int, int]
    test_index: np.ndarray
    proba: np.ndarray
    interval: np.ndarray | None = None
    values: dict[str, float] = field(default_factory=dict)
    error: str = ""
    traceback: str = ""
    converged: bool = True
    diagnostic_failures: str = ""
    posterior: dict[str, np.ndarray] | None = None
    sampler: str = ""


@dataclass
class StoredCell:
    """A cell read back from the store (verified)."""

    key: tuple[int, int, int, int, int]
    test_index: np.ndarray
    proba: np.ndarray
    interval: np.ndarray | None
    values: dict[str, float]
    error: str
    converged: bool = True
    diagnostic_failures: str = ""
    posterior: dict[str, np.ndarray] | None = None
    sampler: str = ""


class DamagedCellError(ValueError):
    """A cell file cannot be read back intact (truncated, corrupted, foreign)."""


class DamagedStudyRecordError(ValueError):
    """A store's ``study.json`` fails its checksum or does not parse."""


#: The keys of a study record (``study.json``) besides its checksum.
_META_KEYS = frozenset({"finished", "layout", "results_revision", "started", "versions"})


def _meta_digest(record: dict[str, Any]) -> str:
    """SHA-256 of a study record's canonical JSON (the checksum key excluded)."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


_POSTERIOR_PREFIX = "posterior/"


def _atomic_write(path: Path, write: Any) -> None:
    """Write through ``write(fileobj)`` to a temporary file, then rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _stamp() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")


class CellStore:
    """Reads and writes a store directory (see the module docstring).

    Parameters
    ----------
    root : str or Path
        The store directory.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    # -- study ---------------------------------------------------------------
    @property
    def meta_path(self) -> Path:
        return self.root / "study.json"

    @property
    def cube_path(self) -> Path:
        return self.root / "results.zarr"

    @property
    def writer_lock_path(self) -> Path:
        return self.root / "writer.lock"

    @property
    def cube_lock_path(self) -> Path:
        return self.root / "cube.lock"

    @property
    def quarantine_path(self) -> Path:
        return self.root / "quarantine"

    def exists(self) -> bool:
        """Whether a study was started in this store."""
        return self.meta_path.is_file()

    def read_meta(self) -> dict[str, Any]:
        """The study record (``layout``, ``started``, ``versions``), checksum verified.

        Raises
        ------
        ValueError
            If the store has no readable ``study.json``.
        DamagedStudyRecordError
            If ``study.json`` does not parse as a record or fails its checksum.
        """
        try:
            data = self.meta_path.read_bytes()
        except OSError as exc:
            raise ValueError(f"{self.root} is not a bayescal study store: {exc}") from None
        why = None
        try:
            record = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            record, why = None, f"it does not parse ({type(exc).__name__})"
        if why is None and not (isinstance(record, dict) and isinstance(record.get("layout"), dict)):
            why = "it is not a study record"
        if why is None:
            digest = record.pop(_CHECKSUM, None)
            if digest is None and not set(record) <= _META_KEYS:
                why = f"unknown keys {sorted(set(record) - _META_KEYS)} and no checksum"
            elif digest is not None and digest != _meta_digest(record):
                why = "it fails its SHA-256 checksum"
        if why is not None:
            raise DamagedStudyRecordError(
                f"{self.meta_path} is damaged ({why}): the study's record cannot be trusted, so "
                "the store cannot be resumed or consolidated; its cube, if intact, can still be "
                "shown and reported. Run the study again into a new store."
            )
        return record

    def layout(self) -> StoreLayout:
        """The layout recorded in the store."""
        return StoreLayout.from_json(self.read_meta()["layout"])

    def write_meta(self, meta: dict[str, Any]) -> None:
        """Record the study (atomically)."""
        record = {k: v for k, v in meta.items() if k != _CHECKSUM}
        record[_CHECKSUM] = _meta_digest(record)
        text = json.dumps(record, indent=1, sort_keys=True).encode()
        _atomic_write(self.meta_path, lambda fh: fh.write(text))

    def remove_partial_files(self) -> int:
        """Delete temporary files left by a killed run; return how many."""
        n = 0
        for tmp in sorted(self.root.rglob("*.tmp")):
            if tmp.is_dir():
                shutil.rmtree(tmp, ignore_errors=True)
                n += 1
            elif tmp.is_file():
                tmp.unlink()
                n += 1
        return n

    # -- data ----------------------------------------------------------------
    def data_path(self, dataset: str) -> Path:
        return self.root / "data" / f"{dataset}.npz"

    def write_data(self, dataset: str, *, y: np.ndarray, fold: np.ndarray,
                   p_true: np.ndarray | None, class_names: tuple[str, ...]) -> None:
        """Labels, fold of each row per repeat (-1: not tested) and truth."""
        arrays: dict[str, np.ndarray] = {
            "y": np.asarray(y, dtype=np.int64), "fold": np.asarray(fold, dtype=np.int64),
            "class_names": np.asarray(class_names, dtype=str),
        }
        if p_true is not None:
            arrays["p_true"] = np.asarray(p_true, dtype=float)
        _atomic_write(self.data_path(dataset), lambda fh: _save_npz(fh, arrays))

    def read_data(self, dataset: str) -> dict[str, Any]:
        """The arrays written by :meth:`write_data`.

        Raises
        ------
        DamagedCellError
            If the file cannot be read back intact.
        """
        return _load_npz(self.data_path(dataset))

    # -- cells ---------------------------------------------------------------
    def cell_path(self, layout: StoreLayout, key: tuple[int, int, int, int, int]) -> Path:
        d, c, s, r, f = key
        return (self.root / "cells" / layout.datasets[d] / layout.classifiers[c]
                / layout.scenarios[s] / f"r{r}_f{f}.npz")

    def traceback_path(self, layout: StoreLayout, key: tuple[int, int, int, int, int]) -> Path:
        """Where the full traceback of a failed cell is written."""
        rel = self.cell_path(layout, key).relative_to(self.root / "cells")
        return self.root / "tracebacks" / rel.with_suffix(".txt")

    def write_cell(self, layout: StoreLayout, cell: CellResult) -> None:
        """Write one finished cell atomically (and its traceback if it failed)."""
        names = sorted(cell.values)
        arrays = {
            "test_index": np.asarray(cell.test_index, dtype=np.int64),
            "proba": np.asarray(cell.proba, dtype=float),
            "value_names": np.asarray(names, dtype=str),
            "values": np.asarray([cell.values[n] for n in names], dtype=float),
            "error": np.asarray(cell.error, dtype=str),
            "converged": np.asarray(bool(cell.converged)),
            "diagnostic_failures": np.asarray(cell.diagnostic_failures, dtype=str),
        }
        if cell.interval is not None:
            arrays["interval"] = np.asarray(cell.interval, dtype=float)
        if cell.sampler:  # absent from other cells and from those written before
            arrays["sampler"] = np.asarray(cell.sampler, dtype=str)
        for name, draws in (cell.posterior or {}).items():
            arrays[_POSTERIOR_PREFIX + name] = np.asarray(draws, dtype=float)
        if cell.error and cell.traceback:
            text = cell.traceback.encode()
            _atomic_write(self.traceback_path(layout, cell.key), lambda fh: fh.write(text))
        _atomic_write(self.cell_path(layout, cell.key), lambda fh: _save_npz(fh, arrays))

    def present_cells(self, layout: StoreLayout) -> set[tuple[int, int, int, int, int]]:
        """Keys of the cells whose file exists (not verified)."""
        return {key for key in layout.cells() if self.cell_path(layout, key).is_file()}

    def done_cells(self, layout: StoreLayout) -> set[tuple[int, int, int, int, int]]:
        """Keys of the cells whose file exists and reads back intact."""
        out = set()
        for key in self.present_cells(layout):
            try:
                self.read_cell(layout, key)
            except DamagedCellError:
                continue
            out.add(key)
        return out

    def verify_cells(self, layout: StoreLayout) -> list[tuple[Path, str]]:
        """Move every damaged cell file to ``quarantine/``.

        Returns
        -------
        list of (Path, str)
            The quarantined file's new path and what was wrong, per damaged
            cell (empty when every cell is intact).
        """
        moved = []
        for key in sorted(self.present_cells(layout)):
            try:
                self.read_cell(layout, key)
            except DamagedCellError as exc:
                moved.append((self.quarantine(self.cell_path(layout, key)), str(exc)))
        return moved

    def quarantine(self, path: Path) -> Path:
        """Move a damaged file of the store to ``quarantine/``; return its new path."""
        target = (self.quarantine_path / path.relative_to(self.root)).with_suffix(
            f".{_stamp()}{path.suffix}")
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, target)
        return target

    def read_cell(self, layout: StoreLayout, key: tuple[int, int, int, int, int]) -> StoredCell:
        """One cell's file, verified.

        Raises
        ------
        DamagedCellError
            If the file cannot be read, is corrupted (CRC-32 or SHA-256
            mismatch) or its arrays are inconsistent.
        FileNotFoundError
            If there is no file.
        """
        path = self.cell_path(layout, key)
        z = _load_npz(path)
        try:
            names = z["value_names"].tolist()
            values = dict(zip(names, z["values"].tolist(), strict=True))
            proba, test_index = z["proba"], z["test_index"]
            interval = z.get("interval")
            cell = StoredCell(key, test_index, proba, interval, values, str(z["error"]),
                              bool(z["converged"]), str(z["diagnostic_failures"]),
                              {k[len(_POSTERIOR_PREFIX):]: v for k, v in z.items()
                               if k.startswith(_POSTERIOR_PREFIX)} or None,
                              str(z["sampler"]) if "sampler" in z else "")
        except Exception as exc:  # noqa: BLE001  (any damage is a damaged cell)
            raise DamagedCellError(f"{path}: not a cell file of this store "
                                   f"({type(exc).__name__}: {exc})") from None
        if proba.ndim != 2 or test_index.shape != (proba.shape[0],) or (
                interval is not None and interval.shape != (*proba.shape, 2)):
            raise DamagedCellError(f"{path}: inconsistent arrays (proba {proba.shape}, "
                                   f"test_index {test_index.shape})")
        return cell

    # -- cube ----------------------------------------------------------------
    def write_cube(self, tree: Any) -> None:
        """Write the consolidated DataTree to ``results.zarr``.

        Written to a temporary directory of its own, then swapped in under
        the exclusive ``cube.lock`` (readers hold it shared), so that
        concurrent writers never collide and readers never see a half cube.
        """
        from bayescal.cube.lock import StoreLock
        from bayescal.cube.manifest import write_manifest

        tmp = Path(tempfile.mkdtemp(dir=self.root, prefix="results.", suffix=".zarr.tmp"))
        old = Path(str(tmp)[:-len(".zarr.tmp")] + ".old.tmp")
        try:
            shutil.rmtree(tmp)
            # No consolidated metadata: it is not part of the zarr v3 format yet, and
            # writing it doubled the time of writing a small cube.
            tree.to_zarr(tmp, mode="w-", consolidated=False)
            write_manifest(tmp)  # every byte checksummed; readers verify it
            with StoreLock(self.cube_lock_path, wait=True):
                if self.cube_path.exists():
                    os.replace(self.cube_path, old)
                os.replace(tmp, self.cube_path)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.rmtree(old, ignore_errors=True)

    def remove_cube(self) -> None:
        """Remove ``results.zarr`` (a resumed run's cells outdate it); readers then
        consolidate the cells present."""
        from bayescal.cube.lock import StoreLock

        if not self.cube_path.exists():
            return
        old = Path(tempfile.mkdtemp(dir=self.root, prefix="results.", suffix=".old.tmp"))
        try:
            with StoreLock(self.cube_lock_path, wait=True):
                os.replace(self.cube_path, old / "results.zarr")
        finally:
            shutil.rmtree(old, ignore_errors=True)


def _digest(arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 of the arrays' names, dtypes, shapes and bytes (the checksum itself excluded)."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        if name == _CHECKSUM:
            continue
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}\0{a.dtype.str}\0{a.shape}\0".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _save_npz(fh: Any, arrays: dict[str, np.ndarray]) -> None:
    """``np.savez`` of ``arrays`` and their checksum."""
    np.savez(fh, **arrays, **{_CHECKSUM: np.asarray(_digest(arrays))})


def _load_npz(path: Path) -> dict[str, np.ndarray]:
    """Every array of an ``.npz`` file written by :func:`_save_npz`, verified.

    The zip container checks each member's CRC-32 as it is read in full;
    the content's SHA-256 is then compared with the one stored. Any failure
    but a missing file is a :class:`DamagedCellError`.
    """
    import zipfile

    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise
    except Exception as exc:  # noqa: BLE001  (a damaged header raises anything)
        if path.is_file() and path.stat().st_size == 0:
            kind = "empty file"
        elif isinstance(exc, zipfile.BadZipFile | OSError | ValueError | EOFError):
            kind = f"{type(exc).__name__}: {exc}"
        else:
            kind = f"unreadable: {type(exc).__name__}: {exc}"
        raise DamagedCellError(f"{path}: damaged ({' '.join(kind.split())[:300]})") from None
    stored = arrays.get(_CHECKSUM)
    if stored is None or stored.shape != () or stored.dtype.kind != "U":
        raise DamagedCellError(f"{path}: damaged (no checksum)")
    if str(stored) != _digest(arrays):
        raise DamagedCellError(f"{path}: damaged (SHA-256 mismatch)")
    del arrays[_CHECKSUM]
    return arrays

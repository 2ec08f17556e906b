"""The result store: one small file per finished cell, written atomically.

Layout of a store directory::

    <store>/study.json                 what the study is (spec text, hash, layout)
    <store>/data/<dataset>.npz         labels, true probabilities, fold of each row
    <store>/cells/<dataset>/<classifier>/<scenario>/r<repeat>_f<fold>.npz
    <store>/results.zarr               the consolidated cube (xarray.DataTree)

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
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bayescal.study.cells import CellResult

__all__ = ["CellStore", "StoreLayout", "StoredCell"]

STORE_FORMAT = 1


@dataclass(frozen=True)
class StoreLayout:
    """Names, dimensions and options of a study's cube (JSON-serialisable)."""

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
        )

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> StoreLayout:
        """Inverse of ``asdict`` after a JSON round trip."""
        tuples = {k: tuple(v) for k, v in raw.items() if isinstance(v, list)}
        tuples["applicable"] = tuple(tuple(row) for row in raw["applicable"])
        return cls(**{**raw, **tuples})

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


@dataclass
class StoredCell:
    """A cell read back from the store."""

    key: tuple[int, int, int, int, int]
    test_index: np.ndarray
    proba: np.ndarray
    interval: np.ndarray | None
    values: dict[str, float]
    error: str


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

    def exists(self) -> bool:
        """Whether a study was started in this store."""
        return self.meta_path.is_file()

    def read_meta(self) -> dict[str, Any]:
        """The study record (``layout``, ``started``, ``versions``)."""
        try:
            return json.loads(self.meta_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"{self.root} is not a bayescal study store: {exc}") from None

    def layout(self) -> StoreLayout:
        """The layout recorded in the store."""
        return StoreLayout.from_json(self.read_meta()["layout"])

    def write_meta(self, meta: dict[str, Any]) -> None:
        """Record the study (atomically)."""
        text = json.dumps(meta, indent=1, sort_keys=True).encode()
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
        _atomic_write(self.data_path(dataset), lambda fh: np.savez(fh, **arrays))

    def read_data(self, dataset: str) -> dict[str, Any]:
        """The arrays written by :meth:`write_data`."""
        with np.load(self.data_path(dataset), allow_pickle=False) as z:
            return {k: z[k] for k in z.files}

    # -- cells ---------------------------------------------------------------
    def cell_path(self, layout: StoreLayout, key: tuple[int, int, int, int, int]) -> Path:
        d, c, s, r, f = key
        return (self.root / "cells" / layout.datasets[d] / layout.classifiers[c]
                / layout.scenarios[s] / f"r{r}_f{f}.npz")

    def write_cell(self, layout: StoreLayout, cell: CellResult) -> None:
        """Write one finished cell atomically."""
        names = sorted(cell.values)
        arrays = {
            "test_index": np.asarray(cell.test_index, dtype=np.int64),
            "proba": np.asarray(cell.proba, dtype=float),
            "value_names": np.asarray(names, dtype=str),
            "values": np.asarray([cell.values[n] for n in names], dtype=float),
            "error": np.asarray(cell.error, dtype=str),
        }
        if cell.interval is not None:
            arrays["interval"] = np.asarray(cell.interval, dtype=float)
        _atomic_write(self.cell_path(layout, cell.key), lambda fh: np.savez(fh, **arrays))

    def done_cells(self, layout: StoreLayout) -> set[tuple[int, int, int, int, int]]:
        """Keys of the cells whose file exists."""
        return {key for key in layout.cells() if self.cell_path(layout, key).is_file()}

    def read_cell(self, layout: StoreLayout, key: tuple[int, int, int, int, int]) -> StoredCell:
        """One cell's file."""
        with np.load(self.cell_path(layout, key), allow_pickle=False) as z:
            values = dict(zip(z["value_names"].tolist(), z["values"].tolist(), strict=True))
            return StoredCell(key, z["test_index"], z["proba"],
                              z["interval"] if "interval" in z.files else None,
                              values, str(z["error"]))

    # -- cube ----------------------------------------------------------------
    def write_cube(self, tree: Any) -> None:
        """Write the consolidated DataTree to ``results.zarr`` (atomic rename)."""
        tmp = Path(tempfile.mkdtemp(dir=self.root, prefix="results.", suffix=".zarr.tmp"))
        shutil.rmtree(tmp)
        # No consolidated metadata: it is not part of the zarr v3 format yet, and
        # writing it doubled the time of writing a small cube.
        tree.to_zarr(tmp, mode="w-", consolidated=False)
        old = self.root / "results.zarr.old.tmp"
        if self.cube_path.exists():
            os.replace(self.cube_path, old)
        os.replace(tmp, self.cube_path)
        shutil.rmtree(old, ignore_errors=True)

"""bayescal.cube: the result cube of a study — schema, crash-safe store, reading.

* :mod:`~bayescal.cube.schema` — dimensions, the metric registry (direction,
  units, clipping), timings, posterior diagnostics and status variables;
* :mod:`~bayescal.cube.store` — the store: one verified file per cell,
  written atomically, damaged files quarantined on resume;
* :mod:`~bayescal.cube.manifest` — the cube's manifest of hashes, verified by
  every reader;
* :mod:`~bayescal.cube.lock` — one writer per store, readers never see a
  half-written cube;
* :mod:`~bayescal.cube.consolidate` — the ``xarray.DataTree`` built from the
  cells;
* :mod:`~bayescal.cube.reading` — :func:`open_results` and :func:`cube_layout`.

:mod:`bayescal.study` writes cubes through this package; :mod:`bayescal.stats`
and :mod:`bayescal.report` read them through it. Importing it loads NumPy only.
"""

from bayescal.cube.consolidate import consolidate, consolidate_store
from bayescal.cube.lock import StoreBusyError, StoreLock
from bayescal.cube.manifest import CorruptCubeError, verify_manifest
from bayescal.cube.reading import cube_layout, open_results
from bayescal.cube.schema import (
    CELL_DIMS,
    DIAGNOSTICS,
    METRICS,
    STATUS,
    TIMINGS,
    MetricInfo,
    lower_is_better,
    metric_info,
    metric_names,
)
from bayescal.cube.store import (
    CellResult,
    CellStore,
    DamagedCellError,
    DamagedStudyRecordError,
    StoreLayout,
)

__all__ = [
    "CELL_DIMS",
    "DIAGNOSTICS",
    "METRICS",
    "STATUS",
    "TIMINGS",
    "CellResult",
    "CellStore",
    "CorruptCubeError",
    "DamagedCellError",
    "DamagedStudyRecordError",
    "MetricInfo",
    "StoreBusyError",
    "StoreLayout",
    "StoreLock",
    "consolidate",
    "consolidate_store",
    "cube_layout",
    "lower_is_better",
    "metric_info",
    "metric_names",
    "open_results",
    "verify_manifest",
]

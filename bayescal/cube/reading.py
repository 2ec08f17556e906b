"""Reading a result cube: :func:`open_results` and the study layout it carries."""

from __future__ import annotations

import errno
import json
import os
import warnings
from typing import Any

from bayescal.cube.store import CellStore, StoreLayout

__all__ = ["cube_layout", "open_results"]

#: Errors of opening the lock file of a store that cannot be written.
_READ_ONLY = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})


def open_results(store: str | os.PathLike[str] | CellStore) -> Any:
    """Open the result cube of a store.

    Parameters
    ----------
    store : str or Path
        A store written by :func:`bayescal.study.run`.

    Returns
    -------
    xarray.DataTree
        Loaded into memory. If the run has not finished (no consolidated
        cube yet), the cube is built from the cells present, with
        ``done = False`` and NaN for the others. The consolidated cube is
        read under the store's shared ``cube.lock``, so a cube being
        replaced by a writer is never read half-way, and only after every
        file of it matched the cube's manifest of hashes
        (:mod:`bayescal.cube.manifest`). A read-only store (a read-only
        file system, no write permission) is read without the lock: nobody
        can be writing it.

    Raises
    ------
    ValueError
        If ``store`` is not a study store.
    CorruptCubeError
        If the consolidated cube fails its manifest (a changed, missing or
        added file); the message names the array.

    Examples
    --------
    >>> open_results("no-such-store")
    Traceback (most recent call last):
    ...
    ValueError: 'no-such-store' is not a bayescal study store (no study.json)
    """
    import xarray as xr

    from bayescal.cube.consolidate import consolidate
    from bayescal.cube.lock import StoreLock
    from bayescal.cube.manifest import MANIFEST_NAME, verify_manifest

    cells = store if isinstance(store, CellStore) else CellStore(store)
    if not cells.exists():
        raise ValueError(f"{str(cells.root)!r} is not a bayescal study store (no study.json)")
    if cells.cube_path.is_dir():
        try:
            lock = StoreLock(cells.cube_lock_path, shared=True, wait=True).acquire()
        except OSError as exc:
            if exc.errno not in _READ_ONLY:
                raise
            lock = None  # a read-only store: nobody can be writing it
        try:
            if cells.cube_path.is_dir():
                verify_manifest(cells.cube_path)
                with warnings.catch_warnings():  # zarr notes the manifest: not a zarr node
                    warnings.filterwarnings("ignore", message=f".*{MANIFEST_NAME}")
                    with xr.open_datatree(cells.cube_path, engine="zarr",
                                          consolidated=False) as tree:
                        return tree.load()
        finally:
            if lock is not None:
                lock.release()
    return consolidate(cells)


def cube_layout(tree: Any) -> StoreLayout:
    """The study layout (the parsed spec as readers need it) stored in a cube.

    Parameters
    ----------
    tree : xarray.DataTree
        A cube from :func:`open_results` or :func:`bayescal.study.run`.

    Returns
    -------
    StoreLayout
        Metric order, probe, significance tests and baseline, protocol
        shape, ... (see :class:`bayescal.cube.StoreLayout`).

    Raises
    ------
    ValueError
        If the cube carries no layout (not written by this bayescal).
    """
    raw = getattr(tree, "attrs", {}).get("layout")
    if not raw:
        raise ValueError("the cube has no 'layout' attribute: it was not written by "
                         "bayescal.study (or by an older version); run the study again")
    return StoreLayout.from_json(json.loads(raw))

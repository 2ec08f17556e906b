"""A manifest of hashes for a zarr cube: every stored byte checksummed.

zarr chunks carry no checksum by default, and a chunk equal to the fill value
is not written at all, so a flipped bit in a chunk changes a number without a
word and a deleted chunk reads as the fill value (a deleted ``done`` chunk:
"0 done"). The consolidated cube therefore carries a manifest,
``<cube>/bayescal-manifest.json``: the SHA-256 of every file of the zarr
directory, metadata included, written when the cube is written.
:func:`verify_manifest` compares the directory with it — a changed, missing
or added file is an error that names the array it belongs to — and readers
(:func:`bayescal.cube.open_results`, hence ``bayescal show`` and ``bayescal
report``) refuse a cube that fails it. The manifest covers the metadata
(``zarr.json``) as well as the chunks, which a per-chunk checksum codec would
not.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

__all__ = ["MANIFEST_NAME", "CorruptCubeError", "array_of", "verify_manifest", "write_manifest"]

#: File name of the manifest inside the zarr directory.
MANIFEST_NAME = "bayescal-manifest.json"
_FORMAT = 1


class CorruptCubeError(ValueError):
    """A consolidated cube fails its manifest of hashes.

    Attributes
    ----------
    array : str
        The array (or group, ``"/"`` for the root) whose file is wrong.
    """

    def __init__(self, cube: Path, array: str, problem: str) -> None:
        self.array = array
        super().__init__(
            f"the result cube {str(cube)!r} is corrupted and was not read: {problem} "
            f"(array {array!r}); rebuild it from the store's cells with "
            "`bayescal run SPEC --store STORE --resume`")


def _files(root: Path) -> dict[str, Path]:
    out = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if rel != MANIFEST_NAME:
                out[rel] = path
    return out


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def array_of(rel: str) -> str:
    """The array or group a file of a zarr v3 directory belongs to.

    ``metrics/brier/c/0/0/0/0`` and ``metrics/brier/zarr.json`` belong to
    ``metrics/brier``; the root's ``zarr.json`` to ``/``.
    """
    parts = rel.split("/")
    if "c" in parts[:-1]:
        parts = parts[:parts.index("c")]
    else:
        parts = parts[:-1]
    return "/".join(parts) or "/"


def write_manifest(cube: str | os.PathLike[str]) -> None:
    """Write the manifest of every file now in the zarr directory ``cube``.

    Called on the temporary directory before it is renamed into place, so the
    manifest and the cube appear together.
    """
    root = Path(cube)
    files = {rel: _sha256(path) for rel, path in sorted(_files(root).items())}
    text = json.dumps({"format": _FORMAT, "sha256": files}, indent=0, sort_keys=True)
    with open(root / MANIFEST_NAME, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


def verify_manifest(cube: str | os.PathLike[str]) -> None:
    """Check every file of the zarr directory ``cube`` against its manifest.

    Raises
    ------
    CorruptCubeError
        If the manifest is missing or unreadable, or a file was changed,
        removed or added; the message names the array.
    """
    root = Path(cube)
    try:
        record = json.loads((root / MANIFEST_NAME).read_text(encoding="utf-8"))
        expected = record["sha256"]
        if record.get("format") != _FORMAT or not isinstance(expected, dict):
            raise ValueError("unknown manifest format")
    except FileNotFoundError:
        raise CorruptCubeError(root, "/", "it has no manifest of hashes") from None
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise CorruptCubeError(root, "/", f"its manifest is unreadable "
                                          f"({type(exc).__name__})") from None
    present = _files(root)
    for rel in sorted(expected):
        if rel not in present:
            raise CorruptCubeError(root, array_of(rel), f"the file {rel} is missing")
        if _sha256(present[rel]) != expected[rel]:
            raise CorruptCubeError(root, array_of(rel), f"the file {rel} changed "
                                                        "(SHA-256 mismatch)")
    for rel in sorted(set(present) - set(expected)):
        raise CorruptCubeError(root, array_of(rel), f"the file {rel} is not part of the cube")

"""Where the reproductions find the real data sets when ``BAYESCAL_DATA`` is unset.

The data files are not in the repository: :func:`bayescal.datasets.load_dataset`
reads them from ``data_dir=`` or the ``BAYESCAL_DATA`` environment variable.
In this project's layout they sit in a ``shared/data`` folder beside the
checkout (``../shared/data``), or beside its parent for a worktree one level
down (``../../shared/data``). The notebooks and the confidence-map
reproduction look there when nothing says otherwise.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["set_default_data_dir", "shared_data_dir"]

#: The environment variable :func:`bayescal.datasets.load_dataset` reads.
DATA_ENV = "BAYESCAL_DATA"

#: The repository root of this checkout (``bayescal/`` sits in it).
_CHECKOUT = Path(__file__).resolve().parents[2]


def shared_data_dir(checkout: str | os.PathLike[str] | None = None) -> Path | None:
    """The ``shared/data`` folder beside a checkout, if there is one.

    Parameters
    ----------
    checkout : path, optional
        The repository root (default: the checkout this ``bayescal`` is
        imported from).

    Returns
    -------
    Path or None
        ``<checkout>/../shared/data`` if it is a directory, else
        ``<checkout>/../../shared/data`` if that is, else None.

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "shared" / "data").mkdir(parents=True)
    >>> shared_data_dir(root / "repo") == root / "shared" / "data"
    True
    """
    root = _CHECKOUT if checkout is None else Path(checkout).resolve()
    for folder in (root.parent, root.parent.parent):
        candidate = folder / "shared" / "data"
        if candidate.is_dir():
            return candidate
    return None


def set_default_data_dir(checkout: str | os.PathLike[str] | None = None) -> Path | None:
    """Point ``BAYESCAL_DATA`` at the shared data beside the checkout, unless it is set.

    What the reproduction notebooks call first, so that they run from a
    checkout with the data beside it as well as with ``BAYESCAL_DATA`` given.

    Parameters
    ----------
    checkout : path, optional
        The repository root (default: the checkout this ``bayescal`` is
        imported from).

    Returns
    -------
    Path or None
        The data directory in effect: ``$BAYESCAL_DATA`` as given when it is
        set and not empty (kept, even if it is not a directory:
        :func:`~bayescal.datasets.load_dataset` then says so); else the
        :func:`shared_data_dir` found, which ``BAYESCAL_DATA`` is now set to;
        else None, with ``BAYESCAL_DATA`` left unset -- synthetic data still
        works, and loading a real data set raises the loader's error saying
        how to point at the data.

    Examples
    --------
    >>> import os, tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "shared" / "data").mkdir(parents=True)
    >>> saved = os.environ.pop("BAYESCAL_DATA", None)
    >>> set_default_data_dir(root / "repo") == root / "shared" / "data"
    True
    >>> os.environ["BAYESCAL_DATA"] == str(root / "shared" / "data")
    True
    >>> del os.environ["BAYESCAL_DATA"]
    >>> if saved is not None:
    ...     os.environ["BAYESCAL_DATA"] = saved
    """
    given = os.environ.get(DATA_ENV)
    if given:
        return Path(given)
    found = shared_data_dir(checkout)
    if found is not None:
        os.environ[DATA_ENV] = str(found)
    return found

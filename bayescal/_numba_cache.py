"""Where numba's on-disk caches of bayescal's kernels go.

``numba.njit(cache=True)`` writes its cache files (``*.nbi``/``*.nbc``) into a
``__pycache__`` folder beside the module's source unless ``NUMBA_CACHE_DIR`` is
set -- inside the installed package, which may be read-only, shared between
users, or (in a source checkout) the working tree. Every bayescal module that
compiles with numba calls :func:`configure_numba_cache` *before* it imports
numba, so the caches go to the user's cache directory
(``platformdirs.user_cache_dir("bayescal")/numba``, e.g.
``~/.cache/bayescal/numba`` on Linux) unless the user chose otherwise.

numba's configuration is process-wide: once set here, ``NUMBA_CACHE_DIR`` also
applies to other ``cache=True`` functions compiled later in the same process.
A value the user set (the environment variable, or ``numba.config.CACHE_DIR``
assigned in code) is never overridden.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["configure_numba_cache", "default_numba_cache_dir"]

#: Environment variable numba reads for its cache directory.
ENV_VAR = "NUMBA_CACHE_DIR"


def default_numba_cache_dir() -> Path:
    """bayescal's default numba cache directory (inside the user's cache dir).

    Returns
    -------
    pathlib.Path
        ``platformdirs.user_cache_dir("bayescal") / "numba"``.
    """
    import platformdirs

    return Path(platformdirs.user_cache_dir("bayescal")) / "numba"


def configure_numba_cache() -> str:
    """Point numba's cache at the user's cache directory unless already set.

    Call before ``import numba`` in a module that compiles with
    ``cache=True``; safe to call any number of times.

    Returns
    -------
    str
        The cache directory numba will use.

    Notes
    -----
    numba reads ``NUMBA_CACHE_DIR`` when it is imported and again (when the
    environment changed) each time it compiles, and a ``cache=True``
    function picks its cache locator when it is decorated. Setting the
    environment variable before the decorator runs is therefore enough; if
    numba is already imported its configuration is reloaded at once so that
    the next decorated kernel sees the new directory.
    """
    explicit = os.environ.get(ENV_VAR, "")
    if explicit:
        return explicit
    numba_config = None
    if "numba" in sys.modules:
        from numba.core import config as numba_config

        if numba_config.CACHE_DIR:  # set in code by the user: respect it
            return str(numba_config.CACHE_DIR)
    directory = str(default_numba_cache_dir())
    os.environ[ENV_VAR] = directory
    if numba_config is not None:
        numba_config.reload_config()
    return directory

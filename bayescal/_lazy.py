"""Names of a package imported on first use (PEP 562), for packages whose modules are heavy.

``bayescal.study`` and ``bayescal.report`` re-export functions from modules that
import scikit-learn, pandas or xarray. Importing a light submodule of theirs
(``bayescal.study.workers``, which ``bayescal run`` imports first)
imports the package first; with :func:`lazy_attributes` that stays cheap, and
``from bayescal.study import run`` still works.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(package: str, names: dict[str, str]
                    ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package`` for ``names``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    names : dict of str to str
        Public name -> module that defines it.

    Returns
    -------
    (__getattr__, __dir__)
        Assign them in the package's ``__init__``. A name is imported from its
        module when first asked for and then kept in the package's namespace.

    Examples
    --------
    >>> get, _ = lazy_attributes("json", {"loads": "json"})
    >>> get("loads").__name__
    'loads'
    """

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(names))

    return __getattr__, __dir__

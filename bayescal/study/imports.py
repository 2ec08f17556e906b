"""Safe resolution of estimators and generators named by dotted path in a spec.

A study spec is data, not code (``DESIGN.md``, "Safety"): it names classes
and functions by dotted path (``"sklearn.ensemble.RandomForestClassifier"``)
and this module imports them only when the path's top-level package is on an
allow-list — ``sklearn`` and ``bayescal`` by default, plus packages the person
running the study adds explicitly (``bayescal run --allow-module NAME``, or the
``allow_modules`` argument of :func:`bayescal.study.load_spec`); a spec can
never widen it. Every callable a spec names — classifiers, calibrators,
wrappers, nested estimators and dataset generators — is resolved here. Nothing
is ever evaluated (no ``eval``/``exec``) and nothing is unpickled.

Importing an allowed module runs that module's own code, as any ``import``
does; the allow-list is what keeps a spec from reaching arbitrary modules
such as ``os`` or ``subprocess``. Within an allowed package, a spec may name
only public objects (no ``_``-prefixed module or attribute anywhere in the
path: scikit-learn's ``utils._testing`` runs Python source given as an
argument), estimators must be :class:`sklearn.base.BaseEstimator` subclasses,
and a parameter that makes an estimator write files (``memory``, a cache
directory) must stay unset. Dataset generators come from the registry of
:mod:`bayescal.study.generators`.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DEFAULT_ALLOWED_MODULES",
    "EstimatorSpec",
    "build_estimator",
    "resolve_dotted",
]

DEFAULT_ALLOWED_MODULES: tuple[str, ...] = ("sklearn", "bayescal")

_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", re.ASCII)

#: Estimator parameters that make the estimator write to the disk (a cache
#: directory); a spec may leave them only unset (``None``).
_FILE_WRITING_PARAMS = frozenset({"memory"})


@dataclass(frozen=True)
class EstimatorSpec:
    """An estimator named by dotted path with its constructor parameters.

    Parameters
    ----------
    path : str
        Dotted path of the class, e.g. ``"sklearn.naive_bayes.GaussianNB"``.
    params : tuple of (str, value) pairs
        Keyword arguments of the constructor, in spec order. A value that is
        itself an :class:`EstimatorSpec`, or holds some in a tuple or dict, is
        built first (nested estimators: the binary calibrator of a one-vs-rest
        reduction, the steps of a ``Pipeline`` given as ``(name, spec)`` pairs).
    """

    path: str
    params: tuple[tuple[str, Any], ...] = ()

    def params_dict(self) -> dict[str, Any]:
        """The parameters as a dict (nested specs left unbuilt)."""
        return dict(self.params)


def resolve_dotted(path: str, allowed: Iterable[str]) -> Any:
    """Import the object named by ``path`` if its package is allowed.

    Parameters
    ----------
    path : str
        ``"package.module.Name"``.
    allowed : iterable of str
        Allowed top-level packages (``"sklearn"``) or dotted prefixes
        (``"mylab.models"``).

    Returns
    -------
    object
        The class or function.

    Raises
    ------
    ValueError
        If the path is malformed, names a private (``_``-prefixed) module
        or attribute, is not allowed, not importable, or names nothing. The message says which and how to allow a module.
    """
    if not isinstance(path, str) or not _DOTTED.fullmatch(path):
        raise ValueError(
            f"{path!r} is not a dotted path like 'sklearn.naive_bayes.GaussianNB'"
        )
    private = [part for part in path.split(".") if part.startswith("_")]
    if private:
        raise ValueError(f"{path!r} names a private module or attribute ({private[0]!r}); "
                         "a spec may name only public classes and functions")
    allowed = tuple(allowed)
    if not any(path == a or path.startswith(a + ".") for a in allowed):
        raise ValueError(
            f"{path!r} is outside the allowed modules {list(allowed)}; if you trust its "
            "package, pass --allow-module NAME to `bayescal run` (allow_modules= in Python)"
        )
    module_name, _, attr = path.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import module {module_name!r} of {path!r}: {exc}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ValueError(f"module {module_name!r} has no attribute {attr!r}") from None


def check_estimator_class(spec: EstimatorSpec, allowed: Iterable[str]) -> type:
    """Resolve ``spec.path`` to an estimator class and check its parameters.

    Nested :class:`EstimatorSpec` parameters are checked recursively.

    Raises
    ------
    ValueError
        If the class cannot be resolved, is not a scikit-learn estimator
        class (a :class:`sklearn.base.BaseEstimator` subclass), a parameter
        name is not one of its constructor arguments, or a parameter that
        writes files (``memory``) is set.
    """
    from sklearn.base import BaseEstimator

    allowed = tuple(allowed)
    cls = resolve_dotted(spec.path, allowed)
    if not inspect.isclass(cls) or not issubclass(cls, BaseEstimator):
        raise ValueError(f"{spec.path!r} is not an estimator class (a subclass of "
                         "sklearn.base.BaseEstimator)")
    valid = set(cls._get_param_names()) if hasattr(cls, "_get_param_names") else None
    for key, value in spec.params:
        if valid is not None and key not in valid:
            raise ValueError(
                f"unknown parameter {key!r} for {spec.path}; valid parameters: {sorted(valid)}"
            )
        if key in _FILE_WRITING_PARAMS and value is not None:
            raise ValueError(f"parameter {key!r} of {spec.path} would make it write files "
                             f"(got {value!r}); a spec may not set it")
        for nested in _nested_specs(value):
            check_estimator_class(nested, allowed)
    return cls


def _nested_specs(value: Any) -> list[EstimatorSpec]:
    """Estimator specs inside a parameter value (itself, or in tuples/dicts)."""
    if isinstance(value, EstimatorSpec):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, tuple) else ()
    return [spec for item in items for spec in _nested_specs(item)]


def _build_value(value: Any, allowed: tuple[str, ...]) -> Any:
    """A parameter value with every nested estimator spec built."""
    if isinstance(value, EstimatorSpec):
        return build_estimator(value, allowed)
    if isinstance(value, tuple):
        return tuple(_build_value(v, allowed) for v in value)
    if isinstance(value, dict):
        return {k: _build_value(v, allowed) for k, v in value.items()}
    return value


def build_estimator(spec: EstimatorSpec, allowed: Iterable[str], **overrides: Any) -> Any:
    """Construct the estimator named by ``spec`` (nested specs built first).

    Parameters
    ----------
    spec : EstimatorSpec
        Class path and parameters.
    allowed : iterable of str
        Allowed packages (see :func:`resolve_dotted`).
    **overrides
        Parameters that replace those of the spec (e.g. ``random_state``);
        checked and built as the spec's own.

    Returns
    -------
    estimator
        A fresh, unfitted instance.

    Examples
    --------
    >>> est = build_estimator(EstimatorSpec("sklearn.naive_bayes.GaussianNB",
    ...                                     (("var_smoothing", 1e-8),)), ["sklearn"])
    >>> est.var_smoothing
    1e-08
    """
    allowed = tuple(allowed)
    merged = {**dict(spec.params), **overrides}  # overrides are checked and built alike
    cls = check_estimator_class(EstimatorSpec(spec.path, tuple(merged.items())), allowed)
    return cls(**{key: _build_value(value, allowed) for key, value in merged.items()})

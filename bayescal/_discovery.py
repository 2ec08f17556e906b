"""Every public estimator of bayescal, found from the packages' ``__all__``.

The one list of estimators, as scikit-learn's
:func:`sklearn.utils.discovery.all_estimators`: it walks every public module
(no path component starting with ``_``) and collects the scikit-learn
estimator classes its ``__all__`` names. The conformance test
(``tests/test_all_estimators.py``) runs every contract on each, so a new class
is checked as soon as it is exported; nothing in the tests lists classes by hand.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any

__all__ = ["FAST_SETTINGS", "REQUIRED_ARGUMENTS", "all_estimators", "fast_instance"]

#: Packages not walked: the study runtime, whose one estimator
#: (``SharedFitClassifier``) is an internal wrapper that hands every check to
#: the classifier it wraps (a fold with one class is legitimate there).
_SKIP = ("bayescal.study",)


def all_estimators() -> list[tuple[str, type]]:
    """``(name, class)`` of every public bayescal estimator, sorted by name.

    Returns
    -------
    list of (str, type)
        Concrete subclasses of :class:`sklearn.base.BaseEstimator` defined in
        bayescal and named in some public module's ``__all__``.
    """
    from sklearn.base import BaseEstimator

    import bayescal

    found: dict[type, str] = {}
    modules = [bayescal.__name__] + [
        info.name
        for info in pkgutil.walk_packages(bayescal.__path__, prefix="bayescal.")
        if not any(part.startswith("_") for part in info.name.split(".")[1:])
        and not info.name.startswith(_SKIP)
    ]
    for name in modules:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr, None)
            if (
                inspect.isclass(obj)
                and issubclass(obj, BaseEstimator)
                and obj.__module__.startswith("bayescal.")
                and not inspect.isabstract(obj)
            ):
                found[obj] = obj.__name__
    return sorted(((name, cls) for cls, name in found.items()), key=lambda item: item[0])


#: Values of constructor parameters that have no default (or a ``None`` default
#: the estimator cannot fit with), by parameter name, for :func:`fast_instance`.
REQUIRED_ARGUMENTS: dict[str, Any] = {
    "calibrator": ("bayescal.calibration", "PlattCalibrator", {}),
    "estimator": ("sklearn.naive_bayes", "GaussianNB", {}),
    "pi0": 0.3,
}

#: The cheapest settings, by parameter name, set where an estimator has the parameter.
FAST_SETTINGS: dict[str, Any] = {
    "draws": 20,
    "tune": 20,
    "chains": 1,
    "n_draws": 20,
    "random_state": 0,
    "n_imputations": 2,
    "n_repeats": 2,
    "group_size": 2,
    "n_neighbors": 3,
    "n_prototypes": 1,
    "n_splits": 2,
    "cv": 2,
    "n_generated": 60,
    "n_restarts": 0,
}

#: Cheapest first: the inference chosen where an estimator has an ``inference`` parameter.
INFERENCE_PREFERENCE = ("laplace", "ep", "advi", "sparse", "nuts", "mcmc")


def _required_value(name: str) -> Any:
    value = REQUIRED_ARGUMENTS[name]
    if isinstance(value, tuple):
        module, cls, kwargs = value
        return getattr(importlib.import_module(module), cls)(**kwargs)
    return value


def _allowed_options(cls: type, name: str) -> set:
    options: set = set()
    for constraint in getattr(cls, "_parameter_constraints", {}).get(name, ()):
        options |= set(getattr(constraint, "options", ()))
    return options


def fast_instance(cls: type) -> Any:
    """An instance of ``cls`` with the cheapest settings, for tests (tiny data).

    Parameters
    ----------
    cls : estimator class

    Returns
    -------
    estimator

    Raises
    ------
    LookupError
        If ``cls`` has a required parameter :data:`REQUIRED_ARGUMENTS` does not know.
    """
    params = inspect.signature(cls.__init__).parameters
    kwargs: dict[str, Any] = {}
    for name, param in params.items():
        if name == "self" or param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
            continue
        needs_value = param.default is inspect.Parameter.empty or (
            name in REQUIRED_ARGUMENTS and param.default is None
        )
        if needs_value:
            if name not in REQUIRED_ARGUMENTS:
                raise LookupError(
                    f"{cls.__name__}.__init__ has the required parameter {name!r}, which "
                    "bayescal._discovery.REQUIRED_ARGUMENTS does not know: add a value."
                )
            kwargs[name] = _required_value(name)
        elif name in FAST_SETTINGS:
            kwargs[name] = FAST_SETTINGS[name]
    if "inference" in params:
        allowed = _allowed_options(cls, "inference")
        kwargs["inference"] = next(i for i in INFERENCE_PREFERENCE if i in allowed)
    return cls(**kwargs)

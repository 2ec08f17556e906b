"""scikit-learn's parameter-constraint vocabulary, behind one adapter.

Every bayescal estimator declares its parameters in ``_parameter_constraints``
with scikit-learn's vocabulary (``Interval``, ``StrOptions``, ``HasMethods``
and the strings ``"boolean"``, ``"array-like"``, ``"random_state"``), so that
scikit-learn's estimator checks (``check_param_validation``) read them. That
vocabulary lives in the private module ``sklearn.utils._param_validation``.
This module is the only place that imports it: estimators import the names
from here and check their parameters with :func:`validate_params` (instead
of the private ``BaseEstimator._validate_params``).

If the private module is missing, or its classes no longer behave as this
module expects (a self-check on import), the same names are served by a
small implementation of the subset bayescal uses, written here because no
public library provides one; it raises :class:`InvalidParameterError`
(a ``ValueError`` and a ``TypeError``, as scikit-learn's) naming the
parameter, the estimator and the accepted values. ``scikit-learn`` is
bounded above in ``pyproject.toml``; ``tests/test_compat.py`` runs the
fallback against scikit-learn's own validator.
"""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Integral, Real
from typing import Any

import numpy as np

__all__ = [
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "StrOptions",
    "USING_SKLEARN",
    "validate_parameter_constraints",
    "validate_params",
]


class _FallbackInvalidParameterError(ValueError, TypeError):
    """A parameter outside its declared constraints (fallback of scikit-learn's)."""


class _FallbackInterval:
    """Numbers of ``type`` in an interval (the fallback of scikit-learn's ``Interval``)."""

    def __init__(self, type: type, left: float | None, right: float | None, *, closed: str):
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"`closed` must be 'left', 'right', 'both' or 'neither'; got {closed!r}.")
        self.type, self.left, self.right, self.closed = type, left, right, closed

    def is_satisfied_by(self, value: Any) -> bool:
        # scikit-learn's semantics: bools are Integral; an open end excludes infinity
        if not isinstance(value, self.type):
            return False
        if not isinstance(value, Integral) and np.isnan(value):
            return False
        left = -np.inf if self.left is None else self.left
        right = np.inf if self.right is None else self.right
        left_ok = value >= left if self.closed in ("left", "both") else value > left
        right_ok = value <= right if self.closed in ("right", "both") else value < right
        return bool(left_ok and right_ok)

    def __str__(self) -> str:
        kind = "an int" if self.type is Integral else "a float"
        lo = "-inf" if self.left is None else self.left
        hi = "inf" if self.right is None else self.right
        lb = "[" if self.closed in ("left", "both") and self.left is not None else "("
        rb = "]" if self.closed in ("right", "both") and self.right is not None else ")"
        return f"{kind} in the range {lb}{lo}, {hi}{rb}"


class _FallbackStrOptions:
    """One of a set of strings (the fallback of scikit-learn's ``StrOptions``)."""

    def __init__(self, options: Iterable[str], *, deprecated: Iterable[str] | None = None):
        self.options = set(options)
        self.deprecated = set(deprecated or ())

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.options

    def __str__(self) -> str:
        return "a str among " + "{" + ", ".join(repr(o) for o in sorted(self.options)) + "}"


class _FallbackHasMethods:
    """An object with the named methods (the fallback of scikit-learn's ``HasMethods``)."""

    def __init__(self, methods: str | Iterable[str]):
        self.methods = [methods] if isinstance(methods, str) else list(methods)

    def is_satisfied_by(self, value: Any) -> bool:
        return all(callable(getattr(value, m, None)) for m in self.methods)

    def __str__(self) -> str:
        return "an object implementing " + ", ".join(repr(m) for m in self.methods)


def _fallback_satisfied(constraint: Any, value: Any) -> bool:
    if constraint is None:
        return value is None
    if constraint == "boolean":
        return isinstance(value, (bool, np.bool_))
    if constraint == "array-like":
        return ((hasattr(value, "__len__") or hasattr(value, "shape")
                 or hasattr(value, "__array__")) and not np.isscalar(value))
    if constraint == "random_state":
        return (value is None or isinstance(value, np.random.RandomState)
                or (isinstance(value, Integral) and 0 <= value <= 2**32 - 1))
    if constraint == "nan":
        return (isinstance(value, Real) and not isinstance(value, Integral)
                and bool(np.isnan(value)))
    if constraint is callable:
        return callable(value)
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    if hasattr(constraint, "is_satisfied_by"):
        return bool(constraint.is_satisfied_by(value))
    raise TypeError(f"bayescal's parameter validator does not know the constraint {constraint!r}.")


def _fallback_describe(constraint: Any) -> str:
    if constraint is None:
        return "None"
    if isinstance(constraint, str):
        return {"boolean": "an instance of 'bool'", "array-like": "an array-like",
                "random_state": "an int, a RandomState instance or None",
                "nan": "nan"}.get(constraint, repr(constraint))
    if constraint is callable:
        return "a callable"
    if isinstance(constraint, type):
        return f"an instance of {constraint.__name__!r}"
    return str(constraint)


def _fallback_validate(parameter_constraints: dict, params: dict, caller_name: str) -> None:
    for name, value in params.items():
        if name not in parameter_constraints:
            continue
        constraints = parameter_constraints[name]
        if constraints == "no_validation":
            continue
        if any(_fallback_satisfied(c, value) for c in constraints):
            continue
        accepted = [_fallback_describe(c) for c in constraints]
        listed = accepted[0] if len(accepted) == 1 else (
            ", ".join(accepted[:-1]) + " or " + accepted[-1])
        raise _FallbackInvalidParameterError(
            f"The {name!r} parameter of {caller_name} must be {listed}. Got {value!r} instead."
        )


def _sklearn_vocabulary() -> tuple[Any, ...]:
    """scikit-learn's classes, after a self-check; raises on any difference."""
    from sklearn.utils._param_validation import (
        HasMethods,
        Interval,
        InvalidParameterError,
        StrOptions,
        validate_parameter_constraints,
    )

    constraints = {"a": [Interval(Real, 0, 1, closed="left")], "b": [StrOptions({"x"}), None],
                   "c": ["boolean"], "d": [HasMethods(["fit"])], "e": ["random_state"]}
    validate_parameter_constraints(
        constraints, {"a": 0.0, "b": None, "c": True, "d": _SelfCheck(), "e": 0}, caller_name="x")
    try:
        validate_parameter_constraints(constraints, {"a": 1.0}, caller_name="x")
    except InvalidParameterError as exc:
        if not (isinstance(exc, ValueError) and "'a'" in str(exc)):
            raise RuntimeError("scikit-learn's validator changed its error") from exc
    else:
        raise RuntimeError("scikit-learn's validator accepted a value outside its interval")
    return HasMethods, Interval, InvalidParameterError, StrOptions, validate_parameter_constraints


class _SelfCheck:
    def fit(self) -> None:  # pragma: no cover - never called
        """A method for ``HasMethods(["fit"])``."""


def _fallback_vocabulary() -> tuple[Any, ...]:
    return (_FallbackHasMethods, _FallbackInterval, _FallbackInvalidParameterError,
            _FallbackStrOptions, _fallback_validate)


def _load() -> tuple[bool, tuple[Any, ...]]:
    try:
        return True, _sklearn_vocabulary()
    except Exception:  # any change of scikit-learn's private module: the fallback
        return False, _fallback_vocabulary()


USING_SKLEARN, (HasMethods, Interval, InvalidParameterError, StrOptions,
                validate_parameter_constraints) = _load()


def validate_params(estimator: Any) -> None:
    """Check ``estimator``'s parameters against its ``_parameter_constraints``.

    Parameters
    ----------
    estimator : BaseEstimator
        An estimator with a ``_parameter_constraints`` dict.

    Raises
    ------
    InvalidParameterError
        (a ``ValueError`` and a ``TypeError``) naming the first parameter
        outside its constraints and the values it accepts.
    """
    validate_parameter_constraints(
        estimator._parameter_constraints, estimator.get_params(deep=False),
        caller_name=type(estimator).__name__,
    )

"""scikit-learn's private API, behind one adapter.

``fit_context`` is ``sklearn.base._fit_context`` (parameter validation at the
start of ``fit``, nested validation skipped where safe); if that private
decorator is missing or fails to wrap, a plain decorator that calls
``estimator._validate_params()`` takes its place, so validation never
depends on the private name.

``scikit-learn`` is bounded above in ``pyproject.toml``; a newer release is
admitted after ``tests/test_compat.py`` passes on it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

__all__ = ["fit_context"]


def _fallback_fit_context(fit_method: Callable) -> Callable:
    """Validate ``_parameter_constraints`` by hand, then call ``fit_method``."""

    @functools.wraps(fit_method)
    def wrapper(estimator: Any, *args: Any, **kwargs: Any) -> Any:
        estimator._validate_params()
        return fit_method(estimator, *args, **kwargs)

    return wrapper


def fit_context(*, prefer_skip_nested_validation: bool) -> Callable[[Callable], Callable]:
    """Decorator of ``fit``: validate the estimator's parameters first.

    Parameters
    ----------
    prefer_skip_nested_validation : bool
        True when ``fit`` fits no estimator given by the user (nested
        scikit-learn parameter validation is then skipped, as scikit-learn
        does for its own estimators); False for meta-estimators.

    Returns
    -------
    callable
        The decorator.
    """

    def decorate(fit_method: Callable) -> Callable:
        try:
            from sklearn.base import _fit_context

            wrapped = _fit_context(prefer_skip_nested_validation=prefer_skip_nested_validation)(
                fit_method
            )
            if not callable(wrapped):
                raise TypeError("sklearn.base._fit_context returned a non-callable")
            return wrapped
        except Exception:  # any change of the private API: validate by hand
            return _fallback_fit_context(fit_method)

    return decorate

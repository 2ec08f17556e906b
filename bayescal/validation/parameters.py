"""Checks of scalar parameters: positive integers and numbers, fractions, choices.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np

__all__ = [
    "check_choice",
    "check_fraction",
    "check_positive_int",
    "check_positive_number",
]


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """Validate an integer parameter ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"`{name}` must be an integer; got {value!r} of type {type(value).__name__}.")
    if value < minimum:
        raise ValueError(f"`{name}` must be >= {minimum}; got {value}.")
    return int(value)


def check_fraction(
    value: Any, name: str, *, inclusive_low: bool = False, inclusive_high: bool = False
) -> float:
    """Validate a real number in (0, 1) (bounds optionally inclusive)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"`{name}` must be a real number; got {value!r}.")
    v = float(value)
    lo_ok = v >= 0 if inclusive_low else v > 0
    hi_ok = v <= 1 if inclusive_high else v < 1
    if not (np.isfinite(v) and lo_ok and hi_ok):
        lo = "[" if inclusive_low else "("
        hi = "]" if inclusive_high else ")"
        raise ValueError(f"`{name}` must lie in {lo}0, 1{hi}; got {value!r}.")
    return v


def check_choice(value: Any, name: str, choices: Sequence[Any]) -> Any:
    """Validate that ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"`{name}` must be one of {list(choices)!r}; got {value!r}.")
    return value


def check_positive_number(value: Any, name: str) -> float:
    """Validate a positive, finite real number (a prior scale, a tolerance).

    Parameters
    ----------
    value : int or float
        The number; ``bool`` is rejected.
    name : str
        Argument name used in error messages.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If ``value`` is not finite or not above zero.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"`{name}` must be a positive number; got {value!r}.")
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"`{name}` must be a positive finite number; got {value!r}.")
    return float(value)

"""The random-number generator used by the dataset generators and ``add_missing``."""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np

__all__ = ["as_generator"]


def as_generator(random_state: Any) -> np.random.Generator:
    """Turn a ``random_state`` argument into a NumPy ``Generator``.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        ``None``: fresh entropy. An int: a seed (the same seed gives the same
        numbers). A ``Generator`` is used as is (its state advances). A legacy
        ``RandomState`` seeds a new generator from one of its draws.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    TypeError
        For any other type.
    ValueError
        For a negative seed.
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(int(random_state.randint(0, 2**31 - 1)))
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"`random_state` must be a non-negative seed; got {random_state}.")
        return np.random.default_rng(int(random_state))
    raise TypeError(
        "`random_state` must be None, an int seed, a numpy Generator or RandomState; "
        f"got {random_state!r} of type {type(random_state).__name__}."
    )

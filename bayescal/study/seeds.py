"""Seeds of a study, derived per cell from the spec seed.

Every random step of a study gets its own seed from
``numpy.random.SeedSequence(spec_seed, spawn_key=key)``, where ``key`` holds a
purpose tag and the indices of the cell in the spec (dataset, classifier,
scenario, repeat, fold). Seeds therefore depend only on *which* cell is
computed, never on the order cells run in, the number of workers or whether a
run was resumed: the same spec and seed always give the same cube.
"""

from __future__ import annotations

import numpy as np

__all__ = ["CLASSIFIER", "DATASET", "SCENARIO", "SPLIT", "derive_seed"]

#: Purpose tags (first element of the spawn key).
DATASET, SPLIT, CLASSIFIER, SCENARIO = 0, 1, 2, 3


def derive_seed(seed: int, *key: int) -> int:
    """A 31-bit integer seed for the step identified by ``key``.

    Parameters
    ----------
    seed : int
        The study seed.
    *key : int
        Purpose tag and cell indices.

    Returns
    -------
    int
        In ``[0, 2**31)``, usable as any ``random_state``.

    Examples
    --------
    >>> derive_seed(1, SPLIT, 0, 2) == derive_seed(1, SPLIT, 0, 2)
    True
    >>> derive_seed(1, SPLIT, 0, 2) != derive_seed(1, SPLIT, 0, 3)
    True
    """
    state = np.random.SeedSequence(seed, spawn_key=tuple(int(k) for k in key))
    return int(state.generate_state(1, dtype=np.uint32)[0] >> 1)

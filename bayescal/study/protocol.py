"""Resampling protocols: the (repeat, fold) train/test splits of a study.

============== ============ ========= =============================================
kind           repeats      folds     splits
============== ============ ========= =============================================
kfold          1            n_splits  k-fold CV
repeated_kfold n_repeats    n_splits  k-fold CV repeated with fresh shuffles
cv5x2          5            2         Dietterich's 5x2 CV (five 2-fold CVs)
mccv           n_repeats    1         Monte-Carlo CV: random splits, test_fraction
holdout        1            1         one random split, test_fraction
============== ============ ========= =============================================

Folds are stratified by class unless ``stratified = false``. Each repeat is
shuffled with its own seed derived from the study seed, the dataset index and
the repeat index (:func:`bayescal.study.seeds.derive_seed`), so adding repeats
never changes the earlier ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescal.study.seeds import SPLIT, derive_seed

__all__ = ["Split", "make_splits"]

Split = tuple[int, int, np.ndarray, np.ndarray]


def _one_repeat(protocol: Any, y: np.ndarray, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import (
        KFold,
        ShuffleSplit,
        StratifiedKFold,
        StratifiedShuffleSplit,
    )

    X_dummy = np.zeros((len(y), 1))
    if protocol.kind in ("kfold", "repeated_kfold", "cv5x2"):
        k = 2 if protocol.kind == "cv5x2" else protocol.n_splits
        cls = StratifiedKFold if protocol.stratified else KFold
        splitter: Any = cls(n_splits=k, shuffle=True, random_state=seed)
    else:
        cls = StratifiedShuffleSplit if protocol.stratified else ShuffleSplit
        splitter = cls(n_splits=1, test_size=protocol.test_fraction, random_state=seed)
    return [(np.sort(tr), np.sort(te)) for tr, te in splitter.split(X_dummy, y)]


def make_splits(protocol: Any, y: np.ndarray, *, seed: int, dataset_index: int) -> list[Split]:
    """All (repeat, fold, train, test) splits of one dataset.

    Parameters
    ----------
    protocol : ProtocolSpec
    y : ndarray of int
        Class codes (used for stratification).
    seed : int
        The study seed.
    dataset_index : int
        Position of the dataset in the spec (part of the seed key).

    Returns
    -------
    list of (repeat, fold, train_index, test_index)
        Sorted index arrays; ``protocol.repeats * protocol.folds`` entries.

    Raises
    ------
    ValueError
        If a class has fewer members than a stratified k-fold needs (from
        scikit-learn), or the dataset is too small.

    Examples
    --------
    >>> from bayescal.study.spec import ProtocolSpec
    >>> y = np.array([0, 1] * 10)
    >>> splits = make_splits(ProtocolSpec("cv5x2"), y, seed=0, dataset_index=0)
    >>> len(splits), sorted({(r, f) for r, f, _, _ in splits})[:3]
    (10, [(0, 0), (0, 1), (1, 0)])
    """
    out: list[Split] = []
    for r in range(protocol.repeats):
        for f, (tr, te) in enumerate(_one_repeat(protocol, y, derive_seed(seed, SPLIT,
                                                                            dataset_index, r))):
            out.append((r, f, tr, te))
    return out

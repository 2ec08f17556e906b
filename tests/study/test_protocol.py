"""Tests of bayescal.study.protocol and bayescal.study.seeds."""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.study.protocol import make_splits
from bayescal.study.seeds import CLASSIFIER, SPLIT, derive_seed
from bayescal.study.spec import ProtocolSpec

Y = np.array([0] * 30 + [1] * 20 + [2] * 10)


@pytest.mark.parametrize("protocol", [
    ProtocolSpec("kfold", n_splits=5),
    ProtocolSpec("repeated_kfold", n_splits=3, n_repeats=4),
    ProtocolSpec("cv5x2"),
])
def test_kfold_kinds_partition_every_repeat(protocol):
    splits = make_splits(protocol, Y, seed=1, dataset_index=0)
    assert len(splits) == protocol.repeats * protocol.folds
    for r in range(protocol.repeats):
        tests = [te for rr, _, _, te in splits if rr == r]
        np.testing.assert_array_equal(np.sort(np.concatenate(tests)), np.arange(len(Y)))
        for rr, _, tr, te in splits:
            if rr == r:
                assert not np.intersect1d(tr, te).size and len(tr) + len(te) == len(Y)
                # stratified: each class split in proportion (within one sample)
                expected = np.bincount(Y) * len(te) / len(Y)
                assert np.all(np.abs(np.bincount(Y[te], minlength=3) - expected) <= 1)


@pytest.mark.parametrize("protocol", [ProtocolSpec("mccv", n_repeats=6, test_fraction=0.25),
                                      ProtocolSpec("holdout", test_fraction=0.25)])
def test_random_split_kinds(protocol):
    splits = make_splits(protocol, Y, seed=1, dataset_index=0)
    assert len(splits) == protocol.repeats
    for _, f, tr, te in splits:
        assert f == 0 and len(te) == 15 and not np.intersect1d(tr, te).size


def test_repeats_are_independent_of_their_number_and_deterministic():
    three = make_splits(ProtocolSpec("repeated_kfold", n_splits=3, n_repeats=3), Y, seed=4,
                        dataset_index=2)
    two = make_splits(ProtocolSpec("repeated_kfold", n_splits=3, n_repeats=2), Y, seed=4,
                      dataset_index=2)
    for a, b in zip(two, three, strict=False):
        assert a[:2] == b[:2]
        np.testing.assert_array_equal(a[3], b[3])
    other = make_splits(ProtocolSpec("kfold", n_splits=3), Y, seed=4, dataset_index=3)
    assert not np.array_equal(other[0][3], three[0][3])


def test_unstratified_kfold():
    splits = make_splits(ProtocolSpec("kfold", n_splits=4, stratified=False), Y, seed=0,
                         dataset_index=0)
    assert sorted(len(te) for *_, te in splits) == [15, 15, 15, 15]


def test_derive_seed_depends_only_on_the_key():
    assert derive_seed(9, SPLIT, 1, 2) == derive_seed(9, SPLIT, 1, 2)
    seeds = {derive_seed(9, tag, d, r) for tag in (SPLIT, CLASSIFIER) for d in range(3)
             for r in range(3)}
    assert len(seeds) == 18
    assert derive_seed(9, SPLIT, 1) != derive_seed(10, SPLIT, 1)
    assert all(0 <= s < 2**31 for s in seeds)

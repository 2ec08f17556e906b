"""Ecoli and Wholesale as the thesis' Table 1 describes them, from the shared files."""

from __future__ import annotations

import numpy as np

from bayescal.reproduce.thesis_sets import ecoli_four_classes, wholesale_region


def test_ecoli_merges_im_and_imu_into_four_classes(shared_data_env):
    X, y = ecoli_four_classes()
    names, counts = np.unique(y, return_counts=True)
    assert X.shape == (327, 7) and len(names) == 4
    assert dict(zip(names, counts, strict=True))["im+imU"] == 77 + 35


def test_wholesale_predicts_the_region_from_seven_features(shared_data_env):
    X, y = wholesale_region()
    assert X.shape == (440, 7)  # six spending columns and the channel
    assert sorted(np.unique(y)) == ["1", "2", "3"]
    assert set(np.unique(X[:, -1])) == {1.0, 2.0}  # the channel, the file's old target

"""Seed 002 Table 1's function block: multi-label histogram binning on generated data."""

from __future__ import annotations

import pytest

from bayescal.reproduce.multilabel_binning import MultiLabelSettings, binning_table

SMALL = (("small", 3000, 4),)


def test_binning_lowers_both_eces_and_wavg_never_exceeds_tot():
    # strongly over-confident scores (log-odds noise 1.5) on 4 labels
    table, partitions = binning_table(MultiLabelSettings(n_partitions=2, noise_sd=1.5), SMALL)
    assert set(table.columns) == {"dataset", "method", "metric", "ours"}
    assert len(partitions) == 2 * 2 * 3 and len(table) == 6  # ECE_wavg, ECE_tot, HL
    value = table.set_index(["method", "metric"])["ours"]
    # the over-confident scorer is miscalibrated; binning on 1500 rows repairs most of it
    for metric in ("ECE_tot", "ECE_wavg"):
        assert value["histogram_binning", metric] < 0.5 * value["uncalibrated", metric]
    for method in ("uncalibrated", "histogram_binning"):
        assert value[method, "ECE_wavg"] <= value[method, "ECE_tot"]
    # Hamming loss: a share of wrong label decisions; binning moves few of them across 0.5
    assert 0 < value["uncalibrated", "HL"] < 0.5
    assert abs(value["histogram_binning", "HL"] - value["uncalibrated", "HL"]) < 0.05


def test_no_noise_means_calibrated_scores():
    # invariant: with noise_sd = 0 the scores are the true probabilities, so the
    # uncalibrated ECE is only the sampling noise of the test half and binning cannot
    # improve it much
    table, _ = binning_table(MultiLabelSettings(n_partitions=1, noise_sd=0.0), SMALL)
    value = table.set_index(["method", "metric"])["ours"]
    assert value["uncalibrated", "ECE_tot"] < 0.1
    assert value["histogram_binning", "ECE_tot"] > 0.6 * value["uncalibrated", "ECE_tot"]


@pytest.mark.parametrize(("settings", "sets", "match"), [
    (MultiLabelSettings(n_partitions=1, calibration_share=1.0), SMALL,
     r"`calibration_share` must lie in \(0, 1\)"),
    (MultiLabelSettings(n_partitions=1), (("bad", 0, 3),), "`n`"),
])
def test_bad_settings(settings, sets, match):
    with pytest.raises(ValueError, match=match):
        binning_table(settings, sets)

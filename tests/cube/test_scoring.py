"""Tests of bayescal.cube.scoring: the registry's functions applied to one cell."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import brier_score_loss, log_loss, mean_squared_error

from bayescal.cube.scoring import label_metrics, probe_metrics, truth_metrics


def test_label_metrics_match_sklearn():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    p = rng.uniform(0.01, 0.99, 200)
    P = np.column_stack([1 - p, p])
    got = label_metrics(y, P, ("brier", "brier_sum", "brier_class_mean", "log_loss",
                               "accuracy"), 10)
    assert got["brier"] == pytest.approx(brier_score_loss(y, p))
    assert got["brier_sum"] == pytest.approx(brier_score_loss(y, P, scale_by_half=False))
    assert got["brier_class_mean"] == pytest.approx(brier_score_loss(y, p))
    assert got["log_loss"] == pytest.approx(log_loss(y, P))
    assert got["accuracy"] == pytest.approx(np.mean((p > 0.5) == y))


def test_log_loss_is_clipped_not_infinite():
    P = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert label_metrics(np.array([0, 1]), P, ("log_loss",), 10)["log_loss"] == pytest.approx(
        0.0, abs=1e-12)
    wrong = label_metrics(np.array([1, 0]), P, ("log_loss",), 10)["log_loss"]
    assert wrong == pytest.approx(-np.log(1e-15))
    # a spec's per-metric clipping (seed 004 clips its NLS at 1e-5)
    wide = label_metrics(np.array([1, 0]), P, ("log_loss",), 10, {"log_loss": 1e-5})
    assert wide["log_loss"] == pytest.approx(-np.log(1e-5))


def test_truth_and_probe_metrics():
    P = np.array([[0.3, 0.7], [0.6, 0.4]])
    truth = truth_metrics(np.array([0.5, 0.5]), P)
    assert truth["rmse_true"] == pytest.approx(np.sqrt((0.04 + 0.01) / 2))
    assert truth["mae_true"] == pytest.approx(0.15)
    # seed 000 Table 5's MSE against the truth: scikit-learn's mean_squared_error
    assert truth["mse_true"] == pytest.approx(mean_squared_error([0.5, 0.5], P[:, 1]))
    probe = np.array([[0.2, 0.8], [0.6, 0.4]])
    got = probe_metrics(P, probe, None)
    assert got["probe_rmse"] == pytest.approx(np.sqrt(0.01 / 2)) and np.isnan(
        got["probe_coverage"])


def test_probe_metrics_with_intervals_hand_example():
    P = np.array([[0.2, 0.8], [0.6, 0.4]])
    probe = np.array([[0.2, 0.8], [0.6, 0.4]])
    bounds = np.array([[[0.1, 0.3], [0.7, 0.9]], [[0.1, 0.3], [0.7, 0.9]]])
    got = probe_metrics(P, probe, bounds)
    assert got["probe_coverage"] == 0.5 and got["probe_rmse"] == 0.0
    with pytest.raises(ValueError, match="probe_interval"):
        probe_metrics(P, probe, bounds[:, 0])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.floats(0, 0.5))
def test_coverage_is_a_fraction_and_full_for_wide_intervals(ps, width):
    p = np.asarray(ps)
    P = np.column_stack([1 - p, p])
    wide = np.stack([np.zeros_like(P), np.ones_like(P)], axis=-1)
    assert probe_metrics(P, P, wide)["probe_coverage"] == 1.0
    narrow = np.clip(np.stack([P - width, P + width], axis=-1), 0, 1)
    shifted = np.clip(P + 0.6, 0, 1)
    shifted = shifted / shifted.sum(axis=1, keepdims=True)
    assert 0.0 <= probe_metrics(shifted, P, narrow)["probe_coverage"] <= 1.0


def test_brier_decomposition_sums_to_the_cube_brier_and_smooth_ece_is_recorded():
    from bayescal.metrics import score_decomposition, smooth_ece

    rng = np.random.default_rng(3)
    p = rng.uniform(size=150)
    y = (rng.uniform(size=150) < p**1.5).astype(int)
    P = np.column_stack([1 - p, p])
    got = label_metrics(y, P, ("brier", "mcb", "dsc", "unc", "smooth_ece"), 10)
    assert got["mcb"] - got["dsc"] + got["unc"] == pytest.approx(got["brier"], abs=1e-12)
    assert got["brier"] == pytest.approx(np.mean((P[:, 1] - y) ** 2))
    assert got["mcb"] == pytest.approx(score_decomposition(y, p).mcb, abs=1e-15)
    assert got["smooth_ece"] == smooth_ece(y, p)


def test_brier_decomposition_is_nan_where_corp_does_not_apply():
    P3 = np.full((4, 3), 1 / 3)
    multi = label_metrics(np.array([0, 1, 2, 0]), P3, ("mcb", "dsc", "unc", "smooth_ece"), 10)
    assert all(np.isnan(multi[k]) for k in ("mcb", "dsc", "unc"))
    assert np.isfinite(multi["smooth_ece"])  # top-label
    one_class = label_metrics(np.ones(3, int), np.array([[0.2, 0.8]] * 3), ("mcb",), 10)
    assert np.isnan(one_class["mcb"])


CORP_SPEC = """
[study]
name = "corp_check"
seed = 1

[protocol]
kind = "kfold"
n_splits = 3

[datasets.synthetic]
generator = "bayescal.datasets.make_thesis_synthetic"
params = { n_per_class = 60 }

[classifiers.nb]
class = "sklearn.naive_bayes.GaussianNB"

[scenarios.raw]
kind = "raw"

[metrics]
names = ["brier", "mcb", "dsc", "unc", "smooth_ece"]

[tests]
names = ["cv_ttest"]
baseline = "raw"
"""


@pytest.mark.slow
def test_a_study_records_the_corp_terms_and_smooth_ece(tmp_path):
    from bayescal.study import run

    spec = tmp_path / "corp.toml"
    spec.write_text(CORP_SPEC)
    m = run(spec, tmp_path / "store", n_jobs=1, progress=False)["metrics"].to_dataset()
    np.testing.assert_allclose(m["mcb"] - m["dsc"] + m["unc"], m["brier"], atol=1e-12)
    assert float(m["unc"].min()) > 0 and np.isfinite(m["smooth_ece"]).all()
    assert "higher is better" in m["dsc"].attrs["description"]

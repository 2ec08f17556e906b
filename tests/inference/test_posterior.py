"""Tests of the shared posterior contract helpers."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from scipy import stats

from bayescal.inference.posterior import (
    DIAGNOSTIC_THRESHOLDS,
    PosteriorDiagnostics,
    PosteriorDiagnosticsWarning,
    PosteriorPredictiveMixin,
    credible_interval,
    diagnostic_failures,
    point_estimate_of_draws,
    posterior_diagnostics,
    record_diagnostics,
    stack_draws,
    warn_if_unconverged,
)


def _tree(values, diverging=None):
    post = xr.Dataset({"a": (("chain", "draw"), values)})
    children = {"posterior": xr.DataTree(post)}
    if diverging is not None:
        children["sample_stats"] = xr.DataTree(xr.Dataset({"diverging": (("chain", "draw"), diverging)}))
    return xr.DataTree.from_dict(children)


def test_eti_matches_normal_quantiles():
    rng = np.random.default_rng(0)
    draws = rng.normal(size=(200_000, 2))
    lo, hi = credible_interval(draws, 0.9)
    np.testing.assert_allclose(lo, stats.norm.ppf(0.05), atol=0.02)
    np.testing.assert_allclose(hi, stats.norm.ppf(0.95), atol=0.02)


def test_hdi_is_narrowest_for_skewed_draws():
    rng = np.random.default_rng(1)
    draws = rng.exponential(size=100_000)
    lo, hi = credible_interval(draws, 0.9, kind="hdi")
    elo, ehi = credible_interval(draws, 0.9, kind="eti")
    assert hi - lo < ehi - elo
    # HDI of Exp(1) at 90 %: [0, -log(0.1)]
    assert lo == pytest.approx(0.0, abs=0.01)
    assert hi == pytest.approx(-np.log(0.1), abs=0.05)


def test_mixed_chains_fail_rhat_and_warn():
    rng = np.random.default_rng(2)
    values = np.stack([rng.normal(0, 1, 500), rng.normal(5, 1, 500)])
    diag = posterior_diagnostics(
        _tree(values, np.zeros((2, 500), bool)), sampler="pymc", seconds=1.0
    )
    assert diag.rhat_max > 1.5 and diag["rhat_max"] == diag.rhat_max
    with pytest.warns(PosteriorDiagnosticsWarning, match="R-hat"):
        failures = warn_if_unconverged(diag, model="Toy")
    assert failures == list(diag.failures) and diag.converged is False


def test_good_chains_pass_and_count_divergences():
    rng = np.random.default_rng(3)
    div = np.zeros((2, 1000), bool)
    div[0, :3] = True
    diag = posterior_diagnostics(_tree(rng.normal(size=(2, 1000)), div), sampler="nutpie", seconds=0.5)
    assert diag.rhat_max < 1.01
    assert diag.divergences == 3
    assert diagnostic_failures(diag) == ["3 divergent transitions"]
    assert diag.failures == ("3 divergent transitions",) and not diag.converged


class _Fixed(PosteriorPredictiveMixin):
    def __init__(self, draws):
        self.draws = draws

    def _proba_draws(self, X):
        return self.draws


def test_mixin_mean_and_interval():
    p = np.linspace(0.05, 0.95, 101)
    draws = np.repeat(np.column_stack([1 - p, p])[None], 3, axis=0)
    model = _Fixed(draws)
    np.testing.assert_allclose(model.predict_proba(None)[:, 1], p)
    interval = model.predict_interval(None, 0.9)
    assert interval.shape == (101, 2, 2)
    np.testing.assert_allclose(interval[:, 1, 0], p)
    np.testing.assert_array_equal(model.predict(None), (p > 0.5).astype(int))


def test_stack_draws_is_chain_major_and_keeps_other_dims():
    values = np.arange(2 * 3 * 4, dtype=float).reshape(2, 3, 4)
    post = xr.Dataset({"b": (("draw", "chain", "k"), values.transpose(1, 0, 2))})
    tree = xr.DataTree.from_dict({"posterior": xr.DataTree(post)})
    stacked = stack_draws(tree, "b")
    assert stacked.shape == (6, 4)
    np.testing.assert_array_equal(stacked, values.reshape(6, 4))


def test_record_diagnostics_sets_attribute_and_warns_with_class_name():
    class Toy:
        pass

    rng = np.random.default_rng(2)
    values = np.stack([rng.normal(0, 1, 500), rng.normal(5, 1, 500)])
    toy = Toy()
    with pytest.warns(PosteriorDiagnosticsWarning, match="Toy posterior failed"):
        diag = record_diagnostics(toy, _tree(values), sampler="nutpie", seconds=2.0)
    assert toy.diagnostics_ is diag
    assert diag["converged"] is False and diag["seconds"] == 2.0


def test_diagnostics_object_is_frozen_typed_and_reads_like_a_record():
    rng = np.random.default_rng(4)
    diag = posterior_diagnostics(
        _tree(rng.normal(size=(2, 1000))), sampler="nutpie", seconds=1.5, extra={"note": 1}
    )
    assert isinstance(diag, PosteriorDiagnostics)
    assert (diag.inference, diag.n_chains, diag.n_draws) == ("nuts", 2, 1000)
    assert diag.converged and diag.failures == ()
    with pytest.raises(AttributeError):
        diag.rhat_max = 2.0  # type: ignore[misc]
    record = diag.to_dict()
    assert record["converged"] is True and record["note"] == 1 and record["failures"] == ()
    assert dict(diag) == record
    assert diag.get("missing", "x") == "x"
    with pytest.raises(KeyError):
        diag["extra"]


@pytest.mark.parametrize(
    ("sampler", "inference"),
    [("laplace", "laplace"), ("advi", "advi"), ("ep", "ep"), ("analytic", "exact")],
)
def test_independent_draws_have_no_rhat_or_ess_and_pass(sampler, inference):
    # one chain of 50 strongly autocorrelated values: NUTS would fail, but the draws of an
    # approximation are independent by construction, so chain diagnostics do not apply
    values = np.cumsum(np.ones((1, 50)), axis=1)
    diag = posterior_diagnostics(_tree(values), sampler=sampler, seconds=0.1)
    assert diag.inference == inference
    assert np.isnan(diag.rhat_max) and np.isnan(diag.ess_bulk_min)
    assert diag.converged


def test_method_failures_are_kept_and_warn_with_their_category():
    class EPish(PosteriorDiagnosticsWarning):
        pass

    class Toy:
        pass

    with pytest.warns(EPish, match="Toy posterior failed its diagnostics: EP stalled. Try x"):
        diag = record_diagnostics(
            Toy(), None, sampler="ep", seconds=0.0, n_draws=10, failures=["EP stalled"],
            category=EPish, remedy="Try x",
        )
    assert diag.failures == ("EP stalled",) and diag.n_draws == 10


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"rhat_max": 1.02}, ["max R-hat 1.020 > 1.01"]),
        ({"ess_bulk_min": 99.0}, ["min bulk ESS 99 < 100"]),
        ({"ess_bulk_min": 199.0, "n_chains": 2}, ["min bulk ESS 199 < 200"]),
        ({"ess_tail_min": 10.0, "divergences": 2}, ["min tail ESS 10 < 100", "2 divergent transitions"]),
        ({"rhat_max": np.nan, "ess_bulk_min": np.nan, "divergences": np.nan}, []),
        ({"rhat_max": 1.01, "ess_bulk_min": 400.0, "ess_tail_min": 400.0, "n_chains": 4}, []),
    ],
)
def test_thresholds_are_defined_once_and_applied_to_records(values, expected):
    assert DIAGNOSTIC_THRESHOLDS.rhat_max == 1.01 and DIAGNOSTIC_THRESHOLDS.ess_min_per_chain == 100
    assert diagnostic_failures(values) == expected


def test_point_estimates_of_a_skewed_posterior():
    # 96 % of the draws at 0.001, 4 % at 0.9: the mean 0.03696 lies above the whole
    # 90 % equal-tailed interval [0.001, 0.001]; the median is inside it
    p1 = np.r_[np.full(96, 0.001), np.full(4, 0.9)]
    draws = np.stack([1 - p1, p1], axis=-1)[:, None, :]  # (S, n=1, K=2)
    lower, upper = credible_interval(draws, 0.9)
    mean = point_estimate_of_draws(draws, "mean")
    median = point_estimate_of_draws(draws, "median")
    assert mean[0, 1] == pytest.approx(0.96 * 0.001 + 0.04 * 0.9)
    assert mean[0, 1] > upper[0, 1]
    assert median[0, 1] == 0.001 and lower[0, 1] <= median[0, 1] <= upper[0, 1]
    np.testing.assert_allclose(median.sum(axis=1), 1.0)
    # K > 2: per-class medians, renormalised
    rng = np.random.default_rng(0)
    three = rng.dirichlet([0.3, 1.0, 5.0], size=(400, 6))
    got = point_estimate_of_draws(three, "median")
    raw = np.median(three, axis=0)
    np.testing.assert_allclose(got, raw / raw.sum(axis=1, keepdims=True))
    with pytest.raises(ValueError, match="point_estimate"):
        point_estimate_of_draws(three, "mode")

"""Tests of bayescal.study.posteriors: diagnostics, the verdict and kept draws in the cube."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import xarray as xr

from bayescal.cube import open_results
from bayescal.study import parse_spec, run
from bayescal.study.posteriors import MAX_KEPT_ELEMENTS, diagnostic_record, kept_draws

from .conftest import TINY_SPEC


def test_diagnostic_record_uses_the_shared_thresholds():
    values, ok, why = diagnostic_record({"rhat_max": 1.2, "ess_bulk_min": 900.0,
                                         "divergences": 0, "n_chains": 4})
    assert not ok and why == "max R-hat 1.200 > 1.01" and values["rhat_max"] == 1.2
    # ESS is judged per chain: 300 passes with 2 chains, fails with 4 (100 per chain)
    assert diagnostic_record({"ess_bulk_min": 300.0, "n_chains": 2})[1]
    assert not diagnostic_record({"ess_bulk_min": 300.0, "n_chains": 4})[1]
    # an estimator's own verdict wins; NaN (not sampled) never fails
    assert diagnostic_record({"rhat_max": 1.5, "failures": []})[1]
    assert diagnostic_record({"rhat_max": float("nan")})[1]


def test_diagnostic_record_reads_a_typed_record():
    @dataclass
    class Diagnostics:
        rhat_max: float
        ess_bulk_min: float
        divergences: int

    values, ok, why = diagnostic_record(Diagnostics(1.0, 50.0, 3))
    assert not ok and "3 divergent transitions" in why and values["divergences"] == 3.0


def test_kept_draws_are_thinned_and_bounded():
    posterior = xr.Dataset({"a": (("chain", "draw"), np.zeros((2, 1000))),
                            "big": (("chain", "draw", "k"), np.zeros((2, 1000,
                                                                      MAX_KEPT_ELEMENTS + 1)))})
    kept = kept_draws(xr.DataTree.from_dict({"posterior": posterior}), 30)
    assert set(kept) == {"a"} and kept["a"].shape == (2, 30)
    assert kept_draws(None, 30) == {} and kept_draws(xr.DataTree(), 30) == {}


@pytest.mark.parametrize(("value", "match"), [
    ("-1", r"must lie in \[0, 1000\]"), ("5000", r"must lie in \[0, 1000\]"),
    ("true", "expected an integer"),
])
def test_keep_posteriors_bad_values(value, match):
    from bayescal.study import SpecError

    text = TINY_SPEC + f"keep_posteriors = {value}\n"
    with pytest.raises(SpecError, match=match):
        parse_spec(text)


def test_posteriors_of_bayesian_cells_are_kept_and_plotted(tmp_path, test_estimators_on_path):
    text = TINY_SPEC.replace("sklearn.linear_model.LogisticRegression",
                             f"{test_estimators_on_path}.StuckPosteriorNB").replace(
        "{ C = 0.5 }", "{}") + "keep_posteriors = 20\n"
    spec = parse_spec(text, allow_modules=[test_estimators_on_path])
    tree = run(spec, tmp_path / "store", n_jobs=1, progress=False)
    m = tree["metrics"].to_dataset()
    assert not bool(m["converged"].sel(classifier="lr", scenario="raw").any())
    assert bool(m["converged"].sel(classifier="nb").all())
    assert float(m["rhat_max"].sel(classifier="lr", scenario="raw").min()) > 1.5
    node = open_results(tmp_path / "store")["posteriors/iris/lr/raw/r0_f2/posterior"]
    post = node.to_dataset()
    assert set(post.data_vars) == {"alpha", "beta"}  # "f" is too large to keep
    assert post["beta"].sizes == {"chain": 2, "draw": 20, "beta_dim_0": 3}
    assert "nb" not in tree["posteriors/iris"].children

    from bayescal.report.html import build_report

    page = build_report(tree, tmp_path / "report", progress=False, dpi=30).read_text()
    section = page[page.index("<details class='section' id='posterior-plots'>"):]
    section = section[: section.index("</details>")]
    assert section.count('<svg role="img"') == 2 * 6  # rank and trace plot, every failed cell
    assert "rank plot of iris / lr / raw / fold 2" in section

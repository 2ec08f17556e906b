"""Critical-difference diagram, posterior simplex and the report section."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from bayescal.report.method_comparison import (  # noqa: E402
    _cliques,
    comparison_section,
    plot_critical_difference,
    plot_posterior_simplex,
)
from bayescal.stats.methods import compare_methods  # noqa: E402
from tests.report.cube_factory import make_cube  # noqa: E402


def test_cliques_are_maximal_runs_within_cd():
    ranks = np.array([1.0, 1.5, 2.4, 3.0, 4.1])
    assert _cliques(ranks, 1.0) == [(0, 1), (1, 2), (2, 3)]
    assert _cliques(ranks, 5.0) == [(0, 4)]
    assert _cliques(ranks, 0.1) == []


def test_cd_diagram_from_a_result_draws_names_ranks_and_cd():
    cube = make_cube(datasets=("a", "b", "c", "d"), n_samples=120)
    result = compare_methods(cube, "brier", select={"classifier": "nb"})
    ax = plot_critical_difference(result, ax=Figure().subplots())
    texts = [t.get_text() for t in ax.texts]
    cd = float(result["critical_difference"])
    assert f"CD = {cd:.2f}" in texts
    for name in ("raw", "platt", "isotonic"):
        rank = float(result["mean_rank"].sel(scenario=name))
        assert any(t.strip() == f"{name} ({rank:.2f})" for t in texts)


def test_simplex_places_points_by_barycentric_coordinates():
    samples = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.2, 0.2, 0.6]])
    ax = plot_posterior_simplex(samples, names=("raw", "platt"))
    xy = ax.collections[0].get_offsets()
    h = np.sqrt(3) / 2
    np.testing.assert_allclose(xy, [[0, 0], [0.5, h], [1, 0], [0.2 * 0.5 * 2 / 2 + 0.6,
                                                                0.2 * h]], atol=1e-12)
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "platt better\nP = 0.500" in texts and "raw better\nP = 0.250" in texts


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: plot_critical_difference([1.0], 1.0), "at least 2"),
        (lambda: plot_critical_difference([1.0, np.nan], 1.0), "finite"),
        (lambda: plot_critical_difference([1.0, 2.0], None), "critical_difference"),
        (lambda: plot_critical_difference([1.0, 2.0], 1.0, ["a"]), "names"),
        (lambda: plot_posterior_simplex(np.ones((3, 2))), "n_samples, 3"),
        (lambda: plot_posterior_simplex(np.ones((3, 3))), "summing to 1"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_cd_diagram_needs_a_friedman_result():
    cube = make_cube(datasets=("a", "b", "c"), n_samples=120)
    result = compare_methods(cube, "brier", select={"classifier": "nb"}, test="signed-rank",
                             control="raw", n_samples=500)
    with pytest.raises(ValueError, match="test='friedman'"):
        plot_critical_difference(result)


def test_report_section_has_cd_diagram_and_bayesian_comparison():
    cube = make_cube(datasets=("a", "b", "c"), n_samples=120,
                     applicable={"platt": ("nb",), "isotonic": ("nb",)})
    page = comparison_section(cube, "brier")
    assert page.startswith("<section id='comparison'>")
    assert "<h3>nb</h3>" in page and "<h3>blr</h3>" not in page  # blr has one scenario
    assert page.count('<svg role="img"') == 2
    assert "Caution: only 3 data sets" in page and "Demšar 2006" in page
    assert "friedman on brier" in page and "signed-rank on brier" in page
    assert "P(better)" in page


def test_report_section_explains_a_comparison_that_cannot_run():
    cube = make_cube(datasets=("only",), n_samples=120)
    page = comparison_section(cube, "brier")
    assert "not run (" in page and "at least 2" in page

"""The report's plots draw the right numbers: read back from the matplotlib artists."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402
from matplotlib.collections import LineCollection, PolyCollection  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402
from matplotlib.patches import Polygon  # noqa: E402
from scipy.stats import rankdata  # noqa: E402

from bayescal.metrics import reliability_curve  # noqa: E402
from bayescal.report import (  # noqa: E402
    diagnostics_table,
    plot_calibration_map,
    plot_instance_intervals,
    plot_metric_comparison,
    plot_rank_histogram,
    plot_trace,
    plot_true_vs_predicted,
)
from bayescal.report.cube_figures import (  # noqa: E402
    CubePredictions,
    reliability_grid_figure,
    true_vs_predicted_figure,
)
from bayescal.report.diagnostics import worst_fit  # noqa: E402
from tests.report.cube_factory import make_cube  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _points_and_intervals(ax):
    (container,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    line, _, (segments,) = container.lines
    x, y = line.get_data()
    segs = segments.get_segments()
    return (
        np.asarray(x),
        np.asarray(y),
        np.array([s[0, 1] for s in segs]),
        np.array([s[1, 1] for s in segs]),
    )


def _grid_axes(fig):
    return [ax for ax in fig.axes if ax.containers]


# -- reliability diagrams of a cube ---------------------------------------------------------


def test_perfectly_calibrated_cube_puts_every_point_on_the_diagonal_within_its_interval():
    cube = make_cube(
        datasets=("d",),
        classifiers=("a", "b"),
        scenarios=("raw", "cal"),
        folds=2,
        n_samples=4000,
        bayesian=(),
        perfect=True,
        seed=3,
    )
    preds = CubePredictions.from_cube(cube, "d")
    fig = reliability_grid_figure(preds, n_bins=10, confidence=0.99)
    axes = _grid_axes(fig)
    assert len(axes) == 4  # one panel per classifier x scenario
    for ax in axes:
        x, rate, low, high = _points_and_intervals(ax)
        assert x.size == 10
        # the diagonal (observed = predicted) lies inside every Wilson interval
        assert np.all(low <= x) and np.all(x <= high)
        np.testing.assert_allclose(rate, x, atol=0.05)
    # and the numbers drawn are reliability_curve's on the cube's predictions
    curve = reliability_curve(preds.y, preds.proba[:, 0, 0], 10, confidence=0.99)
    x, rate, low, high = _points_and_intervals(axes[0])
    np.testing.assert_allclose(x, curve.mean_score)
    np.testing.assert_allclose(rate, curve.observed_rate)
    np.testing.assert_allclose(low, curve.ci_lower)
    np.testing.assert_allclose(high, curve.ci_upper)


def test_overconfident_raw_scores_leave_the_diagonal():
    """Control for the test above: a distorted model's intervals miss the diagonal."""
    cube = make_cube(
        datasets=("d",),
        classifiers=("a",),
        scenarios=("raw",),
        folds=2,
        n_samples=4000,
        bayesian=(),
        perfect=False,
        seed=3,
    )
    preds = CubePredictions.from_cube(cube, "d")
    (ax,) = _grid_axes(reliability_grid_figure(preds, confidence=0.99))
    x, _, low, high = _points_and_intervals(ax)
    assert np.sum((x < low) | (x > high)) >= 4


def test_grid_has_panels_only_for_applicable_cells_and_multiclass_uses_top_label():
    cube = make_cube(
        datasets=("d",),
        classifiers=("a", "b"),
        scenarios=("raw", "cal"),
        folds=2,
        n_samples=200,
        bayesian=(),
        applicable={"cal": ("a",)},
    )
    preds = CubePredictions.from_cube(cube, "d")
    fig = reliability_grid_figure(preds)
    axes = _grid_axes(fig)
    assert len(axes) == 3
    # no empty placeholder panel: b's row is shorter, each panel titled with its scenario
    assert not any("not applicable" in t.get_text() or "not run" in t.get_text()
                   for t in fig.texts)
    assert [ax.get_title() for ax in axes] == ["raw", "cal", "raw"]
    assert fig.legends and all(ax.get_legend() is None for ax in axes)  # legend outside data
    # three classes: the top-label diagram of the same figure function
    rng = np.random.default_rng(0)
    P = rng.dirichlet([1, 1, 1], size=150)
    multi = CubePredictions(
        name="m",
        classifiers=["a"],
        scenarios=["raw"],
        class_names=["x", "y", "z"],
        proba=P[:, None, None, :],
        y=rng.integers(0, 3, 150),
        p_true=None,
        interval=None,
        applicable=np.ones((1, 1), bool),
    )
    (ax,) = _grid_axes(reliability_grid_figure(multi, n_bins=5))
    curve = reliability_curve(multi.y, P, 5, kind="top_label")
    _, rate, _, _ = _points_and_intervals(ax)
    np.testing.assert_allclose(rate, curve.observed_rate[curve.nonempty])


# -- calibration maps -----------------------------------------------------------------------


def _band_vertices(ax):
    (poly,) = [c for c in ax.collections if isinstance(c, PolyCollection)]
    verts = poly.get_paths()[0].vertices
    return verts


def _band_bounds(ax, grid):
    """Lower and upper edge of a fill_between band at the grid points."""
    verts = _band_vertices(ax)
    lower = np.array([verts[np.isclose(verts[:, 0], g), 1].min() for g in grid])
    upper = np.array([verts[np.isclose(verts[:, 0], g), 1].max() for g in grid])
    return lower, upper


@pytest.mark.slow
def test_plotted_band_of_a_bayesian_map_equals_map_band():
    from bayescal.probes import calibration_maps

    rng = np.random.default_rng(0)
    s = rng.uniform(0.02, 0.98, 150)
    y = rng.binomial(1, s**1.5)
    cal = calibration_maps.BayesianPlattCalibrator(
        inference="laplace", draws=200, random_state=0
    ).fit(s, y)
    grid = np.linspace(0.01, 0.99, 25)
    ax = plot_calibration_map(cal, grid, prob=0.8)
    mean, lower, upper = cal.map_band(grid, prob=0.8)
    np.testing.assert_allclose(ax.lines[0].get_xdata(), grid)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), mean)
    lo, hi = _band_bounds(ax, grid)
    np.testing.assert_allclose(lo, lower)
    np.testing.assert_allclose(hi, upper)
    assert np.any(upper - lower > 0.02)  # a real band, not a line


def test_plotted_band_of_bayesian_binning_equals_its_predict_interval():
    from bayescal.probes import BBQCalibrator

    rng = np.random.default_rng(1)
    s = rng.uniform(0, 1, 300)
    y = rng.binomial(1, s)
    cal = BBQCalibrator(random_state=0).fit(s, y)
    grid = np.linspace(0.0, 1.0, 41)
    ax = plot_calibration_map({"bbq": cal}, grid, prob=0.9, reference=grid)
    band = cal.predict_interval(grid, 0.9)[:, 1]
    np.testing.assert_allclose(ax.lines[0].get_ydata(), cal.predict_proba(grid)[:, 1])
    lo, hi = _band_bounds(ax, grid)
    np.testing.assert_allclose(lo, band[:, 0])
    np.testing.assert_allclose(hi, band[:, 1])
    ref = [ln for ln in ax.lines if ln.get_label() == "reference probe"]
    np.testing.assert_allclose(ref[0].get_ydata(), grid)


def test_frequentist_map_and_precomputed_values():
    from bayescal.calibration import IsotonicCalibrator

    rng = np.random.default_rng(2)
    s = rng.uniform(0, 1, 200)
    y = rng.binomial(1, s)
    iso = IsotonicCalibrator().fit(s, y)
    grid = np.linspace(0, 1, 11)
    ax = plot_calibration_map({"iso": iso, "given": grid**2}, grid)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), iso.predict_proba(grid)[:, 1])
    np.testing.assert_allclose(ax.lines[1].get_ydata(), grid**2)
    assert not [c for c in ax.collections if isinstance(c, PolyCollection)]  # no band
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[:2] == ["iso", "given"]


# -- true against predicted probability -----------------------------------------------------


def test_true_vs_predicted_points_and_rmse():
    rng = np.random.default_rng(4)
    p = rng.uniform(size=50)
    q = np.clip(p + rng.normal(0, 0.1, 50), 0, 1)
    ax = plot_true_vs_predicted(p, np.column_stack([1 - q, q]), label="m")
    np.testing.assert_allclose(ax.collections[0].get_offsets(), np.column_stack([p, q]))
    rmse = np.sqrt(np.mean((q - p) ** 2))
    assert ax.get_legend().get_texts()[0].get_text() == f"m: RMSE {rmse:.3f}"
    ax2 = plot_true_vs_predicted(p, q, max_points=10)
    shown = ax2.collections[0].get_offsets()
    assert shown.shape == (10, 2)
    assert set(map(tuple, np.asarray(shown))) <= set(zip(p, q, strict=True))


def test_true_vs_predicted_grid_of_a_cube():
    cube = make_cube(
        datasets=("d",),
        classifiers=("a",),
        scenarios=("raw", "cal"),
        folds=2,
        n_samples=120,
        bayesian=(),
    )
    preds = CubePredictions.from_cube(cube, "d")
    fig = true_vs_predicted_figure(preds)
    axes = [ax for ax in fig.axes if ax.collections]
    assert len(axes) == 2
    np.testing.assert_allclose(
        axes[1].collections[0].get_offsets(),
        np.column_stack([preds.p_true, preds.proba[:, 0, 1, 1]]),
    )


# -- metric comparison ----------------------------------------------------------------------


def test_metric_comparison_draws_every_fold_value():
    cube = make_cube(
        datasets=("d", "e"),
        classifiers=("a", "b"),
        scenarios=("raw", "cal"),
        folds=4,
        n_samples=200,
        bayesian=(),
        applicable={"cal": ("a",)},
    )
    ax = plot_metric_comparison(cube, "brier", dataset="e")
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["a / raw", "a / cal", "b / raw"]
    m = cube["metrics"].to_dataset()["brier"].sel(dataset="e")
    for k, (clf, scen) in enumerate([("a", "raw"), ("a", "cal"), ("b", "raw")]):
        drawn = ax.collections[k].get_offsets()[:, 1]
        np.testing.assert_allclose(drawn, m.sel(classifier=clf, scenario=scen).values)
    ax1 = plot_metric_comparison(
        cube["metrics"].to_dataset(), "accuracy", dataset="d", classifier="b"
    )
    assert [t.get_text() for t in ax1.get_xticklabels()] == ["raw"]
    assert "higher is better" in ax1.get_ylabel()


# -- per-instance intervals and diagnostics -------------------------------------------------


def test_instance_intervals_draw_the_given_bounds():
    mean = np.array([0.1, 0.4, 0.8])
    interval = np.array([[0.05, 0.2], [0.3, 0.5], [0.6, 0.85]])
    ax = plot_instance_intervals(interval, mean, others={"x": [0.5, 0.5, 0.5]}, y=[0, 1, 1])
    (segments,) = [c for c in ax.collections if isinstance(c, LineCollection)]
    segs = np.array(segments.get_segments())
    np.testing.assert_allclose(segs[:, 0, 1], interval[:, 0])
    np.testing.assert_allclose(segs[:, 1, 1], interval[:, 1])
    np.testing.assert_allclose(segs[:, 0, 0], [0, 1, 2])


def _posterior(shift: float, seed: int = 0) -> xr.DataTree:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(2, 400))
    a[1] += shift  # chain 1 samples somewhere else when shift != 0
    b = rng.normal(size=(2, 400, 3))
    post = xr.Dataset({"a": (("chain", "draw"), a), "b": (("chain", "draw", "k"), b)})
    stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros((2, 400), bool))})
    return xr.DataTree.from_dict({"posterior": post, "sample_stats": stats})


def _step_heights(patch, n_bins):
    return patch.get_xy()[1 : 2 * n_bins : 2, 1]


def test_rank_histogram_counts_are_the_pooled_ranks_per_chain():
    idata = _posterior(shift=1.5)
    ax = plot_rank_histogram(idata, n_bins=10)  # default: the variable with the worst R-hat
    assert "Rank histogram: a" in ax.get_title()
    a = idata["posterior"]["a"].values
    ranks = rankdata(a.ravel()).reshape(a.shape)
    edges = np.linspace(0.5, a.size + 0.5, 11)
    steps = [p for p in ax.patches if isinstance(p, Polygon)]
    assert len(steps) == 2
    for chain, patch in enumerate(steps):
        np.testing.assert_allclose(_step_heights(patch, 10), np.histogram(ranks[chain], edges)[0])
    # the shifted chain holds the high ranks: far outside the uniform band
    assert _step_heights(steps[1], 10)[-1] > 70


def test_trace_plot_is_an_arviz_figure():
    fig = plot_trace(_posterior(shift=0.0), var_names=["a"])
    assert fig.axes and all(ax.lines for ax in fig.axes[:1])


def test_diagnostics_table_flags_failed_fits_and_finds_the_worst():
    cube = make_cube(
        datasets=("d",), classifiers=("nb", "blr"), folds=3, n_samples=90, failed_diagnostics=True
    )
    table = diagnostics_table(cube)
    assert len(table) == 3  # blr / raw on three folds; nb is not Bayesian
    assert set(table["classifier"]) == {"blr"}
    assert table["failed"].tolist() == [True, False, False]
    assert "max R-hat 1.200 > 1.01" in table.loc[0, "failures"]
    assert "3 divergent transitions" in table.loc[0, "failures"]
    assert worst_fit(table)["fold"] == 0


# -- bad input ------------------------------------------------------------------------------


def _bad_calls():
    cube = make_cube(
        datasets=("d",), classifiers=("a",), scenarios=("raw",), folds=2, n_samples=40, bayesian=()
    )
    grid = np.linspace(0, 1, 5)
    return [
        (lambda: plot_calibration_map(grid, np.linspace(0, 2, 5)), ValueError, "grid"),
        (lambda: plot_calibration_map(grid[:3], grid), ValueError, "has 3 values"),
        (lambda: plot_calibration_map({}, grid), ValueError, "empty mapping"),
        (lambda: plot_calibration_map("platt", grid), TypeError, "fitted calibrator"),
        (lambda: plot_calibration_map(grid, grid, prob=1.5), ValueError, "prob"),
        (lambda: plot_calibration_map(grid + 0.5, grid), ValueError, "mean"),
        (lambda: plot_true_vs_predicted([0.1, 0.2], [0.1]), ValueError, "inconsistent numbers"),
        (lambda: plot_true_vs_predicted([0.1], [[0.2, 0.3, 0.5]]), ValueError, "3 classes"),
        (lambda: plot_true_vs_predicted([1.2], [0.5]), ValueError, "p_true"),
        (lambda: plot_metric_comparison(cube, "nope", dataset="d"), ValueError, "metric"),
        (lambda: plot_metric_comparison(cube, "brier", dataset="x"), ValueError, "dataset"),
        (
            lambda: plot_metric_comparison(cube, "brier", dataset="d", classifier="z"),
            ValueError,
            "classifier",
        ),
        (lambda: plot_metric_comparison([1, 2], "brier", dataset="d"), TypeError, "cube"),
        (lambda: plot_rank_histogram(_posterior(0.0), "zz"), ValueError, "var_name"),
        (lambda: plot_rank_histogram(xr.DataTree(), None), ValueError, "posterior"),
        (lambda: plot_rank_histogram(_posterior(0.0), n_bins=0), ValueError, "n_bins"),
        (lambda: plot_instance_intervals([[0.5, 0.2]], [0.3]), ValueError, "lower bound"),
        (lambda: plot_instance_intervals([[0.1, 0.2]], [0.3, 0.4]), ValueError, "shape"),
        (
            lambda: plot_instance_intervals([[0.1, 0.2]], [0.15], others={"o": [0.1, 0.2]}),
            ValueError,
            r"expected \(1,\)",
        ),
    ]


@pytest.mark.parametrize("case", range(19))
def test_bad_input_is_rejected_with_a_message(case):
    call, error, match = _bad_calls()[case]
    with pytest.raises(error, match=match):
        call()


def test_importing_the_report_package_does_not_import_matplotlib():
    import subprocess
    import sys

    code = (
        "import sys, bayescal.report; "
        "print(any(m.split('.')[0] in ('matplotlib', 'pandas', 'xarray', 'pymc') "
        "for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_calibration_map_figure_draws_each_scenario_and_the_probe_reference():
    from bayescal.report.cube_figures import calibration_map_figure

    cube = make_cube(
        datasets=("d",),
        classifiers=("nb", "blr"),
        scenarios=("raw", "cal"),
        folds=2,
        n_samples=80,
        applicable={"cal": ("nb",)},
    )
    preds = CubePredictions.from_cube(cube, "d")
    fig = calibration_map_figure(preds, raw=0, probe=1)
    (ax,) = fig.axes  # blr has no calibrated scenario: no panel of its own
    order = np.argsort(preds.proba[:, 0, 0, 1], kind="stable")
    cal, ref = ax.lines[0], [ln for ln in ax.lines if ln.get_label() == "reference probe blr"][0]
    np.testing.assert_allclose(cal.get_xdata(), preds.proba[order, 0, 0, 1])
    np.testing.assert_allclose(cal.get_ydata(), preds.proba[order, 0, 1, 1])
    np.testing.assert_allclose(ref.get_xdata(), preds.proba[:, 0, 0, 1])
    np.testing.assert_allclose(ref.get_ydata(), preds.proba[:, 1, 0, 1])
    assert ref.get_marker() == "x"
    assert calibration_map_figure(preds, raw=0, probe=None) is not None
    only_raw = CubePredictions.from_cube(make_cube(scenarios=("raw",), n_samples=30), "alpha")
    assert calibration_map_figure(only_raw, raw=0) is None

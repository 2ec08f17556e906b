"""Pictures of comparisons across datasets, and their section of the HTML report.

- :func:`plot_critical_difference`: Demšar's critical-difference diagram of
  mean ranks, with the methods that Nemenyi's test cannot tell apart joined
  by a bar;
- :func:`plot_posterior_simplex`: posterior samples of the probabilities
  (left, rope, right) of a Bayesian comparison in barycentric coordinates, as
  Benavoli et al. (2017) and baycomp draw them;
- :func:`comparison_section`: the report section built from
  :func:`bayescal.stats.methods.compare_methods`.

Both plots take an optional matplotlib ``ax`` and return it.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np

__all__ = ["comparison_section", "plot_critical_difference", "plot_posterior_simplex"]


def _cliques(ranks: np.ndarray, cd: float) -> list[tuple[int, int]]:
    """Maximal runs (in rank order) whose rank range is within ``cd``; as (first, last)."""
    order = np.sort(ranks)
    runs = []
    for i in range(len(order)):
        j = i
        while j + 1 < len(order) and order[j + 1] - order[i] <= cd:
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in runs):
            runs.append((i, j))
    return runs


def plot_critical_difference(
    mean_ranks: Any,
    critical_difference: float | None = None,
    names: Any = None,
    *,
    ax: Any = None,
) -> Any:
    """Draw a critical-difference diagram (Demšar 2006, Fig. 1).

    Parameters
    ----------
    mean_ranks : array-like of shape (k,) or xarray.Dataset
        Mean rank of each method (1 = best), or a
        :func:`~bayescal.stats.methods.compare_methods` result with
        ``test="friedman"`` (then ``critical_difference`` and ``names`` come
        from it).
    critical_difference : float
        Nemenyi's critical difference (see
        :func:`bayescal.stats.posthoc.critical_difference`).
    names : sequence of str, optional
        Method names (default ``"method 0"``, ...).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ValueError
        For fewer than 2 methods, non-finite ranks or a missing/negative CD.

    Notes
    -----
    The axis runs from rank 1 (best, left) to k. Each method hangs from its
    mean rank, the better half labelled on the left, the rest on the right.
    The bar labelled CD has the critical difference's length; thick bars join
    groups of methods whose mean ranks differ by at most the CD, i.e. that the
    Nemenyi test does not separate.

    Examples
    --------
    >>> ax = plot_critical_difference([1.4, 2.1, 2.9, 3.6], 1.25,
    ...                               ["platt", "beta", "isotonic", "raw"])
    """
    import xarray as xr

    if isinstance(mean_ranks, xr.Dataset):
        result = mean_ranks
        if "critical_difference" not in result:
            raise ValueError(
                "the comparison has no critical difference; use compare_methods(test='friedman')."
            )
        dim = result.attrs.get("method_dim", result["mean_rank"].dims[0])
        mean_ranks = result["mean_rank"].values
        critical_difference = float(result["critical_difference"])
        names = [str(v) for v in result[dim].values]
    ranks = np.asarray(mean_ranks, dtype=float)
    if ranks.ndim != 1 or ranks.size < 2 or not np.isfinite(ranks).all():
        raise ValueError(
            f"`mean_ranks` must be a 1-D array of at least 2 finite ranks; got {mean_ranks!r}."
        )
    if critical_difference is None or not np.isfinite(critical_difference) or (
        critical_difference < 0
    ):
        raise ValueError(
            f"`critical_difference` must be a finite number >= 0; got {critical_difference!r}."
        )
    k = ranks.size
    names = [f"method {i}" for i in range(k)] if names is None else [str(n) for n in names]
    if len(names) != k:
        raise ValueError(f"`names` has {len(names)} entries for {k} methods.")
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(6.4, 1.2 + 0.3 * k)).subplots()
    order = np.argsort(ranks, kind="stable")
    half = (k + 1) // 2
    depth = 0.35 * (half + 1)
    ax.set_xlim(0.5 - 0.25 * k, k + 0.5 + 0.25 * k)
    ax.set_ylim(-depth - 0.2, 1.0)
    ax.hlines(0, 1, k, color="black", linewidth=1)
    for r in range(1, k + 1):
        ax.vlines(r, 0, 0.08, color="black", linewidth=1)
        ax.text(r, 0.12, str(r), ha="center", va="bottom", fontsize=8)
    for pos, idx in enumerate(order):
        left = pos < half
        level = -0.3 * ((pos if left else k - 1 - pos) + 1)
        end = 1 - 0.1 * k if left else k + 0.1 * k
        ax.plot([ranks[idx], ranks[idx], end], [0, level, level], color="black", linewidth=0.8)
        ax.text(end, level, f"{names[idx]} ({ranks[idx]:.2f}) " if left else
                f" {names[idx]} ({ranks[idx]:.2f})", ha="right" if left else "left",
                va="center", fontsize=8)
    ax.plot([1, 1 + critical_difference], [0.6, 0.6], color="black", linewidth=1.5)
    ax.text(1 + critical_difference / 2, 0.66, f"CD = {critical_difference:.2f}", ha="center",
            va="bottom", fontsize=8)
    sorted_ranks = ranks[order]
    for n, (i, j) in enumerate(_cliques(ranks, critical_difference)):
        y = -0.1 - 0.08 * n
        ax.plot([sorted_ranks[i] - 0.03, sorted_ranks[j] + 0.03], [y, y], color="tab:red",
                linewidth=3, solid_capstyle="round")
    ax.set_axis_off()
    return ax


def plot_posterior_simplex(
    samples: Any,
    *,
    names: tuple[str, str] = ("control", "method"),
    ax: Any = None,
    max_points: int = 5000,
    random_state: Any = 0,
) -> Any:
    """Draw posterior samples of (P(left), P(rope), P(right)) in a triangle.

    Parameters
    ----------
    samples : array-like of shape (n_samples, 3)
        Rows of probabilities (left, rope, right) summing to 1, e.g.
        ``BayesianComparisonResult.samples`` or a
        :func:`~bayescal.stats.methods.compare_methods` result's
        ``samples.sel(<method_dim>=name)``.
    names : tuple of str, default=("control", "method")
        Labels of the left and right corners (who is better there).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    max_points : int, default=5000
        Samples drawn at most (a random subset beyond).
    random_state : None or int, default=0
        Seed of that subset.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ValueError
        If ``samples`` is not ``(n, 3)`` with finite rows summing to 1.

    Notes
    -----
    A sample (l, e, r) is drawn at :math:`l A + e B + r C` with the corners
    A = (0, 0) ("left": the first name better), C = (1, 0) ("right") and
    B = (1/2, √3/2) ("rope": practically equivalent). The thin lines from
    the centre to the edges split the triangle into the three regions where
    that outcome is the most probable; the share of points in each region is
    the reported posterior probability (Benavoli et al. 2017, Fig. 7).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> ax = plot_posterior_simplex(rng.dirichlet([2, 5, 3], size=500))
    """
    arr = np.asarray(samples, dtype=float)
    if arr.ndim != 2 or arr.shape[1] != 3 or arr.shape[0] == 0:
        raise ValueError(f"`samples` must have shape (n_samples, 3); got {arr.shape}.")
    if not np.isfinite(arr).all() or not np.allclose(arr.sum(axis=1), 1.0, atol=1e-6):
        raise ValueError(
            "`samples` rows must be finite probabilities (left, rope, right) summing to 1."
        )
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(4.2, 3.9)).subplots()
    if arr.shape[0] > max_points:
        rng = np.random.default_rng(random_state)
        shown = arr[rng.choice(arr.shape[0], max_points, replace=False)]
    else:
        shown = arr
    h = np.sqrt(3) / 2
    corners = np.array([[0.0, 0.0], [0.5, h], [1.0, 0.0]])
    xy = shown @ corners
    winners = np.argmax(arr, axis=1)
    share = np.bincount(winners, minlength=3) / arr.shape[0]
    colours = np.array(["tab:blue", "tab:gray", "tab:orange"])
    ax.scatter(xy[:, 0], xy[:, 1], s=3, alpha=0.25, c=colours[np.argmax(shown, axis=1)],
               linewidths=0)
    ax.plot([0, 0.5, 1, 0], [0, h, 0, 0], color="black", linewidth=1)
    centre = corners.mean(axis=0)
    for a, b in ((0, 1), (1, 2), (0, 2)):
        mid = (corners[a] + corners[b]) / 2
        ax.plot([centre[0], mid[0]], [centre[1], mid[1]], color="black", linewidth=0.5,
                linestyle=":")
    labels = (f"{names[0]} better\nP = {share[0]:.3f}", f"equivalent (ROPE)\nP = {share[1]:.3f}",
              f"{names[1]} better\nP = {share[2]:.3f}")
    for (x, y), text, ha, va in zip(corners, labels, ("right", "center", "left"),
                                    ("top", "bottom", "top"), strict=True):
        ax.text(x, y + (0.03 if va == "bottom" else -0.03), text, ha=ha, va=va, fontsize=8)
    ax.set_xlim(-0.3, 1.3)
    ax.set_ylim(-0.2, h + 0.2)
    ax.set_aspect("equal")
    ax.set_axis_off()
    return ax


def _spec_comparisons(tree: Any) -> tuple[list[str], str | None, float]:
    """Tests, control and ROPE of the report section, from the layout stored in the cube."""
    from bayescal.cube import cube_layout
    from bayescal.stats.methods import METHOD_TESTS

    try:
        layout = cube_layout(tree)
        tests, baseline, rope = layout.tests, layout.baseline, layout.rope
    except ValueError:  # a cube not written by bayescal.study
        tests, baseline, rope = (), None, 0.01
    named = [t for t in tests if t in METHOD_TESTS]
    names = named or ["friedman", "signed-rank"]
    if "friedman" not in names:
        names.insert(0, "friedman")
    return names, baseline, float(rope)


def comparison_section(tree: Any, metric: str, *, dpi: int = 150) -> str:
    """The HTML section "Comparison across datasets" of the report.

    For each classifier with at least two applicable scenarios: a
    critical-difference diagram of the scenarios' mean ranks on ``metric``
    (Friedman-Nemenyi) and, for each Bayesian test the spec's ``[tests]``
    names (default: the signed-rank test) against the spec's baseline (else
    ``raw``), a simplex plot of the best-ranked other scenario and a table of
    every scenario's P(worse / equivalent / better). A comparison that cannot
    run (fewer than 2 datasets, missing or unconverged cells) is reported as
    a note with the reason. Below 5 data sets the section opens with
    Demšar's (2006) caution that the verdicts describe these data sets only.

    Parameters
    ----------
    tree : xarray.DataTree
        The result cube.
    metric : str
        The metric compared.
    dpi : int, default=150
        Resolution of the rasterised parts of the figures (inline SVG).

    Returns
    -------
    str
        HTML (every string from the cube escaped).
    """
    from bayescal.report._embed import img_tag as _img
    from bayescal.report.method_tables import (
        applicable_methods,
        comparison_frame,
        comparison_summary,
        few_datasets_caution,
    )
    from bayescal.stats.methods import compare_methods

    esc = html.escape
    ds = tree["metrics"].to_dataset()
    tests, control, rope = _spec_comparisons(tree)
    scenarios = ds["scenario"].values.tolist()
    if control not in scenarios:
        control = "raw" if "raw" in scenarios else scenarios[0]
    body: list[str] = []
    cautioned = False
    for clf in ds["classifier"].values.tolist():
        methods = applicable_methods(ds, clf)
        if len(methods) < 2:
            continue
        body.append(f"<h3>{esc(str(clf))}</h3>")
        for test in tests:
            kwargs = {"control": control} if test != "friedman" or control in methods else {}
            try:
                result = compare_methods(tree, metric, methods=methods, test=test, rope=rope,
                                         select={"classifier": clf}, n_samples=20000, **kwargs)
            except ValueError as exc:
                body.append(f"<p class='note'>{esc(test)}: not run ({esc(str(exc))})</p>")
                continue
            body.append(f"<p>{esc(comparison_summary(result))}</p>")
            caution = few_datasets_caution(result.sizes["dataset"])
            if caution and not cautioned:
                body.insert(0, f"<p class='caution'>⚠ {esc(caution[0].upper() + caution[1:])}"
                               "</p>")
                cautioned = True
            if test == "friedman":
                ax = plot_critical_difference(result)
            elif "samples" in result:
                others = [m for m in methods if m != control]
                best = min(others, key=lambda m: float(result["mean_rank"].sel(scenario=m)))
                ax = plot_posterior_simplex(result["samples"].sel(scenario=best).values,
                                            names=(str(control), str(best)))
                ax.set_title(f"{best} against {control}", fontsize=9)
            else:
                ax = None
            figure = "" if ax is None else _img(ax.figure, f"{test} comparison of {clf}", dpi)
            frame = comparison_frame(result)
            body.append("<div class='pair'>" + figure + "<div class='scroll'>"
                        + frame.to_html(float_format=lambda v: f"{v:.4f}") + "</div></div>")
    if not body:
        body.append("<p class='note'>No classifier has two scenarios to compare.</p>")
    text = (
        f"Scenarios of each classifier compared across the datasets on <i>{esc(metric)}</i>. "
        "Critical-difference diagram (Demšar 2006): mean ranks (1 = best); scenarios joined by "
        "a red bar are not separated by the Nemenyi test at the CD shown. Bayesian comparisons "
        "(Benavoli et al. 2017) give the posterior probability that a scenario is practically "
        f"worse than, equivalent to (within ±{rope:g}), or better than <i>{esc(str(control))}"
        "</i>; the triangle shows the posterior samples of these three probabilities."
    )
    return (
        f"<section id='comparison'><h2>Comparison across datasets</h2><p class='note'>{text}</p>"
        + "".join(body)
        + "</section>"
    )

"""Plain tables of method comparisons across datasets, and when to caution about them.

:func:`comparison_frame` and :func:`comparison_summary` turn a
:func:`bayescal.stats.methods.compare_methods` result into a table and a line;
:func:`applicable_methods` says which scenarios ran for a classifier;
:func:`few_datasets_caution` words the caution for fewer than
:data:`MIN_DATASETS` data sets. Used by ``bayescal compare``
(:mod:`bayescal.cli.compare`) and the report's comparison section.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MIN_DATASETS", "applicable_methods", "comparison_frame", "comparison_summary",
           "few_datasets_caution"]

#: Fewer data sets than this and a cross-dataset verdict is only descriptive
#: (Demšar 2006 asks for "a sufficient number" of data sets; the Friedman
#: statistic's chi-square and F approximations and the Wilcoxon and Bayesian
#: signed-rank tests have almost no power with 2-4).
MIN_DATASETS = 5


def few_datasets_caution(n_datasets: int) -> str | None:
    """The caution printed with a comparison across fewer than :data:`MIN_DATASETS` data sets.

    Parameters
    ----------
    n_datasets : int
        Data sets the comparison used.

    Returns
    -------
    str or None
        One sentence, or None from :data:`MIN_DATASETS` data sets on.

    References
    ----------
    J. Demšar (2006). Statistical comparisons of classifiers over multiple
    data sets. Journal of Machine Learning Research 7, 1-30.
    """
    if n_datasets >= MIN_DATASETS:
        return None
    return (
        f"caution: only {n_datasets} data set{'s' if n_datasets != 1 else ''}; a comparison "
        f"across data sets needs at least {MIN_DATASETS} to mean much (Demšar 2006, "
        "'Statistical comparisons of classifiers over multiple data sets'): with fewer, "
        "ranks and p-values describe these data sets only, and the tests have little power."
    )


def applicable_methods(metrics: Any, classifier: Any) -> list[Any]:
    """The scenarios that run for ``classifier`` (all when the cube does not say)."""
    scenarios = metrics["scenario"].values.tolist()
    if "applicable" not in metrics:
        return scenarios
    flags = metrics["applicable"].sel(classifier=classifier).values.tolist()
    return [s for s, ok in zip(scenarios, flags, strict=True) if ok]


def comparison_frame(result: Any) -> Any:
    """One row per method of a :func:`~bayescal.stats.methods.compare_methods` result.

    Parameters
    ----------
    result : xarray.Dataset
        The comparison.

    Returns
    -------
    pandas.DataFrame
        Mean score and mean rank; the Holm-corrected Wilcoxon p-value against
        the control (Friedman with a control); P(worse), P(equivalent),
        P(better) and the mean improvement against the control (Bayesian
        tests; the correlated t-test averages its per-dataset probabilities).
    """
    import pandas as pd

    dim = result.attrs["method_dim"]
    frame = pd.DataFrame(
        {
            f"mean {result.attrs['metric']}": result["score"].mean("dataset").values,
            "mean rank": result["rank"].mean("dataset").values,
        },
        index=pd.Index(result[dim].values, name=dim),
    )
    if "wilcoxon_p_value_holm" in result:
        frame[f"Holm p vs {result.attrs['control']}"] = result["wilcoxon_p_value_holm"].values
    if "p_left" in result:
        reduce = ["dataset"] if "dataset" in result["p_left"].dims else []
        for name, label in (("p_left", "P(worse)"), ("p_rope", "P(equivalent)"),
                            ("p_right", "P(better)"), ("mean_difference", "improvement")):
            frame[label] = result[name].mean(reduce).values if reduce else result[name].values
    if "rhat_max" in result:
        frame["R-hat"] = result["rhat_max"].values
    return frame


def comparison_summary(result: Any) -> str:
    """One line saying what was tested, on how many datasets, and the global statistics."""
    a = result.attrs
    n, k = result.sizes["dataset"], result.sizes[a["method_dim"]]
    direction = "lower" if a["lower_is_better"] else "higher"
    head = f"{a['test']} on {a['metric']} ({direction} is better), {k} methods x {n} datasets"
    if a["test"] == "friedman":
        head += (
            f"; Friedman chi2 = {float(result['statistic']):.3f} (p = {float(result['p_value']):.3g}),"
            f" Iman-Davenport F = {float(result['f_statistic']):.3f} "
            f"(p = {float(result['f_p_value']):.3g}); Nemenyi CD = "
            f"{float(result['critical_difference']):.3f} at alpha = {a['alpha']}"
        )
    else:
        head += (
            f"; against {a['control']!r} with ROPE +-{a['rope']:g}: improvement > ROPE is "
            "'better'"
        )
        if a["test"] == "correlated-t":
            head += " (probabilities averaged over datasets)"
    if a["excluded_datasets"]:
        head += f"; excluded datasets: {', '.join(a['excluded_datasets'])}"
    return head

"""``bayescal compare``: compare a study's scenarios across its datasets.

``bayescal compare STORE --metric brier [--test friedman|correlated-t|signed-rank|
hierarchical] [--rope 0.01] [--control raw]`` compares the scenarios of each
classifier of a study across its datasets with
:func:`bayescal.stats.methods.compare_methods` and prints one plain-text table
per classifier (:mod:`bayescal.report.method_tables`). A classifier with fewer
than two applicable scenarios is listed as skipped (e.g. a reference probe run
only ``raw``). Heavy modules are imported inside the command so
``bayescal --help`` stays fast.
"""

from __future__ import annotations

import click

__all__ = ["compare_command"]


@click.command("compare")
@click.argument("store", type=click.Path(exists=True, file_okay=False))
@click.option("--metric", "-m", default="brier", show_default=True, help="Metric to compare.")
@click.option(
    "--test",
    "test",
    type=click.Choice(["friedman", "correlated-t", "signed-rank", "hierarchical"]),
    default="friedman",
    show_default=True,
    help="Friedman + Nemenyi (+ Holm-Wilcoxon with --control), or a Bayesian test.",
)
@click.option("--rope", type=float, default=0.01, show_default=True,
              help="Half-width of the region of practical equivalence (metric units).")
@click.option("--control", default=None,
              help="Scenario the others are tested against [Bayesian tests: default 'raw'].")
@click.option("--classifier", "classifiers", multiple=True,
              help="Only this classifier (repeatable) [default: every classifier].")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="Level of Nemenyi's critical difference.")
@click.option("--missing", type=click.Choice(["raise", "drop_datasets"]), default="raise",
              show_default=True, help="NaN cells: stop, or leave out their datasets.")
@click.option("--unconverged", type=click.Choice(["raise", "missing", "keep"]),
              default="raise", show_default=True,
              help="Cells whose posterior failed its diagnostics.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the signed-rank samples and the hierarchical sampler.")
@click.option("--tune", type=click.IntRange(min=1), default=None,
              help="Hierarchical test: NUTS tuning steps per chain [default: 1000].")
@click.option("--draws", type=click.IntRange(min=1), default=None,
              help="Hierarchical test: NUTS draws per chain [default: 2000].")
@click.option("--target-accept", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=None,
              help="Hierarchical test: NUTS target acceptance rate; raise it (e.g. 0.99) "
                   "when the sampler reports divergences [default: 0.98].")
def compare_command(store: str, metric: str, test: str, rope: float, control: str | None,
                    classifiers: tuple[str, ...], alpha: float, missing: str, unconverged: str,
                    seed: int, tune: int | None, draws: int | None,
                    target_accept: float | None) -> None:
    """Compare the scenarios of each classifier in STORE across its datasets.

    Fewer than 5 data sets print a caution (Demšar 2006): the verdict then
    describes these data sets only. The hierarchical test samples with NUTS;
    --tune, --draws and --target-accept set its sampler when it warns of
    divergences or low effective sample sizes.
    """
    import warnings

    from bayescal.cube import open_results
    from bayescal.report.method_tables import (
        applicable_methods,
        comparison_frame,
        comparison_summary,
        few_datasets_caution,
    )
    from bayescal.stats.methods import compare_methods

    try:
        tree = open_results(store)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    metrics = tree["metrics"].to_dataset()
    sampler = {k: v for k, v in (("tune", tune), ("draws", draws),
                                 ("target_accept", target_accept)) if v is not None}
    if sampler and test != "hierarchical":
        raise click.BadParameter(
            f"{', '.join('--' + k.replace('_', '-') for k in sampler)} only apply to "
            f"--test hierarchical (got --test {test}).", param_hint="--test")
    if test != "friedman" and control is None:
        control = "raw"
    chosen = list(classifiers) or metrics["classifier"].values.tolist()
    unknown = [c for c in chosen if c not in metrics["classifier"].values]
    if unknown:
        raise click.ClickException(
            f"--classifier {unknown!r} not in the study; known: "
            f"{metrics['classifier'].values.tolist()!r}"
        )
    for clf in chosen:
        methods = applicable_methods(metrics, clf)
        click.echo(f"\nclassifier {clf}:")
        if len(methods) < 2:
            click.echo(f"  skipped: only {methods!r} applies to it")
            continue
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = compare_methods(
                    tree, metric, methods=methods, test=test, control=control,
                    select={"classifier": clf}, rope=rope, alpha=alpha, missing=missing,
                    unconverged=unconverged, random_state=seed,
                    hierarchical_options=sampler or None)
        except (ValueError, TypeError) as exc:
            raise click.ClickException(f"classifier {clf!r}: {exc}") from None
        for w in caught:
            click.echo(f"  warning: {w.message}")
        click.echo(comparison_summary(result))
        caution = few_datasets_caution(result.sizes["dataset"])
        if caution:
            click.echo(f"  {caution}")
        click.echo(comparison_frame(result).to_string(float_format=lambda v: f"{v:.4f}"))

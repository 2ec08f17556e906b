"""``bayescal report``: the self-contained HTML report of a study store.

The report builder and matplotlib are imported when the command runs, so
``bayescal --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["report_command"]


@click.command("report")
@click.argument("store", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("bayescal-report"),
    show_default=True,
    help="Directory for report.html (created if missing).",
)
@click.option(
    "--metric",
    "-m",
    "metrics",
    multiple=True,
    help="Metric to tabulate (repeatable) [default: every metric of the cube].",
)
@click.option(
    "--dpi",
    type=click.IntRange(min=10),
    default=150,
    show_default=True,
    help="Resolution of the rasterised parts of the figures (point clouds); text, axes "
    "and lines are vector (inline SVG).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def report_command(
    store: Path, out_dir: Path, metrics: tuple[str, ...], dpi: int, quiet: bool
) -> None:
    """Write the HTML report of the study in STORE to OUT/report.html.

    The page is self-contained (figures embedded, nothing loaded from the
    network): open it in any browser, or send the single file.
    """
    import matplotlib

    matplotlib.use("Agg")
    from bayescal.cube import open_results
    from bayescal.report.html import build_report

    try:
        tree = open_results(store)
        path = build_report(
            tree, out_dir, metrics=list(metrics) or None, progress=not quiet, dpi=dpi
        )
    except (ValueError, TypeError, OSError) as exc:
        raise click.ClickException(" ".join(str(exc).split())) from None
    click.echo(f"wrote {path}")

"""``bayescal datasets``: the table of available datasets."""

from __future__ import annotations

from pathlib import Path

import click

from bayescal.cli._options import data_dir_option

__all__ = ["datasets_command"]


@click.command("datasets")
@data_dir_option
def datasets_command(data_dir: Path | None) -> None:
    """List the available datasets: name, samples, features, classes, source."""
    from bayescal.datasets import list_datasets

    try:
        table = list_datasets(data_dir)
    except (ValueError, TypeError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(table.to_string(index=False))

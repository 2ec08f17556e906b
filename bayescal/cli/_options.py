"""Options shared by several commands."""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["data_dir_option"]

#: ``--data-dir`` of the ``datasets`` and ``reliability`` commands.
data_dir_option = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, dir_okay=True, path_type=Path),
    default=None,
    help="Directory of CSV/TSV(.gz) data files (default: $BAYESCAL_DATA).",
)

"""``bayescal reproduce``: list the reproductions, or run one and compare it with its paper.

``bayescal reproduce --list`` prints every reproduction (id, the paper by
author, year and title, its tables, whether it reads the data directory, the
measured quick and full run times).
``bayescal reproduce ID [--full] [--out DIR] [--data-dir DIR] [--strict]`` runs
it with :func:`bayescal.reproduce.runner.run_reproduction`. The exit status
says whether it ran; ``--strict`` makes a verdict other than ``reproduced`` an
error (status 1).
"""

from __future__ import annotations

import os
from pathlib import Path

import click

__all__ = ["reproduce_command"]


@click.command("reproduce")
@click.argument("reproduction_id", required=False)
@click.option("--list", "list_", is_flag=True, help="List every reproduction and exit.")
@click.option("--full", is_flag=True, help="Run the paper's full size (default: quick size).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder (default: ./reproduce-ID); an existing one is resumed.")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder of the real data sets (default: $BAYESCAL_DATA).")
@click.option("--keep-cubes/--no-keep-cubes", default=None,
              help="Keep the result stores under --out (default: at full size only).")
@click.option("--strict", is_flag=True,
              help="Exit with status 1 unless the verdict is 'reproduced'.")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder of reproductions (default: the repository's models/reproductions).")
@click.option("--n-jobs", type=int, default=None, help="Worker processes (default: every core).")
def reproduce_command(reproduction_id: str | None, list_: bool, full: bool, out: Path | None,
                      data_dir: Path | None, keep_cubes: bool | None, strict: bool,
                      root: Path | None,
                      n_jobs: int | None) -> None:
    """Regenerate a published table and judge it against the paper's numbers.

    The exit status says whether the reproduction ran (0) or not; with
    --strict, a verdict other than 'reproduced' exits with status 1 too.
    """
    from bayescal.reproduce.data_dir import DATA_ENV, set_default_data_dir
    from bayescal.reproduce.registry import list_reproductions, load_reproduction
    from bayescal.reproduce.runner import list_lines, run_reproduction

    try:
        if list_ or reproduction_id is None:
            for line in list_lines(list_reproductions(root)):
                click.echo(line)
            if reproduction_id is None and not list_:
                click.echo("\nRun one with `bayescal reproduce ID [--full] [--out DIR]"
                           " [--data-dir DIR]`.")
            return
        rep = load_reproduction(reproduction_id, root=root)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if data_dir is not None:
        if not data_dir.is_dir():
            raise click.UsageError(f"--data-dir {str(data_dir)!r} is not an existing folder")
        os.environ[DATA_ENV] = str(data_dir)
    if rep.needs_data and not os.environ.get(DATA_ENV) and set_default_data_dir() is None:
        raise click.ClickException(
            f"{rep.id} reads real data sets ({', '.join(rep.datasets)}) and "
            f"no data directory is set: pass --data-dir DIR or set {DATA_ENV}=DIR")
    try:
        record = run_reproduction(rep, out or Path(f"reproduce-{rep.id}"), full=full,
                                  n_jobs=n_jobs, echo=click.echo, keep_cubes=keep_cubes)
    except ValueError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        hint = (f" Point at the data sets with --data-dir DIR or {DATA_ENV}=DIR."
                if rep.needs_data else "")
        raise click.ClickException(f"{rep.id} did not run: {first}{hint}") from None
    if strict and record["verdict"] != "reproduced":
        raise SystemExit(1)

"""`gyrelint baseline`: record the current findings so `check --baseline` reports only new ones."""

from __future__ import annotations

from pathlib import Path

import click

from ..baseline import DEFAULT_NAME, write
from .check_cmd import codes, run_check
from .common import analysis_options, fail, input_errors


@click.command()
@click.argument("path", required=False, default=".", type=click.Path())
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None,
              help=f"Where to write the baseline (default: PATH/{DEFAULT_NAME}).")
@click.option("--select", multiple=True, metavar="CODES", help="Only these rules.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these rules.")
@analysis_options
@input_errors
def command(path: str, output: str | None, select: tuple[str, ...], ignore: tuple[str, ...], jobs: int | None,
            no_cache: bool, entries: tuple[str, ...]) -> None:
    """Write the findings of PATH to a baseline file (default PATH/.gyrelint-baseline.json)."""
    analysis = run_check(path, select=codes(select), ignore=codes(ignore), jobs=jobs, no_cache=no_cache,
                         entries=entries)
    target = Path(output) if output else Path(path) / DEFAULT_NAME
    try:
        write(target, analysis.findings)
    except OSError as exc:
        fail(f"{target}: cannot write ({exc.strerror}); pass a writable --output path")
    click.echo(f"gyrelint: wrote {len(analysis.findings)} findings to {target}")

"""`gyrelint report`: write the self-contained HTML report of an analysis."""

from __future__ import annotations

from pathlib import Path

import click

from ..escape import term
from ..render.dot import DEFAULT_MAX_NODES
from ..render.html import write_report
from .common import analysis_options, fail, input_errors, path_context, run_analysis


@click.command()
@click.argument("path", required=False, type=click.Path())
@click.option("--demo", is_flag=True, help="Report on the online-RL example repo bundled with gyrelint.")
@click.option("-o", "--output", "out_dir", type=click.Path(), required=True, metavar="DIR",
              help="Folder to write index.html into (created if missing).")
@click.option("--max-nodes", type=click.IntRange(min=8), default=DEFAULT_MAX_NODES, show_default=True,
              help="Node budget of the embedded map.")
@analysis_options
@input_errors
def command(path: str | None, demo: bool, out_dir: str, max_nodes: int, jobs: int | None, no_cache: bool,
            entries: tuple[str, ...]) -> None:
    """Write one self-contained HTML page (no network needed, opens from file://) that answers
    the five questions at a glance: summary strip, clickable map, evidence with source, tables."""
    target = Path(out_dir)
    if target.exists() and not target.is_dir():
        fail(f"{term(out_dir)}: exists and is not a folder; pass a folder for the report")
    analysis = run_analysis(path, demo=demo, jobs=jobs, no_cache=no_cache, entries=entries)
    try:
        page = write_report(analysis, target, max_nodes=max_nodes, paths=path_context(analysis.root))
    except OSError as exc:
        fail(f"{term(out_dir)}: cannot write the report ({term(exc.strerror or exc)}); pick a writable folder")
    click.echo(f"gyrelint: wrote {term(page)}", err=True)

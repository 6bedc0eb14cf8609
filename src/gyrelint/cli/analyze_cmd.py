"""`gyrelint analyze`: the five questions answered, as text or as the gyrelint/1 JSON."""

from __future__ import annotations

import json

import click

from .common import analysis_options, fail, input_errors, path_context, run_analysis


@click.command()
@click.argument("path", required=False, type=click.Path())
@click.option("--demo", is_flag=True, help="Analyze the online-RL example repo bundled with gyrelint.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--html", "html_dir", type=click.Path(), default=None, help="Also write the HTML report to this folder.")
@analysis_options
@input_errors
def command(path: str | None, demo: bool, fmt: str, html_dir: str | None, jobs: int | None, no_cache: bool,
            entries: tuple[str, ...]) -> None:
    """Analyze the repository at PATH: where each chain is, the handoff both ways,
    one process or many, whether the loop is online, which counters are logged."""
    from ..render.json_report import to_report
    from ..render.text import render_text

    analysis = run_analysis(path, demo=demo, jobs=jobs, no_cache=no_cache, entries=entries)
    if fmt == "json":
        click.echo(json.dumps(to_report(analysis), indent=2))
    else:
        click.echo(render_text(analysis, path_context(analysis.root)))
    if html_dir:
        from ..escape import term
        from ..render.html import write_report

        try:
            write_report(analysis, html_dir, paths=path_context(analysis.root))
        except OSError as exc:
            fail(f"{term(html_dir)}: cannot write the report ({term(exc.strerror or exc)}); pick a writable folder")

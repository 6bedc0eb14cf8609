"""`gyrelint graph`: dump the raw import and call graphs (JSON, DOT, or PyCG's format)."""

from __future__ import annotations

import sys

import click

from .common import Progress, input_errors, settings_options, settings_overrides


@click.command()
@click.argument("path", type=str)
@click.option("--calls", "which", flag_value="calls", help="Only the call graph.")
@click.option("--imports", "which", flag_value="imports", help="Only the import graph.")
@click.option("--format", "fmt", type=click.Choice(["json", "dot", "pycg"]), default="json", show_default=True,
              help="pycg: PyCG's {caller: [callees]} JSON (exact edges only).")
@click.option("--entry", "entries", multiple=True, metavar="FILE",
              help="Keep only what these files (or dotted modules) reach; repeatable.")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=None, help="Worker processes for parsing.")
@click.option("--no-cache", is_flag=True, help="Parse every file again; do not read or write the cache.")
@settings_options
@input_errors
def command(path: str, which: str | None, fmt: str, entries: tuple[str, ...], jobs: int | None,
            no_cache: bool) -> None:
    """Dump the import graph and the call graph of the repository at PATH."""
    from ..api import analyze_graphs, graph_selection
    from ..escape import term

    progress = Progress()
    try:
        a = analyze_graphs(path, progress=progress, **settings_overrides(jobs, no_cache))
    finally:
        progress.close()
    for d in a.diagnostics:
        if d.kind in ("parse", "decode"):
            click.echo(f"gyrelint: warning: {term(d)}", err=True)
    nodes = graph_selection(a, entries, imports=which == "imports" or (which is None and fmt == "json"))
    which = which or ("both" if fmt == "json" else "calls")
    g = a.graphs
    if fmt == "json":
        from ..render.graph_dump import write_json

        write_json(g, which, nodes, sys.stdout)
    elif fmt == "dot":
        from ..render.graph_dump import to_dot

        click.echo(to_dot(g.imports if which == "imports" else g.calls, which, nodes))
    elif which == "imports":
        from ..render.graph_dump import imports_adjacency

        click.echo(imports_adjacency(g, nodes))
    else:
        from ..render.pycg import render_pycg

        click.echo(render_pycg(g.calls, nodes))

"""`gyrelint map`: draw the two chains, the handoff both ways, drivers and entry points."""

from __future__ import annotations

from pathlib import Path

import click

from ..escape import term
from ..render.dot import (
    DEFAULT_MAX_NODES,
    EXTENSIONS,
    FORMATS,
    IMAGE_FORMATS,
    GraphvizMissing,
    MapError,
    build_map,
    render_image,
    to_dot,
)
from ..render.mermaid import to_mermaid
from ..safeio import write_output
from .common import analysis_options, fail, input_errors, path_context, run_analysis


def pick_format(output: str | None, fmt: str | None) -> str:
    """--format wins; otherwise the output's extension; DOT on stdout by default."""
    if fmt:
        return fmt
    if output is None or output == "-":
        return "dot"
    ext = Path(output).suffix.lower()
    if ext not in EXTENSIONS:
        fail(f"{term(output)}: unknown map format {term(ext) or '(no extension)'!r}; use one of "
             f"{', '.join(sorted(EXTENSIONS))} or pass --format")
    return EXTENSIONS[ext]


@click.command()
@click.argument("path", required=False, type=click.Path())
@click.option("--demo", is_flag=True, help="Map the online-RL example repo bundled with gyrelint.")
@click.option("-o", "--output", type=click.Path(), default=None,
              help="Output file; the format follows the extension (.dot .svg .png .pdf .mmd). Default: DOT on stdout.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None, help="Output format (overrides the extension).")
@click.option("--level", type=click.Choice(["function", "module"]), default="function", show_default=True,
              help="Draw functions or whole modules.")
@click.option("--focus", default=None, metavar="NAME",
              help="Only the neighbourhood of this function or module (qualname or its last part): callers "
                   "and callees two calls away and the short path to the other chain, at most 25 boxes.")
@click.option("--max-nodes", type=click.IntRange(min=8), default=DEFAULT_MAX_NODES, show_default=True,
              help="Node budget; beyond it functions are collapsed by package and side (counts shown).")
@analysis_options
@input_errors
def command(path: str | None, demo: bool, output: str | None, fmt: str | None, level: str, focus: str | None,
            max_nodes: int, jobs: int | None, no_cache: bool, entries: tuple[str, ...]) -> None:
    """Draw the map of the repository at PATH: a sampling cluster, a training cluster, the
    handoff nodes between them, the trajectory edge (sampler -> trainer) and the weight-sync
    edge (trainer -> sampler) labelled with their transport, drivers and entry points above."""
    fmt = pick_format(output, fmt)
    if fmt in IMAGE_FORMATS and (output is None or output == "-"):
        fail(f"--format {fmt} writes an image; pass -o FILE.{fmt}")
    if output and output != "-" and not Path(output).parent.is_dir():
        fail(f"{term(output)}: folder {term(Path(output).parent)} does not exist; create it or pick another -o")
    analysis = run_analysis(path, demo=demo, jobs=jobs, no_cache=no_cache, entries=entries, run_rules=False)
    try:
        graph = build_map(analysis, level=level, focus=focus, max_nodes=max_nodes)
    except MapError as exc:
        fail(term(exc))
    if fmt == "mermaid":
        text = to_mermaid(graph, fenced=bool(output) and output.endswith(".md"))
        _write_text(output, text)
        return
    dot_text = to_dot(graph, path_context(analysis.root))
    if fmt == "dot":
        _write_text(output, dot_text)
        return
    assert output is not None
    try:
        data = render_image(dot_text, fmt)
    except GraphvizMissing as exc:
        fallback = Path(output).with_suffix(".dot")
        write_output(fallback, dot_text)
        fail(f"cannot write {term(output)}: {term(exc)}; wrote the map as DOT to {term(fallback)} instead "
             f"(render it later with: dot -T{fmt} {term(fallback)} -o {term(output)})")
    except (RuntimeError, OSError) as exc:
        fail(f"cannot write {term(output)}: {term(exc)}")
    _write(output, data)
    click.echo(f"gyrelint: wrote {term(output)} ({_summary(graph)})", err=True)


def _summary(graph) -> str:
    folded = sum(graph.collapsed.values())
    extra = f", {folded} collapsed" if folded else ""
    return f"{len(graph.nodes)} nodes{extra}"


def _write_text(output: str | None, text: str) -> None:
    if output is None or output == "-":
        click.echo(text, nl=False)
        return
    _write(output, text)


def _write(output: str, data: str | bytes) -> None:
    try:
        write_output(output, data)
    except OSError as exc:
        fail(f"cannot write {term(output)}: {term(exc.strerror or exc)}; pick a writable -o path")

"""`gyrelint graph`: dump the raw import and call graphs (JSON, DOT, or PyCG's format)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..escape import dot_string, json_safe, term
from .common import Progress, fail, input_errors, settings_options, settings_overrides

if TYPE_CHECKING:  # the stages are imported when the command runs, the cold path only after the cache check
    import networkx as nx

    from ..graphs import Graphs
    from ..index import Index


def build_graphs(*args, **kwargs) -> Graphs:
    """``graphs.build_graphs``, imported on the first cold run rather than with the command
    (a module-level name, so tests can replace it)."""
    from ..graphs import build_graphs as build

    return build(*args, **kwargs)


def _entry_nodes(index, graphs: Graphs, entries: tuple[str, ...]) -> list[str]:
    """Module nodes for ``--entry`` files (or dotted modules); exit 2 on one that is not there."""
    by_path = {p: m for p, m in index.files.modules.items()}
    mods = set(by_path.values())
    roots = []
    for e in entries:
        p = Path(e)
        rel = None
        try:
            rel = (p if p.is_absolute() else Path.cwd() / p).resolve().relative_to(index.root).as_posix()
        except ValueError:
            rel = None
        cand = by_path.get(rel or "") or by_path.get(e) or (e if e in mods else None)
        if cand is None:
            fail(f"--entry {term(e)}: not a Python file or module of {term(index.root)}; pass a .py file inside PATH")
        roots.append(cand)
    return roots


_ESC_ASCII = json.encoder.encode_basestring_ascii  # what json.dumps writes for a str (C)


def _ESC(s: str) -> str:  # noqa: N802 - keeps the name of the C function it wraps
    """A JSON string; a lone surrogate (non-UTF-8 file name) is written as ``\\xNN`` text first."""
    return _ESC_ASCII(s if s.isascii() else json_safe(s))


def _flat_json(item: dict) -> str:
    """``json.dumps(item, sort_keys=True)`` for the flat records written here (str, int,
    None and lists of ints as values), without building an encoder per record."""
    parts = []
    for k in sorted(item):
        v = item[k]
        if isinstance(v, str):
            val = _ESC(v)
        elif v is None:
            val = "null"
        elif isinstance(v, int) and not isinstance(v, bool):
            val = str(v)
        elif isinstance(v, list) and all(type(x) is int for x in v):
            val = "[" + ", ".join(map(str, v)) + "]"
        else:
            val = json.dumps(json_safe(v), sort_keys=True)
        parts.append(f"{_ESC(k)}: {val}")
    return "{" + ", ".join(parts) + "}"


def _write_json(g: Graphs, which: str, nodes: set[str] | None, out) -> None:
    """Stream the graphs as JSON (one node or edge per line), so a big repo costs no big string."""
    def keep(n: str) -> bool:
        return nodes is None or n in nodes

    def seq(items) -> None:
        first = True
        for item in items:
            out.write(("\n      " if first else ",\n      ") + _flat_json(item))
            first = False
        out.write("\n    ]" if not first else "]")

    out.write('{\n  "schema": "gyrelint-graph/1"')
    if which in ("both", "calls"):
        out.write(',\n  "calls": {\n    "roots": ' + json.dumps(json_safe(g.roots)) + ',\n    "nodes": [')
        seq({"id": n, **d} for n, d in sorted(g.calls.nodes(data=True)) if keep(n))
        out.write(',\n    "edges": [')
        seq({"source": a, "target": b, "kind": d.get("kind"), "via": d.get("via"), "lines": sorted(d.get("lines", []))}
            for a, b, d in sorted(g.calls.edges(data=True), key=lambda t: (t[0], t[1])) if keep(a) and keep(b))
        out.write("\n  }")
    if which in ("both", "imports"):
        out.write(',\n  "imports": {\n    "nodes": [')
        seq({"id": n, "file": d.get("file")} for n, d in sorted(g.imports.nodes(data=True)) if keep(n))
        out.write(',\n    "edges": [')
        seq({"source": a, "target": b, "lines": sorted(d.get("lines", []))}
            for a, b, d in sorted(g.imports.edges(data=True), key=lambda t: (t[0], t[1])) if keep(a) and keep(b))
        out.write("\n  }")
    out.write("\n}\n")


def _dot_id(s: str) -> str:
    return dot_string(s, line_breaks=False)


def _dot(graph: nx.DiGraph, name: str, nodes: set[str] | None) -> str:
    lines = [f"digraph {name} {{", "  rankdir=LR;", "  node [shape=box, fontsize=10];"]
    for n, d in sorted(graph.nodes(data=True)):
        if nodes is not None and n not in nodes:
            continue
        kind = d.get("kind", "module")
        style = {"module": "shape=folder", "external": "style=dashed", "builtin": "style=dotted",
                 "class": "shape=component", "lambda": "shape=ellipse"}.get(kind, "")
        lines.append(f"  {_dot_id(n)}{' [' + style + ']' if style else ''};")
    for a, b, d in sorted(graph.edges(data=True), key=lambda t: (t[0], t[1])):
        if nodes is not None and (a not in nodes or b not in nodes):
            continue
        attrs = []
        if d.get("kind") == "weak":
            attrs.append("style=dashed")
        if d.get("via") and d.get("via") != "call":
            attrs.append(f"label={_dot_id(str(d['via']))}")
        lines.append(f"  {_dot_id(a)} -> {_dot_id(b)}{' [' + ', '.join(attrs) + ']' if attrs else ''};")
    lines.append("}")
    return "\n".join(lines)


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
    index, g = _graphs(path, settings_overrides(jobs, no_cache))
    nodes: set[str] | None = None
    if entries:
        from ..graphs.reach import reachable

        roots = _entry_nodes(index, g, entries)
        nodes = reachable(g, roots)
        if which == "imports" or (which is None and fmt == "json"):
            nodes |= _import_closure(g, roots)
    which = which or ("both" if fmt == "json" else "calls")
    if fmt == "json":
        _write_json(g, which, nodes, sys.stdout)
    elif fmt == "dot":
        click.echo(_dot(g.imports if which == "imports" else g.calls, which, nodes))
    else:
        from ..render.pycg import render_pycg

        if which == "imports":
            adj = {n: sorted(m for m in g.imports.adj[n] if nodes is None or m in nodes)
                   for n in sorted(g.imports) if nodes is None or n in nodes}
            click.echo(json.dumps(json_safe(adj), indent=2))
        else:
            click.echo(render_pycg(g.calls, nodes))


def _graphs(path: str, overrides: dict) -> tuple[Index, Graphs]:
    """Index and graphs, from the whole-analysis cache when no file changed."""
    from .. import analysis_cache
    from ..api import discover_python, load

    root, settings, _ = load(path, **overrides)
    files = discover_python(root, path, settings)
    fp = analysis_cache.fingerprint(root, files, settings, "graph") if settings.use_cache else None
    hit = analysis_cache.find(settings, root, files, fp) if fp is not None else None
    if hit is not None:
        return hit.index, hit.graphs
    from ..api import Analysis
    from ..entrypoints import find_entry_points
    from ..graphs.symbols import symbols_of
    from ..index import build_index
    from ..model import Handoff, Topology

    progress = Progress()
    try:
        index = build_index(root, settings, progress, files=files, keys=fp.file_keys if fp else None)
    finally:
        progress.close()
    for d in index.diagnostics:
        if d.kind in ("parse", "decode"):
            click.echo(f"gyrelint: warning: {term(d)}", err=True)
    symbols = symbols_of(index)  # one symbol table for both stages
    eps, _ = find_entry_points(index, settings, symbols)
    g = build_graphs(index, eps, cache_dir=settings.cache_dir if settings.use_cache else None, symbols=symbols)
    if fp is not None:
        analysis_cache.store(settings, fp.key, Analysis(
            root=root, given_root=str(path), settings=settings, index=index, entry_points=eps, graphs=g,
            functions={}, modules=[], boundary_modules=[], handoff=Handoff(), topology=Topology()), fp)
    return index, g


def _import_closure(g: Graphs, roots: list[str]) -> set[str]:
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        n = stack.pop()
        if n in seen or n not in g.imports:
            continue
        seen.add(n)
        stack.extend(g.imports.adj[n])
    return seen


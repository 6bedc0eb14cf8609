"""``gyrelint graph``: the raw import and call graphs as JSON (``gyrelint-graph/1``, streamed),
GraphViz DOT, or PyCG's adjacency for the import graph."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, TextIO

from ..escape import dot_string, json_safe

if TYPE_CHECKING:  # annotations only: the caller already holds the graphs
    import networkx as nx

    from ..graphs import Graphs

_ESC_ASCII = json.encoder.encode_basestring_ascii  # what json.dumps writes for a str (C)


def _ESC(s: str) -> str:  # noqa: N802 - keeps the name of the C function it wraps
    """A JSON string; a lone surrogate (non-UTF-8 file name) is written as ``\\xNN`` text first."""
    return _ESC_ASCII(s if s.isascii() else json_safe(s))


def flat_json(item: dict) -> str:
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


def write_json(g: Graphs, which: str, nodes: set[str] | None, out: TextIO) -> None:
    """Stream the graphs as JSON (one node or edge per line), so a big repo costs no big string."""
    def keep(n: str) -> bool:
        return nodes is None or n in nodes

    def seq(items) -> None:
        first = True
        for item in items:
            out.write(("\n      " if first else ",\n      ") + flat_json(item))
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


def to_dot(graph: nx.DiGraph, name: str, nodes: set[str] | None) -> str:
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


def imports_adjacency(g: Graphs, nodes: set[str] | None) -> str:
    """The import graph as PyCG-style ``{module: [imported, ...]}`` JSON."""
    adj = {n: sorted(m for m in g.imports.adj[n] if nodes is None or m in nodes)
           for n in sorted(g.imports) if nodes is None or n in nodes}
    return json.dumps(json_safe(adj), indent=2)

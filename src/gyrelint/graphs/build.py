"""Placeholder wiring; the resolver replaces this."""

from __future__ import annotations

from ..index import Index
from ..model import EntryPoint
from .model import FunctionInfo, Graphs


def build_graphs(index: Index, entry_points: list[EntryPoint]) -> Graphs:
    g = Graphs()
    for s in index.summaries.values():
        g.imports.add_node(s.module, file=s.path)
        g.calls.add_node(s.module, kind="module", file=s.path, line=1)
        for f in s.functions:
            q = f"{s.module}.{f.qualname}"
            g.functions[q] = FunctionInfo(q, s.module, s.path, f)
            g.calls.add_node(q, kind="function", file=s.path, line=f.line)
    return g

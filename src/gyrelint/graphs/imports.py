"""The import graph: repo module -> repo module, one edge per import (lines kept)."""

from __future__ import annotations

import networkx as nx

from ..index.summary import FileSummary, absolute_module


def build_import_graph(sums: list[FileSummary]) -> nx.DiGraph:
    g = nx.DiGraph()
    mods = {s.module for s in sums}
    for s in sums:
        g.add_node(s.module, file=s.path)
    for s in sums:
        for imp in s.imports:
            base = absolute_module(s, imp.module, imp.level)
            cands = []
            if imp.name and imp.name != "*" and f"{base}.{imp.name}" in mods:
                cands.append(f"{base}.{imp.name}")  # from pkg import submodule
            # the deepest repo module the dotted name starts with (import a.b.c runs a, a.b, a.b.c)
            parts = base.split(".")
            for i in range(len(parts), 0, -1):
                m = ".".join(parts[:i])
                if m in mods:
                    cands.append(m)
                    break
            for m in cands:
                if m == s.module:
                    continue
                data = g.get_edge_data(s.module, m)
                if data is None:
                    g.add_edge(s.module, m, lines=[imp.line])
                elif imp.line not in data["lines"]:
                    data["lines"].append(imp.line)
    return g

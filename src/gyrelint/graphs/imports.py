"""The import graph: repo module -> repo module, one edge per import (lines kept)."""

from __future__ import annotations

import networkx as nx

from ..index.summary import FileSummary
from .symbols import SymbolTable


def build_import_graph(sums: list[FileSummary], symbols: SymbolTable) -> nx.DiGraph:
    """Which repo modules each module's imports run (the symbol table names them)."""
    g = nx.DiGraph()
    for s in sums:
        g.add_node(s.module, file=s.path)
    for s in sums:
        for m, line in symbols.imported_modules(s):
            if m == s.module:
                continue
            data = g.get_edge_data(s.module, m)
            if data is None:
                g.add_edge(s.module, m, lines=[line])
            elif line not in data["lines"]:
                data["lines"].append(line)
    return g

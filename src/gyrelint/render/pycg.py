"""PyCG's simple call-graph JSON: ``{"caller": ["callee", ...]}``.

Only edges PyCG itself models are written (exact calls, constructors, decorators,
iteration protocol, Ray ``.remote``), so the output can be scored by PyCG's
micro-benchmark and compared with its tools; weak fallbacks and dotted-path string
edges stay out. Builtin method names follow PyCG (``<**PyStr**>.join``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..escape import json_safe

if TYPE_CHECKING:  # annotations only: the caller already holds the graph
    import networkx as nx

_PYCG_VIA = frozenset({"call", "ctor", "decorator", "iter", "ray", "getattr"})
_LITERAL_TYPES = {"<builtin>.str.": "<**PyStr**>.", "<builtin>.dict.": "<**PyDict**>.",
                  "<builtin>.list.": "<**PyList**>."}


def pycg_name(name: str) -> str:
    for prefix, repl in _LITERAL_TYPES.items():
        if name.startswith(prefix):
            return repl + name[len(prefix):]
    return name


def pycg_adjacency(calls: nx.DiGraph, nodes: set[str] | None = None) -> dict[str, list[str]]:
    """Adjacency of the exact, PyCG-comparable edges (restricted to ``nodes`` if given)."""
    out: dict[str, set[str]] = {}
    for n, data in calls.nodes(data=True):
        if nodes is not None and n not in nodes:
            continue
        if data.get("kind") in ("module", "function", "lambda"):
            out.setdefault(pycg_name(n), set())
    for a, b, data in calls.edges(data=True):
        if nodes is not None and (a not in nodes or b not in nodes):
            continue
        if data.get("kind") != "exact" or data.get("via") not in _PYCG_VIA:
            continue
        if calls.nodes[b].get("kind") == "class":
            continue  # a class without __init__: PyCG draws no edge
        out.setdefault(pycg_name(a), set()).add(pycg_name(b))
        out.setdefault(pycg_name(b), set())
    return {k: sorted(v) for k, v in sorted(out.items())}


def render_pycg(calls: nx.DiGraph, nodes: set[str] | None = None) -> str:
    return json.dumps(json_safe(pycg_adjacency(calls, nodes)), indent=2)

"""Reachability over the call graph, entering imported module bodies too."""

from __future__ import annotations

from .model import Graphs


def reachable(g: Graphs, roots: list[str], weak: bool = True) -> set[str]:
    """Nodes reachable from ``roots``: call edges (weak ones only when ``weak``), plus the
    bodies of the repo modules a reached module imports (importing runs them)."""
    seen: set[str] = set()
    stack = [r for r in roots if r in g.calls]
    calls, imports = g.calls, g.imports
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        for m, data in calls.adj[n].items():
            if m not in seen and (weak or data.get("kind") != "weak"):
                stack.append(m)
        if n in imports:
            for m in imports.adj[n]:
                if m not in seen:
                    stack.append(m)
    return seen

"""Reachability over the call graph, entering imported module bodies too; a library's public API
stands in for the entry points when they reach none of the loop."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .model import Graphs

ENTRY_POINTS, PUBLIC_API = "entry-points", "public-api"  # values of ``Graphs.reach_roots``


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


def api_roots(g: Graphs, outside: Callable[[str], bool]) -> list[str]:
    """What a user script of a library would call: the package's public functions and methods
    (no private segment in the name) that no code of the repo calls, tests and vendored code
    (``outside``, by file) left out. A wheel ships its trainer's ``fit`` and no launcher."""
    calls = g.calls
    out: list[str] = []
    for q, info in sorted(g.functions.items()):
        scope = q[len(info.module) + 1:].split(".")
        if any(p.startswith("_") and p not in ("__init__", "__call__") for p in scope) or outside(info.file):
            continue
        if len(scope) > 1 and f"{info.module}.{'.'.join(scope[:-1])}" in g.functions:
            continue  # a closure: its enclosing function decides
        if q in calls and any(u != q and u in g.functions for u in calls.pred[q]):
            continue
        out.append(q)
    return out


@dataclass(frozen=True, slots=True)
class LoopReach:
    """What runs once the loop is known: the semantics stage's own result, so the graphs
    (``Graphs.reached``: what the entry points reach) stay as their stage left them.

    ``roots`` says where the answer came from (ENTRY_POINTS or PUBLIC_API), for the reports."""

    reached: frozenset[str]
    roots: str = ENTRY_POINTS


def loop_reach(g: Graphs, loop: Iterable[str], outside: Callable[[str], bool]) -> LoopReach:
    """What runs: reached from the entry points, or, when they reach none of the ``loop``
    functions (those on a side), also from the package's public API (``api_roots``).

    Entry points that reach the loop keep the answer they give: a converter script found in a
    library must not hide the trainer users import and call.
    """
    loop = list(loop)
    if any(q in g.reached for q in loop):
        return LoopReach(frozenset(g.reached))
    extra = reachable(g, api_roots(g, outside))
    roots = PUBLIC_API if extra and any(q in extra for q in loop) else ENTRY_POINTS
    return LoopReach(frozenset(g.reached | extra if extra else g.reached), roots)


def entry_reach(g: Graphs, weak: bool = False) -> dict[str, set[str]]:
    """What each entry point reaches on its own (exact call edges unless ``weak``, and imported
    module bodies): semantics tells an online launcher from an offline script by it. Weak edges
    are left out by default: a method name dispatched as a string (``"fit"``) reaches every
    trainer's ``fit``, the offline ones too, and would make every script reach the whole loop."""
    roots = [r for r in dict.fromkeys(g.roots) if r in g.calls]
    if len(roots) < 2:
        return {r: reachable(g, [r], weak) for r in roots}
    # the successors each walk follows, listed once for all the walks (verl: 34 entry points)
    calls, imports = g.calls, g.imports
    succ: dict[str, list[str]] = {}
    for n, nbrs in calls.adj.items():
        nxt = list(nbrs) if weak else [m for m, data in nbrs.items() if data.get("kind") != "weak"]
        if n in imports:
            nxt += imports.adj[n]
        succ[n] = nxt
    out: dict[str, set[str]] = {}
    for r in roots:
        seen: set[str] = set()
        stack = [r]
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            stack += [m for m in succ[n] if m not in seen]
        out[r] = seen
    return out

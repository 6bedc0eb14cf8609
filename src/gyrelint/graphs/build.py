"""Build the import graph and the call graph from the index, then reachability."""

from __future__ import annotations

from ..index import Index
from ..index.summary import MODULE_SCOPE, CallSite, FileSummary
from ..model import EntryPoint
from .imports import build_import_graph
from .model import EXACT, WEAK, ClassInfo, FunctionInfo, Graphs, ResolvedCall
from .reach import reachable
from .resolve import resolve
from .strings import string_edges


def caller_of(mod: str, scope: str, class_scopes: set[str]) -> str:
    """The call-graph node that owns code in ``scope``: the nearest function, else the module."""
    s = scope
    while s != MODULE_SCOPE and s in class_scopes:
        s = s.rsplit(".", 1)[0] if "." in s else MODULE_SCOPE
    return mod if s == MODULE_SCOPE else f"{mod}.{s}"


def build_graphs(index: Index, entry_points: list[EntryPoint]) -> Graphs:
    """Fill every field of :class:`Graphs`; see ``graphs/model.py`` for target naming."""
    g = Graphs()
    sums: list[FileSummary] = list(index.summaries.values())
    g.imports = build_import_graph(sums)
    class_scopes: dict[str, set[str]] = {}
    for s in sums:
        g.calls.add_node(s.module, kind="module", file=s.path, line=1)
        class_scopes[s.module] = {c.qualname for c in s.classes}
        for f in s.functions:
            q = f"{s.module}.{f.qualname}"
            g.functions[q] = FunctionInfo(q, s.module, s.path, f)
            g.calls.add_node(q, kind="function", file=s.path, line=f.line)
        for f in s.lambdas:
            g.calls.add_node(f"{s.module}.{f.qualname}", kind="lambda", file=s.path, line=f.line)
    resolver, res = resolve(sums)
    for s in sums:
        for c in s.classes:
            q = f"{s.module}.{c.qualname}"
            g.classes[q] = ClassInfo(q, s.module, s.path, c, res.bases.get(q, ()))
    g.attr_types = res.attr_types

    def add(caller: str, file: str, site: CallSite, targets: list[str], kind: str, via: str) -> None:
        g.resolved.setdefault(caller, []).append(ResolvedCall(caller, file, site, tuple(targets), kind, via))
        for t in targets:
            if t not in g.calls:
                g.calls.add_node(t, kind=_node_kind(t, g))
            data = g.calls.get_edge_data(caller, t)
            if data is None:
                g.calls.add_edge(caller, t, kind=kind, via=via, lines=[site.line])
            else:
                if kind == EXACT and data["kind"] != EXACT:
                    data["kind"], data["via"] = EXACT, via
                if site.line not in data["lines"]:
                    data["lines"].append(site.line)

    for s in sums:
        cs = class_scopes[s.module]
        for i, site in enumerate(s.calls):
            caller = caller_of(s.module, site.scope, cs)
            edges = res.site_edges.get((s.module, i), [])
            if not edges:
                add(caller, s.path, site, [], WEAK, "unresolved")
                continue
            groups: dict[tuple[str, str], list[str]] = {}
            for e in edges:
                groups.setdefault((e.kind, e.via), []).append(e.target)
            for (kind, via), targets in groups.items():
                add(caller, s.path, site, targets, kind, via)
    by_mod = {s.module: s for s in sums}
    for (mod, scope, line, via), targets in sorted(res.implicit.items()):
        s = by_mod[mod]
        site = CallSite(scope, f"<{via}>", line)
        add(caller_of(mod, scope, class_scopes[mod]), s.path, site, sorted(targets), EXACT, via)
    for (mod, scope, line), (targets, text) in string_edges(sums, resolver).items():
        s = by_mod[mod]
        site = CallSite(scope, "<string>", line, args=())
        add(caller_of(mod, scope, class_scopes[mod]), s.path, site, sorted(targets), EXACT, f"string:{text}")
    g.roots = _roots(entry_points, g)
    g.reached = reachable(g, g.roots)
    return g


def _node_kind(t: str, g: Graphs) -> str:
    if t in g.classes:
        return "class"
    if t.startswith("<builtin>."):
        return "builtin"
    return "external"


def _roots(entry_points: list[EntryPoint], g: Graphs) -> list[str]:
    roots: list[str] = []
    for ep in entry_points:
        if not ep.module or ep.module not in g.calls:
            continue
        node = ep.module
        if ep.function:
            for cand in (ep.function, f"{ep.module}.{ep.function}"):
                if cand in g.calls:
                    node = cand
                    break
        if node not in roots:
            roots.append(node)
        if node != ep.module and ep.module not in roots:
            roots.append(ep.module)  # importing the module runs its body
    return roots

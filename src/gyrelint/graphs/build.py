"""Build the import graph and the call graph from the index, then reachability."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
from pathlib import Path

from ..cachestore import open_store
from ..codec import Mismatch, Plan, Registry
from ..codehash import code_digest
from ..index import Index
from ..index.cache import SummaryCache, gc_paused
from ..index.summary import MODULE_SCOPE, CallSite, FileSummary
from ..model import EntryPoint
from . import incremental
from .imports import build_import_graph
from .model import EXACT, WEAK, ClassInfo, FunctionInfo, Graphs, ResolvedCall
from .reach import reachable
from .resolve import Edge, Resolver
from .strings import string_edges
from .symbols import SymbolTable, symbols_of

NAMESPACE = "graphs"
PROVENANCE = "provenance"  # the newest fixed point of a checkout and what its items read and wrote


@dataclasses.dataclass(frozen=True, slots=True)
class Resolution:
    """The whole-repo call resolution as plain data: what a run where no file changed reuses."""

    sites: dict[tuple[str, int], tuple[tuple[str, str, str], ...]]  # (module, call index) -> edges
    implicit: dict[tuple[str, str, int, str], tuple[str, ...]]  # (module, scope, line, via) -> targets
    strings: dict[tuple[str, str, int], tuple[tuple[str, ...], str]]  # (module, scope, line) -> targets, text
    attr_types: dict[str, dict[str, str]]
    bases: dict[str, tuple[str, ...]]


@functools.cache
def _codec() -> tuple[Registry, Plan]:
    registry = Registry((Resolution,))
    plan = registry.plan(Resolution)
    assert plan is not None
    return registry, plan


def caller_of(mod: str, scope: str, class_scopes: set[str]) -> str:
    """The call-graph node that owns code in ``scope``: the nearest function, else the module."""
    s = scope
    while s != MODULE_SCOPE and s in class_scopes:
        s = s.rsplit(".", 1)[0] if "." in s else MODULE_SCOPE
    return mod if s == MODULE_SCOPE else f"{mod}.{s}"


def _resolution_key(sums: list[FileSummary]) -> str:
    h = hashlib.sha256(f"graphs\0{code_digest()}\0".encode())
    for s in sorted(sums, key=lambda s: s.path):
        h.update(f"{s.path}\0{s.module}\0{s.sha}\0".encode())
    return h.hexdigest()


def _load_resolution(cache_dir: Path, key: str) -> Resolution | None:
    payload = open_store(cache_dir).get(NAMESPACE, key)
    return None if payload is None else decode_resolution(payload)


def decode_resolution(payload: bytes) -> Resolution | None:
    """The resolution a cache payload holds, or None when it is not a good one."""
    registry, plan = _codec()
    return registry.decode_as(plan, payload, Resolution)


def _save_resolution(cache_dir: Path, key: str, data: Resolution) -> None:
    registry, plan = _codec()
    payload = registry.encode_or_none(plan, data)
    if payload is None:
        return  # unstorable data: a cache that cannot be written only costs time
    open_store(cache_dir).put(NAMESPACE, key, payload)


def _provenance_key(root: Path) -> str:
    """One provenance entry per checkout (the newest run's), for this analyzer's code."""
    return hashlib.sha256(f"graphs-provenance\0{code_digest()}\0{root}".encode("utf-8", "surrogateescape")).hexdigest()


def _resolve_edited(sums: list[FileSummary], symbols: SymbolTable, cache_dir: Path, root: Path) -> tuple[Resolver, str]:
    """The fixed point after an edit: replayed from the previous run's provenance when that is
    exact (graphs/incremental.py), else a whole run; either way the next run's provenance is stored."""
    store = open_store(cache_dir)
    pkey = _provenance_key(root)
    payload = store.get(PROVENANCE, pkey)
    prov = None if payload is None else incremental.decode(payload)
    summaries = SummaryCache(cache_dir, code_digest("index"))
    out = incremental.resolve_after_edit(sums, symbols, prov, summaries.get)
    with contextlib.suppress(Mismatch, TypeError, ValueError, OverflowError):
        store.put(PROVENANCE, pkey, incremental.encode(incremental.provenance_after_replay(out.resolver)))
    return out.resolver, out.path


def _resolve_all(sums: list[FileSummary], symbols: SymbolTable, cache_dir: Path | None,
                 root: Path | None = None) -> Resolution:
    """Whole-repo resolution as plain data; reused as is when no file changed, replayed in part
    after an edit (see :func:`_resolve_edited`)."""
    key = _resolution_key(sums) if cache_dir is not None and all(s.sha for s in sums) else None
    if cache_dir is not None and key:
        got = _load_resolution(cache_dir, key)
        if got is not None:
            _took("cached")
            return got
    if cache_dir is not None and key and root is not None:
        resolver, path = _resolve_edited(sums, symbols, cache_dir, root)
        _took(path, resolver)
    else:
        resolver = Resolver(sums, symbols)
        resolver.run()
        _took("uncached")
    data = _resolution_of(resolver, sums)
    del resolver  # the stage's largest transient: gone before the graph is built
    if cache_dir is not None and key:
        _save_resolution(cache_dir, key, data)
    return data


def _resolution_of(r: Resolver, sums: list[FileSummary]) -> Resolution:
    """What the graph builder reads of a fixed point, as :func:`resolve.results` gives it (same
    values, same order) but stored compact as it goes: each site's targets become the cache's
    tuples at once, never a list of ``Edge`` records for the whole repo beside the resolver."""
    sites: dict[tuple[str, int], tuple[tuple[str, str, str], ...]] = {}
    for mod, s in r.sums.items():
        for i, site in enumerate(s.calls):
            edges = r.site_targets(mod, site)  # may record implicit calls: read those after
            if edges:
                sites[(mod, i)] = tuple([(e.target, e.kind, e.via) for e in edges])
    implicit = {k: tuple(sorted(v)) for k, v in r.implicit.items() if v}
    attr_types = r.attr_types()
    bases = {cq: tuple(b[2:] if b.startswith("x:") else b for b in r.mro(cq)[1:]) for cq in r.classes}
    strings = {k: (tuple(sorted(t)), text) for k, (t, text) in string_edges(sums, r).items()}
    return Resolution(sites=sites, implicit=implicit, strings=strings, attr_types=attr_types, bases=bases)


def _took(path: str, resolver: Resolver | None = None) -> None:
    """Count which path the resolution took (``-v`` prints the last one; tests read the counts)."""
    word = path.partition(":")[0]
    incremental.PATHS[word] += 1
    incremental.last_path[0] = path
    incremental.last_replayed[0] = len(getattr(resolver, "prev", (None, None, None, ()))[3]) if resolver else 0


def build_graphs(index: Index, entry_points: list[EntryPoint], *, cache_dir: Path | None = None,
                 symbols: SymbolTable | None = None) -> Graphs:
    """Fill every field of :class:`Graphs`; see ``graphs/model.py`` for target naming.

    With ``cache_dir`` the whole-repo resolution is kept on disk, keyed by every file's
    content hash, so a run where nothing changed skips it. ``symbols``: the table the
    entry-point stage already built from this index, else it is built here."""
    with gc_paused(promote=True):  # many small records, no cycles: collections would only walk them
        return _build(index, entry_points, cache_dir, symbols if symbols is not None else symbols_of(index))


def _build(index: Index, entry_points: list[EntryPoint], cache_dir: Path | None, symbols: SymbolTable) -> Graphs:
    g = Graphs(symbols=symbols)
    sums: list[FileSummary] = list(index.summaries.values())
    g.imports = build_import_graph(sums, symbols)
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
    data = _resolve_all(sums, symbols, cache_dir, getattr(index, "root", None))
    bases, sites = data.bases, data.sites
    for s in sums:
        for c in s.classes:
            q = f"{s.module}.{c.qualname}"
            g.classes[q] = ClassInfo(q, s.module, s.path, c, tuple(bases.get(q, ())))
    g.attr_types = data.attr_types

    edge_data: dict[tuple[str, str], dict] = {}  # added to the graph at the end, in first-seen order

    def add(caller: str, file: str, site: CallSite, targets: list[str], kind: str, via: str) -> None:
        g.resolved.setdefault(caller, []).append(ResolvedCall(caller, file, site, tuple(targets), kind, via))
        for t in targets:
            if t not in g.calls:
                g.calls.add_node(t, kind=_node_kind(t, g))
            data = edge_data.get((caller, t))
            if data is None:
                edge_data[(caller, t)] = {"kind": kind, "via": via, "lines": [site.line]}
            else:
                if kind == EXACT and data["kind"] != EXACT:
                    data["kind"], data["via"] = EXACT, via
                if site.line not in data["lines"]:
                    data["lines"].append(site.line)

    for s in sums:
        cs = class_scopes[s.module]
        callers: dict[str, str] = {}  # one name per scope: a module's sites share a few hundred callers
        for i, site in enumerate(s.calls):
            caller = callers.get(site.scope)
            if caller is None:
                caller = callers[site.scope] = caller_of(s.module, site.scope, cs)
            edges = [Edge(*e) for e in sites.get((s.module, i), ())]
            if not edges:
                add(caller, s.path, site, [], WEAK, "unresolved")
                continue
            groups: dict[tuple[str, str], list[str]] = {}
            for e in edges:
                groups.setdefault((e.kind, e.via), []).append(e.target)
            for (kind, via), targets in groups.items():
                add(caller, s.path, site, targets, kind, via)
    by_mod = {s.module: s for s in sums}
    for (mod, scope, line, via), targets in sorted(data.implicit.items()):
        s = by_mod[mod]
        site = CallSite(scope, f"<{via}>", line)
        add(caller_of(mod, scope, class_scopes[mod]), s.path, site, sorted(targets), EXACT, via)
    for (mod, scope, line), (targets, text) in sorted(data.strings.items()):
        s = by_mod[mod]
        site = CallSite(scope, "<string>", line, args=())
        add(caller_of(mod, scope, class_scopes[mod]), s.path, site, sorted(targets), EXACT, f"string:{text}")
    g.calls.add_edges_from((a, b, d) for (a, b), d in edge_data.items())
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

"""Does the online loop's own sampler leave the process? Evidence scoped to what the loop reaches.

Repo-wide evidence mixes the loop a run takes with everything else the tree holds: an API server the
loop never calls, a launcher that runs the whole trainer as Ray workers (data-parallel copies of one
process), an optional engine path behind a switch that is off by default. The semantics stage's
same-object evidence names the call where the loop's sampler acts with the very module object the
optimizer updates. When nothing that call reaches crosses a process boundary (no Ray call, HTTP
request, socket, queue or RPC in its call cone), the loop's generation runs beside its optimizer, and
the cross-process evidence elsewhere describes other paths, not this loop.

An optional path inside the loop is left out of the cone too: a call that hands on, or calls a method of,
an attribute the class starts as ``None`` (``self.hosts = None``) and fills only with what a call sized by
a config value that is unset by default returns (``self.hosts = start(..., self.tp)`` with
``self.tp = cfg.get("tp", None)`` and no loaded config setting ``tp``): with the shipped defaults that
handle stays ``None`` and the loop never takes the path through it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from ..graphs import Graphs
from ..index import Index
from ..index.summary import CallSite, FileSummary
from ..model import Evidence, KeyEntry
from .evidence import EvidenceResult

# signals that carry a call out of the process (a weak ``dist-init`` or a bare subprocess does not say the
# sampler's generation runs elsewhere)
CROSSING = frozenset({"ray-actor", "ray-object-store", "ray-init", "ray-placement-group", "ray-collective",
                      "http-generate", "http-weights", "http-client", "zmq", "grpc", "redis", "etcd", "mp-queue",
                      "mp-process", "socket-client", "subprocess-server", "cuda-ipc", "engine-rpc"})
_MAX_CONE = 3000  # a cone larger than this is no longer "the sampler": treat it as crossing


def sampler_stays_local(graphs: Graphs | None, ev: EvidenceResult, online: list[Evidence],
                        index: Index | None = None, entries: Iterable[KeyEntry] = (),
                        reached: AbstractSet[str] | None = None) -> str | None:
    """The sampler's qualname when the same-object sampling call's cone holds no crossing, else None
    (``index`` and ``entries``: to leave out the paths through handles that stay ``None`` by default;
    ``reached``: what runs; a same-object site in code nothing runs, such as a model wrapper's own
    ``generate`` no loop is seen to call, says nothing about the loop)."""
    shared = [e for e in online[:1] if e.signal == "same-object"]
    if not shared or graphs is None:
        return None
    site = shared[0]
    caller = _enclosing(graphs, site.file, site.line)
    if caller is None or (reached is not None and caller not in reached):
        return None
    # the call's repo targets and what they reach; a call straight into a library (``module.generate``) has none
    starts = [t for rc in graphs.resolved.get(caller, ()) if rc.site.line == site.line
              for t in rc.targets if t in graphs.functions]
    off = off_handles(index, entries) if index is not None else {}
    skipped: dict[str, set[int]] = {}  # file -> lines of calls through an off handle
    cone = _cone(graphs, starts, off, skipped)
    if cone is None:
        return None
    spans: dict[str, list[tuple[int, int]]] = {site.file: [(site.line, site.line)]}
    for q in cone:
        info = graphs.functions[q]
        spans.setdefault(info.file, []).append((info.definition.line, info.definition.end_line))
    for e in ev.evidence:
        if e.signal in CROSSING and e.line not in skipped.get(e.file, ()) and \
                any(a <= e.line <= b for a, b in spans.get(e.file, ())):
            return None
    return starts[0] if starts else caller


def _enclosing(graphs: Graphs, file: str, line: int) -> str | None:
    """The innermost function of ``file`` whose lines hold ``line``."""
    best: tuple[int, str] | None = None
    for q, info in graphs.functions.items():
        d = info.definition
        if info.file == file and d.line <= line <= d.end_line and (best is None or d.line > best[0]):
            best = (d.line, q)
    return best[1] if best else None


def _cone(graphs: Graphs, starts: list[str], off: dict[tuple[str, str], set[str]],
          skipped: dict[str, set[int]]) -> set[str] | None:
    """Repo functions reachable by calls from ``starts``, not through a call on an off handle of the caller's
    class (its lines go to ``skipped``); None past the bound."""
    seen = set(starts)
    todo = deque(starts)
    while todo:
        q = todo.popleft()
        info = graphs.functions.get(q)
        handles = off.get((info.file, info.definition.qualname.split(".", 1)[0])) if info is not None else None
        for rc in graphs.resolved.get(q, ()):
            if handles and _through(rc.site, handles):
                skipped.setdefault(rc.file, set()).add(rc.site.line)
                continue
            for nxt in rc.targets:
                if nxt in seen or nxt not in graphs.functions:
                    continue
                seen.add(nxt)
                if len(seen) > _MAX_CONE:
                    return None
                todo.append(nxt)
    return seen


def _through(call: CallSite, handles: set[str]) -> bool:
    """The call hands on ``self.<handle>`` or calls a method of it."""
    texts = [a.value for a in (*call.args, *(v for _k, v in call.kwargs)) if isinstance(a.value, str)]
    texts.append(call.receiver or "")
    return any(t == f"self.{h}" or t.startswith(f"self.{h}.") for t in texts for h in handles)


def off_handles(index: Index, entries: Iterable[KeyEntry]) -> dict[tuple[str, str], set[str]]:
    """(file, class) -> attributes that stay ``None`` with the shipped defaults (see the module docstring)."""
    configured = {e.name.lstrip("-").rsplit(".", 1)[-1].lower() for e in entries if not e.scope and e.value is not None}
    out: dict[tuple[str, str], set[str]] = {}
    for path, s in index.summaries.items():
        if not s.classes:
            continue
        for cls in {c.qualname for c in s.classes}:
            handles = _off_in_class(s, cls, configured)
            if handles:
                out[(path, cls)] = handles
    return out


def _off_in_class(s: FileSummary, cls: str, configured: set[str]) -> set[str]:
    mine = [a for a in s.assignments if a.scope.startswith(cls + ".") and a.target.startswith("self.")
            and a.target.count(".") == 1 and not a.augmented]
    if not mine:
        return set()
    # attributes read from a config with no default (``cfg.get("tp", None)``) whose key no loaded config sets
    chains = {(c.scope, c.line): c for c in s.chains if c.mode == "read" and c.path}
    unset = set()
    for a in mine:
        c = chains.get((a.scope, a.line))
        if a.value_kind == "call" and isinstance(a.value, str) and a.value.endswith(".get") and c is not None \
                and c.default is None and c.path[-1].lower() not in configured:
            unset.add(a.target[5:])
    if not unset:
        return set()
    calls = {(c.scope, c.line, c.func): c for c in s.calls}
    by_attr: dict[str, list] = {}
    for a in mine:
        by_attr.setdefault(a.target[5:], []).append(a)
    out = set()
    for attr, assigns in by_attr.items():
        if not any(a.value_kind == "lit" and a.value is None for a in assigns):
            continue
        filled = [a for a in assigns if a.value_kind != "lit"]
        if filled and all(a.value_kind == "call" and _sized_by(calls.get((a.scope, a.line, a.value)), unset) for a in filled):
            out.add(attr)
    return out


def _sized_by(call: CallSite | None, unset: set[str]) -> bool:
    """The call takes one of the unset attributes as an argument."""
    if call is None:
        return False
    return any(isinstance(a.value, str) and a.value in {f"self.{u}" for u in unset}
               for a in (*call.args, *(v for _k, v in call.kwargs)))

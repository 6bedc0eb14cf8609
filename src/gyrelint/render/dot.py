"""The map: a picture of the two chains and the handoff between them that stays readable.

``build_map`` turns an analysis into a small plain graph (``MapGraph``): the tagged
functions (or modules), collapsed by package and side until they fit a node budget,
plus the two handoff edges. ``to_dot`` writes GraphViz DOT from it; the Mermaid and
HTML renderers reuse the same ``MapGraph`` so every picture tells the same story.
Everything is sorted before it is written, so the same analysis gives the same bytes.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from collections import Counter, defaultdict, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..escape import dot_string
from ..model import Evidence, HandoffKind, Side
from .paths import REPO_RELATIVE, PathContext

if TYPE_CHECKING:
    from ..analysis import Analysis

DEFAULT_MAX_NODES = 60
IMAGE_FORMATS = ("svg", "png", "pdf")
FORMATS = ("dot", "mermaid", *IMAGE_FORMATS)
EXTENSIONS = {".dot": "dot", ".gv": "dot", ".mmd": "mermaid", ".mermaid": "mermaid", ".md": "mermaid",
              ".svg": "svg", ".png": "png", ".pdf": "pdf"}
INSTALL_HINT = ("install the graphviz package (Debian/Ubuntu: apt-get install graphviz; macOS: brew install "
                "graphviz; conda: conda install graphviz)")

# Map "sides": the analysis' sides plus the entry points drawn above everything.
ENTRY = "entry"
LAYERS = (ENTRY, "driver", "sampling", "handoff", "training")
SIDE_STYLE = {  # fill, border
    ENTRY: ("#ffffff", "#555555"),
    "driver": ("#e8e8e8", "#6b6b6b"),
    "sampling": ("#d8f0d8", "#3c8c3c"),
    "handoff": ("#fff1c4", "#b08a00"),
    "training": ("#d7e6fa", "#3465a4"),
    "neutral": ("#f7f7f7", "#b0b0b0"),
}
CLUSTER_STYLE = {  # background, border, title
    "sampling": ("#f3faf3", "#3c8c3c", "sampling chain: rollout"),
    "handoff": ("#fffaea", "#b08a00", "handoff"),
    "training": ("#f1f6fd", "#3465a4", "training chain: consume, update"),
    "driver": ("#fafafa", "#9a9a9a", "drivers"),
}
TRAJECTORY_COLOR = "#1f6fd1"
WEIGHT_COLOR = "#c0392b"
_MAX_ENTRIES = 6
_CONTRACT_DEPTH = 3
_CONTRACT_VISITS = 300
UNREACHED = "~unreached"
_PIN_HANDOFF = 4  # the first handoff functions of each kind always get their own box
_EDGES_OUT, _EDGES_IN = 4, 2  # call edges kept per node (strongest first)
_EDGES_ENTRY = 2  # edges drawn from one entry point
_EDGES_GROUP = 2  # group-to-group edges drawn from one group
FOCUS_MAX_NODES = 25  # --focus draws a neighbourhood, not a second whole map
_FOCUS_PATH_HOPS = 4  # the path from the focus to the other chain is added when at most this long
# Fitting a screen (issue 19 item 4): every node gets an explicit row, rows stack top-down by
# side (entries, drivers, sampling, handoff, training), and a row holds boxes up to ROW_WIDTH pt
# by the estimate below, so the page is at most about MAX_WIDTH pt wide whatever the repo.
MAX_WIDTH = 2000.0
ROW_WIDTH = 1300.0  # boxes of one row; the rest of MAX_WIDTH is cluster margins, edge routing, labels
LABEL_CHARS = 24  # a label line longer than this is wrapped (qualnames at dots)
_ROW_MAX = 7  # boxes per row at most, even when short
_CHAR_PT = 6.4  # Helvetica 10 pt, a conservative mean advance (capitals and '_' included)
_BOX_PAD = 26.0  # the node's margin (0.12 in each side) and border
_NODESEP = 0.25  # inches between boxes of a row


@dataclass(slots=True)
class MapNode:
    """One box of the map: a function, a module, an entry point, or a collapsed group of them."""

    id: str
    key: str  # qualname, module, entry text or group prefix
    label: str
    side: str  # one of LAYERS or "neutral"
    kind: str  # "function" | "module" | "group" | "entry"
    handoff_kind: str | None = None  # "trajectory" | "weight_sync" for handoff nodes
    members: list[str] = field(default_factory=list)  # qualnames (or modules) drawn by this node
    file: str = ""
    line: int = 0
    evidence: list[Evidence] = field(default_factory=list)
    reached: bool = False
    module: str = ""  # a function's module: boxes of one module share a sub-cluster titled with it

    @property
    def collapsed(self) -> int:
        return len(self.members) if self.kind == "group" else 0


@dataclass(slots=True)
class MapEdge:
    src: str
    dst: str
    kind: str = "call"  # "call" | "trajectory" | "weight_sync" | "entry"
    label: str = ""
    weak: bool = False
    count: int = 1


@dataclass(slots=True)
class MapGraph:
    level: str
    title: str
    nodes: list[MapNode]
    edges: list[MapEdge]
    member_of: dict[str, str]  # qualname (or module) -> node id
    total: int = 0  # candidate functions/modules before collapsing
    shown: int = 0  # drawn one by one
    collapsed: dict[str, int] = field(default_factory=dict)  # side -> members folded into groups
    trajectory_transport: str = "unknown"
    weight_transport: str = "unknown"
    focus: str | None = None

    def node(self, node_id: str) -> MapNode:
        return self._by_id()[node_id]

    def _by_id(self) -> dict[str, MapNode]:
        return {n.id: n for n in self.nodes}


class MapError(ValueError):
    """A request the analysis cannot answer (unknown --focus name...): the CLI turns it into exit 2."""


def node_id(key: str) -> str:
    """Stable, short, markup-safe id: the same thing keeps its id from one run to the next."""
    return "n" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:10]


def map_side(side: Side | str, handoff_kind: HandoffKind | str | None) -> str:
    s = side.value if isinstance(side, Side) else str(side)
    return "handoff" if handoff_kind or s == "handoff" else s


def _kind(h: HandoffKind | str | None) -> str | None:
    if h is None:
        return None
    return h.value if isinstance(h, HandoffKind) else str(h)


def _module_of(a: Analysis, qualname: str) -> str:
    info = a.graphs.functions.get(qualname)
    if info is not None:
        return info.module
    f = a.functions.get(qualname)
    if f is not None:
        return a.index.files.modules.get(f.file) or qualname.rsplit(".", 1)[0]  # one name per module
    return qualname.rsplit(".", 1)[0]


def _short(qualname: str, module: str) -> str:
    """``pkg.sub.mod.Cls.meth`` -> ``mod.Cls.meth``: enough to recognise, short enough to lay out."""
    rest = _rest(qualname, module)
    if rest == qualname:
        return wrap_dotted(qualname)
    return wrap_dotted(f"{module.rsplit('.', 1)[-1]}.{rest}")


def _rest(qualname: str, module: str) -> str:
    """The qualname below its module (``Cls.meth``), or the whole qualname."""
    return qualname[len(module) + 1:] if module and qualname.startswith(module + ".") else qualname


def wrap_dotted(text: str, width: int = LABEL_CHARS) -> str:
    """Label lines of at most ``width`` characters: split after dots (then after ``_``), so
    ``verl.workers.rollout.vllm_rollout`` reads ``verl.workers.rollout.`` / ``vllm_rollout``."""
    out: list[str] = []
    for line in text.split("\n"):
        cur = ""
        for part in re.split(r"(?<=[.])", line):
            pieces = re.split(r"(?<=_)", part) if len(part) > width else [part]
            for piece in pieces:
                while len(piece) > width + 8:  # one unbroken run longer than a box: cut it
                    if cur:
                        out.append(cur)
                        cur = ""
                    out.append(piece[:width])
                    piece = piece[width:]
                if cur and len(cur) + len(piece) > width:
                    out.append(cur)
                    cur = piece
                else:
                    cur += piece
        out.append(cur)
    return "\n".join(x for x in out if x) or text


def label_width(label: str) -> float:
    """The estimated width (pt) of a box holding ``label``: what the row packing budgets with."""
    longest = max((len(line) for line in label.split("\n")), default=0)
    return max(54.0, longest * _CHAR_PT + _BOX_PAD)


# ---------------------------------------------------------------------------------------------
# Building the map


@dataclass(slots=True)
class _Item:
    key: str
    group_path: tuple[str, ...]  # dotted parts the item is grouped by (its module, or its package)
    side: str
    hkind: str | None
    score: tuple
    file: str
    line: int
    evidence: list[Evidence]
    reached: bool
    label: str


def build_map(a: Analysis, level: str = "function", focus: str | None = None,
              max_nodes: int = DEFAULT_MAX_NODES) -> MapGraph:
    """The map of an analysis: at most about ``max_nodes`` boxes, collapsed by package and side."""
    if level not in ("function", "module"):
        raise MapError(f"unknown level {level!r}; use 'function' or 'module'")
    max_nodes = max(8, int(max_nodes))
    if focus:  # a neighbourhood to read at a glance, not a second whole map
        max_nodes = min(max_nodes, FOCUS_MAX_NODES)
    focus_set, seeds = _focus_set(a, focus) if focus else (None, set())
    items = _function_items(a, focus_set, seeds) if level == "function" else _module_items(a, focus_set, seeds)
    entries = _entry_nodes(a, focus_set)
    budget = max(4, max_nodes - len(entries))
    nodes, member_of, collapsed = _collapse(items, budget, level)
    nodes.extend(entries)
    for e in entries:
        for m in e.members:
            member_of.setdefault(m, e.id)
    edges = _contracted_edges(a, nodes, member_of, level)
    g = MapGraph(level=level, title="", nodes=nodes, edges=edges, member_of=member_of, total=len(items),
                 shown=sum(1 for n in nodes if n.kind != "group" and n.kind != ENTRY), collapsed=collapsed,
                 trajectory_transport=a.topology.trajectory_transport or "unknown",
                 weight_transport=a.topology.weight_transport or "unknown", focus=focus)
    _handoff_edges(a, g)
    g.nodes.sort(key=lambda n: (LAYERS.index(n.side) if n.side in LAYERS else 9, n.key))
    g.edges.sort(key=lambda e: (e.src, e.dst, e.kind))
    g.title = _title(a, g)
    return g


def _title(a: Analysis, g: MapGraph) -> str:
    name = a.given_root.rstrip("/").rsplit("/", 1)[-1] or a.given_root
    parts = [f"{name}: {g.level} map"]
    if g.focus:
        parts.append(f"around {g.focus}")
    folded = sum(g.collapsed.values())
    if folded:
        parts.append(f"{g.shown} of {g.total} {g.level}s shown, {folded} collapsed into groups")
    else:
        parts.append(f"{g.total} {g.level}s")
    parts.append(f"online: {'yes' if a.handoff.online else 'no'}; processes: {a.topology.verdict}")
    return " | ".join(parts)


def _focus_set(a: Analysis, name: str) -> tuple[set[str], set[str]]:
    """The named function(s) or module and their callers and callees (two steps each way)."""
    calls = a.graphs.calls
    names = set(a.functions) | {m.module for m in a.modules} | set(a.graphs.functions)
    exact = [q for q in names if q == name]
    hits = exact or sorted(q for q in names if q.endswith("." + name))
    if not hits:
        hits = sorted(q for q in names if name in q)
    if not hits:
        raise MapError(f"--focus {name!r}: no function or module with that name; pass a qualname "
                       "such as pkg.mod.Class.method, or its last part")
    seeds: set[str] = set()
    for h in hits[:20]:
        if h in a.functions or h in a.graphs.functions:
            seeds.add(h)
        else:  # a module: all its functions
            seeds |= {q for q in a.functions if _module_of(a, q) == h}
    out = set(seeds)
    for direction in ("succ", "pred"):
        frontier = {s for s in seeds if s in calls}
        for _ in range(2):
            nxt: set[str] = set()
            for n in frontier:
                nxt |= set(calls.successors(n) if direction == "succ" else calls.predecessors(n))
            nxt -= out
            out |= nxt
            frontier = nxt
    path = _path_to_other_side(a, seeds)
    return out | set(path), seeds | set(path)


def _path_to_other_side(a: Analysis, seeds: set[str]) -> list[str]:
    """The shortest call path (either direction, at most ``_FOCUS_PATH_HOPS``) from the focus to a
    function of the other chain: sampling -> training, training -> sampling, else either. Empty
    when there is none that short; neighbours are visited in sorted order, so ties are stable."""
    calls = a.graphs.calls
    sides = {map_side(a.functions[q].side, a.functions[q].handoff_kind) for q in seeds if q in a.functions}
    if "sampling" in sides and "training" in sides:
        return []
    want = {"training"} if "sampling" in sides else {"sampling"} if "training" in sides else {"sampling", "training"}
    start = sorted(q for q in seeds if q in calls)
    parent: dict[str, str | None] = dict.fromkeys(start)
    frontier = start
    for _ in range(_FOCUS_PATH_HOPS):
        nxt: list[str] = []
        for n in frontier:
            for m in sorted(set(calls.successors(n)) | set(calls.predecessors(n))):
                if m in parent:
                    continue
                parent[m] = n
                f = a.functions.get(m)
                if f is not None and map_side(f.side, f.handoff_kind) in want:
                    path = [m]
                    while parent[path[-1]] is not None:
                        path.append(parent[path[-1]])  # type: ignore[arg-type]
                    return path[::-1]
                nxt.append(m)
        frontier = nxt
    return []


def _score(pinned: bool, reached: bool, evidence: int, key: str) -> tuple:
    return (0 if pinned else 1, 0 if reached else 1, -evidence, len(key), key)


def _pinned(a: Analysis) -> set[str]:
    h = a.handoff
    pins = set(h.trajectory[:_PIN_HANDOFF]) | set(h.weight_sync[:_PIN_HANDOFF]) | set(h.weight_sync_path)
    return pins


def _function_items(a: Analysis, focus_set: set[str] | None, seeds: set[str] = frozenset()) -> list[_Item]:
    pins = _pinned(a) | set(seeds)
    items = []
    for q, f in a.functions.items():
        side = map_side(f.side, f.handoff_kind)
        if focus_set is not None:
            if q not in focus_set:
                continue
        elif (side == "neutral" and q not in pins) or a.index.out_of_scope(f.file):
            continue
        mod = _module_of(a, q)
        items.append(_Item(q, tuple(mod.split(".")), side, _kind(f.handoff_kind),
                           _score(q in pins, f.reached, len(f.evidence), q), f.file, f.line,
                           list(f.evidence), f.reached, _short(q, mod)))
    return sorted(items, key=lambda i: i.score)


def _module_items(a: Analysis, focus_set: set[str] | None, seeds: set[str] = frozenset()) -> list[_Item]:
    by_mod: dict[str, list] = defaultdict(list)
    for q, f in a.functions.items():
        by_mod[_module_of(a, q)].append(f)
    reported = {m.module: m for m in a.modules}
    boundary = set(a.boundary_modules)
    focus_mods = {_module_of(a, q) for q in focus_set} if focus_set is not None else None
    pin_mods = {_module_of(a, q) for q in _pinned(a) | set(seeds)}
    items = []
    for mod in sorted(set(by_mod) | set(reported)):
        fns = by_mod.get(mod, [])
        sides = Counter(map_side(f.side, f.handoff_kind) for f in fns)
        sides.pop("neutral", None)
        rep = reported.get(mod)
        side = rep.side.value if rep is not None else "neutral"
        if side == "neutral" and sides:
            side = sorted(sides.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        if mod in boundary or (rep is not None and rep.boundary):
            side = "handoff"
        if focus_mods is not None:
            if mod not in focus_mods:
                continue
        elif side == "neutral" or (fns and all(a.index.out_of_scope(f.file) for f in fns)):
            continue
        kinds = Counter(_kind(f.handoff_kind) for f in fns if f.handoff_kind)
        hkind = sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0] or ""))[0][0] if kinds else None
        evidence = [e for f in sorted(fns, key=lambda f: f.line) for e in f.evidence]
        first = min(fns, key=lambda f: f.line) if fns else None
        file = first.file if first else ""
        reached = any(f.reached for f in fns)
        items.append(_Item(mod, tuple(mod.split(".")[:-1]), side, hkind,
                           _score(mod in pin_mods or mod in boundary, reached, len(evidence), mod),
                           file, 1 if file else 0, evidence, reached, mod))
    return sorted(items, key=lambda i: i.score)


def _collapse(items: list[_Item], budget: int, level: str) -> tuple[list[MapNode], dict[str, str], dict[str, int]]:
    """Keep the best items one by one and fold the rest into groups by package and side.

    Groups start at the top package level (below any prefix every item shares) and the largest
    group is split into its subpackages while the groups fit ~60% of the budget; the rest of the
    room then goes to single items in score order (handoff and weight-sync path first).
    """
    if len(items) <= budget:
        return [_item_node(i, level) for i in items], {i.key: node_id(i.key) for i in items}, {}
    common = _common_prefix([i.group_path for i in items])
    groups = _split_groups(items, int(budget * 0.7), len(common))
    if len(groups) > budget:  # tiny budget: one box per side (and handoff kind)
        coarse: dict[tuple, list[_Item]] = defaultdict(list)
        for k, members in groups.items():
            coarse[(k[0], k[1], ())].extend(members)
        groups = {k: sorted(v, key=lambda i: i.score) for k, v in coarse.items()}
    where = {i.key: k for k, members in groups.items() for i in members}
    size = {k: len(v) for k, v in groups.items()}
    count = len(groups)
    single: set[str] = set()
    rank: Counter[str] = Counter()
    balanced = []  # best first, taking turns between the sides so each chain keeps some detail
    for i in items:
        balanced.append((i.score[0], rank[i.side], LAYERS.index(i.side) if i.side in LAYERS else 9, i.score, i))
        rank[i.side] += 1
    for *_, i in sorted(balanced, key=lambda t: t[:4]):
        k = where[i.key]
        after = count + 1 - (1 if size[k] == 1 else 0)
        if after > budget:
            continue
        single.add(i.key)
        size[k] -= 1
        count = after
    nodes = [_item_node(i, level) for i in items if i.key in single]
    member_of = {k: node_id(k) for k in single}
    collapsed: Counter[str] = Counter()
    base = ".".join(common)
    for (side, hkind, prefix_t), all_members in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or "", kv[0][2])):
        members = [m for m in all_members if m.key not in single]
        if not members:
            continue
        if len(members) == 1:
            nodes.append(_item_node(members[0], level))
            member_of[members[0].key] = node_id(members[0].key)
            continue
        prefix = ".".join(prefix_t)
        key = f"group:{side}:{hkind or ''}:{prefix}"
        nid = node_id(key)
        what = "functions" if level == "function" else "modules"
        shown = prefix[len(base) + 1:] if base and prefix.startswith(base + ".") else prefix
        label = f"+{len(members)} more {what}\nin {wrap_dotted(shown)}" if shown else \
            f"+{len(members)} more\n{side} {what}"
        if prefix_t == (UNREACHED,):
            label = f"+{len(members)} more {what}\nnot reached from\nan entry point"
        best = members[0]
        node = MapNode(nid, key, label, side, "group", hkind,
                       sorted(m.key for m in members), best.file, best.line,
                       [e for m in members[:5] for e in m.evidence[:2]], any(m.reached for m in members))
        nodes.append(node)
        collapsed[side] += len(members)
        for m in members:
            member_of[m.key] = nid
    return nodes, member_of, dict(sorted(collapsed.items()))


def _split_groups(items: list[_Item], limit: int, base: int) -> dict[tuple, list[_Item]]:
    """Groups keyed (side, handoff kind, package prefix); the biggest splits first while they fit."""
    groups: dict[tuple, list[_Item]] = defaultdict(list)
    some_reached = any(i.reached for i in items)
    frozen: set[tuple] = set()
    for i in items:
        hk = i.hkind if i.side == "handoff" else None
        if some_reached and not i.reached:  # code no entry point runs: one box per side
            frozen.add((i.side, hk, (UNREACHED,)))
            groups[(i.side, hk, (UNREACHED,))].append(i)
        else:
            groups[(i.side, hk, i.group_path[:base + 1])].append(i)
    while True:
        progressed = False
        boxes = Counter(k[0] for k in groups)  # a side with few boxes gets split first
        for k in sorted((k for k in groups if k not in frozen and len(groups[k]) > 1),
                        key=lambda k: (-len(groups[k]) / boxes[k[0]], k[0], k[1] or "", k[2])):
            depth = len(k[2])
            sub: dict[tuple, list[_Item]] = defaultdict(list)
            for i in groups[k]:
                sub[(k[0], k[1], i.group_path[:depth + 1])].append(i)
            if list(sub) == [k]:  # nothing deeper to split by
                frozen.add(k)
                continue
            if len(groups) - 1 + len(sub) <= limit:
                del groups[k]
                groups.update(sub)
                progressed = True
                break
            frozen.add(k)
        if not progressed:
            return groups


def _common_prefix(paths: list[tuple[str, ...]]) -> tuple[str, ...]:
    if not paths:
        return ()
    lo, hi = min(paths), max(paths)
    n = 0
    while n < min(len(lo), len(hi)) and lo[n] == hi[n]:
        n += 1
    return lo[:n]


def _item_node(i: _Item, level: str) -> MapNode:
    module = ".".join(i.group_path) if level == "function" else ""
    label = i.label if level == "function" else wrap_dotted(i.label)
    return MapNode(node_id(i.key), i.key, label, i.side, level, i.hkind, [i.key], i.file, i.line,
                   list(i.evidence), i.reached, module)


def _entry_nodes(a: Analysis, focus_set: set[str] | None) -> list[MapNode]:
    """Entry points, drawn above the drivers; the few that reach most go first, the rest fold into one."""
    seen: dict[str, MapNode] = {}
    for e in a.entry_points:
        if not e.exists or not (e.module or e.function):
            continue
        target = e.function or e.module or ""
        if focus_set is not None and target not in focus_set and e.module not in focus_set:
            continue
        key = f"entry:{target}"
        if key in seen:
            continue
        label = wrap_dotted(f"{e.found_by}: {target.rsplit('.', 2)[-1] if e.function else target}")
        seen[key] = MapNode(node_id(key), key, label, ENTRY, ENTRY, None, [target], e.file or e.source, e.line or 1,
                            [Evidence(f"entry-{e.found_by}", e.source or e.file or "", e.line)], True)

    def reach(n: MapNode) -> tuple:
        t = n.members[0]
        calls = a.graphs.calls
        deg = calls.out_degree(t) if t in calls else 0
        return (-deg, n.key)

    ordered = sorted(seen.values(), key=reach)
    if len(ordered) <= _MAX_ENTRIES:
        return ordered
    keep, rest = ordered[:_MAX_ENTRIES - 1], ordered[_MAX_ENTRIES - 1:]
    key = "entry:group"
    keep.append(MapNode(node_id(key), key, f"{len(rest)} more entry points", ENTRY, "group", None,
                        sorted(m for n in rest for m in n.members), "", 0, []))
    return keep


def _contracted_edges(a: Analysis, nodes: list[MapNode], member_of: dict[str, str], level: str) -> list[MapEdge]:
    """Call edges between drawn nodes; calls through undrawn (neutral) functions are followed a few steps."""
    calls = a.graphs.calls
    found: dict[tuple[str, str], list[bool]] = {}
    node_side = {n.id: n.side for n in nodes}

    def owner(q: str) -> str | None:
        nid = member_of.get(q)
        if nid is None and level == "module":
            nid = member_of.get(_module_of(a, q)) if q in a.functions else None
        return nid

    sources: list[tuple[str, str]] = []  # (graph node, map node)
    for n in nodes:
        if n.kind == ENTRY or (n.kind == "group" and n.side == ENTRY):
            sources += [(m, n.id) for m in n.members]
    for q in sorted(a.functions):
        nid = owner(q)
        if nid is not None:
            sources.append((q, nid))
    for start, src in sources:
        own = owner(start)
        if own is not None and own != src:  # an entry point whose function is drawn: point at it
            found.setdefault((src, own), []).append(False)
            continue
        if start not in calls:
            continue
        queue = deque([(start, 0, False)])
        seen = {start}
        visits = 0
        while queue and visits < _CONTRACT_VISITS:
            cur, depth, weak = queue.popleft()
            for nxt in sorted(calls.successors(cur)):
                if nxt in seen:
                    continue
                seen.add(nxt)
                visits += 1
                w = weak or calls.edges[cur, nxt].get("kind") == "weak"
                dst = owner(nxt)
                if dst is not None:
                    if dst != src:
                        found.setdefault((src, dst), []).append(w)
                    continue
                if depth + 1 < _CONTRACT_DEPTH:
                    queue.append((nxt, depth + 1, w))
    if not any(True for _ in calls.edges) and level == "module":
        imports = a.graphs.imports
        for u, v in imports.edges:
            su, sv = member_of.get(u), member_of.get(v)
            if su and sv and su != sv:
                found.setdefault((su, sv), []).append(False)
    edges = []
    for (s, d), weak in sorted(found.items()):
        kind = "entry" if node_side.get(s) == ENTRY else "call"
        edges.append(MapEdge(s, d, kind, "", all(weak), len(weak)))
    return _prune(edges, {n.id for n in nodes if n.kind == "group"})


def _prune(edges: list[MapEdge], groups: set[str] = frozenset()) -> list[MapEdge]:
    """Keep each node's strongest few call edges: enough to follow the flow, few enough to lay out fast."""
    out_n: Counter[str] = Counter()
    in_n: Counter[str] = Counter()
    kept = []
    for e in sorted(edges, key=lambda e: (e.weak, -e.count, e.src, e.dst)):
        if e.kind == "entry" and (e.weak or out_n[e.src] >= _EDGES_ENTRY):  # entries: a few exact calls
            continue
        if e.src in groups and e.dst in groups and out_n[e.src] >= _EDGES_GROUP:  # package-to-package
            continue
        if e.weak and out_n[e.src] and in_n[e.dst]:  # a guessed call only where it connects a loose node
            continue
        if out_n[e.src] < _EDGES_OUT or in_n[e.dst] < _EDGES_IN:
            kept.append(e)
            out_n[e.src] += 1
            in_n[e.dst] += 1
    return kept


def _best(g: MapGraph, side: str, near: str | None, hkind: str | None = None, outgoing: bool | None = None) -> str | None:
    """The node of ``side`` most tied to ``near`` (by a call edge), else the strongest one of that side."""
    cands = [n for n in g.nodes if n.side == side and (hkind is None or n.handoff_kind == hkind)]
    if not cands:
        return None
    if near is not None:
        linked = set()
        for e in g.edges:
            if e.kind not in ("call", "entry"):
                continue
            if e.dst == near and outgoing is not False:
                linked.add(e.src)
            if e.src == near and outgoing is not True:
                linked.add(e.dst)
        tied = [n for n in cands if n.id in linked]
        if tied:
            cands = tied
    return min(cands, key=lambda n: (n.kind == "group", not n.reached, -len(n.evidence), n.key)).id


def _transport_label(text: str, width: int = 26) -> str:
    """The main transport, wrapped: ``Ray object store (also: ...)`` -> ``(Ray object store, +3 more)``."""
    main, _, also = text.partition(" (also:")
    more = len([x for x in also.rstrip(")").split(",") if x.strip()]) if also else 0
    words, lines, cur = main.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    lines.append(cur)
    return "(" + "\n".join(lines) + (f", +{more} more" if more else "") + ")"


def _linked(g: MapGraph, u: str, v: str) -> bool:
    return any({e.src, e.dst} == {u, v} for e in g.edges if e.kind in ("call", "entry"))


def _handoff_edges(a: Analysis, g: MapGraph) -> None:
    """The two edges the map exists for: trajectories sampler -> trainer, weights trainer -> sampler."""
    traj = g.trajectory_transport
    wts = g.weight_transport
    special: list[MapEdge] = []
    # Trajectory: producer (sampling) -> handoff node(s) it feeds -> the one the consumer reads -> consumer.
    def owner(q: str) -> str | None:  # at module level a function is drawn by its module's box
        return g.member_of.get(q) or (g.member_of.get(_module_of(a, q)) if g.level == "module" else None)

    tnodes: list[str] = []
    for q in a.handoff.trajectory:
        nid = owner(q)
        if nid and nid not in tnodes and g.node(nid).side == "handoff":
            tnodes.append(nid)
    if not tnodes:
        best = _best(g, "handoff", None, "trajectory")
        tnodes = [best] if best else []
    producer = consumer = t_in = t_out = None
    for t in tnodes:
        p = _best(g, "sampling", t)
        if p and (producer is None or _linked(g, p, t)):
            producer, t_in = p, t
            if _linked(g, p, t):
                break
    for t in tnodes:
        c = _best(g, "training", t)
        if c and (consumer is None or _linked(g, c, t)):
            consumer, t_out = c, t
            if _linked(g, c, t):
                break
    if not tnodes and a.handoff.trajectory:  # found, but drawn inside the chains: sampler -> trainer
        producer, consumer = _best(g, "sampling", None), _best(g, "training", None)
    tlabel = f"trajectories\n{_transport_label(traj)}" if traj and traj != "unknown" else "trajectories"
    chain = [x for x in (producer, t_in, t_out, consumer) if x]
    chain = [x for i, x in enumerate(chain) if i == 0 or chain[i - 1] != x]
    if len(chain) == 1 and tnodes:
        chain = []
    for i, (u, v) in enumerate(zip(chain, chain[1:], strict=False)):
        special.append(MapEdge(u, v, "trajectory", tlabel if i == 0 else ""))
    # Weight sync: along the found path when it is drawn, else update -> sync node -> sampler.
    wlabel = f"weights\n{_transport_label(wts)}" if wts and wts != "unknown" else "weights"
    path: list[str] = []
    for q in a.handoff.weight_sync_path:
        nid = owner(q)
        if nid and (not path or path[-1] != nid) and g.node(nid).side != ENTRY:
            path.append(nid)
    ws = None
    for q in a.handoff.weight_sync:
        nid = owner(q)
        if nid and g.node(nid).side == "handoff":
            ws = nid
            break
    if ws is None:
        ws = _best(g, "handoff", None, "weight_sync")
    if len(path) < 2 or not any(g.node(p).side in ("handoff", "sampling") for p in path[1:]):
        path = []
        trainer = _best(g, "training", ws, outgoing=True) if ws else None
        sampler = _best(g, "sampling", ws, outgoing=False) if ws else None
        if ws is not None:
            path = [p for p in (trainer, ws, sampler) if p]
        elif a.handoff.online or a.handoff.weight_sync:  # found, but drawn inside the chains
            path = [p for p in (_best(g, "training", None), _best(g, "sampling", None)) if p]
    elif g.node(path[-1]).side != "sampling":
        sampler = _best(g, "sampling", path[-1], outgoing=False)
        if sampler and sampler not in path:
            path.append(sampler)
    # the transport is written on the first step that leaves the trainer's side (a long edge with
    # room beside it), not on a step inside one row where the boxes would cover it
    hops = list(zip(path, path[1:], strict=False))
    at = next((i for i, (u, v) in enumerate(hops) if g.node(u).side != g.node(v).side), 0)
    for i, (u, v) in enumerate(hops):
        special.append(MapEdge(u, v, "weight_sync", wlabel if i == at else ""))
    pairs = {(e.src, e.dst) for e in special} | {(e.dst, e.src) for e in special}
    g.edges = [e for e in g.edges if (e.src, e.dst) not in pairs] + special


# ---------------------------------------------------------------------------------------------
# DOT


def _q(text: str) -> str:
    """A DOT double-quoted string (hidden characters shown, dot's own backslash escapes disarmed)."""
    return dot_string(text)


def _attrs(**kw: object) -> str:
    parts = []
    for k, v in kw.items():
        if v is None or v == "":
            continue
        parts.append(f"{k}={v if isinstance(v, int | float) else _q(str(v))}")
    return "[" + ", ".join(parts) + "]"


def tooltip(n: MapNode, limit: int = 12, paths: PathContext = REPO_RELATIVE) -> str:
    """What a node stands for and why: qualname, file:line, then the evidence as signal file:line."""
    lines = []
    if n.kind == "group":
        lines.append(f"{len(n.members)} collapsed ({n.side}):")
        lines += [f"  {m}" for m in n.members[:limit]]
        if len(n.members) > limit:
            lines.append(f"  … {len(n.members) - limit} more")
    else:
        lines.append(n.members[0] if n.members else n.key)
    if n.file:
        lines.append(paths.loc(n.file, n.line))
    for e in n.evidence[:limit]:
        via = "" if e.via == "own" else f" via {e.via}"
        lines.append(f"{e.signal} {paths.show(e.file)}:{e.line}{via}")
    if len(n.evidence) > limit:
        lines.append(f"… {len(n.evidence) - limit} more signals")
    return "\n".join(lines)


def _node_line(n: MapNode, label: str | None = None, paths: PathContext = REPO_RELATIVE) -> str:
    fill, border = SIDE_STYLE.get(n.side, SIDE_STYLE["neutral"])
    shape = "box"
    style = "rounded,filled"
    if n.kind == "group":
        shape, style = "box3d", "filled"
    elif n.side == ENTRY:
        shape, style = "cds", "filled"
    elif n.kind == "module":
        shape, style = "tab", "filled"
    penwidth = 1.6 if n.side == "handoff" else 1.0
    color = border
    if n.handoff_kind == "trajectory":
        color = TRAJECTORY_COLOR
    elif n.handoff_kind == "weight_sync":
        color = WEIGHT_COLOR
    cls = f"gnode side-{n.side}" + (f" hk-{n.handoff_kind}" if n.handoff_kind else "") + (" group" if n.kind == "group" else "")
    return f"    {n.id} " + _attrs(label=n.label if label is None else wrap_dotted(label), shape=shape, style=style, fillcolor=fill, color=color,
                                     penwidth=penwidth, tooltip=tooltip(n, paths=paths), id=n.id, **{"class": cls}) + ";"


def _legend() -> list[str]:
    rows = [
        (SIDE_STYLE["sampling"][0], "sampling (rollout)"),
        (SIDE_STYLE["handoff"][0], "handoff"),
        (SIDE_STYLE["training"][0], "training (consume, update)"),
        (SIDE_STYLE["driver"][0], "driver"),
        (SIDE_STYLE[ENTRY][0], "entry point"),
    ]
    cells = "".join(f'<TR><TD BGCOLOR="{c}" WIDTH="18"> </TD><TD ALIGN="LEFT">{t}</TD></TR>' for c, t in rows)
    cells += (f'<TR><TD><FONT COLOR="{TRAJECTORY_COLOR}"><B>━━▶</B></FONT></TD><TD ALIGN="LEFT">trajectories '
              f'(sampler → trainer)</TD></TR>'
              f'<TR><TD><FONT COLOR="{WEIGHT_COLOR}"><B>╍╍▶</B></FONT></TD><TD ALIGN="LEFT">weight sync '
              f'(trainer → sampler)</TD></TR>'
              '<TR><TD><FONT COLOR="#8a8a8a">──▶</FONT></TD><TD ALIGN="LEFT">call (dotted: weak)</TD></TR>'
              '<TR><TD>▣</TD><TD ALIGN="LEFT">collapsed group (count)</TD></TR>')
    table = f'<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3"><TR><TD COLSPAN="2"><B>legend</B></TD></TR>{cells}</TABLE>>'
    return [f'  legend [shape=plaintext, id="legend", class="legend", label={table}];']


def to_dot(g: MapGraph, paths: PathContext = REPO_RELATIVE) -> str:
    """GraphViz DOT for the map, laid out to fit a screen: top-down, one band of rows per side
    (entry points and the legend on top, then drivers, sampling, handoff, training), every box
    on an explicit row of at most ``ROW_WIDTH`` pt, so the width does not grow with the repo.
    The boxes of one module share a sub-cluster titled with the module, shown once. Tooltips
    show files through ``paths``."""
    by_side: dict[str, list[MapNode]] = defaultdict(list)
    for n in g.nodes:
        by_side[n.side].append(n)
    rows = layout_rows(g)
    title = g.title.replace(" | ", "\n") if len(g.title) > 90 else g.title
    out = [
        "digraph gyrelint_map {",
        "  graph " + _attrs(rankdir="TB", newrank="true", compound="true", fontname="Helvetica", fontsize=12,
                            labelloc="t", label=title, nodesep=_NODESEP, ranksep=0.4, outputorder="edgesfirst",
                            splines="line",  # curved routing sends long edges round the clusters: +40% width
                            tooltip=g.title, id="gyrelint-map") + ";",
        "  node " + _attrs(fontname="Helvetica", fontsize=10, height=0.3, margin="0.12,0.04") + ";",
        "  edge " + _attrs(fontname="Helvetica", fontsize=9, color="#8a8a8a", arrowsize=0.6) + ";",
    ]
    for n in by_side.get(ENTRY, []):
        out.append(_node_line(n, paths=paths))
    out += _legend()
    for n in by_side.get("neutral", []):
        out.append(_node_line(n, paths=paths))
    for side in ("driver", "sampling", "handoff", "training"):
        members = by_side.get(side, [])
        if not members:
            continue
        bg, border, title = CLUSTER_STYLE.get(side, ("#ffffff", "#cccccc", side))
        out.append(f"  subgraph cluster_{side} {{")
        out.append("    graph " + _attrs(label=title, labeljust="l", style="rounded,filled", fillcolor=bg, color=border,
                                          fontcolor=border, id=f"cluster_{side}", tooltip=title) + ";")
        blocks = _module_blocks(members)
        for i, (module, block) in enumerate(blocks):
            if module is None:
                out += [_node_line(n, paths=paths) for n in block]
                continue
            out.append(f"    subgraph cluster_{side}_m{i} {{")
            out.append("      graph " + _attrs(label=wrap_dotted(module, 32), style="dashed", color="#b8b8b8",
                                              fontcolor="#6b6b6b", fontsize=9, tooltip=module) + ";")
            out += ["  " + _node_line(n, _rest(n.members[0], module), paths) for n in block]
            out.append("    }")
        out.append("  }")
    out += _row_lines(rows)
    for e in g.edges:
        out.append(f"  {e.src} -> {e.dst} " + _edge_attrs(g, e) + ";")
    out.append("}")
    return "\n".join(out) + "\n"


def _module_blocks(members: list[MapNode]) -> list[tuple[str | None, list[MapNode]]]:
    """A side's boxes by module: modules with two or more function boxes get their own block
    (a sub-cluster); the rest stand alone (module None). Order: first appearance."""
    count = Counter(n.module for n in members if n.kind == "function" and n.module)
    blocks: dict[str | None, list[MapNode]] = {}
    for n in members:
        key = n.module if n.kind == "function" and count.get(n.module, 0) >= 2 else None
        blocks.setdefault(key, []).append(n)
    return [(k, v) for k, v in blocks.items() if k is not None] + ([(None, blocks[None])] if None in blocks else [])


def layout_rows(g: MapGraph) -> list[list[MapNode]]:
    """Every box on a row, top to bottom: entry points (with the legend), then each side's boxes
    in reading order (callers above callees, a module's boxes together), packed greedily into
    rows of at most ``ROW_WIDTH`` pt by ``label_width`` and at most ``_ROW_MAX`` boxes."""
    by_side: dict[str, list[MapNode]] = defaultdict(list)
    for n in g.nodes:
        by_side[n.side].append(n)
    rows: list[list[MapNode]] = []
    for layer in (*LAYERS, "neutral"):
        members = by_side.get(layer, [])
        if not members:
            continue
        ids = [n.id for n in members]
        inner = [(e.src, e.dst) for e in g.edges if e.kind in ("call", "entry") and e.src != e.dst
                 and e.src in ids and e.dst in ids]
        depth = _depths(ids, inner)
        ordered: list[MapNode] = []
        blocks = _module_blocks(members) if layer != ENTRY else [(None, members)]
        keyed = []
        for module, block in blocks:
            block = sorted(block, key=lambda n: (depth[n.id], n.kind == "group", n.key))
            if module is None:
                keyed += [((depth[n.id], 1, n.key), [n]) for n in block]
            else:
                keyed.append(((min(depth[n.id] for n in block), 0, module), block))
        for _, block in sorted(keyed, key=lambda kv: kv[0]):
            ordered += block
        budget = ROW_WIDTH - (_legend_width() if layer == ENTRY else 0.0)
        row: list[MapNode] = []
        used = 0.0
        for n in ordered:
            w = label_width(n.label) + _NODESEP * 72  # the full label: the longer of the two forms
            if row and (used + w > budget or len(row) >= _ROW_MAX):
                rows.append(row)
                row, used, budget = [], 0.0, ROW_WIDTH
            row.append(n)
            used += w
        rows.append(row)
    return rows


def _legend_width() -> float:
    return 230.0


def estimated_width(g: MapGraph) -> float:
    """The page width (pt) the row packing guarantees, from the DOT alone (no GraphViz needed):
    the widest row of boxes plus the gaps, cluster margins and the legend beside the entries."""
    widest = 0.0
    for i, row in enumerate(layout_rows(g)):
        w = sum(label_width(n.label) for n in row) + _NODESEP * 72 * (len(row) - 1)
        if i == 0 and row and row[0].side == ENTRY:
            w += _legend_width()
        widest = max(widest, w)
    return widest + 4 * 16.0  # two nested cluster margins each side


def _row_lines(rows: list[list[MapNode]]) -> list[str]:
    """``rank=same`` per row, invisible edges stacking the rows; every drawn edge is
    ``constraint=false``, so only these decide the ranks and the width stays bounded."""
    out = []
    previous: list[str] = []
    for i, row in enumerate(rows):
        ids = [n.id for n in row]
        if i == 0 and row and row[0].side == ENTRY:
            ids = ["legend", *ids]
            out.append("  { rank=min; " + " ".join(ids) + "; }")
        else:
            out.append("  { rank=same; " + " ".join(ids) + "; }")
        if previous:  # every box pulls on every box of the row above: the rows stay centred on one
            # axis whatever order dot gives them (no flat edges in a row: dot 2.43 aborts on those)
            out += [f"  {u} -> {v} [style=invis, weight=1];" for u in previous for v in ids]
        previous = ids
    if not rows or not rows[0] or rows[0][0].side != ENTRY:
        out.insert(0, "  { rank=min; legend; }")
    return out


def _edge_attrs(g: MapGraph, e: MapEdge) -> str:
    """Handoff edges carry their transport as an ``xlabel`` (placed after the layout, beside the
    edge: a ``label`` on an edge outside the ranking becomes a box dot puts at the far side)."""
    if e.kind == "trajectory":
        return _attrs(color=TRAJECTORY_COLOR, penwidth=2.6, style="bold", xlabel=e.label, fontcolor=TRAJECTORY_COLOR,
                      constraint="false", weight=0, id=f"e_traj_{e.src}_{e.dst}", **{"class": "gedge trajectory"},
                      tooltip=f"trajectory handoff (sampler → trainer); transport: {g.trajectory_transport}")
    if e.kind == "weight_sync":
        return _attrs(color=WEIGHT_COLOR, penwidth=2.6, style="dashed", xlabel=e.label, fontcolor=WEIGHT_COLOR,
                      constraint="false", weight=0, id=f"e_ws_{e.src}_{e.dst}", **{"class": "gedge weight_sync"},
                      tooltip=f"weight sync (trainer → sampler); transport: {g.weight_transport}")
    # the rows alone decide the ranks and the x axis (layout_rows): no drawn edge adds a rank or
    # pulls a row sideways (weight 0), so the width is the widest row whatever the calls are
    attrs: dict[str, object] = {"class": f"gedge {e.kind}", "id": f"e_{e.src}_{e.dst}", "constraint": "false",
                                "weight": 0}
    if e.kind == "entry":
        attrs.update(color="#c4c4c4")
    if e.weak:
        attrs["style"] = "dotted"
    if e.count > 1:
        attrs["penwidth"] = round(min(2.5, 1 + e.count / 10), 2)
        attrs["tooltip"] = f"{e.count} calls"
    kinds = {n.id: n.kind for n in g.nodes}
    if kinds.get(e.src) == "group" and kinds.get(e.dst) == "group":  # background: package to package
        attrs.update(color="#cdcdcd", penwidth=1.0)
    return _attrs(**attrs)


def _depths(members: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Longest path from a root of the layer over the layer's own edges (cycles cut)."""
    depth = dict.fromkeys(members, 0)
    for _ in range(min(len(members), 60)):
        changed = False
        for u, v in edges:
            if depth[u] + 1 > depth[v] and depth[u] + 1 < len(members):
                depth[v] = depth[u] + 1
                changed = True
        if not changed:
            break
    return depth


# ---------------------------------------------------------------------------------------------
# Images through GraphViz


def dot_program() -> str | None:
    return shutil.which("dot")


class GraphvizMissing(RuntimeError):
    pass


def render_image(dot_text: str, fmt: str, timeout: float = 120.0) -> bytes:
    """Run ``dot -T<fmt>``; raises GraphvizMissing when the program is not installed."""
    exe = dot_program()
    if exe is None:
        raise GraphvizMissing(f"the GraphViz 'dot' program is not installed; {INSTALL_HINT}")
    fmt_arg = {"png": "png:cairo", "pdf": "pdf:cairo", "svg": "svg"}.get(fmt, fmt)
    proc = subprocess.run([exe, f"-T{fmt_arg}"], input=dot_text.encode("utf-8"), capture_output=True,
                          timeout=timeout, check=False)
    if proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(f"dot failed: {msg[-1] if msg else proc.returncode}")
    return proc.stdout


def svg_for(g: MapGraph, paths: PathContext = REPO_RELATIVE) -> str:
    """The map as SVG text (for the HTML report), without the XML prolog and doctype."""
    svg = render_image(to_dot(g, paths), "svg").decode("utf-8")
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


def iter_members(g: MapGraph) -> Iterable[tuple[str, str]]:
    for n in g.nodes:
        for m in n.members:
            yield m, n.id

"""Whole-analysis cache: when no file of the repo changed, load the finished analysis.

This is the warm path of pre-commit, flake8 and CI re-runs. The key covers the content
of every file discovery lists (Python and the configs, launchers and READMEs later stages
read), the settings and the analyzer version. The per-file summaries are not stored
again: the loaded analysis reads them lazily from the summary cache, so a warm run costs
one file hash pass and one load. The per-call resolution (``graphs.resolved``) is not
kept either: every stage that reads it has already run, and its results are stored.

Entries are msgpack data in the cache store, decoded by an explicit codec: a registry of
gyrelint's own record and enum types (an allow-list by type), each rebuilt by calling its
constructor with fields whose types are checked; the networkx graphs as node and edge
lists with their attributes. Nothing in an entry can name code to run. The settings and
the checkout folder are not stored: a loaded analysis gets the current run's (the key
already covers the settings). A bad, foreign or old-format entry is a miss and the
analysis is recomputed.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Callable, Iterator, Mapping
from itertools import chain, repeat
from pathlib import Path
from typing import TYPE_CHECKING

from .cachestore import open_store
from .codec import CodecError, Mismatch, Plan, Registry
from .codehash import code_digest
from .graphs.model import Graphs
from .graphs.symbols import SymbolTable
from .index import build_index, parse_source
from .index.cache import SummaryCache, cache_key, gc_paused
from .index.summary import FileSummary
from .repo import RepoFiles, env_files
from .safeio import InputFileError, read_input
from .settings import Settings

if TYPE_CHECKING:
    from .analysis import Analysis

MAGIC = b"GYRA\x04"
FORMAT = 4  # bump when what is stored changes (4: the analysis keeps its counters)
NAMESPACE, LAST = "analysis", "last"


class LazySummaries(Mapping[str, FileSummary]):
    """The index's summaries, read from the summary cache only when someone asks."""

    def __init__(self, root: Path, keys: dict[str, str], modules: dict[str, str], cache_dir: Path) -> None:
        self._root, self._keys, self._modules, self._cache_dir = root, keys, modules, cache_dir
        self._loaded: dict[str, FileSummary] = {}

    def __getitem__(self, path: str) -> FileSummary:
        got = self._loaded.get(path)
        if got is not None:
            return got
        key = self._keys[path]
        summary = SummaryCache(self._cache_dir, code_digest("index")).get(key)
        if summary is None:  # evicted: parse again (the file did not change, its key says so)
            try:
                content = (self._root / path).read_bytes()
            except OSError:
                content = b""
            summary, _ = parse_source(path, self._modules.get(path, ""), content)
            if summary is None:
                summary = FileSummary(path=path, module=self._modules.get(path, ""))
            summary.sha = key
        self._loaded[path] = summary
        return summary

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def rebase(self, root: Path, cache_dir: Path) -> None:
        """Point a loaded mapping at this run's checkout and cache folder."""
        self._root, self._cache_dir = root, cache_dir


@dataclasses.dataclass(frozen=True, slots=True)
class LastRun:
    """The ``last`` pointer: the newest entry of one repo, command and settings."""

    key: str
    rest: str
    file_keys: dict[str, str]
    modules: dict[str, str]


def _enc_lazy(v: object) -> object:
    if not isinstance(v, LazySummaries):
        raise Mismatch("summaries must be lazy when stored")
    return (v._keys, v._modules)


def _dec_lazy(v: object) -> object:
    if type(v) is not tuple or len(v) != 2 or type(v[0]) is not dict or type(v[1]) is not dict:
        raise CodecError("bad summaries")
    keys, modules = v
    if not all(type(k) is str and type(x) is str for d in (keys, modules) for k, x in d.items()):
        raise CodecError("bad summaries")
    return LazySummaries(Path(), keys, modules, Path())


def _bad_attributes() -> list[dict]:
    raise CodecError("bad graph attributes")


def _graph_plan(registry: Registry) -> Plan:
    """A DiGraph as its node table, each node's successors and predecessors by node number
    in their own order (so every iteration order comes back as it was), and the
    attributes. Edge attributes that all have the same keys (the call graph's ``kind``,
    ``via``, ``lines``) are stored by column and rebuilt in C; others one dict per edge.
    Values no hint types go through the registry's untyped encoding, except that a key
    whose values are all flat lists (``lines``) is stored as arrays and turned back into
    lists, without a tag per value."""
    import networkx as nx

    any_value = registry.any_value

    def flat_lists(items: list[dict]) -> frozenset[str]:
        lists: set[str] = set()
        other: set[str] = set()
        for d in items:
            for k, v in d.items():
                if type(v) is list and "[" not in repr(tuple(v)):
                    lists.add(k)
                else:
                    other.add(k)
        return frozenset(lists - other)

    def attrs(d: dict, lk: frozenset[str]) -> dict:
        return {k: tuple(v) if k in lk else any_value(v) for k, v in d.items()}

    def enc_column(values: list, as_list: bool) -> tuple:
        if as_list:
            return ("l", tuple(map(tuple, values)))
        distinct = set(map(type, values)) == {str} and dict.fromkeys(values)
        if distinct and len(distinct) * 4 <= len(values):  # a few strings, many times: by number
            table = {v: i for i, v in enumerate(distinct)}
            return ("k", tuple(distinct), tuple(map(table.__getitem__, values)))
        return ("v", tuple(map(any_value, values)))

    def dec_column(col: object, count: int) -> object:
        if type(col) is not tuple or len(col) not in (2, 3):
            raise CodecError("bad graph attributes")
        if col[0] == "k" and len(col) == 3 and type(col[1]) is tuple and type(col[2]) is tuple:
            table, idx = col[1], col[2]
            if len(idx) != count or not all(map(int.__instancecheck__, idx)):
                raise CodecError("bad graph attributes")
            return map(table.__getitem__, idx)
        if col[0] in ("l", "v") and len(col) == 2 and type(col[1]) is tuple and len(col[1]) == count:
            if col[0] == "l":
                if not set(map(type, col[1])) <= {tuple}:
                    raise CodecError("bad graph attributes")
                return map(list, col[1])
            return col[1]
        raise CodecError("bad graph attributes")

    def enc_attrs(items: list[dict]) -> tuple:
        """Dicts grouped by their keys; each group stored by column."""
        lk = flat_lists(items)
        groups: dict[tuple, list[int]] = {}
        for i, d in enumerate(items):
            groups.setdefault(tuple(d), []).append(i)
        out = []
        for keys, members in groups.items():
            rows = [items[i] for i in members]
            cols = tuple(enc_column([d[k] for d in rows], k in lk) for k in keys)
            out.append((keys, tuple(members) if len(groups) > 1 else None, cols))  # None: all, in order
        return tuple(out)

    def dec_attrs(v: object, count: int) -> list[dict]:
        if type(v) is not tuple:
            raise CodecError("bad graph attributes")
        made: list[dict] = []
        order: list[int] = []
        for group in v:
            if type(group) is not tuple or len(group) != 3:
                raise CodecError("bad graph attributes")
            keys, members, cols = group
            if members is None and len(v) == 1:  # one group: every dict, in order
                members = range(count)
            if type(keys) is not tuple or type(members) not in (tuple, range) or type(cols) is not tuple \
                    or len(cols) != len(keys):
                raise CodecError("bad graph attributes")
            k = len(members)
            columns = [dec_column(c, k) for c in cols]
            made += map(dict, map(zip, repeat(keys), zip(*columns, strict=True))) if keys else ({} for _ in members)
            if type(members) is range:
                return made if len(made) == count else _bad_attributes()
            order += members
        if len(made) != count or sorted(order) != list(range(count)):
            raise CodecError("bad graph attributes")
        place = [0] * count
        for pos, i in enumerate(order):
            place[i] = pos
        return list(map(made.__getitem__, place))

    def enc(g: object) -> object:
        if type(g) is not nx.DiGraph:
            raise Mismatch("DiGraph")
        nodes = list(g.nodes)
        num = {n: i for i, n in enumerate(nodes)}
        succ = tuple(tuple(map(num.__getitem__, g._succ[n])) for n in nodes)
        edge_num = {(u, v): i for i, (u, v) in enumerate((u, v) for u in nodes for v in g._succ[u])}
        pred = tuple(tuple(edge_num[(u, n)] for u in g._pred[n]) for n in nodes)  # edges by number
        eattrs = [d for n in nodes for d in g._succ[n].values()]
        return (attrs(g.graph, frozenset()), tuple(nodes), enc_attrs([g._node[n] for n in nodes]), succ, pred,
                enc_attrs(eattrs))

    def dec(v: object) -> object:
        if type(v) is not tuple or len(v) != 6:
            raise CodecError("bad graph")
        gattrs, nodes, nattrs, succ, pred, eattrs = v
        if not (type(gattrs) is dict and type(nodes) is tuple and type(succ) is tuple and type(pred) is tuple):
            raise CodecError("bad graph")
        n = len(nodes)
        if len(succ) != n or len(pred) != n or len(set(nodes)) != n:
            raise CodecError("bad graph")
        if not (set(map(type, succ)) <= {tuple} and set(map(type, pred)) <= {tuple}):
            raise CodecError("bad graph adjacency")
        targets = tuple(chain.from_iterable(succ))
        n_edges = len(targets)
        into = tuple(chain.from_iterable(pred))
        if len(into) != n_edges or sorted(into) != list(range(n_edges)):
            raise CodecError("bad graph adjacency")  # every edge once among the predecessors
        node_attrs = dec_attrs(nattrs, n)
        edge_attrs = dec_attrs(eattrs, n_edges)
        name = nodes.__getitem__
        target_names = list(map(name, targets))  # IndexError on a bad number: a bad entry
        source_names = list(chain.from_iterable(map(repeat, nodes, map(len, succ))))
        at = 0
        adj = {}
        for u, row in zip(nodes, succ, strict=True):
            k = len(row)
            adj[u] = dict(zip(target_names[at:at + k], edge_attrs[at:at + k], strict=True))
            at += k
        src, att = source_names.__getitem__, edge_attrs.__getitem__
        back = {v_: dict(zip(map(src, row), map(att, row), strict=True)) for v_, row in zip(nodes, pred, strict=True)}
        for v_, row in zip(nodes, pred, strict=True):  # each predecessor edge must end at its node
            if row and set(map(target_names.__getitem__, row)) != {v_}:
                raise CodecError("bad graph adjacency")
        g = nx.DiGraph()
        g.graph.update(gattrs)
        g._node.update(zip(nodes, node_attrs, strict=True))
        g._succ.update(adj)  # _adj is the same dict as _succ
        g._pred.update(back)
        return g

    return Plan(enc, dec, (tuple,))


_GRAPH_FIELDS = tuple(f.name for f in dataclasses.fields(Graphs))
_GRAPH_FIELD_SET = frozenset(_GRAPH_FIELDS)


class LazyGraphs(Graphs):
    """The graphs of a loaded analysis, each field decoded on its first use.

    They are most of an entry: ``analyze``, ``check`` and the flake8 plugin on an
    unchanged repo never read them, and ``graph`` reads the call and import graphs but
    not the function records. Should a field's bytes not decode (an entry forged with a
    valid checksum), the graphs are rebuilt from the loaded index instead: a bad entry
    costs time, never a crash or a different answer.
    """

    __slots__ = ("_blobs", "_rebuild")

    def __init__(self, blobs: dict[str, bytes], rebuild: Callable[[], Graphs] | None = None) -> None:
        object.__setattr__(self, "_blobs", blobs)
        object.__setattr__(self, "_rebuild", rebuild)

    def __getattribute__(self, name: str):  # noqa: ANN204 - any attribute
        if name in _GRAPH_FIELD_SET and name in object.__getattribute__(self, "_blobs"):
            self._decode(name)
        return object.__getattribute__(self, name)

    def pending(self) -> tuple[bytes, ...] | None:
        """The stored bytes of every field while none has been decoded (a re-store reuses them)."""
        blobs = object.__getattribute__(self, "_blobs")
        return tuple(blobs[f] for f in _GRAPH_FIELDS) if len(blobs) == len(_GRAPH_FIELDS) else None

    def _decode(self, name: str) -> None:
        blobs = object.__getattribute__(self, "_blobs")
        got = decode_graph_field(name, blobs.pop(name))
        if got is not _BAD:
            object.__setattr__(self, name, got)
            return
        blobs.clear()  # bytes that do not decode: rebuild every field from the index
        rebuild = object.__getattribute__(self, "_rebuild")
        graphs = rebuild() if rebuild is not None else Graphs()
        for f in _GRAPH_FIELDS:
            object.__setattr__(self, f, object.__getattribute__(graphs, f))


_BAD = object()


def decode_graph_field(name: str, blob: bytes) -> object:
    """The value of the graphs' field ``name`` stored in ``blob``, or ``_BAD``."""
    import typing

    registry, _, _, _ = _codec()
    try:
        plan = registry.plan(typing.get_type_hints(Graphs)[name])
        with gc_paused(promote=True):  # many small records, no cycles among them
            raw = registry.unpack(blob)
            return raw if plan is None else plan.dec(raw)
    except Exception:  # noqa: BLE001 - any failure is a bad entry
        return _BAD


def decode_graphs(blobs: tuple[bytes, ...]) -> Graphs | None:
    """Every field of stored graphs, or None when one does not decode."""
    if type(blobs) is not tuple or len(blobs) != len(_GRAPH_FIELDS):
        return None
    values = [decode_graph_field(f, b) for f, b in zip(_GRAPH_FIELDS, blobs, strict=True)]
    return None if any(v is _BAD for v in values) else Graphs(*values)


def _slim_graphs(g: Graphs) -> Graphs | tuple[bytes, ...]:
    """What is stored of the graphs: their bytes as loaded, or the graphs without the
    per-call resolution (every stage that reads it has run, and its results are stored)."""
    if isinstance(g, LazyGraphs) and g.pending() is not None:
        return g.pending()  # type: ignore[return-value]
    return Graphs(**{f: getattr(g, f) for f in _GRAPH_FIELDS if f != "resolved"}, resolved={})


def _graphs_field(registry: Registry) -> Plan:
    """The graphs as one msgpack blob per field, each decoded when first read."""
    import typing

    def enc(g: object) -> object:
        if type(g) is tuple:
            return g  # the blobs of graphs loaded and never read
        hints = typing.get_type_hints(Graphs)
        out = []
        for f in _GRAPH_FIELDS:
            plan, value = registry.plan(hints[f]), getattr(g, f)
            out.append(registry.pack(value if plan is None else plan.enc(value)))
        return tuple(out)

    def dec(v: object) -> object:
        if type(v) is not tuple or len(v) != len(_GRAPH_FIELDS) or not all(type(b) is bytes for b in v):
            raise CodecError("bad graphs")
        return LazyGraphs(dict(zip(_GRAPH_FIELDS, v, strict=True)))

    return Plan(enc, dec, (tuple,))


@functools.cache
def _codec() -> tuple[Registry, Plan, Plan, bytes]:
    """The registry of every type a stored analysis holds, its plans and schema digest."""
    import networkx as nx

    from . import model as M
    from .analysis import Analysis
    from .graphs import model as GM
    from .index import Index
    from .index.cache import _TYPES as SUMMARY_TYPES
    from .index.scope import ModuleScope

    records = (M.Side, M.HandoffKind, M.Severity, M.Diagnostic, M.EntryPoint, M.Evidence, M.FunctionReport,
               M.ModuleReport, M.FieldUse, M.FieldContract, M.Handoff, M.ConfigKey, M.CodeEvidence, M.Topology,
               M.KeyEntry, M.Location, M.Finding, M.Stats, M.CounterUse, M.Counters, GM.FunctionInfo,
               GM.ClassInfo, GM.ResolvedCall, GM.Graphs, RepoFiles, Index, ModuleScope, *SUMMARY_TYPES, Analysis,
               LastRun)
    settings_plan = Plan(lambda v: None, lambda v: None, (type(None),))  # the loader sets the run's own
    lazy = Plan(_enc_lazy, _dec_lazy, (tuple,))
    # the symbol table is derived from the index: not stored, a loaded analysis has none
    unstored = Plan(lambda v: None, lambda v: None, (type(None),))
    registry = Registry(records, custom={Settings: settings_plan, SymbolTable: unstored},
                        fields={(Index, "summaries"): lazy})
    registry.custom[nx.DiGraph] = _graph_plan(registry)
    registry.fields[(Analysis, "graphs")] = _graphs_field(registry)  # decoded on first use
    schema = hashlib.sha256(repr([(t.__name__, [(f.name, str(f.type)) for f in dataclasses.fields(t)])
                                  for t in records if dataclasses.is_dataclass(t)]).encode()).digest()[:8]
    plan, last = registry.plan(Analysis), registry.plan(LastRun)
    assert plan is not None and last is not None
    return registry, plan, last, MAGIC + schema


def encode(analysis: Analysis) -> bytes:
    """The payload of an analysis whose summaries are lazy; ValueError when it holds
    values the codec cannot store."""
    registry, plan, _, head = _codec()
    try:
        return head + registry.pack(plan.enc(analysis))
    except (TypeError, AttributeError) as exc:
        raise Mismatch(str(exc)) from exc


def decode(payload: bytes, settings: Settings, root: Path) -> Analysis:
    """The analysis in ``payload``, set to this run's settings and checkout; CodecError when bad."""
    registry, plan, _, head = _codec()
    if not payload.startswith(head):
        raise CodecError("not an analysis of this version")
    with gc_paused(promote=True):  # a graph's worth of small objects, no cycles among them
        try:
            result = plan.dec(registry.unpack(payload[len(head):]))
        except CodecError:
            raise
        except Exception as exc:  # noqa: BLE001 - a shape the plan does not expect is a bad entry
            raise CodecError(f"{exc.__class__.__name__}: {exc}") from exc
    result.settings = settings
    result.root = root
    result.index.root = root
    result.index.files.root = root
    summaries = result.index.summaries
    if isinstance(summaries, LazySummaries):
        summaries.rebase(root, Path(settings.cache_dir))
    if isinstance(result.graphs, LazyGraphs):
        object.__setattr__(result.graphs, "_rebuild", functools.partial(_rebuild_graphs, result))
    return result


def _rebuild_graphs(analysis: Analysis) -> Graphs:
    from .graphs import build_graphs

    cache_dir = Path(analysis.settings.cache_dir) if analysis.settings.use_cache else None
    return build_graphs(analysis.index, analysis.entry_points, cache_dir=cache_dir)


@dataclasses.dataclass(frozen=True, slots=True)
class Fingerprint:
    """What a run's result depends on, split so a later run can tell what changed."""

    key: str  # the whole-analysis cache key
    head: str  # analyzer code, cache format, command, settings
    rest: str  # every non-Python file, and Python files too big or unreadable to summarise
    file_keys: dict[str, str]  # readable Python file -> summary key (its content hash)
    modules: dict[str, str]  # Python file -> dotted module


def fingerprint(root: Path, files: RepoFiles, settings: Settings, run_rules: bool | str) -> Fingerprint:
    """The repo's cache key, and each readable Python file's summary key (``build_index``
    reuses them instead of reading and hashing every file a second time)."""
    head = _head(settings, run_rules)
    rest = hashlib.sha256()
    file_keys: dict[str, str] = {}
    for path in files.python:
        try:
            p = root / path
            st = p.stat()
            if st.st_size > settings.max_file_size:
                rest.update(f"{path}\0big:{st.st_size}:{st.st_mtime_ns}".encode("utf-8", "surrogateescape"))
            else:
                file_keys[path] = cache_key(code_digest("index"), path, files.modules[path], p.read_bytes())
        except OSError:
            rest.update(f"{path}\0unreadable".encode("utf-8", "surrogateescape"))
    for path in (*files.other, *files.markers):  # markers: license and wheel metadata decide a module's scope
        rest.update(b"\1" + path.encode("utf-8", "surrogateescape") + b"\0")
        try:
            p = root / path
            st = p.stat()
            if st.st_size > settings.max_file_size:
                rest.update(f"big:{st.st_size}:{st.st_mtime_ns}".encode())
            else:
                rest.update(hashlib.sha256(p.read_bytes()).digest())
        except OSError:
            rest.update(b"unreadable")
    for path in env_files(root, files.python, files.other):  # discovery lists no .env; topology reads them
        rest.update(b"\2" + path.encode("utf-8", "surrogateescape") + b"\0")
        try:
            st = (root / path).stat()
            if st.st_size > settings.max_file_size:  # not read: its size is in the diagnostic
                rest.update(f"big:{st.st_size}:{st.st_mtime_ns}".encode())
            else:
                rest.update(hashlib.sha256(read_input(root / path, settings.max_file_size, root)).digest())
        except (InputFileError, OSError):
            rest.update(b"unreadable")
    return Fingerprint(_key(head, files.python, file_keys, rest.hexdigest()), head, rest.hexdigest(), file_keys,
                       dict(files.modules))


def _head(settings: Settings, run_rules: bool | str) -> str:
    """The part of a key that is not the repo's content: analyzer code, format, command, settings."""
    from .rules.catalog import catalog_key  # installed rule packs change the findings too

    stable = dataclasses.replace(settings, jobs=0)
    rules = catalog_key() if run_rules else ""
    return hashlib.sha256(f"{code_digest()}\0{FORMAT}\0{run_rules}\0{rules}\0{stable!r}\0".encode()).hexdigest()


def _key(head: str, python: list[str], file_keys: dict[str, str], rest: str) -> str:
    h = hashlib.sha256(head.encode())
    for path in python:
        h.update(path.encode("utf-8", "surrogateescape") + b"\0")
        if path in file_keys:
            h.update(file_keys[path].encode())
    h.update(bytes.fromhex(rest))
    return h.hexdigest()


def fingerprint_as(fp: Fingerprint, files: RepoFiles, settings: Settings, run_rules: bool | str) -> Fingerprint:
    """``fp`` for another command (``graph`` looking for a whole ``analyze`` entry), without
    reading or hashing the files again."""
    head = _head(settings, run_rules)
    return dataclasses.replace(fp, key=_key(head, files.python, fp.file_keys, fp.rest), head=head)


def load(settings: Settings, key: str, root: Path) -> Analysis | None:
    payload = open_store(settings.cache_dir).get(NAMESPACE, key)
    if payload is None:
        return None
    try:
        return decode(payload, settings, root)
    except CodecError:
        return None


_MAX_CHANGED = 16  # past this many changed files a full run costs about as much
_READ_AS_TEXT = frozenset({"setup.py"})  # Python files a stage reads as text too (console_scripts)


def _last_key(root: Path, head: str) -> str:
    """The name of the pointer to the newest entry of this repo, command and settings."""
    return hashlib.sha256(f"{root}\0{head}".encode()).hexdigest()


def _load_last(settings: Settings, root: Path, head: str) -> LastRun | None:
    data = open_store(settings.cache_dir).get(LAST, _last_key(root, head))
    return None if data is None else decode_last(data)


def decode_last(data: bytes) -> LastRun | None:
    """The pointer a cache payload holds, or None when it is not a good one."""
    registry, _, plan, _ = _codec()
    try:
        got = plan.dec(registry.unpack(data))
    except Exception:  # noqa: BLE001 - any failure is a miss
        return None
    return got if isinstance(got, LastRun) else None


def reuse_if_summaries_unchanged(settings: Settings, root: Path, files: RepoFiles, fp: Fingerprint,
                                 parsed: list[str] | None = None) -> Analysis | None:
    """Early cutoff: when the only changed files summarise exactly as before (an edited
    comment, trailing blank lines: nothing any stage reads), the newest analysis of this
    repo is the answer. Only those files are parsed (their paths are added to ``parsed``;
    their summaries are cached, so a pipeline run after a ``None`` finds them there)."""
    prev = _load_last(settings, root, fp.head)
    if prev is None or prev.rest != fp.rest or prev.modules != fp.modules:
        return None
    old_keys = prev.file_keys
    if old_keys.keys() != fp.file_keys.keys():
        return None
    changed = [p for p, k in fp.file_keys.items() if old_keys[p] != k]
    if not changed or len(changed) > _MAX_CHANGED:
        return None
    if any(p.rsplit("/", 1)[-1] in _READ_AS_TEXT for p in changed):
        return None
    summaries = SummaryCache(Path(settings.cache_dir), code_digest("index"))
    old = {p: summaries.get(old_keys[p]) for p in changed}  # never re-parsed: the file is not what it was
    if any(v is None for v in old.values()):
        return None
    only = dataclasses.replace(files, python=changed, diagnostics=[])
    fresh = build_index(root, settings, files=only, keys={p: fp.file_keys[p] for p in changed})
    if parsed is not None:
        parsed.extend(p for p in changed if p in fresh.summaries)
    if fresh.diagnostics or fresh.summaries.keys() != old.keys():
        return None
    for p, new in fresh.summaries.items():
        # the content hash and the file's line count: no stage reads either
        if dataclasses.replace(new, sha=old[p].sha, lines=old[p].lines) != old[p]:  # type: ignore[union-attr]
            return None
    # loaded only now: decoding the previous analysis is wasted on a code edit, the common miss
    previous = load(settings, prev.key, root)
    if previous is None:
        return None
    lazy = LazySummaries(root, dict(fp.file_keys), dict(files.modules), Path(settings.cache_dir))
    lazy._loaded.update(fresh.summaries)
    previous.index = dataclasses.replace(previous.index, files=files, summaries=lazy)
    return previous


def find(settings: Settings, root: Path, files: RepoFiles, fp: Fingerprint,
         parsed: list[str] | None = None) -> Analysis | None:
    """The cached analysis for this fingerprint: stored under its key, or else the newest
    one of the repo when the early cutoff applies (then stored under this key too)."""
    hit = load(settings, fp.key, root)
    if hit is None:
        hit = reuse_if_summaries_unchanged(settings, root, files, fp, parsed)
        if hit is not None:
            store(settings, fp.key, hit, fp)
    return hit


def store(settings: Settings, key: str, analysis: Analysis, fp: Fingerprint | None = None) -> None:
    index = analysis.index
    if isinstance(index.summaries, LazySummaries):  # reading .sha would load every summary
        keys = dict(index.summaries._keys)
    else:
        keys = {p: s.sha for p, s in index.summaries.items()}
    if not all(keys.values()):
        return
    lazy = LazySummaries(index.root, keys, dict(index.files.modules), Path(settings.cache_dir))
    slim = dataclasses.replace(analysis, index=dataclasses.replace(index, summaries=lazy),
                               graphs=_slim_graphs(analysis.graphs))
    try:
        payload = encode(slim)
    except ValueError:  # an unstorable result only costs the warm path
        return
    store_ = open_store(settings.cache_dir)
    store_.put(NAMESPACE, key, payload)
    if fp is not None:
        registry, _, plan, _ = _codec()
        last = LastRun(key, fp.rest, dict(fp.file_keys), dict(fp.modules))
        store_.put(LAST, _last_key(index.root, fp.head), registry.pack(plan.enc(last)))
    store_.prune({SummaryCache(Path(settings.cache_dir), code_digest("index")).namespace})

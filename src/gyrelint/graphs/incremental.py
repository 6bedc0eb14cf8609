"""Call resolution after a code edit: replay only the cone of what the edit can change.

The resolver's fixed point (``graphs/resolve.py``) is a function of its items, but it carries
history: which 64 values a capped key keeps, and what a step that is not monotone wrote on a
partial store, depend on *when* values arrived. So this module does not patch the previous
store with a monotone re-solve: it replays, exactly, the part of the cold run an edit touches.

- **Items by identity.** An item (flow, call site) of an edited module is matched with the
  previous run's by what it is (its scope and text, then its ordinal among equal texts), not
  by its line: unmatched previous items are *removed*, unmatched new ones *added*.
- **The cone.** Keys written by removed or added items (and the ``self`` seeds of changed
  methods), closed over every item that read or wrote a cone key in the previous run (those
  run again: the *replay set*) and the keys they wrote.
- **The replay.** The replay set runs from an empty cone on the resolver's own batch clock
  (loop iteration ``t`` runs stratum ``t % 4``), reading everything else from the previous
  fixed point. That is what a cold run does with those items *provided* every key outside the
  cone that a replayed run reads at iteration ``t`` had already settled (last changed before
  ``t``) in the previous run, and every key a replayed item writes is in the cone. Both are
  checked on every replayed run; when one fails the cone grows (a write outside it) or the
  whole resolver runs (an input that was still moving: its history is not kept).
- Anything else an edit can change that items do not carry (a function's parameters,
  whether it yields or returns a parameter, a class's bases, ``add_argument`` dotted paths, a
  dotted-path string naming an added function, a module added) falls back to the whole run.

The previous run's provenance is one cache entry per repo (msgpack of ids and arrays, no
pickle): the final store, each key's readers, each item's written keys, run count and flags,
the iteration each key last changed, and each item's side outputs.
"""

from __future__ import annotations

import hashlib
import re
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from ..index.summary import MODULE_SCOPE, FileSummary
from .resolve import _MAX_ROUNDS, _MAX_VALUES, Resolver, _ImportFlow, _inert
from .symbols import SymbolTable, _binding, build_symbols

FORMAT = 1
_MAX_CHANGED = 8  # edited modules past which a whole run is as cheap
_MAX_GROWS = 12  # cone extensions (a replayed item wrote outside the cone) before giving up

PATHS: Counter[str] = Counter()  # which path each resolution of this process took (-v, tests)
last_path: list[str] = [""]
last_replayed: list[int] = [0]


class Fallback(Exception):
    """The replay cannot be shown equal to a cold run: resolve the whole repo."""


class _Grow(Exception):
    def __init__(self, keys: set[str]) -> None:
        super().__init__("grow")
        self.keys = keys


@dataclass(frozen=True, slots=True)
class Provenance:
    """What the previous run's fixed point leaves for the next run (in its own item numbering)."""

    modules: tuple[str, ...]
    shas: tuple[str, ...]
    libraries: str
    stars: tuple[tuple[int, str, str, str], ...]  # (module number, scope, name, source) per star binding
    gids: array  # item -> stable number
    lines: dict[int, int]  # item named an allocation after its line -> that line
    store: dict[str, frozenset[str]]
    ckeys: dict[str, set[str]]
    readers: dict[str, array]  # key -> items that read it (duplicates possible)
    writes: list[tuple[str, ...]]  # item -> keys it wrote, over every run
    runs: array
    flags: bytearray
    settled: dict[str, int]  # key -> loop iteration it last changed in (absent: never during the run)
    implicit: dict[int, dict[tuple[str, str, int, str], set[str]]]
    attrs: dict[int, dict[str, set[str]]]
    done: int
    exact: bool  # converged within the round budget
    cyclic: frozenset[str]  # classes whose MRO met a cycle (its answer depends on the cache's history)
    capped: dict[str, set[str]]  # full key -> modules whose allocations it turned away (see _renamed)
    mro_cached: dict[str, tuple[list[str], frozenset[str]]]  # their MROs cached when the run ended, and deps


def libraries_digest(symbols: SymbolTable) -> str:
    return hashlib.sha256(repr(sorted(symbols.libraries.items())).encode()).hexdigest()[:16]


def _star_rows(symbols: SymbolTable, order: dict[str, int]) -> tuple[tuple[int, str, str, str], ...]:
    return tuple((order[b.module], b.scope, b.name, b.source) for b in symbols.stars)


def provenance_of(r: Resolver) -> Provenance:
    """The provenance a ``run(record=True)`` (or a replay) left in ``r``."""
    n = len(r.items)
    readers: dict[str, array] = dict(r.deps)
    for k, extra in getattr(r, "extra_deps", {}).items():
        got = readers.get(k)
        readers[k] = array("I", extra) if got is None else got + array("I", extra)
    lines = {i: r.items[i][2].line for i in range(n) if r.item_flags[i] & 1}  # type: ignore[union-attr]
    return Provenance(
        modules=tuple(sorted(r.sums)), shas=tuple(r.sums[m].sha for m in sorted(r.sums)),
        libraries=libraries_digest(r.symbols), stars=_star_rows(r.symbols, r.module_order),
        gids=array("Q", r.item_gid), lines=lines, store=dict(r.store), ckeys={c: set(v) for c, v in r.ckeys.items()},
        readers=readers, writes=[tuple(r.item_writes.get(i, ())) for i in range(n)], runs=r.item_runs,
        flags=r.item_flags, settled=r.settled or {}, implicit=r.item_implicit, attrs=r.item_attrs,
        done=sum(r.item_runs), exact=r.converged, cyclic=frozenset(r.cyclic), mro_cached=dict(r.cyclic_cache),
        capped=dict(r.capped_mods))


# ---- item identity ----------------------------------------------------------------------------

_ALLOC = re.compile(r"\d+\.\d+")


def _normal(e: object, ids: list[str]) -> object:
    """``e`` with the allocation ids of its literals (``line.counter``: they move with every line
    above them) replaced by ``#``; the ids, in order, go to ``ids``."""
    if type(e) is not tuple or not e:
        return e
    if len(e) == 3 and e[0] in ("d", "l") and type(e[1]) is str and _ALLOC.fullmatch(e[1]):
        ids.append(e[1])
        return (e[0], "#", _normal(e[2], ids))
    return tuple(_normal(x, ids) for x in e)


def _flow_text(fl: object, ids: list[str]) -> str:
    return repr(_normal((fl.scope, fl.op, fl.target, fl.value), ids))  # type: ignore[attr-defined]


def _call_text(c: object, ids: list[str]) -> str:
    return repr(_normal((c.scope, c.expr), ids))  # type: ignore[attr-defined]


def _module_items(s: FileSummary, symbols: SymbolTable, stars: Iterable[tuple[str, str, str]]) -> tuple[list, list]:
    """One module's flows (as the resolver lists them: its own, then its imports, then the names
    star imports bind) and call sites."""
    flows: list = [fl for fl in s.flows if not _inert(fl)]
    for imp in s.imports:
        if imp.name != "*":
            b = _binding(s, imp, symbols.libraries)
            flows.append(_ImportFlow(b.scope, b.name, b.value, b.line))
    for scope, name, source in stars:
        flows.append(_ImportFlow(scope, name, ("imp", source, name), 0))
    return flows, list(s.calls)


def _match(old: list[str], new: list[str]) -> list[int]:
    """For each new item, the old item with the same text and ordinal among equal texts, or -1."""
    free: dict[str, list[int]] = defaultdict(list)
    for j in range(len(old) - 1, -1, -1):
        free[old[j]].append(j)
    out = []
    for t in new:
        got = free.get(t)
        out.append(got.pop() if got else -1)
    return out


def _rebound(scope: str, text: str, names: dict[str, set[str]]) -> bool:
    """Whether an item of ``scope`` names a name whose binding changed in ``scope`` or in a scope
    enclosing it (a name lookup walks out to the module)."""
    for where, ns in names.items():
        if where == MODULE_SCOPE or scope == where or scope.startswith(where + "."):
            if any(f"'{n}'" in text for n in ns):
                return True
    return False


# ---- what an edit changes that items do not carry -----------------------------------------------

def _static(s: FileSummary, libraries) -> Resolver:
    """The resolver's set-up tables for one module alone (its definitions, seeds, bases...)."""
    return Resolver([s], build_symbols([s], libraries))


def _function_record(r: Resolver, q: str) -> tuple:
    f = r.funcs[q]
    forwards = tuple((d, r._forwards(q, d)) for d in r.funcs if q.startswith(d + "."))
    return (tuple((p.name, p.kind) for p in f.params), q in r.gen_funcs, r.method_kind.get(q),
            r.method_class.get(q), r.returns_param.get(q), forwards, q in r.getters)


def _compare_module(old: Resolver, new: Resolver,
                    store_strings: _StoreStrings) -> tuple[set[str], dict[str, set[str]]]:
    """(seed keys that changed, names whose binding changed) of one edited module; Fallback when
    the edit changes what other modules' items read outside the store."""
    for q in old.funcs.keys() & new.funcs.keys():
        if _function_record(old, q) != _function_record(new, q):
            raise Fallback("a function's signature")
    gone = (old.funcs.keys() ^ new.funcs.keys()) | (old.classes.keys() ^ new.classes.keys())
    if gone and gone & store_strings.paths():
        raise Fallback("a dotted path names an added or removed definition")
    if (old.classes.keys() ^ new.classes.keys()) and store_strings.registries():
        raise Fallback("a class registry")
    for cq in old.base_exprs.keys() & new.base_exprs.keys():
        a, b = old.base_exprs[cq], new.base_exprs[cq]
        if (a[1], a[2]) != (b[1], b[2]):
            raise Fallback("a class's bases")
    if dict(old.option_paths) != dict(new.option_paths):
        raise Fallback("an option's dotted-path default")
    seeds = {k for k in old.store.keys() | new.store.keys() if old.store.get(k) != new.store.get(k)}
    names: dict[str, set[str]] = defaultdict(set)  # scope -> names bound there before or after, not both
    for table in ("locals", "globals"):
        a, b = getattr(old.symbols, table), getattr(new.symbols, table)
        for key in a.keys() | b.keys():
            got = a.get(key, frozenset()) ^ b.get(key, frozenset())
            if got:
                names[key[1]] |= got
    return seeds, names


class _StoreStrings:
    """What the previous store says about names (read once, when asked): the dotted paths its
    strings hold (a plugin loader turns one into the definition it names), and whether a
    registry of a base's subclasses was built (it lists every class)."""

    def __init__(self, prov: Provenance) -> None:
        self.prov = prov
        self._paths: set[str] | None = None

    def paths(self) -> set[str]:
        if self._paths is None:
            self._paths = {v[3:].replace(":", ".") for vals in set(self.prov.store.values()) for v in vals
                           if v[:3] == "ks:"}
        return self._paths

    def registries(self) -> bool:
        return any(".<subclasses>" in c for c in self.prov.ckeys)


# ---- the incremental resolution -----------------------------------------------------------------

@dataclass(slots=True)
class Outcome:
    resolver: Resolver
    path: str  # "reuse" | "cone" | "full:<why>"
    replayed: int = 0
    cone: int = 0


def resolve_after_edit(sums: list[FileSummary], symbols: SymbolTable, prov: Provenance | None,
                       old_summary: Callable[[str], FileSummary | None]) -> Outcome:
    """The fixed point for ``sums``: replayed from ``prov`` when that is exact, else a whole run
    (``record`` on, so either way the resolver holds the next run's provenance)."""
    why = "no previous run"
    if prov is not None:
        try:
            return _replay(sums, symbols, prov, old_summary)
        except Fallback as exc:
            why = str(exc)
        except (KeyError, IndexError, ValueError, TypeError):  # an entry whose numbers do not fit: a miss
            why = "a provenance entry that does not fit these files"
    r = Resolver(sums, symbols)
    r.run(record=True)
    return Outcome(r, f"full:{why}")


def _replay(sums: list[FileSummary], symbols: SymbolTable, prov: Provenance,
            old_summary: Callable[[str], FileSummary | None]) -> Outcome:
    if not prov.exact:
        raise Fallback("the previous run stopped at its round budget")
    r = Resolver(sums, symbols)
    r.watch = prov.cyclic
    mods = tuple(sorted(r.sums))
    if mods != prov.modules:
        raise Fallback("modules added or removed")
    if libraries_digest(symbols) != prov.libraries:
        raise Fallback("vendored libraries")
    if max(r.flow_pos, default=0) >= 1 << 20 or max((len(s.calls) for s in r.sums.values()), default=0) >= 1 << 20:
        raise Fallback("a module too large to number")
    r.build_items()
    order = r.module_order
    new_stars: dict[int, list[tuple[str, str, str]]] = defaultdict(list)
    for m, scope, name, source in _star_rows(symbols, order):
        new_stars[m].append((scope, name, source))
    old_stars: dict[int, list[tuple[str, str, str]]] = defaultdict(list)
    for m, scope, name, source in prov.stars:
        old_stars[m].append((scope, name, source))
    changed = [m for m in range(len(mods)) if prov.shas[m] != r.sums[mods[m]].sha
               or old_stars.get(m, []) != new_stars.get(m, [])]
    if len(changed) > _MAX_CHANGED:
        raise Fallback("too many modules changed")
    new_index = {g: i for i, g in enumerate(r.item_gid)}
    old_gids = prov.gids
    n_old = len(old_gids)
    changed_set = set(changed)
    # old item -> new item; -1: removed
    old_to_new = array("q", [new_index.get(g, -1) if (g >> 21) not in changed_set else -1 for g in old_gids])
    old_index = {g: i for i, g in enumerate(old_gids)} if changed else {}
    added: set[int] = set()
    removed: set[int] = set()
    seed_keys: set[str] = set()
    line_moved: dict[int, int] = {}  # old item -> its new line, matched items whose line moved
    strings = _StoreStrings(prov)
    renames: dict[str, tuple[dict[str, str], dict[int, int]]] = {}  # module -> (allocation ids, lines)
    for m in changed:
        mod = mods[m]
        new_s = r.sums[mod]
        old_s = new_s if prov.shas[m] == new_s.sha else old_summary(prov.shas[m])
        if old_s is None:
            raise Fallback("the previous summary is gone")
        names: dict[str, set[str]] = defaultdict(set)
        if old_s is not new_s:
            seeds, names = _compare_module(_static(old_s, symbols.libraries), _static(new_s, symbols.libraries),
                                           strings)
            seed_keys |= seeds
        for scope, name, _ in set(old_stars.get(m, [])) ^ set(new_stars.get(m, [])):
            names[scope].add(name)
        alloc: dict[str, str] = {}
        lines: dict[int, set[int]] = defaultdict(set)
        pairs: list[tuple[int, int, int, int]] = []  # (old item, new item, old line, new line) matched by text
        for call in (False, True):
            of = 1 if call else 0
            old_items = _module_items(old_s, symbols, old_stars.get(m, []))[of]
            new_items = _module_items(new_s, symbols, new_stars.get(m, []))[of]
            text = _call_text if call else _flow_text
            old_ids: list[list[str]] = [[] for _ in old_items]
            new_ids: list[list[str]] = [[] for _ in new_items]
            old_text = [text(x, ids) for x, ids in zip(old_items, old_ids, strict=True)]
            new_text = [text(x, ids) for x, ids in zip(new_items, new_ids, strict=True)]
            matched = _match(old_text, new_text)
            used = set()
            for j, oj in enumerate(matched):
                ni = new_index[(m << 21) | (of << 20) | j]
                if oj < 0 or (names and _rebound(new_items[j].scope, new_text[j], names)):
                    added.add(ni)  # new, or its names bind elsewhere now (the old one counts as removed)
                    continue
                used.add(oj)
                oi = old_index[(m << 21) | (of << 20) | oj]
                for a, b in zip(old_ids[oj], new_ids[j], strict=True):
                    if alloc.setdefault(a, b) != b:
                        raise Fallback("an allocation matched two ways")
                lines[old_items[oj].line].add(new_items[j].line)
                pairs.append((oi, ni, old_items[oj].line, new_items[j].line))
            for oj in range(len(old_items)):
                if oj not in used:
                    removed.add(old_index[(m << 21) | (of << 20) | oj])
        line_map = {a: next(iter(b)) for a, b in lines.items() if len(b) == 1}
        for oi, ni, old_line, new_line in pairs:
            if oi in prov.lines and old_line not in line_map:
                added.add(ni)  # an allocation named after a line that split in two
                removed.add(oi)
                continue
            if old_line != new_line:
                line_moved[oi] = new_line
            old_to_new[oi] = ni
        if len(set(alloc.values())) != len(alloc):
            raise Fallback("two allocations matched to one")
        if any(a != b for a, b in alloc.items()) or any(a != b for a, b in line_map.items()):
            renames[mod] = ({a: b for a, b in alloc.items() if a != b}, line_map)
    if renames:
        prov = _renamed(prov, renames)
    if not added and not removed and not seed_keys:
        _install(r, prov, old_to_new, set(), set(), line_moved)
        r.finish()
        return Outcome(r, "reuse")
    writers = _writers(prov)
    cone = _seed_cone(seed_keys, removed, prov)
    limit = max(400, len(r.items) // 50)
    for _ in range(_MAX_GROWS):
        replay = _close(cone, added, removed, prov, writers, old_to_new, limit)
        if any(not cone.isdisjoint(deps) for _, deps in prov.mro_cached.values()):
            raise Fallback("the cone reaches a cyclic hierarchy")
        try:
            _install(r, prov, old_to_new, cone, replay, line_moved)
            runs = _run_replay(r, prov, cone, replay, old_to_new)
        except _Grow as grow:
            cone |= grow.keys
            r = _fresh(sums, symbols, prov.cyclic)
            continue
        done = prov.done - sum(prov.runs[o] for o in range(n_old) if o in removed or old_to_new[o] in replay) + runs
        if done >= len(r.items) * _MAX_ROUNDS or not r.converged:
            raise Fallback("round budget")
        return Outcome(r, "cone", replayed=len(replay), cone=len(cone))
    raise Fallback("the cone kept growing")


def _renamer(mod: str, alloc: dict[str, str], lines: dict[int, int]) -> Callable[[str], str]:
    """Rename what a module's matched items allocated: ``mod@line.counter`` by the matching,
    and the allocations named after a line (``mod@zip.scope.line``, ``mod@star.line.i``) by
    the line map."""
    mark = f"{mod}@"
    image = set(alloc.values())
    moved = {a: b for a, b in lines.items() if a != b}
    targets = set(lines.values())

    def token(tok: str) -> str:
        got = alloc.get(tok)
        if got is not None:
            return got
        if _ALLOC.fullmatch(tok):
            if tok in image:
                raise Fallback("a removed allocation has a matched one's new name")
            return tok
        head, _, rest = tok.partition(".")
        if head == "star":
            line_s, _, i = rest.partition(".")
            return shifted(tok, int(line_s) if line_s.isdigit() else -1, lambda n: f"star.{n}.{i}")
        scope, _, line_s = rest.rpartition(".")
        if not line_s.isdigit() or head not in ("map", "zip", "zipt", "enumerate", "enumeratet"):
            return tok
        return shifted(tok, int(line_s), lambda n: f"{head}.{scope}.{n}")

    def shifted(tok: str, line: int, named: Callable[[int], str]) -> str:
        """The allocation ``named`` at its new line, or ``tok`` where its line did not move."""
        new = moved.get(line)
        if new is None:
            if line in targets and line not in lines:
                raise Fallback("a line-named allocation collides")
            return tok
        return named(new)

    def rename(s: str) -> str:
        i = s.find(mark)
        if i < 0 or (i and s[i - 1] != ":"):
            return s
        j = i + len(mark)
        k = j
        while k < len(s) and s[k] not in "[@|":
            k += 1
        return s[:j] + token(s[j:k]) + s[k:]

    return rename


def _renamed(prov: Provenance, renames: dict[str, tuple[dict[str, str], dict[int, int]]]) -> Provenance:
    """The previous provenance with the edited modules' allocations under their new names.

    Exact when the renaming is one to one and no full key both kept and turned away values of a
    renamed module: a full key keeps the first values in (rank, text) order, a new name may sort
    elsewhere among the values of its own module, and values of other modules sort apart from
    them (by the module's name, before the ``@``)."""
    fns = [_renamer(mod, a, lines) for mod, (a, lines) in renames.items()]
    renamed = set(renames)
    marks = [f"{mod}@" for mod in renames]

    def one(s: str) -> str:
        for mark, fn in zip(marks, fns, strict=True):
            if mark in s:
                s = fn(s)
        return s

    def touched(s: str) -> bool:
        for mark in marks:
            if mark in s:
                return True
        return False

    # every key and container id that names a renamed allocation (a written key is stored, or
    # touched: a container's key set)
    names = {k: one(k) for k in (*prov.store, *prov.readers, *prov.settled, *prov.ckeys) if touched(k)}
    sets: dict[frozenset[str], frozenset[str]] = {}
    store: dict[str, frozenset[str]] = {}
    for k, v in prov.store.items():
        got = sets.get(v)
        if got is None:
            got = sets[v] = frozenset(map(one, v)) if any(map(touched, v)) else v
        if got is not v and len(v) >= _MAX_VALUES and not renamed.isdisjoint(prov.capped.get(k, ())):
            raise Fallback("a full key kept some of a renamed module's allocations and turned others away")
        store[names.get(k, k)] = got
    if len(store) != len(prov.store):
        raise Fallback("renamed keys collide")


    def keys(d: dict) -> dict:
        return {names.get(k, k): v for k, v in d.items()} if names else d

    return replace(
        prov, store=store, ckeys=keys(prov.ckeys), readers=keys(prov.readers), settled=keys(prov.settled),
        mro_cached={c: (order, frozenset(one(k) if touched(k) else k for k in deps))
                    for c, (order, deps) in prov.mro_cached.items()},
        capped=keys(prov.capped),
        writes=[w if names.keys().isdisjoint(w) else tuple(names.get(k, k) for k in w) for w in prov.writes])


def _seed_cone(seed_keys: set[str], removed: set[int], prov: Provenance) -> set[str]:
    """The keys an edit writes differently before any replay: those of changed ``self`` seeds
    and every key a removed item wrote (its writes are gone from a cold run)."""
    cone = set(seed_keys)
    for o in removed:
        cone.update(prov.writes[o])
    return cone


def _unsettled(settled: dict[str, int], key: str, t: int) -> bool:
    """Whether ``key`` still changed at or after loop iteration ``t`` in the previous run (a
    replayed run at ``t`` would then read a value the cold run did not have yet)."""
    return settled.get(key, -1) >= t


def _fresh(sums: list[FileSummary], symbols: SymbolTable, watch: frozenset[str]) -> Resolver:
    r = Resolver(sums, symbols)
    r.watch = watch
    r.build_items()
    return r


def _writers(prov: Provenance) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(list)
    for o, keys in enumerate(prov.writes):
        for k in keys:
            out[k].append(o)
    return out


def _close(cone: set[str], added: set[int], removed: set[int], prov: Provenance, writers: dict[str, list[int]],
           old_to_new: array, limit: int) -> set[int]:
    """The replay set: the added items, and every surviving item that read or wrote a cone key
    in the previous run; the cone grows by what they wrote (in place)."""
    replay = set(added)
    work = list(cone)
    while work:
        k = work.pop()
        for o in (*prov.readers.get(k, ()), *writers.get(k, ())):
            if o in removed:
                continue
            i = old_to_new[o]
            if i < 0 or i in replay:
                continue
            replay.add(i)
            if len(replay) > limit:
                raise Fallback("the cone is too large")
            for k2 in prov.writes[o]:
                if k2 not in cone:
                    cone.add(k2)
                    work.append(k2)
    return replay


def _install(r: Resolver, prov: Provenance, old_to_new: array, cone: set[str], replay: set[int],
             line_moved: dict[int, int]) -> None:
    """The previous fixed point in ``r``: its store with the cone reset to the set-up seeds, the
    side outputs of the items that do not run again (moved to their new line)."""
    seeds = r.store
    store = dict(prov.store)
    for k in cone:
        store.pop(k, None)
        if k in seeds:
            store[k] = seeds[k]
    r.store = store
    shared: dict[frozenset[str], list] = {}
    for k, v in store.items():
        got = shared.get(v)
        if got is None:
            shared[v] = got = [v, 0]
        elif got[0] is not v:
            store[k] = got[0]
        got[1] += 1
    r.shared = shared
    ckeys = defaultdict(set)
    for c, ks in prov.ckeys.items():
        if f"{c}[]" not in cone:
            ckeys[c] = set(ks)
    r.ckeys = ckeys
    n = len(r.items)
    r.item_runs = array("I", bytes(4 * n))
    r.item_flags = bytearray(n)
    r.item_writes, r.item_implicit, r.item_attrs = {}, {}, {}
    r.settled = {}
    for o, i in enumerate(old_to_new):
        if i < 0 or i in replay:
            continue
        r.item_runs[i] = prov.runs[o]
        r.item_flags[i] = prov.flags[o]
        if prov.writes[o]:
            r.item_writes[i] = prov.writes[o]
        imp = prov.implicit.get(o)
        if imp:
            line = line_moved.get(o)
            r.item_implicit[i] = imp if line is None else {(a, b, line, d): v for (a, b, _, d), v in imp.items()}
        at = prov.attrs.get(o)
        if at:
            r.item_attrs[i] = at
    for c, (order, deps) in prov.mro_cached.items():  # the cold run's cache where it has a history
        r.mro_cache[c] = order
        r.mro_deps[c] = set(deps)
        for k in deps:
            r.key_mro[k].add(c)
    r.prev = (prov, old_to_new, cone, replay)  # type: ignore[attr-defined]


def _run_replay(r: Resolver, prov: Provenance, cone: set[str], replay: set[int], old_to_new: array) -> int:
    settled = prov.settled

    def guard(i: int, t: int, reads: set[str], writes: set[str]) -> None:
        for k in reads:
            if k not in cone and _unsettled(settled, k, t):
                raise Fallback("a replayed item read a key still moving at that time")
        out = writes - cone
        if out:
            raise _Grow(out)
        if r.item_flags[i] & 2 or r.mro_cycle:
            raise Fallback("a step a replay cannot redo")

    if r.mro_cycle:
        raise Fallback("a cyclic class hierarchy")
    runs = r.propagate(sorted(replay), record=True, guard=guard)
    r.finish()
    return runs


def provenance_after_replay(r: Resolver) -> Provenance:
    """The provenance a cold run of the new items would have left: the previous one's for the
    items that did not run again, the replay's for the others."""
    prev = getattr(r, "prev", None)
    if prev is None:
        return provenance_of(r)
    prov, old_to_new, cone, replay = prev
    readers: dict[str, array] = {}
    for k, items in prov.readers.items():
        kept = array("I", (old_to_new[o] for o in items if old_to_new[o] >= 0 and old_to_new[o] not in replay))
        if kept:
            readers[k] = kept
    for source in (r.deps, getattr(r, "extra_deps", {})):
        for k, items in source.items():
            got = readers.get(k)
            readers[k] = array("I", items) if got is None else got + array("I", items)
    settled = {k: v for k, v in prov.settled.items() if k not in cone}
    settled.update(r.settled or {})
    n = len(r.items)
    lines = {i: r.items[i][2].line for i in range(n) if r.item_flags[i] & 1}  # type: ignore[union-attr]
    return Provenance(
        modules=prov.modules, shas=tuple(r.sums[m].sha for m in prov.modules), libraries=prov.libraries,
        stars=_star_rows(r.symbols, r.module_order), gids=array("Q", r.item_gid), lines=lines,
        store=dict(r.store), ckeys={c: set(v) for c, v in r.ckeys.items()}, readers=readers,
        writes=[tuple(r.item_writes.get(i, ())) for i in range(n)], runs=r.item_runs, flags=r.item_flags,
        settled=settled, implicit=r.item_implicit, attrs=r.item_attrs, done=sum(r.item_runs),
        exact=r.converged, cyclic=prov.cyclic, mro_cached=prov.mro_cached,
        capped={**{k: v for k, v in prov.capped.items() if k not in cone}, **r.capped_mods})


# ---- storage: msgpack of tables and arrays, never pickle ----------------------------------------

def _arr(code: str, data: object, n: int | None = None) -> array:
    if type(data) is not bytes:
        raise ValueError("bad provenance array")
    a = array(code)
    a.frombytes(data)
    if n is not None and len(a) != n:
        raise ValueError("bad provenance array length")
    return a


def encode(prov: Provenance) -> bytes:
    """The provenance as msgpack: strings once each in a table, everything else ids and arrays."""
    from ..codec import Registry

    table: dict[str, int] = {}
    sid = table.setdefault

    def ids(strings: Iterable[str]) -> array:
        return array("I", (sid(s, len(table)) for s in strings))

    sets: dict[frozenset[str], int] = {}
    set_rows: list[bytes] = []
    store_keys = ids(prov.store)
    store_sets = array("I")
    for v in prov.store.values():
        got = sets.get(v)
        if got is None:
            got = sets[v] = len(set_rows)
            set_rows.append(ids(sorted(v)).tobytes())
        store_sets.append(got)
    reader_keys = ids(prov.readers)
    reader_ends, reader_items = array("I"), array("I")
    for items in prov.readers.values():
        reader_items.extend(items)
        reader_ends.append(len(reader_items))
    write_ends, write_keys = array("I"), array("I")
    for w in prov.writes:
        write_keys.extend(sid(k, len(table)) for k in w)
        write_ends.append(len(write_keys))
    settled_keys = ids(prov.settled)
    settled_at = array("i", prov.settled.values())
    ckeys = [(sid(c, len(table)), ids(sorted(ks)).tobytes()) for c, ks in prov.ckeys.items()]
    implicit = [(i, [(a, b, line, via, sorted(v)) for (a, b, line, via), v in d.items()])
                for i, d in prov.implicit.items()]
    attrs = [(i, [(c, sorted(v)) for c, v in d.items()]) for i, d in prov.attrs.items()]
    body = (FORMAT, list(prov.modules), list(prov.shas), prov.libraries, [list(s) for s in prov.stars],
            prov.gids.tobytes(), array("I", prov.lines).tobytes(), array("I", prov.lines.values()).tobytes(),
            list(table), store_keys.tobytes(), store_sets.tobytes(), set_rows, reader_keys.tobytes(),
            reader_ends.tobytes(), reader_items.tobytes(), write_ends.tobytes(), write_keys.tobytes(),
            prov.runs.tobytes(), bytes(prov.flags), settled_keys.tobytes(), settled_at.tobytes(), ckeys,
            implicit, attrs, prov.done, prov.exact, sorted(prov.cyclic),
            [(c, order, sorted(deps)) for c, (order, deps) in prov.mro_cached.items()],
            [(k, sorted(v)) for k, v in prov.capped.items()])
    return Registry(()).pack(body)


def decode(payload: bytes) -> Provenance | None:
    """The provenance ``payload`` holds, or None when it is not a good one (a miss)."""
    from ..codec import Registry

    try:
        return _decode(Registry(()).unpack(payload))
    except Exception:  # noqa: BLE001 - any shape or index the entry should not have is a miss
        return None


def _decode(body: object) -> Provenance | None:
    if type(body) is not tuple or len(body) != 29 or body[0] != FORMAT:
        return None
    (_, modules, shas, libraries, stars, gids, line_items, line_nums, table, store_keys, store_sets, set_rows,
     reader_keys, reader_ends, reader_items, write_ends, write_keys, runs, flags, settled_keys, settled_at,
     ckeys, implicit, attrs, done, exact, cyclic, mro_cached, capped) = body
    if not (all(type(s) is str for s in table) and all(type(m) is str for m in (*modules, *shas))):
        return None
    name = table.__getitem__
    gid_a = _arr("Q", gids)
    n = len(gid_a)
    values = [frozenset(map(name, _arr("I", row))) for row in set_rows]
    store = dict(zip(map(name, _arr("I", store_keys)), map(values.__getitem__, _arr("I", store_sets)), strict=True))
    rk, ends, items = _arr("I", reader_keys), _arr("I", reader_ends), _arr("I", reader_items)
    readers: dict[str, array] = {}
    at = 0
    for k, end in zip(rk, ends, strict=True):
        readers[name(k)] = items[at:end]
        at = end
    wends, wkeys = _arr("I", write_ends, n), _arr("I", write_keys)
    writes: list[tuple[str, ...]] = []
    at = 0
    for end in wends:
        writes.append(tuple(map(name, wkeys[at:end])) if end > at else ())
        at = end
    if any(i >= n for i in items):
        return None
    settled = dict(zip(map(name, _arr("I", settled_keys)), _arr("i", settled_at), strict=True))
    lines = dict(zip(_arr("I", line_items), _arr("I", line_nums), strict=True))
    return Provenance(
        modules=tuple(modules), shas=tuple(shas), libraries=str(libraries),
        stars=tuple((int(m), str(a), str(b), str(c)) for m, a, b, c in stars), gids=gid_a, lines=lines,
        store=store, ckeys={name(c): set(map(name, _arr("I", ks))) for c, ks in ckeys}, readers=readers,
        writes=writes, runs=_arr("I", runs, n), flags=bytearray(_checked_bytes(flags, n)), settled=settled,
        implicit={int(i): {(str(a), str(b), int(line), str(via)): set(map(str, v)) for a, b, line, via, v in d}
                  for i, d in implicit},
        attrs={int(i): {str(c): set(map(str, v)) for c, v in d} for i, d in attrs},
        done=int(done), exact=exact is True, cyclic=frozenset(map(str, cyclic)),
        mro_cached={str(c): (list(map(str, order)), frozenset(map(str, deps))) for c, order, deps in mro_cached},
        capped={str(k): set(map(str, v)) for k, v in capped})


def _checked_bytes(data: object, n: int) -> bytes:
    if type(data) is not bytes or len(data) != n:
        raise ValueError("bad provenance flags")
    return data

"""Config sections splatted into constructors: a YAML key is really a callee's parameter.

Runs often load a YAML/JSON file and pass one section with ``**`` into a repo callable
(``Pool(**cfg["pool"]["args"])``, ``Learner(x, **learner_cfg.get("args", {}))``), often through a
registry (``cls = REGISTRY[cfg["id"]]; cls(**cfg["args"])``, ``Registry.get(id, cfg["args"])``) or after
merging it into defaults (``{**defaults, **cfg["args"]}``, ``kw.update(cfg["args"])``). The key's name
then says little; what the callee does with the same-named parameter (starts processes with it, puts
weights on a device with it, directly or through an attribute and a few helper calls) decides its class.

Everything comes from the index's summaries (value-flow facts, call sites, loops) and the call
graph's exact targets; nothing is parsed again. Walks are bounded (hops, sections per value).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..graphs import Graphs
from ..graphs.model import EXACT
from ..graphs.symbols import SymbolTable
from ..index import Index
from ..index.summary import MODULE_SCOPE, CallSite, FileSummary, FunctionDef
from .evidence import EvidenceResult
from .selectors import dotted_name
from .sources import RawKey, value_text
from .sources.api_params import SOURCE
from .uses import _SIGNAL_CLASS, _WORDS

_DEVICE_KWARGS = {"device", "device_map", "map_location"}
_COPIES = {"dict", "copy", "deepcopy", "copy.copy", "copy.deepcopy", "OrderedDict"}
_MAX_SECTIONS = 12  # section paths one value may hold
_SECTION_HOPS = 6  # callers followed back from a splat to the config read
_USE_HOPS = 3  # calls followed forward from a parameter to its use
_ROOT: tuple[str, ...] = ()  # a value of unknown origin: a loaded config, read from here on

Section = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SplatHit:
    """The class a config key earns from the use of the callee parameter it is splatted into, and why."""

    cls: str
    reason: str


@dataclass(slots=True)
class _Scope:
    """One function's (or a module's) value-flow facts."""

    summary: FileSummary
    assigns: list[tuple[object, object]]  # (target tree, value tree)
    fors: list[tuple[object, object, int]]  # (target tree, items tree, line)
    calls: list[CallSite]


def _walk(e: object, depth: int = 0) -> Iterator[tuple]:
    """Every tagged node of an expression tree (argument and item tuples are walked through)."""
    if depth > 40 or not isinstance(e, tuple) or not e:
        return
    tagged = isinstance(e[0], str)
    if tagged:
        yield e
    for x in e[1:] if tagged else e:
        if isinstance(x, tuple):
            yield from _walk(x, depth + 1)


def _self_attr(e: object) -> str | None:
    """``self.x`` → ``x``."""
    if isinstance(e, tuple) and len(e) == 3 and e[0] == "a" and e[1] == ("n", "self") and isinstance(e[2], str):
        return e[2]
    return None


def _str(e: object) -> str | None:
    return e[1] if isinstance(e, tuple) and len(e) == 2 and e[0] == "k" and isinstance(e[1], str) and e[1] else None


class _Flow:
    """Section paths that reach each value, and what a parameter's value reaches."""

    def __init__(self, index: Index, graphs: Graphs | None, symbols: SymbolTable, ev: EvidenceResult) -> None:
        self.symbols = symbols
        self.scopes: dict[tuple[str, str], _Scope] = {}
        self.fns: dict[str, tuple[FileSummary, FunctionDef]] = {}
        self.attr_assigns: dict[tuple[str, str], list[tuple[tuple[str, str], object]]] = {}  # (class, attr) -> values
        self.class_scopes: dict[str, list[tuple[str, str]]] = {}  # class -> its methods' scope keys
        self.loops: dict[tuple[str, str], list[tuple[int, int]]] = {}
        for path, s in index.summaries.items():
            if index.out_of_scope(path) or not path.endswith(".py"):
                continue
            for f in s.functions:
                self.fns[f"{s.module}.{f.qualname}"] = (s, f)
            for fl in s.flows:
                if fl.op == "=":
                    self._scope(s, fl.scope).assigns.append((fl.target, fl.value))
                    attr = _self_attr(fl.target)
                    owner = symbols.class_of_scope(s.module, fl.scope) if attr else None
                    if attr and owner:
                        self.attr_assigns.setdefault((owner, attr), []).append(((path, fl.scope), fl.value))
                elif fl.op == "for":
                    self._scope(s, fl.scope).fors.append((fl.target, fl.value, fl.line))
            for c in s.calls:
                self._scope(s, c.scope).calls.append(c)
            for lp in s.loops:
                self.loops.setdefault((path, lp.scope), []).append((lp.line, lp.end_line))
        for (path, scope), _sc in self.scopes.items():
            module = symbols.module_of_file(path)
            owner = symbols.class_of_scope(module, scope) if module and scope != MODULE_SCOPE else None
            if owner:
                self.class_scopes.setdefault(owner, []).append((path, scope))
        self.exact: dict[tuple[str, int, str], tuple[str, ...]] = {}
        if graphs is not None:
            for calls in graphs.resolved.values():
                for rc in calls:
                    if rc.kind == EXACT and rc.targets:
                        k = (rc.file, rc.site.line, rc.site.func)
                        self.exact[k] = tuple(dict.fromkeys((*self.exact.get(k, ()), *rc.targets)))
        self.resolved_files = {f for f, _l, _c in self.exact}
        self.spawn_lines: dict[tuple[str, str], dict[int, str]] = {
            k: {line: signal for signal, line, _t in calls} for k, calls in ev.spawns.items()}
        self._callers: dict[str, list[tuple[tuple[str, str], CallSite]]] | None = None
        self._param_memo: dict[tuple[str, str], set[Section]] = {}
        self._attr_memo: dict[tuple[str, str], set[Section]] = {}
        self._use_memo: dict[tuple[str, str], tuple[str, str] | None] = {}
        self._name_memo: dict[tuple[tuple[str, str], str], set[Section]] = {}
        self._busy: set[object] = set()

    def _scope(self, s: FileSummary, scope: str) -> _Scope:
        key = (s.path, scope)
        got = self.scopes.get(key)
        if got is None:
            got = self.scopes[key] = _Scope(s, [], [], [])
        return got

    # ---- call targets ----------------------------------------------------------------------------
    def targets(self, s: FileSummary, call: CallSite) -> list[str]:
        """Repo functions a call runs: the call graph's exact targets (a constructor's ``__init__``),
        else what its callee's import names."""
        got = self.exact.get((s.path, call.line, call.func))
        if got is None and s.path not in self.resolved_files:  # no call graph: what the callee's name binds
            got = (self.symbols.resolve_in(s.module, call.scope, call.func),)
        out: list[str] = []
        for name in got or ():
            if name in self.symbols.classes:
                name = self.symbols.method_of(name, "__init__") or name
            if name in self.fns and name not in out:
                out.append(name)
        return out

    def _caller_map(self) -> dict[str, list[tuple[tuple[str, str], CallSite]]]:
        if self._callers is None:
            self._callers = {}
            for key, sc in self.scopes.items():
                for c in sc.calls:
                    for t in self.targets(sc.summary, c):
                        self._callers.setdefault(t, []).append((key, c))
        return self._callers

    # ---- sections ---------------------------------------------------------------------------------
    def sections(self, key: tuple[str, str], e: object, hops: int = 0, depth: int = 0) -> set[Section]:
        """Config section paths ``e`` holds, seen from scope ``key`` (``()`` for a value of unknown origin)."""
        if depth > 12 or not isinstance(e, tuple) or not e:
            return set()
        tag = e[0]
        if tag == "n" and isinstance(e[1], str):
            return self._name(key, e[1], hops, depth)
        if tag == "s" and len(e) == 3:
            k = _str(e[2])
            return {p + (k,) for p in self.sections(key, e[1], hops, depth + 1)} if k else set()
        if tag == "a" and len(e) == 3:
            attr = _self_attr(e)
            if attr is not None:
                return self._attr(key, attr, hops)
            return {p + (e[2],) for p in self.sections(key, e[1], hops, depth + 1)} if dotted_name(e[1]) else set()
        if tag == "c" and len(e) == 4:
            func, args, kwargs = e[1], e[2], e[3]
            if isinstance(func, tuple) and func[:1] == ("a",) and len(func) == 3:
                k = _str(args[0]) if func[2] == "get" and args else None
                if k:
                    return {p + (k,) for p in self.sections(key, func[1], hops, depth + 1)}
                if func[2] == "copy" and not args:
                    return self.sections(key, func[1], hops, depth + 1)
            if dotted_name(func) in _COPIES:  # ``dict(cfg["a"], x=1)``, ``deepcopy(cfg["a"])``
                out: set[Section] = set()
                for a in (*args[:1], *(v for k2, v in kwargs if k2 == "**")):
                    out |= self.sections(key, a, hops, depth + 1)
                return out
            return {_ROOT}
        if tag == "d" and len(e) == 3:  # a merge: ``{**defaults, **cfg["args"]}``
            out = set()
            for item in e[2]:
                if isinstance(item, tuple) and len(item) == 2 and item[0] == "**":
                    out |= self.sections(key, item[1], hops, depth + 1)
            return out
        if tag == "u" and len(e) == 2:
            out = set()
            for alt in e[1]:
                out |= self.sections(key, alt, hops, depth + 1)
            return out
        return set()

    def _name(self, key: tuple[str, str], name: str, hops: int, depth: int) -> set[Section]:
        memo = (key, name)
        got = self._name_memo.get(memo)
        if got is None:
            got = self._name_memo[memo] = self._name_sections(key, name, hops, depth)
        return got

    def _name_sections(self, key: tuple[str, str], name: str, hops: int, depth: int) -> set[Section]:
        sc = self.scopes.get(key)
        values = [v for t, v in sc.assigns if t == ("n", name)] if sc else []
        # ``kw.update(cfg["args"])`` merges a section into a dict
        values += [a for c in (sc.calls if sc else ()) if c.func == f"{name}.update" and isinstance(c.expr, tuple)
                   for a in (*c.expr[2][:1], *(v for k, v in c.expr[3] if k == "**"))]
        guard = ("n", key, name)
        out: set[Section] = set()
        if values and guard not in self._busy:
            self._busy.add(guard)
            try:
                for v in values:
                    out |= self.sections(key, v, hops, depth + 1)
            finally:
                self._busy.discard(guard)
        fq = self._function_of(key)
        if fq is not None and any(p.name == name for p in self.fns[fq][1].params):
            out |= self.param_sections(fq, name, hops)
        elif not values and not out:
            out.add(_ROOT)  # a module global or a loaded file: read from here on
        return _bounded(out)

    def _function_of(self, key: tuple[str, str]) -> str | None:
        sc = self.scopes.get(key)
        if sc is None or key[1] == MODULE_SCOPE:
            return None
        fq = f"{sc.summary.module}.{key[1]}"
        return fq if fq in self.fns else None

    def _attr(self, key: tuple[str, str], attr: str, hops: int) -> set[Section]:
        module = self.scopes[key].summary.module if key in self.scopes else None
        owner = self.symbols.class_of_scope(module, key[1]) if module else None
        if owner is None:
            return set()
        memo = (owner, attr)
        if memo in self._attr_memo:
            return self._attr_memo[memo]
        busy = ("a", owner, attr)
        if busy in self._busy:
            return set()
        self._busy.add(busy)
        out: set[Section] = set()
        try:
            for c in self.symbols.mro(owner):
                for where, value in self.attr_assigns.get((c, attr), ()):
                    out |= self.sections(where, value, hops)
        finally:
            self._busy.discard(busy)
        out = self._attr_memo[memo] = _bounded(out - {_ROOT} or out)
        return out

    def param_sections(self, fq: str, param: str, hops: int) -> set[Section]:
        """Sections the callers of ``fq`` pass as ``param`` (``{()}``: none known, read from here on)."""
        memo = (fq, param)
        if memo in self._param_memo:
            return self._param_memo[memo]
        busy = ("p", fq, param)
        if hops >= _SECTION_HOPS or busy in self._busy:
            return {_ROOT}
        self._busy.add(busy)
        out: set[Section] = set()
        try:
            _s, fd = self.fns[fq]
            for where, call in self._caller_map().get(fq, ()):
                for arg in _bound(fd, call, param):
                    out |= self.sections(where, arg, hops + 1)
        finally:
            self._busy.discard(busy)
        out = self._param_memo[memo] = _bounded(out - {_ROOT} or {_ROOT})
        return out

    # ---- uses -------------------------------------------------------------------------------------
    def use(self, fq: str, param: str, hops: int = 0) -> tuple[str, str] | None:
        """(class, what happens and where) when ``param`` of ``fq`` starts processes or servers, or places
        tensors on a device: in ``fq``, through an attribute of its instance, or in a function it is passed to."""
        memo = (fq, param)
        if memo in self._use_memo:
            return self._use_memo[memo]
        busy = ("u", fq, param)
        if busy in self._busy:
            return None
        self._busy.add(busy)
        try:
            got = self._use(fq, param, hops)
        finally:
            self._busy.discard(busy)
        self._use_memo[memo] = got
        return got

    def _use(self, fq: str, param: str, hops: int) -> tuple[str, str] | None:
        s, fd = self.fns[fq]
        key = (s.path, fd.qualname)
        sc = self.scopes.get(key)
        if sc is None:
            return None
        names = {param}
        for _ in range(4):  # locals computed from the parameter
            grown = {t[1] for t, v in sc.assigns if isinstance(t, tuple) and t[:1] == ("n",)
                     and _mentions(v, names, set())} - names
            if not grown:
                break
            names |= grown
        attrs = {a for t, v in sc.assigns if (a := _self_attr(t)) and _mentions(v, names, set())}
        owner = self.symbols.class_of_scope(s.module, fd.qualname) if attrs else None
        where = [(key, names, attrs)]
        if owner is not None:
            where += [(k, set(), attrs) for k in self.class_scopes.get(owner, ()) if k != key]
        for k, nm, at in where:
            got = self._site_use(k, nm, at, hops)
            if got is not None:
                return got
        return None

    def _site_use(self, key: tuple[str, str], names: set[str], attrs: set[str],
                  hops: int) -> tuple[str, str] | None:
        sc = self.scopes.get(key)
        if sc is None:
            return None
        path = key[0]
        spawns = self.spawn_lines.get(key, {})
        for c in sc.calls:
            if not _mentions(c.expr, names, attrs):
                continue
            signal = spawns.get(c.line)  # the spawn call itself, or a call on its line (``range(n)`` of it)
            if signal in _SIGNAL_CLASS:
                return _SIGNAL_CLASS[signal], f"read where {_WORDS.get(signal, signal)} ({path}:{c.line})"
            expr = c.expr if isinstance(c.expr, tuple) and len(c.expr) == 4 else None
            if expr is None:
                continue
            placed = [v for k, v in expr[3] if k in _DEVICE_KWARGS]
            if c.attr == "to":
                placed += list(expr[2][:1])
            if any(_mentions(v, names, attrs) for v in placed):
                return "process", f"places tensors or weights on a device ({path}:{c.line})"
        for _target, items, line in sc.fors:  # ``for _ in range(n):`` around a spawn call
            if not _mentions(items, names, attrs):
                continue
            for start, end in self.loops.get(key, ()):
                if start <= line <= end:
                    signal = next((sg for ln, sg in sorted(spawns.items()) if start <= ln <= end and sg in _SIGNAL_CLASS),
                                  None)
                    if signal:
                        return _SIGNAL_CLASS[signal], f"read where {_WORDS.get(signal, signal)} ({path}:{line})"
        if hops >= _USE_HOPS:
            return None
        for c in sc.calls:  # handed on as is to a repo function: what that one does with it
            if not _mentions(c.expr, names, attrs):
                continue
            for t in self.targets(sc.summary, c):
                _s, fd = self.fns[t]
                for p in fd.params:
                    if p.kind in ("vararg", "kwarg"):
                        continue
                    if any(_direct(a, names, attrs) for a in _bound(fd, c, p.name)):
                        got = self.use(t, p.name, hops + 1)
                        if got is not None:
                            return got
        return None


def _mentions(e: object, names: set[str], attrs: set[str]) -> bool:
    for x in _walk(e):
        if x[0] == "n" and len(x) == 2 and x[1] in names:
            return True
        if attrs and x[0] == "a" and _self_attr(x) in attrs:
            return True
    return False


def _direct(e: object, names: set[str], attrs: set[str]) -> bool:
    """The argument is the value itself (``x``, ``self.x``, ``a or x``), not something computed from it."""
    if isinstance(e, tuple) and e[:1] == ("n",):
        return len(e) == 2 and e[1] in names
    if isinstance(e, tuple) and e[:1] == ("u",) and len(e) == 2:
        return any(_direct(a, names, attrs) for a in e[1])
    return _self_attr(e) in attrs


def _bound(fd: FunctionDef, call: CallSite, param: str) -> Iterable[object]:
    """The argument trees of ``call`` that bind ``param`` of ``fd`` (``**kw`` for a ``**`` parameter)."""
    expr = call.expr
    if not (isinstance(expr, tuple) and len(expr) == 4 and expr[0] == "c"):
        return ()
    args, kwargs = expr[2], expr[3]
    params = list(fd.params)
    if fd.class_name and params and params[0].name in ("self", "cls") and "staticmethod" not in fd.decorators:
        params = params[1:]
    p = next((x for x in params if x.name == param), None)
    if p is None:
        return ()
    if p.kind == "kwarg":
        return [v for k, v in kwargs if k == "**"]
    out = [v for k, v in kwargs if k == param]
    positional = [x.name for x in params if x.kind == "pos"]
    if param in positional:
        i = positional.index(param)
        if i < len(args) and not (isinstance(args[i], tuple) and args[i][:1] == ("*",)) and \
                not any(isinstance(a, tuple) and a[:1] == ("*",) for a in args[:i]):
            out.append(args[i])
    return out


def _bounded(secs: set[Section]) -> set[Section]:
    return secs if len(secs) <= _MAX_SECTIONS else set(sorted(secs, key=lambda p: (-len(p), p))[:_MAX_SECTIONS])


@dataclass(frozen=True, slots=True)
class Splats:
    """Classes of config keys by the constructor parameter they are splatted into, and the parameters of
    such constructors no config file sets (a knob of the section all the same: ``alg.args.device``)."""

    hits: dict[str, SplatHit]
    declared: list[RawKey]


def splat_hits(index: Index, ev: EvidenceResult | None, keys: list[str], graphs: Graphs | None = None,
               symbols: SymbolTable | None = None) -> Splats:
    """Dotted config key → the class its same-named callee parameter earns by use; and the parameters with
    such a use that a section splatted into their callee leaves unset."""
    keys = [k for k in keys if "." in k]
    if ev is None or not keys or symbols is None:
        return Splats({}, [])
    flow = _Flow(index, graphs, symbols, ev)
    splats: list[tuple[Section, str]] = []  # (section, callee) of each ``callee(**section)``
    for key, sc in flow.scopes.items():
        for c in sc.calls:
            if not c.star_args or not isinstance(c.expr, tuple) or len(c.expr) != 4:
                continue
            secs: set[Section] = set()
            for k, v in c.expr[3]:
                if k == "**":
                    secs |= flow.sections(key, v)
            secs.discard(_ROOT)
            if secs:
                splats.extend((sec, t) for t in flow.targets(sc.summary, c) for sec in sorted(secs))
    if not splats:
        return Splats({}, [])
    splats = sorted(set(splats), key=lambda x: (-len(x[0]), x))  # the section most anchored in the config first
    out: dict[str, SplatHit] = {}
    for key in keys:
        parent, _, leaf = key.rpartition(".")
        for sec, callee in splats:
            dotted = ".".join(sec)
            if not (parent == dotted or parent.endswith("." + dotted)):
                continue
            _s, fd = flow.fns[callee]
            if not any(p.name == leaf and p.kind not in ("vararg", "kwarg") for p in fd.params):
                continue
            got = flow.use(callee, leaf)
            if got is not None:
                out.setdefault(key, SplatHit(got[0], f"constructor parameter {fd.qualname}({leaf}): {got[1]}"))
                break
    declared = _declared(flow, splats, set(keys), out)
    return Splats(out, declared)


def _declared(flow: _Flow, splats: list[tuple[Section, str]], keys: set[str],
              hits: dict[str, SplatHit]) -> list[RawKey]:
    """Parameters with a layout use, of a callee one config section (named by the files' keys, one
    parent only) is splatted into, that no file sets: declared where the callee declares them (their
    classes go to ``hits``)."""
    parents = {k.rpartition(".")[0] for k in keys}
    out: list[RawKey] = []
    for sec, callee in splats:
        dotted = ".".join(sec)
        where = [p for p in parents if p == dotted or p.endswith("." + dotted)]
        if len(where) != 1 or len(sec) < 2:
            continue  # a section that names no config file's section, or more than one
        s, fd = flow.fns[callee]
        for p in fd.params:
            if p.name in ("self", "cls") or p.name.startswith("_") or p.kind in ("vararg", "kwarg") or p.default is None:
                continue  # a required argument is what the call is about, not a setting
            name = f"{where[0]}.{p.name}"
            if name in keys or name in hits:
                continue
            got = flow.use(callee, p.name)
            if got is None:
                continue
            hits[name] = SplatHit(got[0], f"constructor parameter {fd.qualname}({p.name}): {got[1]}")
            value = value_text(p.default.value) if p.default.kind == "lit" else None
            out.append(RawKey(name, value, s.path, fd.line, f"{SOURCE} ({fd.qualname})", fd.qualname, p.annotation))
    return out

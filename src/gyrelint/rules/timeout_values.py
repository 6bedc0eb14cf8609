"""Where a handoff's timeout or retry count is set: a config file key, a dataclass default, a CLI default.

GYR008 judges a value the code reads (``cfg["timeouts"]["get_s"]``, ``self.args.get_timeout``)
like a literal, and reports it where a user edits it: the YAML line, the field, the
``add_argument``. The expression trees come from the index (``CallSite.expr`` and the ``Flow``
facts the resolver uses), the declarations from the summaries, config file keys from the topology's
key entries (``Topology.keys``: one per knob, its value and line at the definition): rules read no file.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..index.summary import CallSite, FileSummary
from ..model import Topology
from .base import tokens
from .timeout_handoffs import NOT_THE_RUN

if TYPE_CHECKING:
    from .base import RuleContext

_MAX_DEPTH = 4
_CONFIG_SUFFIXES = {".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".json": "json"}
_WRAPPERS = {"float", "int", "max", "min", "abs", "round"}  # float(cfg["t"]) is still cfg["t"]
_GETTERS = {"get", "getattr", "select"}  # cfg.get("t", 60), OmegaConf.select(cfg, "a.t")


@dataclass(frozen=True, slots=True)
class KeyValue:
    """One place a setting is given a value: a config key, an option default, a field default."""

    name: str  # dotted key (``timeouts.get_s``), option dest (``get_timeout``) or field name
    value: str | None  # the literal as text, None when not literal
    file: str
    line: int
    source: str  # "yaml" | "toml" | "json" | "argparse" | "click" | "dataclass" ...


def topology_key_values(topology: Topology, set_aside: bool = False) -> list[KeyValue]:
    """The topology's key entries (one per knob, at its definition) that carry a value.

    Entries the topology set aside (``KeyEntry.scope``: tests, docs, an unloaded config...) are
    left out unless ``set_aside``: a value the code is followed to may sit in a YAML the topology
    could not tie to a loader, but never in a test's, a doc's or a vendored library's file."""
    return [KeyValue(k.name, k.value, k.file, k.line, k.declared_as) for k in topology.keys
            if k.value is not None and (not k.scope or set_aside and k.scope not in NOT_THE_RUN)]


@dataclass(frozen=True, slots=True)
class Origin:
    """Where the value of a handoff argument is set, and how it was reached."""

    where: KeyValue
    via: str  # ``cfg["timeouts"]["get_s"]`` as the code reads it (dotted, quotes dropped)


def _unit_of(name: str) -> float | None:
    """Seconds per unit from a key's own suffix: ``get_s`` 1, ``poll_ms`` 0.001, ``wait_min`` 60."""
    toks = tokens(name.rsplit(".", 1)[-1])
    if not toks:
        return None
    return {"s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0, "ms": 0.001, "millis": 0.001,
            "milliseconds": 0.001, "min": 60.0, "mins": 60.0, "minute": 60.0, "minutes": 60.0, "h": 3600.0,
            "hour": 3600.0, "hours": 3600.0}.get(toks[-1])


def key_unit(name: str, fallback: float) -> float:
    """The unit of a value read from ``name``: its own suffix when it has one, else the call's."""
    unit = _unit_of(name)
    return fallback if unit is None else unit


class ValueFinder:
    """Follows a call argument back to the config key, field or option that sets it (built once per run)."""

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx
        self._files: list[KeyValue] | None = None
        self._decls: dict[str, list[KeyValue]] | None = None
        self._callers: dict[str, list[tuple[str, FileSummary, CallSite]]] | None = None
        self._flows: dict[str, dict[tuple[str, object], list[object]]] = {}
        self._params: dict[str, dict[str, tuple[str, ...]]] = {}

    # -- declarations --------------------------------------------------------------------------
    def config_files(self) -> list[KeyValue]:
        """The config keys a value may come from: the topology's entries (rules read no file)."""
        if self._files is None:
            self._files = topology_key_values(self.ctx.analysis.topology, set_aside=True)
        return self._files

    def declarations(self) -> dict[str, list[KeyValue]]:
        """Option defaults and config-class field defaults, by the name code reads them with."""
        if self._decls is None:
            out: dict[str, list[KeyValue]] = {}
            for s in self.ctx.summaries():
                for call in s.calls:
                    if call.attr not in ("add_argument", "option", "Option"):
                        continue
                    flags = [a.value for a in call.args if a.kind == "lit" and isinstance(a.value, str)]
                    longs = [f for f in flags if f.startswith("--")] or flags
                    dest = call.kwarg("dest")
                    name = dest.value if dest is not None and isinstance(dest.value, str) else (
                        max(longs, key=len).lstrip("-").replace("-", "_") if longs else "")
                    default = call.kwarg("default")
                    if name and default is not None and default.kind == "lit":
                        out.setdefault(name, []).append(KeyValue(name, _text(default.value), s.path, call.line,
                                                                 "argparse" if call.attr == "add_argument" else "click"))
                for cls in s.classes:
                    for p in cls.fields:
                        d = p.default_kw if p.default_kw is not None else p.default
                        if d is None or d.kind != "lit":
                            continue
                        out.setdefault(p.name, []).append(KeyValue(f"{cls.name}.{p.name}", _text(d.value), s.path,
                                                                   p.line or d.line or cls.line, "dataclass"))
            self._decls = out
        return self._decls

    # -- following an expression ---------------------------------------------------------------
    def origins(self, s: FileSummary, scope: str, expr: object) -> list[Origin]:
        """The declarations that set ``expr`` as read in ``scope`` of ``s`` (empty when unknown)."""
        out: list[Origin] = []
        seen: set[tuple[str, int]] = set()
        for path, kind in self._paths(s, scope, expr, 0):
            for kv in self._lookup(path, kind):
                if (kv.file, kv.line) not in seen:
                    seen.add((kv.file, kv.line))
                    out.append(Origin(kv, expr_text(expr) or _show(path, kind)))
        return out

    def _paths(self, s: FileSummary, scope: str, expr: object, depth: int) -> Iterable[tuple[tuple[str, ...], str]]:
        """Key paths an expression reads: (``("timeouts", "get_s")``, "sub") or (``("args", "get_timeout")``, "attr")."""
        if depth > _MAX_DEPTH or not isinstance(expr, tuple) or not expr:
            return
        op = expr[0]
        if op == "s" and len(expr) == 3 and isinstance(expr[2], tuple) and expr[2][:1] == ("k",) \
                and isinstance(expr[2][1], str):
            for base, _ in list(self._paths(s, scope, expr[1], depth + 1)) or [((), "sub")]:
                yield (*base, expr[2][1]), "sub"
        elif op == "a" and len(expr) == 3 and isinstance(expr[2], str):
            if expr[1] == ("n", "self"):
                assigned = self._self_attr(s, scope, expr[2])
                if assigned:
                    for where, v in assigned:
                        yield from self._paths(s, where, v, depth + 1)
                    return
            bases = list(self._paths(s, scope, expr[1], depth + 1))
            for base, _ in bases:
                yield (*base, expr[2]), "attr"
            if not bases:
                yield (expr[2],), "attr"
        elif op == "n" and len(expr) == 2 and isinstance(expr[1], str):
            values = self._local(s, scope, expr[1])
            for v in values:
                yield from self._paths(s, scope, v, depth + 1)
            if not values:
                yield from self._from_callers(s, scope, expr[1], depth)
        elif op == "c" and len(expr) >= 3:
            func, args = expr[1], expr[2]
            name = func[-1] if isinstance(func, tuple) and func[:1] in (("a",), ("n",)) else None
            if name in _WRAPPERS and args:
                yield from self._paths(s, scope, args[0], depth + 1)
            elif name in _GETTERS and isinstance(func, tuple) and func[0] == "a" and args \
                    and isinstance(args[0], tuple) and args[0][:1] == ("k",) and isinstance(args[0][1], str):
                for base, _ in list(self._paths(s, scope, func[1], depth + 1)) or [((), "sub")]:
                    yield (*base, *args[0][1].split(".")), "sub"
        elif op == "u" and len(expr) == 2 and isinstance(expr[1], tuple):
            for alt in expr[1]:
                yield from self._paths(s, scope, alt, depth + 1)

    def _flow_table(self, s: FileSummary) -> dict[tuple[str, object], list[object]]:
        table = self._flows.get(s.path)
        if table is None:
            table = {}
            for f in s.flows:
                if f.op == "=" and isinstance(f.target, tuple) and f.target[:1] in (("n",), ("a",)):
                    table.setdefault((f.scope, f.target), []).append(f.value)
            self._flows[s.path] = table
        return table

    def _local(self, s: FileSummary, scope: str, name: str) -> list[object]:
        return self._flow_table(s).get((scope, ("n", name)), [])[:4]

    def _self_attr(self, s: FileSummary, scope: str, attr: str) -> list[tuple[str, object]]:
        """``self.x`` set anywhere in the class of ``scope`` (``__init__`` usually): (scope, value)."""
        cls = scope.rsplit(".", 1)[0] if "." in scope else None
        if cls is None:
            return []
        out: list[tuple[str, object]] = []
        for (sc, target), values in self._flow_table(s).items():
            if target == ("a", ("n", "self"), attr) and sc.rsplit(".", 1)[0] == cls:
                out.extend((sc, v) for v in values)
        return out[:4]

    def _from_callers(self, s: FileSummary, scope: str, name: str, depth: int
                      ) -> Iterable[tuple[tuple[str, ...], str]]:
        """A parameter: what the callers pass for it (one hop up per level, a few callers)."""
        params = self._param_names(s).get(scope)
        if not params or name not in params:
            return
        pos = params.index(name)
        qual = f"{s.module}.{scope}"
        for _caller, cs, site in self.callers().get(qual, [])[:6]:
            expr = site.expr
            if not isinstance(expr, tuple) or len(expr) < 4:
                continue
            arg = next((v for k, v in expr[3] if k == name), None)
            offset = 1 if params and params[0] in ("self", "cls") else 0
            if arg is None and 0 <= pos - offset < len(expr[2]):
                arg = expr[2][pos - offset]
            if arg is not None and not (isinstance(arg, tuple) and arg[:1] == ("*",)):
                yield from self._paths(cs, site.scope, arg, depth + 1)

    def _param_names(self, s: FileSummary) -> dict[str, tuple[str, ...]]:
        table = self._params.get(s.path)
        if table is None:
            table = {d.qualname: tuple(p.name for p in d.params) for d in s.functions}
            self._params[s.path] = table
        return table

    def callers(self) -> dict[str, list[tuple[str, FileSummary, CallSite]]]:
        """Callee qualname -> (caller, its summary, the call site), exact edges only."""
        if self._callers is None:
            out: dict[str, list[tuple[str, FileSummary, CallSite]]] = {}
            graphs = self.ctx.analysis.graphs
            for caller, calls in (getattr(graphs, "resolved", None) or {}).items():
                for r in calls:
                    cs = self.ctx.summary(r.file)
                    if cs is None or r.kind != "exact":
                        continue
                    for t in r.targets:
                        out.setdefault(t, []).append((caller, cs, r.site))
            self._callers = out
        return self._callers

    # -- matching a path to a declaration --------------------------------------------------------
    def _lookup(self, path: tuple[str, ...], kind: str) -> list[KeyValue]:
        path = tuple(p for p in path if p and p != "self")
        if not path:
            return []
        leaf = path[-1]
        hits: list[KeyValue] = []
        if kind == "attr":
            decls = self.declarations().get(leaf, [])
            if len(decls) > 1 and len(path) > 1:  # several classes have this field: the one the chain names
                owner = set(tokens(path[-2]))
                decls = [d for d in decls if owner & set(tokens(d.name.rsplit(".", 1)[0]))] or decls
            if len({(d.value, d.source) for d in decls}) == 1:
                hits.extend(decls)
        best = 0
        found: list[KeyValue] = []
        for kv in self.config_files():
            comps = tuple(kv.name.split("."))
            n = _common_suffix(comps, path)
            if n == 0 or (n < len(path) and n < 2) or (n == 1 and not _waitish(leaf)):
                continue
            if n > best:
                best, found = n, [kv]
            elif n == best:
                found.append(kv)
        if best == 1 and len({kv.name for kv in found}) > 1:
            found = []  # one bare leaf that several keys share: not enough to say which
        return hits + found


def expr_text(expr: object, depth: int = 0) -> str:
    """An index expression tree as the code spells it (``self.args.t``, ``cfg["a"]["t"]``), "" if odd."""
    if depth > 8 or not isinstance(expr, tuple) or not expr:
        return ""
    if expr[0] == "n" and len(expr) == 2:
        return str(expr[1])
    if expr[0] == "a" and len(expr) == 3:
        base = expr_text(expr[1], depth + 1)
        return f"{base}.{expr[2]}" if base else ""
    if expr[0] == "s" and len(expr) == 3 and isinstance(expr[2], tuple) and expr[2][:1] == ("k",):
        base = expr_text(expr[1], depth + 1)
        return f"{base}[{expr[2][1]!r}]" if base else ""
    if expr[0] == "c" and len(expr) >= 3 and isinstance(expr[2], tuple):
        func = expr_text(expr[1], depth + 1)
        args = [expr_text(a, depth + 1) or ("..." if a[:1] != ("k",) else repr(a[1])) for a in expr[2]
                if isinstance(a, tuple)]
        return f"{func}({', '.join(args)})" if func else ""
    return ""


def _waitish(name: str) -> bool:
    toks = set(tokens(name))
    return bool(toks & {"timeout", "timeouts", "retries", "retry", "attempts", "wait"})


def _common_suffix(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def _show(path: tuple[str, ...], kind: str) -> str:
    path = tuple(p for p in path if p != "self")
    if kind == "attr":
        return ".".join(path)
    return "".join(f"[{p!r}]" for p in path)


def _text(value: object) -> str | None:
    if value is None or isinstance(value, (bool, int, float, str)):
        return None if value is None else str(value)
    return None

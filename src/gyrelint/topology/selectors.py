"""Keys that pick a class: a role → class map indexed by a config value, or a config naming a class to build.

A knob whose name says nothing (``generation.provider``, ``--sampler-kind``) decides the
layout when code looks it up in a map of classes (``ENGINES[cfg.generation.provider]``,
``SAMPLERS.get(args.sampler_kind)``) and one of them starts processes or servers; a Hydra
``_target_`` (or any value that is an import path) naming such a class does the same. The
classes' own code says what they start (Ray actors, a server subprocess...), from the
topology evidence already collected per scope.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..graphs.symbols import SymbolTable
from ..index import Index
from ..index.summary import MODULE_SCOPE
from .evidence import EvidenceResult
from .sources import RawKey

# spawn signal -> what a class whose code makes that call starts
_STARTS = {"ray-actor": "Ray actors", "ray-placement-group": "Ray placement groups", "ray-init": "a Ray cluster",
           "mp-process": "processes", "inference-engine": "an inference engine", "dist-init": "process groups",
           "subprocess-server": "a server process", "http-server": "an HTTP server", "socket-server": "a socket server",
           "zmq": "ZMQ sockets", "grpc": "a gRPC channel", "ray-collective": "Ray collective groups",
           "env-workers": "environment worker processes"}
_ROOTS = {"self", "cls", "cfg", "config", "conf", "args", "opts", "options", "settings", "hparams", "params"}


def dotted_name(e: object) -> str | None:
    """``("a", ("n", "cfg"), "backend")`` → ``cfg.backend``."""
    if isinstance(e, tuple) and e:
        if e[0] == "n" and len(e) == 2 and isinstance(e[1], str):
            return e[1]
        if e[0] == "a" and len(e) == 3 and isinstance(e[2], str):
            base = dotted_name(e[1])
            return f"{base}.{e[2]}" if base else None
    return None


def _walk(e: object, depth: int = 0) -> Iterable[tuple]:
    if depth > 40 or not isinstance(e, tuple) or not e:
        return
    yield e
    for x in e[1:]:
        if isinstance(x, tuple):
            yield from _walk(x, depth + 1)


class Selectors:
    """Class qualname → what it starts; registries (module, name) → the classes they map to."""

    def __init__(self, index: Index, symbols: SymbolTable, ev: EvidenceResult | None) -> None:
        self.index = index
        self.symbols = symbols
        self.starts: dict[str, str] = {}  # repo class -> what its code starts ("Ray actors are created")
        if ev is not None:
            for (path, scope), calls in sorted(ev.spawns.items()):
                module = symbols.module_of_file(path)
                owner = symbols.class_of_scope(module, scope) if module else None
                words = next((_STARTS[s] for s, _line, _t in calls if s in _STARTS), None)
                if owner is not None and words:
                    self.starts.setdefault(owner, words)
        for qual in symbols.classes:
            d = symbols.definitions.get(qual)
            if d is not None and any(x.removesuffix("()").endswith("ray.remote") or x == "remote" for x in d.decorators):
                self.starts.setdefault(qual, "Ray actors")

    def started_by(self, cls: str) -> str | None:
        """What a class (or a repo base of it) starts."""
        for c in self.symbols.mro(cls):
            if c in self.starts:
                return self.starts[c]
        return None

    def registries(self) -> dict[tuple[str, str], list[str]]:
        """Module-level dict literals whose values are at least two classes."""
        out: dict[tuple[str, str], list[str]] = {}
        for s in self.index.summaries.values():
            for f in s.flows:
                if f.op != "=" or f.scope != MODULE_SCOPE or not isinstance(f.target, tuple) or f.target[:1] != ("n",):
                    continue
                v = f.value
                if not (isinstance(v, tuple) and v[:1] == ("d",) and len(v) == 3 and isinstance(v[2], tuple)):
                    continue
                classes = []
                for item in v[2]:
                    text = dotted_name(item[1]) if isinstance(item, tuple) and len(item) == 2 else None
                    qual = self.symbols.resolve_in(s.module, MODULE_SCOPE, text) if text else None
                    if qual in self.symbols.classes:
                        classes.append(qual)
                if len(classes) >= 2:
                    out[(s.module, f.target[1])] = classes
        return out

    def lookups(self) -> list[tuple[str, int, str, list[str]]]:
        """(file, line, key expression, classes) of each ``REGISTRY[x]`` / ``REGISTRY.get(x)`` with ``x`` a chain."""
        regs = self.registries()
        if not regs:
            return []
        by_qual = {f"{m}.{n}": classes for (m, n), classes in regs.items()}
        names = {n for _m, n in regs}
        modules = {m for m, _n in regs}
        out = []
        for s in self.index.summaries.values():
            if s.module not in modules and not any(i.name in names or f"{i.module}.{i.name}" in modules
                                                   or i.module in modules for i in s.imports):
                continue  # neither defines nor imports a registry: no lookup can name one
            for f in s.flows:
                for e in _walk(f.value):
                    base = key = None
                    if e[0] == "s" and len(e) == 3:
                        base, key = e[1], e[2]
                    elif e[0] == "c" and len(e) >= 3 and isinstance(e[1], tuple) and len(e[1]) == 3 \
                            and e[1][0] == "a" and e[1][2] == "get" and isinstance(e[2], tuple) and e[2]:
                        base, key = e[1][1], e[2][0]
                    name, expr = dotted_name(base), dotted_name(key)
                    if not name or not expr or "." not in expr:
                        continue
                    qual = self.symbols.resolve_in(s.module, f.scope, name)
                    if qual in by_qual:
                        out.append((s.path, f.line, expr, by_qual[qual]))
            for call in s.calls:  # ``REGISTRY.get(x)`` in a statement of its own makes no flow
                if call.attr == "get" and call.args and call.args[0].kind == "name" \
                        and isinstance(call.args[0].value, str) and "." in call.args[0].value:
                    qual = self.symbols.resolve_in(s.module, call.scope, call.func.removesuffix(".get"))
                    if qual in by_qual:
                        out.append((s.path, call.line, call.args[0].value, by_qual[qual]))
        return out

    def reason(self, classes: list[str]) -> str:
        """``selects a class that starts a server process (ServedEngine)``; "" when none of them starts anything."""
        for c in classes:
            words = self.started_by(c)
            if words:
                return f"selects a class that starts {words} ({c.rsplit('.', 1)[-1]})"
        return ""


def selector_hits(index: Index, symbols: SymbolTable | None, ev: EvidenceResult | None,
                  raws: list[RawKey]) -> dict[str, tuple[str, str]]:
    """Key name → (``layout``, evidence) for keys that pick a class which starts processes or servers."""
    if symbols is None:
        return {}
    sel = Selectors(index, symbols, ev)
    out: dict[str, tuple[str, str]] = {}
    # ``_target_: pkg.mod.Cls`` (or any import-path value) naming a class that starts something
    for r in raws:
        if r.value and "." in r.value and " " not in r.value and r.source in ("yaml", "toml", "json"):
            qual = symbols.resolve_dotted(r.value.replace(":", "."))
            if qual in symbols.classes:
                text = sel.reason([qual])
                if text:
                    out.setdefault(r.key, ("layout", text))
    lookups = sel.lookups()
    if not lookups:
        return out
    at: dict[tuple[str, int], list[RawKey]] = {}
    for r in raws:
        at.setdefault((r.file, r.line), []).append(r)
    for path, line, expr, classes in lookups:
        text = sel.reason(classes)
        if not text:
            continue
        parts = [p for p in expr.split(".") if p not in _ROOTS] or expr.split(".")[-1:]
        tail = ".".join(parts)
        leaf = parts[-1]
        # the config read on the lookup's own line names the key; else the declared key with that dotted tail
        here = [r.key for r in at.get((path, line), ()) if _tails(r.key, tail)]
        if not here:
            here = sorted({r.key for r in raws if r.source not in ("script", "readme", "hydra-override")
                           and _fold(r.key).rsplit(".", 1)[-1] == _fold(leaf) and _tails(r.key, tail)})
        if 0 < len(here) <= 3:
            for k in here:
                out.setdefault(k, ("layout", text))
    return out


def _fold(text: str) -> str:
    return text.lstrip("-").replace("-", "_").lower()


def _tails(key: str, tail: str) -> bool:
    k, t = _fold(key), _fold(tail)
    return k == t or k.endswith("." + t)

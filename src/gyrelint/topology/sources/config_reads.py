"""Config keys declared by use: attribute chains read on a config object.

OmegaConf/Hydra frameworks (and plain dict configs) declare few knobs in Python: the YAML may
ship elsewhere, and code reads ``cfg.trainer.ppo.trt_llm.enable`` or
``self.cfg.model.tensor_model_parallel_size``. Each distinct path read on a value proven to be
a config is a key, named as a user types it in a Hydra override (``trainer.ppo.trt_llm.enable``),
from the root even when read through a sub-config passed down.

A value is a config when it comes from a loader (``OmegaConf.load/create/structured/merge``,
``hydra.compose``, ``yaml.safe_load``, ``json.load``), is the first parameter of a function a
decorator or wrapper called with ``config_path=``/``config_name=`` runs (``@hydra.main`` and the
runners frameworks wrap it in), is a parameter annotated ``DictConfig``/``ListConfig``, or is
passed on from one of these: a local alias (``t = cfg.trainer``), an argument at a call site the
symbol table resolves to a repo function or class, ``self.cfg = cfg`` then ``self.cfg.x`` in any
method of the class or its subclasses. Chains on anything else (a model, a tensor, a module) are
not keys.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ...graphs.symbols import SymbolTable
from ...index import Index
from ...index.summary import MODULE_SCOPE, ChainRead, FileSummary, FunctionDef
from ..names import Namer
from . import RawKey, value_text

SOURCE = "config read"
_LOADERS = {"omegaconf.OmegaConf.load", "omegaconf.OmegaConf.create", "omegaconf.OmegaConf.structured",
            "omegaconf.OmegaConf.merge", "omegaconf.OmegaConf.unsafe_merge", "hydra.compose",
            "hydra.experimental.compose", "yaml.safe_load", "yaml.load", "yaml.full_load", "json.load",
            "toml.load", "tomllib.load", "tomli.load"}
# conversions that keep the config's shape (and so its prefix)
_PASS = {"omegaconf.OmegaConf.to_container", "omegaconf.OmegaConf.masked_copy", "copy.deepcopy", "copy.copy",
         "omegaconf.OmegaConf.to_object"}
_SELECT = {"omegaconf.OmegaConf.select", "omegaconf.OmegaConf.update"}
_CONFIG_TYPES = re.compile(r"(?:^|[.\[|\s(])(?:DictConfig|ListConfig|OmegaConf)(?:$|[\]|\s,)])")
_HYDRA_KWARGS = {"config_path", "config_name"}
# container methods and OmegaConf node API: the end of a chain, never a key
_METHODS = {"get", "items", "keys", "values", "copy", "pop", "update", "setdefault", "to_container", "to_dict",
            "to_yaml", "_get_node", "_metadata", "_content", "_parent"}
_SEGMENT = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_MAX_PREFIXES = 4  # a helper called with more sub-configs than this is too generic to name its keys
_ROUNDS = 6

Prefix = tuple[str, ...]
LocalRoot = tuple[str, str, str]  # (file, scope, name)
ClassRoot = tuple[str, str]  # (class qualname, attribute)


@dataclass(frozen=True, slots=True)
class _Func:
    path: str
    module: str
    fn: FunctionDef
    method: bool


class _Roots:
    """Prefixes proven for local names and ``self`` attributes; ``weak`` ones (an annotation with no
    caller that says more) give way to the prefixes callers pass."""

    def __init__(self) -> None:
        self.local: dict[LocalRoot, set[Prefix]] = {}
        self.attrs: dict[ClassRoot, set[Prefix]] = {}
        self.weak: set[LocalRoot] = set()
        self.changed = False

    def add_local(self, key: LocalRoot, prefix: Prefix, weak: bool = False) -> None:
        got = self.local.setdefault(key, set())
        if weak:
            if not got:
                got.add(prefix)
                self.weak.add(key)
                self.changed = True
            return
        if key in self.weak:
            self.weak.discard(key)
            got.clear()
        if prefix not in got:
            got.add(prefix)
            self.changed = True

    def add_attr(self, key: ClassRoot, prefixes: Iterable[Prefix]) -> None:
        got = self.attrs.setdefault(key, set())
        for p in prefixes:
            if p not in got:
                got.add(p)
                self.changed = True


class ConfigReads:
    """Finds the config values of a repo and the keys read on them."""

    def __init__(self, index: Index, namers: dict[str, Namer], symbols: SymbolTable) -> None:
        self.index = index
        self.namers = namers
        self.symbols = symbols
        self.roots = _Roots()
        self.funcs: dict[str, _Func] = {}
        for path, s in index.summaries.items():
            for fn in s.functions:
                self.funcs[f"{s.module}.{fn.qualname}"] = _Func(path, s.module, fn, fn.class_name is not None)
        self.chains: dict[tuple[str, str, int], list[ChainRead]] = {}  # (file, scope, line) -> chains there
        for path, s in index.summaries.items():
            for c in s.chains:
                self.chains.setdefault((path, c.scope, c.line), []).append(c)

    # ---- seeds -------------------------------------------------------------------------------
    def seed(self) -> None:
        for path, s in self.index.summaries.items():
            if not s.chains:
                continue
            self._hydra_entries(path, s)
            for fn in s.functions:
                params = _params(fn)
                for p in params:
                    if p.annotation and _CONFIG_TYPES.search(p.annotation):
                        self.roots.add_local((path, fn.qualname, p.name), (), weak=True)

    def _hydra_entries(self, path: str, s: FileSummary) -> None:
        """First parameter of a function a ``config_path=``/``config_name=`` decorator or wrapper runs."""
        hydra_lines = {c.line for c in s.calls if any(k in _HYDRA_KWARGS for k, _ in c.kwargs)}
        if not hydra_lines:
            return
        by_name = {fn.qualname: fn for fn in s.functions}
        for fn in s.functions:
            if fn.decorators and any(fn.line - 2 - 3 * len(fn.decorators) <= line < fn.line for line in hydra_lines):
                self._entry(path, fn)
        for c in s.calls:  # ``hydra.main(config_path=...)(main)``, ``run(main, config_name=...)``
            if c.line in hydra_lines:
                for a in c.args:
                    fn = by_name.get(a.value) if a.kind == "name" and isinstance(a.value, str) else None
                    if fn is not None:
                        self._entry(path, fn)

    def _entry(self, path: str, fn: FunctionDef) -> None:
        params = _params(fn)
        if params:
            self.roots.add_local((path, fn.qualname, params[0].name), ())

    # ---- propagation ---------------------------------------------------------------------------
    def propagate(self) -> None:
        for _ in range(_ROUNDS):
            self.roots.changed = False
            for path, s in self.index.summaries.items():
                if s.chains:
                    self._assignments(path, s)
                    self._calls(path, s)
            if not self.roots.changed:
                break

    def prefixes(self, path: str, module: str, scope: str, root: str, tail: tuple[str, ...]) -> tuple[set[Prefix],
                                                                                                      tuple[str, ...]]:
        """Prefixes of the config ``root`` (a local name or ``self``) names in ``scope``, and the rest of the
        path once a ``self`` attribute is taken off."""
        if root == "self":
            if not tail:
                return set(), tail
            cls = self.symbols.class_of_scope(module, scope)
            if cls is None:
                return set(), tail
            for c in self.symbols.mro(cls):
                got = self.roots.attrs.get((c, tail[0]))
                if got:
                    return got, tail[1:]
            return set(), tail
        sc = scope
        while True:
            got = self.roots.local.get((path, sc, root))
            if got:
                return got, tail
            if sc == MODULE_SCOPE:
                return set(), tail
            sc = sc.rsplit(".", 1)[0] if "." in sc else MODULE_SCOPE

    def _chain_of(self, path: str, scope: str, line: int, text: str) -> ChainRead | None:
        """The recorded chain a value text (``cfg.trainer``, ``cfg[][]``, ``cfg.get``) stands for."""
        head = re.split(r"[.\[(]", text, maxsplit=1)[0]
        cands = [c for c in self.chains.get((path, scope, line), ()) if c.root == head and c.mode == "read"]
        if not cands:
            return None
        if "[" not in text and "(" not in text:
            exact = [c for c in cands if ".".join((c.root, *c.path)) == text]
            return exact[0] if len(exact) == 1 else None
        return cands[0] if len(cands) == 1 else None

    def _value_prefixes(self, path: str, module: str, scope: str, line: int, text: str) -> set[Prefix]:
        """Prefixes of a config value written as ``text`` (a name, a chain) at ``line``."""
        if not text or text.startswith("<"):
            return set()
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text) or text in ("self",):
            got, rest = self.prefixes(path, module, scope, text, ())
            return set(got)
        chain = self._chain_of(path, scope, line, text)
        if chain is None:
            if text.startswith("self.") and re.fullmatch(r"self\.[A-Za-z_][A-Za-z0-9_]*", text):
                got, rest = self.prefixes(path, module, scope, "self", (text[5:],))
                return {*got} if not rest else set()
            return set()
        got, rest = self.prefixes(path, module, scope, chain.root, chain.path)
        return {(*p, *rest) for p in got} if got and _keyish(rest) else set()

    def _assignments(self, path: str, s: FileSummary) -> None:
        namer = self.namers[path]
        for a in s.assignments:
            if a.augmented or not isinstance(a.value, str) or not re.fullmatch(r"(?:self\.)?[A-Za-z_][A-Za-z0-9_]*",
                                                                                a.target):
                continue
            found: set[Prefix] = set()
            if a.value_kind == "call":
                canon = namer.canon(a.value, a.scope)
                if canon in _LOADERS:
                    found = {()}
                elif canon in _PASS and a.call_args and a.call_args[0].kind == "name":
                    found = self._value_prefixes(path, s.module, a.scope, a.line, str(a.call_args[0].value))
                elif a.value.endswith(".get"):
                    found = self._value_prefixes(path, s.module, a.scope, a.line, a.value)
            elif a.value_kind in ("name", "other"):
                found = self._value_prefixes(path, s.module, a.scope, a.line, a.value)
            if a.annotation and _CONFIG_TYPES.search(a.annotation) and not found and not a.target.startswith("self."):
                self.roots.add_local((path, a.scope, a.target), (), weak=True)
            if not found:
                continue
            if a.target.startswith("self."):
                cls = self.symbols.class_of_scope(s.module, a.scope)
                if cls is not None:
                    self.roots.add_attr((cls, a.target[5:]), found)
            else:
                for p in found:
                    self.roots.add_local((path, a.scope, a.target), p)

    def _calls(self, path: str, s: FileSummary) -> None:
        for c in s.calls:
            passed = [(i, None, a) for i, a in enumerate(c.args)] + [(None, k, a) for k, a in c.kwargs]
            values: list[tuple[int | None, str | None, set[Prefix]]] = []
            for i, k, a in passed:
                if a.kind != "name" or not isinstance(a.value, str):
                    continue
                got = self._value_prefixes(path, s.module, c.scope, c.line, a.value)
                if not got and a.line and a.line != c.line:
                    got = self._value_prefixes(path, s.module, c.scope, a.line, a.value)
                if got:
                    values.append((i, k, got))
            if not values:
                continue
            canon = self.namers[path].canon(c.func, c.scope)
            if canon in _SELECT:
                continue
            for target in self._callees(s.module, c.scope, c.func):
                params = _params(target.fn)
                skip = 1 if target.method and params and params[0].name in ("self", "cls") else 0
                for i, k, got in values:
                    p = _param_for(target.fn, params, skip, i, k)
                    if p is not None:
                        for prefix in got:
                            self.roots.add_local((target.path, target.fn.qualname, p), prefix)

    def _callees(self, module: str, scope: str, func: str) -> list[_Func]:
        """Repo functions a call runs (a class call runs its ``__init__``; ``X.remote`` of a Ray actor too)."""
        text = func.replace("()", "")
        for suffix in (".remote", ".options.remote"):
            if text.endswith(suffix):
                text = text[: -len(suffix)]
        name = self.symbols.resolve_in(module, scope, text)
        if name is None:
            return []
        d = self.symbols.definitions.get(name)
        if d is None:
            return []
        if d.kind == "class":
            init = self.symbols.method_of(name, "__init__")
            f = self.funcs.get(init) if init else None
            return [f] if f else []
        f = self.funcs.get(name)
        return [f] if f else []

    # ---- keys ---------------------------------------------------------------------------------
    def keys(self) -> list[RawKey]:
        out: list[RawKey] = []
        for path, s in self.index.summaries.items():
            for c in s.chains:
                got, rest = self.prefixes(path, s.module, c.scope, c.root, c.path)
                if not got or not rest or not _keyish(rest) or len(got) > _MAX_PREFIXES:
                    continue
                value = value_text(c.default)
                for p in sorted(got):
                    out.append(RawKey(".".join((*p, *rest)), value, path, c.line, SOURCE))
            out.extend(self._selects(path, s))
        return out

    def _selects(self, path: str, s: FileSummary) -> list[RawKey]:
        """``OmegaConf.select(cfg, "a.b")`` and ``OmegaConf.update(cfg, "a.b", v)``."""
        out: list[RawKey] = []
        namer = self.namers[path]
        for c in s.calls:
            if c.attr not in ("select", "update") or len(c.args) < 2 or namer.canon(c.func, c.scope) not in _SELECT:
                continue
            first, second = c.args[0], c.args[1]
            if first.kind != "name" or second.kind != "lit" or not isinstance(second.value, str):
                continue
            got = self._value_prefixes(path, s.module, c.scope, c.line, str(first.value))
            rest = tuple(second.value.split("."))
            if got and _keyish(rest) and len(got) <= _MAX_PREFIXES:
                out.extend(RawKey(".".join((*p, *rest)), None, path, c.line, SOURCE) for p in sorted(got))
        return out


def _keyish(path: tuple[str, ...]) -> bool:
    return all(_SEGMENT.match(p) for p in path) and (not path or path[-1] not in _METHODS)


def _params(fn: FunctionDef) -> list:
    return [p for p in fn.params if p.kind in ("pos", "kwonly")]


def _param_for(fn: FunctionDef, params: list, skip: int, index: int | None, keyword: str | None) -> str | None:
    if keyword is not None:
        return keyword if any(p.name == keyword for p in params) else None
    assert index is not None
    pos = [p for p in params if p.kind == "pos"][skip:]
    return pos[index].name if index < len(pos) else None


def config_read_keys(index: Index, namers: dict[str, Namer], symbols: SymbolTable) -> list[RawKey]:
    """Every key read as a chain on a proven config value."""
    reads = ConfigReads(index, namers, symbols)
    reads.seed()
    reads.propagate()
    return reads.keys()


__all__ = ["SOURCE", "config_read_keys"]

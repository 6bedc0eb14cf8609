"""Config keys declared by use: attribute chains read on a config object.

OmegaConf/Hydra frameworks (and plain dict configs) declare few knobs in Python: the YAML may
ship elsewhere, and code reads ``cfg.trainer.ppo.trt_llm.enable`` or
``self.cfg.model.tensor_model_parallel_size``. Each distinct path read on a value proven to be
a config is a key, named as a user types it in a Hydra override (``trainer.ppo.trt_llm.enable``),
from the root even when read through a sub-config passed down.

A value is a config when it comes from a loader (``OmegaConf.load/create/structured/merge``,
``hydra.compose``, ``yaml.safe_load``, ``json.load``), is the first parameter of a function a
decorator or wrapper called with ``config_path=``/``config_name=`` runs (``@hydra.main`` and the
runners frameworks wrap it in), is a parameter or a class field annotated ``DictConfig``/``ListConfig``, or is
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
from ...index.summary import MODULE_SCOPE, Arg, Assignment, CallSite, ChainRead, FileSummary, FunctionDef
from ..names import Namer
from . import RawKey, value_text
from .dict_configs import dict_config_param

SOURCE = "config read"
_LOADERS = {"omegaconf.OmegaConf.load", "omegaconf.OmegaConf.create", "omegaconf.OmegaConf.structured",
            "omegaconf.OmegaConf.merge", "omegaconf.OmegaConf.unsafe_merge", "hydra.compose",
            "hydra.experimental.compose", "yaml.safe_load", "yaml.load", "yaml.full_load", "json.load",
            "toml.load", "tomllib.load", "tomli.load",
            # command-line parsers that return a config class tree (its fields are keys: sources/config_tree.py)
            "tyro.cli", "draccus.parse", "pyrallis.parse", "jsonargparse.CLI", "jsonargparse.auto_cli",
            "simple_parsing.parse", "pydantic_settings.CliApp.run", "chz.entrypoint"}
_LOADER_NAMES = {name.rsplit(".", 1)[-1] for name in _LOADERS}
# conversions that keep the config's shape (and so its prefix)
_PASS = {"omegaconf.OmegaConf.to_container", "omegaconf.OmegaConf.masked_copy", "copy.deepcopy", "copy.copy",
         "omegaconf.OmegaConf.to_object"}
_SELECT = {"omegaconf.OmegaConf.select", "omegaconf.OmegaConf.update"}
_CONFIG_TYPES = re.compile(r"(?:^|[.\[|\s(])(?:DictConfig|ListConfig|OmegaConf)(?:$|[\]|\s,)])")
_HYDRA_KWARGS = {"config_path", "config_name"}
# container methods and OmegaConf node API: the end of a chain, never a key
_METHODS = {"get", "items", "keys", "values", "copy", "pop", "update", "setdefault", "to_container", "to_dict",
            "to_yaml", "_get_node", "_metadata", "_content", "_parent"}
# where a library base class keeps the config its ``__init__`` receives
_INHERITED = ("cfg", "_cfg", "config", "_config")
_CONFIG_PARAMS = {"cfg", "config", "conf", "model_cfg", "model_config"}
_WORKER_CONFIG = {"cfg", "config", "conf"}  # (a ``model_config`` is often the model's own)
_HEAD = re.compile(r"[.\[(]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SELF_ATTR = re.compile(r"self\.[A-Za-z_][A-Za-z0-9_]*")
_TARGET = re.compile(r"(?:self\.)?[A-Za-z_][A-Za-z0-9_]*")
_CALL_LINES = 24  # lines a call's arguments may span
_CONFIG_KWARG = re.compile(r"(?:^|_)(?:config|cfg|conf)$")
_SEGMENT = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_MAX_PREFIXES = 4  # a helper called with more sub-configs than this is too generic to name its keys
_ROUNDS = 6

UNKNOWN = "?"  # first segment of a relative prefix
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
    """Prefixes proven for local names and ``self`` attributes. A config whose place under the root is
    unknown (a ``DictConfig`` parameter no caller in the repo fills) has the prefix ``("?",)``: its keys are
    relative, and give way to the prefixes callers pass."""

    def __init__(self) -> None:
        self.local: dict[LocalRoot, set[Prefix]] = {}
        self.attrs: dict[ClassRoot, set[Prefix]] = {}
        self.names: dict[str, set[str]] = {}  # file -> local names that hold a config somewhere in it
        self.attr_names: set[str] = set()  # ``self`` attributes that hold a config in some class
        self.changed = False

    @staticmethod
    def _add(got: set[Prefix], prefixes: Iterable[Prefix]) -> bool:
        changed = False
        for p in prefixes:
            if p not in got and len(got) <= _MAX_PREFIXES:
                got.add(p)
                changed = True
        return changed

    def add_local(self, key: LocalRoot, prefixes: Iterable[Prefix]) -> None:
        if self._add(self.local.setdefault(key, set()), prefixes):
            self.names.setdefault(key[0], set()).add(key[2])
            self.changed = True

    def add_attr(self, key: ClassRoot, prefixes: Iterable[Prefix]) -> None:
        if self._add(self.attrs.setdefault(key, set()), prefixes):
            self.attr_names.add(key[1])
            self.changed = True

    def live(self, path: str, text: str) -> bool:
        """Whether ``text`` starts from a name or ``self`` attribute that holds a config (a cheap pre-check)."""
        return self.live_head(path, _heads(text))

    def live_head(self, path: str, heads: tuple[str, str]) -> bool:
        if heads[0] == "self":
            return heads[1] in self.attr_names
        return heads[0] in self.names.get(path, ())


def _heads(text: str) -> tuple[str, str]:
    """The root name of a value text and the attribute after it (``self.cfg.x`` → ``self``, ``cfg``)."""
    head, _, rest = text.partition(".")
    if "[" in head or "(" in head:
        return _HEAD.split(head, maxsplit=1)[0], ""
    if head != "self":
        return head, ""
    return head, _HEAD.split(rest, maxsplit=1)[0] if "[" in rest or "(" in rest or "." in rest else rest


def _best(prefixes: set[Prefix]) -> set[Prefix]:
    """Proven places under the root beat relative ones."""
    strong = {p for p in prefixes if p[:1] != (UNKNOWN,)}
    return strong or prefixes


class ConfigReads:
    """Finds the config values of a repo and the keys read on them."""

    def __init__(self, index: Index, namers: dict[str, Namer], symbols: SymbolTable) -> None:
        self.index = index
        self.namers = namers
        self.symbols = symbols
        self.roots = _Roots()
        self._funcs: dict[str, dict[str, _Func]] = {}  # file -> full qualname -> function, filled on demand
        self._passed: dict[str, list] = {}
        self._subs: dict[str, list[str]] | None = None
        self.sections: set[Prefix] = set()  # full paths whose value is handed on as a config
        self._heads: dict[str, tuple[set[str], set[str]]] = {}  # file -> names and self attributes values start from
        self._lines: dict[str, dict[tuple[str, int], list[ChainRead]]] = {}  # file -> (scope, line) -> chains

    def _subclasses(self) -> dict[str, list[str]]:
        """Repo class -> the repo classes that have it among their bases (computed once)."""
        if self._subs is None:
            self._subs = {}
            for name in self.symbols.classes:
                for base in self.symbols.mro(name)[1:]:
                    if base in self.symbols.classes:
                        self._subs.setdefault(base, []).append(name)
        return self._subs

    def _func(self, qualname: str) -> _Func | None:
        """The repo function or method of a full qualname (its file's functions listed once)."""
        d = self.symbols.definitions.get(qualname)
        if d is None or d.file not in self.index.summaries:
            return None
        funcs = self._funcs.get(d.file)
        if funcs is None:
            s = self.index.summaries[d.file]
            funcs = self._funcs[d.file] = {f"{s.module}.{fn.qualname}": _Func(d.file, s.module, fn, fn.class_name is not None)
                                           for fn in s.functions}
        return funcs.get(qualname)

    def _chains_at(self, path: str, scope: str, line: int) -> list[ChainRead]:
        by_line = self._lines.get(path)
        if by_line is None:
            by_line = self._lines[path] = {}
            for c in self.index.summaries[path].chains:
                by_line.setdefault((c.scope, c.line), []).append(c)
        return by_line.get((scope, line), [])

    def _touches(self, path: str, s: FileSummary) -> bool:
        """Whether any value the file assigns or passes starts from a name or ``self`` attribute holding a config."""
        heads = self._heads.get(path)
        if heads is None:
            names: set[str] = set()
            attrs: set[str] = set()
            texts = [a.value for a in s.assignments if a.value_kind in ("name", "other", "call")]
            texts += [a.call_args[0].value for a in s.assignments if a.call_args and a.call_args[0].kind == "name"]
            for text in texts:
                if isinstance(text, str):
                    head, attr = _heads(text)
                    (attrs if head == "self" else names).add(attr if head == "self" else head)
            for _c, passed in self._passing(path, s):
                for _i, _k, _a, (head, attr) in passed:
                    (attrs if head == "self" else names).add(attr if head == "self" else head)
            heads = self._heads[path] = (names, attrs)
        return bool(heads[0] & self.roots.names.get(path, set()) or heads[1] & self.roots.attr_names)

    # ---- seeds -------------------------------------------------------------------------------
    def seed(self) -> None:
        for path, s in self.index.summaries.items():
            self._hydra_entries(path, s)
            self._loaders(path, s)
            for fn in s.functions:
                params = _params(fn)
                for p in params:
                    if (p.annotation and _CONFIG_TYPES.search(p.annotation)) or dict_config_param(fn, p):
                        self.roots.add_local((path, fn.qualname, p.name), [(UNKNOWN,)])
            for c in s.classes:  # ``@dataclass class Client: cfg: DictConfig``, then ``self.cfg.critic.port``
                for f in c.fields:
                    if f.annotation and _CONFIG_TYPES.search(f.annotation):
                        self.roots.add_attr((f"{s.module}.{c.qualname}", f.name), [(UNKNOWN,)])
        self._ray_workers()

    def _ray_workers(self) -> None:
        """The ``config``/``cfg`` a Ray actor's constructor takes is the run's config (or a section of it) even
        unannotated: workers are built through a role -> class mapping (``RayClassWithInitArgs(cls=mapping[role],
        config=cfg.critic)``) no value flow follows, so its reads are keys whose place under the root is unknown."""
        actors: set[str] = set()
        for path, s in self.index.summaries.items():
            namer = self.namers[path]
            for c in s.classes:
                if any(namer.canon(d, c.qualname) == "ray.remote" for d in c.decorators if not d.endswith("()")):
                    actors.add(f"{s.module}.{c.qualname}")
            for call in s.calls:  # ``ray.remote(CriticWorker)``
                if call.attr == "remote" and call.args and call.args[0].kind == "name" \
                        and namer.canon(call.func, call.scope) == "ray.remote":
                    got = self.symbols.resolve_in(s.module, call.scope, str(call.args[0].value))
                    if got in self.symbols.classes:
                        actors.add(got)
        for cls in sorted(actors):
            init = self.symbols.method_of(cls, "__init__")
            fn = self._func(init) if init else None
            if fn is None:
                continue
            for p in _params(fn.fn):
                if p.name in _WORKER_CONFIG and not p.annotation:
                    self.roots.add_local((fn.path, fn.fn.qualname, p.name), [(UNKNOWN,)])

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
            self.roots.add_local((path, fn.qualname, params[0].name), [()])

    # ---- propagation ---------------------------------------------------------------------------
    def propagate(self) -> None:
        for _ in range(_ROUNDS):
            self.roots.changed = False
            for path, s in self.index.summaries.items():
                if self._touches(path, s):
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
                    return _best(got), tail[1:]
            # a base class or mixin reading what the classes built on it keep (``self.cfg`` set in a subclass
            # or in another base of it)
            found: set[Prefix] = set()
            for sub in self._subclasses().get(cls, ()):
                for c in self.symbols.mro(sub):
                    got = self.roots.attrs.get((c, tail[0]))
                    if got:
                        found |= got
                        break
            return (_best(found), tail[1:]) if found else (set(), tail)
        sc = scope
        while True:
            got = self.roots.local.get((path, sc, root))
            if got:
                return _best(got), tail
            if sc == MODULE_SCOPE:
                return set(), tail
            sc = sc.rsplit(".", 1)[0] if "." in sc else MODULE_SCOPE

    def _chain_of(self, path: str, scope: str, line: int, text: str) -> ChainRead | None:
        """The recorded chain a value text (``cfg.trainer``, ``cfg[][]``, ``cfg.get``) stands for."""
        head = _HEAD.split(text, maxsplit=1)[0]
        cands = [c for c in self._chains_at(path, scope, line) if c.root == head and c.mode == "read"]
        if not cands:
            if "[" in text or "(" in text:
                return None
            # an argument on a later line of a call written over several lines
            later = [c for n in range(1, _CALL_LINES) for c in self._chains_at(path, scope, line + n)
                     if c.root == head and c.mode == "read" and ".".join((c.root, *c.path)) == text]
            return later[0] if later else None
        if "[" not in text and "(" not in text:
            exact = [c for c in cands if ".".join((c.root, *c.path)) == text]
            return exact[0] if len(exact) == 1 else None
        return cands[0] if len(cands) == 1 else None

    def _value_prefixes(self, path: str, module: str, scope: str, line: int, text: str) -> set[Prefix]:
        """Prefixes of a config value written as ``text`` (a name, a chain) at ``line``."""
        if not text or text.startswith("<"):
            return set()
        if _NAME.fullmatch(text):
            got, rest = self.prefixes(path, module, scope, text, ())
            return set(got)
        chain = self._chain_of(path, scope, line, text)
        if chain is None:
            if _SELF_ATTR.fullmatch(text):
                got, rest = self.prefixes(path, module, scope, "self", (text[5:],))
                return {*got} if not rest else set()
            return set()
        got, rest = self.prefixes(path, module, scope, chain.root, chain.path)
        return {(*p, *rest) for p in got} if got and _keyish(rest) else set()

    def _loaders(self, path: str, s: FileSummary) -> None:
        """Values a config loader returns, and names annotated as configs (seeds: they depend on no other root)."""
        namer = self.namers[path]
        for a in s.assignments:
            if a.augmented or not isinstance(a.value, str) or not _TARGET.fullmatch(a.target):
                continue
            if a.value_kind == "call" and a.value.rsplit(".", 1)[-1] in _LOADER_NAMES \
                    and namer.canon(a.value, a.scope) in _LOADERS:
                self._bind(path, s.module, a.scope, a.target, {()})
            elif a.annotation and _CONFIG_TYPES.search(a.annotation) and "." not in a.target:
                self.roots.add_local((path, a.scope, a.target), [(UNKNOWN,)])

    def _bind(self, path: str, module: str, scope: str, target: str, found: set[Prefix]) -> None:
        if target.startswith("self."):
            cls = self.symbols.class_of_scope(module, scope)
            if cls is not None:
                self.roots.add_attr((cls, target[5:]), found)
        else:
            self.roots.add_local((path, scope, target), found)

    def _assignments(self, path: str, s: FileSummary) -> None:
        live = self.roots.live
        for a in s.assignments:
            if a.augmented or not isinstance(a.value, str) or not _TARGET.fullmatch(a.target):
                continue
            found: set[Prefix] = set()
            if a.value_kind == "call":
                if a.value == "getattr" and len(a.call_args) >= 2 and a.call_args[0].kind == "name" \
                        and isinstance(a.call_args[1].value, str) and a.call_args[1].kind == "lit" \
                        and _SEGMENT.match(a.call_args[1].value) and live(path, str(a.call_args[0].value)):
                    got = self._value_prefixes(path, s.module, a.scope, a.line, str(a.call_args[0].value))
                    found = {(*p, a.call_args[1].value) for p in got}
                elif a.value.endswith(".get") and live(path, a.value):
                    found = self._value_prefixes(path, s.module, a.scope, a.line, a.value)
                elif a.call_args and a.call_args[0].kind == "name" and live(path, str(a.call_args[0].value)) \
                        and self.namers[path].canon(a.value, a.scope) in _PASS:
                    found = self._value_prefixes(path, s.module, a.scope, a.line, str(a.call_args[0].value))
                else:
                    found = self._returned(path, s.module, a)
            elif a.value_kind in ("name", "other") and live(path, a.value):
                found = self._value_prefixes(path, s.module, a.scope, a.line, a.value)
            if found:
                self._bind(path, s.module, a.scope, a.target, found)

    def _passing(self, path: str, s: FileSummary) -> list[tuple[CallSite, list[tuple[int | None, str | None, Arg,
                                                                                 tuple[str, str]]]]]:
        """Calls of a file that pass a name or chain (computed once: the rounds only look these up)."""
        got = self._passed.get(path)
        if got is None:
            got = self._passed[path] = []
            for c in s.calls:
                passed = [(i, None, a, _heads(a.value)) for i, a in enumerate(c.args)
                          if a.kind == "name" and isinstance(a.value, str)]
                passed += [(None, k, a, _heads(a.value)) for k, a in c.kwargs
                           if a.kind == "name" and isinstance(a.value, str)]
                if passed:
                    got.append((c, passed))
        return got

    def _returned(self, path: str, module: str, a: Assignment) -> set[Prefix]:
        """``x = to_dataclass(cfg.rollout)`` where the repo function returns the parameter it got (converted
        or not, ``return config`` on some path): ``x`` is that config."""
        found: set[Prefix] = set()
        passed = [(i, arg) for i, arg in enumerate(a.call_args) if arg.kind == "name" and isinstance(arg.value, str)
                  and self.roots.live(path, arg.value)]
        if not passed or not isinstance(a.value, str):
            return found
        for target in self._callees(module, a.scope, a.value):
            params = _params(target.fn)
            skip = 1 if target.method and params and params[0].name in ("self", "cls") else 0
            for i, arg in passed:
                p = _param_for(target.fn, params, skip, i, None)
                if p is not None and p in target.fn.returned:
                    found |= self._value_prefixes(path, module, a.scope, a.line, str(arg.value))
        return found

    def _calls(self, path: str, s: FileSummary) -> None:
        live = self.roots.live_head
        for c, passed in self._passing(path, s):
            values: list[tuple[int | None, str | None, set[Prefix]]] = []
            for i, k, a, heads in passed:
                if not live(path, heads):
                    continue
                assert isinstance(a.value, str)
                got = self._value_prefixes(path, s.module, c.scope, c.line, a.value)
                if not got and a.line and a.line != c.line:
                    got = self._value_prefixes(path, s.module, c.scope, a.line, a.value)
                if got:
                    values.append((i, k, got))
                    if k is not None and _CONFIG_KWARG.search(k):
                        self.sections.update(got)  # ``engine_config=cfg.actor.engine``: the callee takes a config
            if not values:
                continue
            if c.func == "super().__init__":
                self._super_init(s.module, c.scope, values)
                continue
            if c.func == "getattr" or self.namers[path].canon(c.func, c.scope) in _SELECT:
                continue
            resolved = self.namers[path].resolved.get((c.line, c.func), ()) if self.namers[path].resolved else ()
            for target in self._callees(s.module, c.scope, c.func, resolved):
                params = _params(target.fn)
                skip = 1 if target.method and params and params[0].name in ("self", "cls") else 0
                for i, k, got in values:
                    p = _param_for(target.fn, params, skip, i, k)
                    if p is not None:
                        self.roots.add_local((target.path, target.fn.qualname, p), got)
            self._factory(s.module, c, values)

    def _factory(self, module: str, c: CallSite, values: list[tuple[int | None, str | None, set[Prefix]]]) -> None:
        """``load_model(ActorModel, cfg.model, ...)`` / ``ClassWithInitArgs(cls=Worker, config=cfg.actor)``: a
        call handed a repo class and a config builds that class with it — the keyword of the same name, or
        the one config value when the ``__init__`` takes a config-named or ``DictConfig`` parameter."""
        classes = []
        for a in (*c.args, *(v for _, v in c.kwargs)):
            if a.kind == "name" and isinstance(a.value, str):
                name = self.symbols.resolve_in(module, c.scope, a.value)
                d = self.symbols.definitions.get(name) if name else None
                if d is not None and d.kind == "class":
                    init = self.symbols.method_of(name, "__init__")
                    f = self._func(init) if init else None
                    if f is not None:
                        classes.append(f)
        for f in classes[:1] if len(classes) == 1 else ():
            params = _params(f.fn)[1:]
            names = {p.name for p in params}
            for _i, k, got in values:
                if k is not None and k in names:
                    self.roots.add_local((f.path, f.fn.qualname, k), got)
            positional = [got for i, _k, got in values if i is not None]
            if len(positional) == 1:
                target = [p for p in params if p.name in _CONFIG_PARAMS
                          or (p.annotation and _CONFIG_TYPES.search(p.annotation))]
                if len(target) == 1:
                    self.roots.add_local((f.path, f.fn.qualname, target[0].name), positional[0])

    def _super_init(self, module: str, scope: str, values: list[tuple[int | None, str | None, set[Prefix]]]) -> None:
        """``super().__init__(cfg)``: a repo base's ``__init__`` receives the config; a library base keeps it
        under its conventional name (``self.cfg``, ``self._cfg``, ``self.config``), read by the subclass."""
        cls = self.symbols.class_of_scope(module, scope)
        if cls is None or not scope.endswith(".__init__"):
            return
        for base in self.symbols.mro(cls)[1:]:
            info = self.symbols.classes.get(base)
            if info is None:
                first = [got for i, k, got in values if i == 0 or k in _INHERITED]
                got = first[0] if first else values[0][2] if len(values) == 1 else set()
                for name in _INHERITED:
                    self.roots.add_attr((cls, name), got)
                return
            if "__init__" in info.methods:
                target = self._func(f"{base}.__init__")
                if target is not None:
                    params = _params(target.fn)
                    skip = 1 if params and params[0].name == "self" else 0
                    for i, k, got in values:
                        p = _param_for(target.fn, params, skip, i, k)
                        if p is not None:
                            self.roots.add_local((target.path, target.fn.qualname, p), got)
                return

    def _callees(self, module: str, scope: str, func: str, resolved: tuple[str, ...] = ()) -> list[_Func]:
        """Repo functions a call runs (a class call runs its ``__init__``; ``X.remote`` of a Ray actor too):
        what the symbol table names, else the call graph's own targets for the site (``runner.run.remote(cfg)``
        on an actor handle), at most two of them."""
        text = func.replace("()", "")
        for suffix in (".remote", ".options.remote"):
            if text.endswith(suffix):
                text = text[: -len(suffix)]
        name = self.symbols.resolve_in(module, scope, text)
        names = [name] if name is not None else [t for t in resolved if t in self.symbols.definitions][:3]
        if len(names) > 2:
            return []
        out = []
        for name in names:
            d = self.symbols.definitions.get(name)
            if d is None:
                continue
            if d.kind == "class":
                init = self.symbols.method_of(name, "__init__")
                name = init or ""
            f = self._func(name)
            if f is not None:
                out.append(f)
        return out

    # ---- keys ---------------------------------------------------------------------------------
    def keys(self) -> tuple[list[RawKey], list[RawKey]]:
        """Keys named from the root, and relative ones (read on a config whose place is unknown)."""
        out: list[RawKey] = []
        relative: list[RawKey] = []
        attrs = self.roots.attr_names
        for path, s in self.index.summaries.items():
            names = self.roots.names.get(path, set())
            for c in s.chains:
                if c.root not in names and (c.root != "self" or c.path[0] not in attrs):
                    continue
                got, rest = self.prefixes(path, s.module, c.scope, c.root, c.path)
                if not got or not rest or not _keyish(rest) or len(got) > _MAX_PREFIXES:
                    continue
                value = value_text(c.default)
                for p in sorted(got):
                    if (*p, *rest) in self.sections:
                        continue
                    rel = p[:1] == (UNKNOWN,)
                    (relative if rel else out).append(RawKey(".".join((*p[rel:], *rest)), value, path, c.line,
                                                             SOURCE))
            for p, rest, line, default in self._selects(path, s):
                if (*p, *rest) in self.sections:
                    continue
                rel = p[:1] == (UNKNOWN,)
                (relative if rel else out).append(RawKey(".".join((*p[rel:], *rest)), default, path, line, SOURCE))
        return out, relative

    def _selects(self, path: str, s: FileSummary) -> list[tuple[Prefix, tuple[str, ...], int, str | None]]:
        """``OmegaConf.select(cfg, "a.b")``, ``OmegaConf.update(cfg, "a.b", v)`` and ``getattr(cfg, "a")``:
        prefix, path, line, default."""
        out: list[tuple[Prefix, tuple[str, ...], int, str | None]] = []
        namer = self.namers[path]
        for c in s.calls:
            if not c.args:
                continue
            attr = c.func.rsplit(".", 1)[-1]
            if attr == "get" and c.args[0].kind == "name" and "." in c.func:
                out.extend(self._const_get(path, s, c))  # ``cfg.get(LAUNCHER_KEY, "slurm")``
                continue
            if len(c.args) < 2 or (c.func != "getattr" and (attr not in ("select", "update")
                                                            or namer.canon(c.func, c.scope) not in _SELECT)):
                continue
            first, second = c.args[0], c.args[1]
            if first.kind != "name" or second.kind != "lit" or not isinstance(second.value, str):
                continue
            got = self._value_prefixes(path, s.module, c.scope, c.line, str(first.value))
            rest = tuple(second.value.split("."))
            if got and _keyish(rest) and len(got) <= _MAX_PREFIXES:
                third = c.args[2] if c.func == "getattr" and len(c.args) > 2 else c.kwarg("default")
                default = value_text(third.value) if third is not None and third.kind == "lit" else None
                out.extend((p, rest, c.line, default) for p in sorted(got))
        return out


    def _const_get(self, path: str, s: FileSummary, c: CallSite) -> list[tuple[Prefix, tuple[str, ...], int, str | None]]:
        """``cfg.get(LAUNCHER_KEY, d)`` with ``LAUNCHER_KEY = "launcher"`` a module constant (here or imported):
        the constant's text is the key."""
        receiver = c.func.rsplit(".", 1)[0]
        if not self.roots.live(path, receiver):
            return []
        text = self._constant(s.module, c.scope, str(c.args[0].value))
        if text is None:
            return []
        got = self._value_prefixes(path, s.module, c.scope, c.line, receiver)
        rest = tuple(text.split("."))
        if not got or not _keyish(rest) or len(got) > _MAX_PREFIXES:
            return []
        second = c.args[1] if len(c.args) > 1 else c.kwarg("default")
        default = value_text(second.value) if second is not None and second.kind == "lit" else None
        return [(p, rest, c.line, default) for p in sorted(got)]

    def _constant(self, module: str, scope: str, name: str) -> str | None:
        """The literal string a module-level constant holds (followed through one import)."""
        qual = self.symbols.imported(module, scope, name) or self.symbols.resolve_in(module, scope, name) \
            or f"{module}.{name}"
        owner, _, attr = qual.rpartition(".")
        s = self.symbols.modules.get(owner)
        if s is None:
            return None
        for a in s.assignments:
            if a.scope == MODULE_SCOPE and a.target == attr and a.value_kind == "lit" and isinstance(a.value, str):
                return a.value
        return None


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


def config_read_keys(index: Index, namers: dict[str, Namer], symbols: SymbolTable,
                     ) -> tuple[list[RawKey], list[RawKey]]:
    """Every key read as a chain on a proven config value: named from the root, and relative ones."""
    reads = ConfigReads(index, namers, symbols)
    reads.seed()
    reads.propagate()
    return reads.keys()


__all__ = ["SOURCE", "config_read_keys"]

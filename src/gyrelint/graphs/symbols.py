"""The one symbol table: which name means what, for every later stage.

Built once from the index summaries (the modules' dotted names are the index's own, never
recomputed here). Every stage that turns a dotted name or an attribute chain into a
definition asks it: the call resolver takes its set-up tables from it, semantics its
import aliases and repo-name tests, topology its receivers' library names, the entry-point
finder its console-script and main-guard targets. A rule about imports or re-exports
fixed here reaches all of them.

Answers are repo qualnames (``pkg.mod.Cls.method``) or external dotted names
(``torch.distributed.broadcast``), ``<builtin>.print`` for builtins, None when unknown.
Static only: values that flow (``x = make(); x.f()``) are the resolver's points-to job.
"""

from __future__ import annotations

import builtins
import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from ..index.cache import gc_paused
from ..index.summary import MODULE_SCOPE, FileSummary, FunctionDef, Import, absolute_module

if TYPE_CHECKING:
    from ..index import Index

_BUILTINS = frozenset(dir(builtins))
_DEPTH = 8  # re-export chains followed at most this deep (``a`` re-exports ``b`` re-exports ``c``...)
_EMPTY: frozenset[str] = frozenset()
_STAR_ROUNDS = 3  # ``from a import *`` where ``a`` star-imports ``b``: chains this long are followed


@dataclass(frozen=True, slots=True)
class Definition:
    """A function, lambda, class or method of the repo."""

    qualname: str  # full: ``pkg.mod.Cls.method``
    kind: str  # "function" | "lambda" | "class" | "method"
    module: str
    file: str
    line: int
    decorators: tuple[str, ...] = ()
    owner: str | None = None  # methods: the full qualname of their class
    method_kind: str | None = None  # methods: "static" | "class" | "inst"


@dataclass(frozen=True, slots=True)
class Binding:
    """One name an import binds in one scope, with what it names (absolute)."""

    module: str  # the importing module
    scope: str
    name: str  # the local name bound
    target: str  # dotted name it stands for: ``torch.distributed`` / ``pkg.sub.func``
    source: str  # absolute module the import reads (``pkg.sub`` of ``from .sub import func``)
    imported: str | None  # ``func`` of ``from m import func``; None for ``import m``
    line: int
    star: bool = False  # bound by ``from m import *``

    @property
    def value(self) -> tuple:
        """The resolver's import value: ``("imp", module, name)`` (``import a.b`` binds ``a``)."""
        if self.star or self.imported is not None:
            return ("imp", self.source, self.imported if not self.star else self.name)
        return ("imp", self.target, None)


@dataclass(frozen=True, slots=True)
class ClassSymbols:
    qualname: str
    module: str
    scope: str  # where the ``class`` statement runs (its bases are names seen from there)
    bases: tuple[str, ...]  # resolved direct bases: repo class qualnames or external dotted names
    methods: frozenset[str]  # names of the methods the class body defines
    attrs: Mapping[str, str]  # ``self.x`` / class field -> the type it is learned to hold


def _ro(d: dict) -> Mapping:
    return MappingProxyType(d)


@dataclass(frozen=True)
class SymbolTable:
    """Modules, definitions, imports and re-exports, class hierarchies of one repo; read-only."""

    modules: Mapping[str, FileSummary]  # module -> its summary (the last one wins, as everywhere)
    files: Mapping[str, str]  # file -> module
    definitions: Mapping[str, Definition]
    functions: Mapping[str, FunctionDef]  # full qualname -> def, functions, methods and lambdas
    classes: Mapping[str, ClassSymbols]
    bindings: Mapping[str, tuple[Binding, ...]]  # module -> its imports in file order (stars last)
    stars: tuple[Binding, ...]  # every name a star import binds, in the order they were found
    locals: Mapping[tuple[str, str], frozenset[str]]  # (module, scope) -> names bound there
    globals: Mapping[tuple[str, str], frozenset[str]]
    class_scopes: Mapping[str, frozenset[str]]  # module -> relative class qualnames
    tops: frozenset[str]  # first parts of the repo's module names
    libraries: Mapping[str, str]  # vendored copy's module prefix -> its library's name (see build_symbols)
    _scoped: Mapping[tuple[str, str], Mapping[str, Binding]] = field(repr=False)
    _module_alias: Mapping[tuple[str, str], str] = field(repr=False)  # (module, name) -> ``A = B`` text
    _imaps: dict[str, Mapping[str, str]] = field(default_factory=dict, repr=False, compare=False)
    _memo: dict[tuple, str | None] = field(default_factory=dict, repr=False, compare=False)
    _mros: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)

    # ---- queries -----------------------------------------------------------------------------
    def module_of_file(self, path: str) -> str | None:
        return self.files.get(path)

    def is_repo_name(self, name: str) -> bool:
        """The name starts with one of the repo's top-level packages or modules."""
        return name.split(".", 1)[0] in self.tops

    def import_map(self, module: str) -> Mapping[str, str]:
        """Local name -> dotted target of every import of the module: a module-scope import wins
        over one inside a function, the first of one scope over a later one (``try: import
        ujson as json / except: import json`` names ``ujson``). Star imports excluded."""
        got = self._imaps.get(module)
        if got is None:
            inner: dict[str, str] = {}
            outer: dict[str, str] = {}
            for b in self.bindings.get(module, ()):
                if not b.star:
                    (outer if b.scope == MODULE_SCOPE else inner).setdefault(b.name, b.target)
            got = self._imaps[module] = _ro({**inner, **outer})
        return got

    def defines(self, module: str, name: str) -> bool:
        """Whether ``module`` binds ``name`` at its top level (a def, a class, an import, an
        assignment); any ``from x import *`` may bind it too."""
        s = self.modules.get(module)
        if s is None:
            return False
        return (name in self.locals.get((module, MODULE_SCOPE), _EMPTY) or any(i.name == "*" for i in s.imports)
                or any(a.target == name for a in s.assignments if a.scope == MODULE_SCOPE))

    def from_imported(self, module: str) -> frozenset[str]:
        """Local names ``from x import name`` binds in the module (any scope, star imports excluded)."""
        return frozenset(b.name for b in self.bindings.get(module, ()) if b.imported is not None and not b.star)

    def class_of_method(self, qualname: str) -> str | None:
        d = self.definitions.get(qualname)
        return d.owner if d is not None else None

    def class_of_scope(self, module: str, scope: str) -> str | None:
        """The class whose method (or a function nested in one) ``scope`` is."""
        classes = self.class_scopes.get(module, _EMPTY)
        parts = scope.split(".")
        for i in range(len(parts) - 1, 0, -1):
            if ".".join(parts[:i]) in classes:
                return f"{module}.{'.'.join(parts[:i])}"
        return None

    def mro(self, cls: str) -> tuple[str, ...]:
        """The class and its bases in C3 order (depth-first when inconsistent): repo classes by
        qualname, external bases by dotted name."""
        got = self._mros.get(cls)
        if got is None:
            self._mros[cls] = (cls,)  # a cyclic hierarchy stops here
            info = self.classes.get(cls)
            seqs = [list(self.mro(b)) if b in self.classes else [b] for b in (info.bases if info else ())]
            seqs.append(list(info.bases) if info else [])
            got = self._mros[cls] = (cls, *(c for c in _c3(seqs) if c != cls))
        return got

    def method_of(self, cls: str, name: str) -> str | None:
        """The method ``name`` of repo class ``cls``, looked up through its repo bases."""
        for c in self.mro(cls):
            info = self.classes.get(c)
            if info is not None and name in info.methods:
                return f"{c}.{name}"
        return None

    def attr_type(self, cls: str, attr: str) -> str | None:
        """The learned type of ``self.attr`` on an instance of ``cls`` (its bases' included)."""
        for c in self.mro(cls):
            info = self.classes.get(c)
            if info is not None and attr in info.attrs:
                return info.attrs[attr]
        return None

    def resolve_dotted(self, name: str) -> str:
        """A dotted name with re-exports followed to the definition: ``pkg.Trainer`` where
        ``pkg/__init__.py`` does ``from .core import Trainer`` is ``pkg.core.Trainer``;
        ``pkg.Cls.m`` is the method found through ``Cls``'s bases. External and unknown names
        come back as they are."""
        return self._dotted(name, 0) or name

    def attribute(self, module: str, attr: str) -> str | None:
        """What ``module.attr`` (an attribute chain) names when the module is imported: what the
        module binds beats a submodule of the same name (``pkg.cli:main`` where
        ``pkg/cli/__init__.py`` does ``from .main import main`` is the function)."""
        head, *rest = attr.split(".")
        got = self._member(module, head, 0)
        return None if got is None else self._join(got, rest, 0)

    def resolve_in(self, module: str, scope: str, text: str) -> str | None:
        """What a local name or attribute chain means as seen from ``scope`` of ``module``
        (Python's scoping: enclosing functions, not class bodies, then the module, then
        builtins; ``self.x`` through the class's learned attribute types). ``()`` and ``[]``
        in the chain are ignored. None when unknown (a plain local variable, say)."""
        key = (module, scope, text)
        if key in self._memo:
            return self._memo[key]
        got = self._memo[key] = self._resolve_in(module, scope, text, 0)
        return got

    def imported(self, module: str, scope: str, name: str) -> str | None:
        """The dotted name an import binds ``name`` to as seen from ``scope`` (re-exports
        followed); None when no import binds it there (a local, a def, a builtin, unknown)."""
        b = self.binding(module, self._scope_binding(module, scope, name), name)
        return None if b is None else self._dotted(b.target, 0) or b.target

    def _scope_binding(self, module: str, scope: str, name: str) -> str:
        """The scope whose binding of ``name`` is seen from ``scope``: the innermost enclosing
        function scope that binds it locally (a class body is seen only from itself), else the
        module scope (also for a ``global`` declaration). Python's scoping rule, kept in one place."""
        s, first = scope, True
        classes = self.class_scopes.get(module, _EMPTY)
        while s != MODULE_SCOPE:
            if name in self.globals.get((module, s), _EMPTY):
                break
            if (first or s not in classes) and name in self.locals.get((module, s), _EMPTY):
                return s
            first = False
            s = s.rsplit(".", 1)[0] if "." in s else MODULE_SCOPE
        return MODULE_SCOPE

    def binding(self, module: str, scope: str, name: str) -> Binding | None:
        """The import that binds ``name`` in exactly ``scope`` of ``module`` (star imports included)."""
        return self._scoped.get((module, scope), {}).get(name)

    def imported_modules(self, s: FileSummary) -> Iterable[tuple[str, int]]:
        """(repo module, line) for every import of a file that runs a repo module: the deepest
        repo module an ``import a.b.c`` starts with, and ``from pkg import submodule``."""
        for imp in s.imports:
            source = absolute_module(s, imp.module, imp.level)
            if imp.name and imp.name != "*" and f"{source}.{imp.name}" in self.modules:
                yield f"{source}.{imp.name}", imp.line
            parts = source.split(".")
            for i in range(len(parts), 0, -1):
                m = ".".join(parts[:i])
                if m in self.modules:
                    yield m, imp.line
                    break

    # ---- internals ---------------------------------------------------------------------------
    def _resolve_in(self, module: str, scope: str, text: str, depth: int) -> str | None:
        if not text or text.startswith("<") or depth > _DEPTH:
            return None
        parts = [p.replace("()", "").replace("[]", "") for p in text.split(".")]
        head, rest = parts[0], parts[1:]
        if head in ("self", "cls") and scope != MODULE_SCOPE:
            cls = self.class_of_scope(module, scope)
            if cls is not None:
                if not rest:
                    return cls
                t = self.attr_type(cls, rest[0])
                if t is not None:
                    return self._join(t, rest[1:], depth)
                return self._join(cls, rest, depth)
        s = self._scope_binding(module, scope, head)
        if s != MODULE_SCOPE:
            q = f"{module}.{s}.{head}"
            if q in self.definitions:
                return self._join(q, rest, depth)
            b = self.binding(module, s, head)
            if b is not None:
                return self._join(b.target, rest, depth)
            return None  # a local variable shadows whatever the name means outside
        got = self._member(module, head, depth)
        if got is not None:
            return self._join(got, rest, depth)
        if not rest and head in _BUILTINS and head not in self.locals.get((module, MODULE_SCOPE), _EMPTY):
            return f"<builtin>.{head}"
        return None

    def _join(self, base: str, rest: list[str], depth: int) -> str:
        if not rest:
            return self._dotted(base, depth + 1) or base
        name = f"{base}.{'.'.join(rest)}"
        return self._dotted(name, depth + 1) or name

    def _dotted(self, name: str, depth: int) -> str | None:
        if self.libraries:
            lib = as_library(name, self.libraries)
            if lib != name:
                return lib
        if name in self.definitions or name in self.modules or depth > _DEPTH:
            return name
        parts = name.split(".")
        if parts[0] not in self.tops:
            return None
        for i in range(len(parts) - 1, 0, -1):
            mod = ".".join(parts[:i])
            if mod in self.modules:
                break
        else:
            return None
        head, rest = parts[i], parts[i + 1:]
        got = self._member(mod, head, depth)
        if got is None:
            return None
        if rest and got in self.classes:
            meth = self.method_of(got, rest[0])
            if meth is not None:
                got, rest = meth, rest[1:]
        if not rest:
            return got
        full = f"{got}.{'.'.join(rest)}"
        return self._dotted(full, depth + 1) if got != f"{mod}.{head}" else full

    def _member(self, module: str, name: str, depth: int) -> str | None:
        """What ``module.name`` is: a definition or submodule, or what an import / star import /
        ``name = other`` at module level binds it to, followed (re-exports)."""
        q = f"{module}.{name}"
        if q in self.definitions:
            return q
        b = self.binding(module, MODULE_SCOPE, name)
        if b is not None and b.target != q:  # ``from .main import main`` in a package: the function
            return self._dotted(b.target, depth + 1) or b.target
        alias = self._module_alias.get((module, name))
        if alias is not None and depth < _DEPTH:
            return self._resolve_in(module, MODULE_SCOPE, alias, depth + 1)
        return q if q in self.modules else None


def _c3(seqs: list[list[str]]) -> list[str]:
    """C3 merge with a cursor per sequence and a count of tail occurrences: linear in the total
    length (the textbook version rebuilds every sequence at each step, quadratic in deep
    hierarchies). Same output as the textbook merge, its depth-first fallback included."""
    seqs = [s for s in seqs if s]
    pos = [0] * len(seqs)
    tail: dict[str, int] = {}  # occurrences after each sequence's current head
    for s in seqs:
        for x in s[1:]:
            tail[x] = tail.get(x, 0) + 1
    out: list[str] = []
    live = list(range(len(seqs)))
    while live:
        for i in live:
            head = seqs[i][pos[i]]
            if not tail.get(head):
                break
        else:  # inconsistent hierarchy: fall back to depth-first order
            seen = set(out)
            for i in live:
                for x in seqs[i][pos[i]:]:
                    if x not in seen:
                        seen.add(x)
                        out.append(x)
            return out
        out.append(head)
        # ``head`` is in no tail, so it only stands at heads: advance those sequences past it
        for i in live:
            s = seqs[i]
            if s[pos[i]] == head:
                pos[i] += 1
                if pos[i] < len(s):
                    tail[s[pos[i]]] -= 1
        live = [i for i in live if pos[i] < len(seqs[i])]
    return out


def bound_names(t: object, out: set[str]) -> None:
    """Names a flow target binds: ``x``, ``a, (b, *c)``, or the bare name of a
    ``global``/``nonlocal``/``def`` flow."""
    if isinstance(t, str):
        out.add(t)
    elif isinstance(t, tuple) and t:
        if t[0] == "n":
            out.add(t[1])
        elif t[0] == "l":
            for it in t[2]:
                bound_names(it, out)
        elif t[0] == "*":
            bound_names(t[1], out)


def _binding(s: FileSummary, imp: Import, libraries: Mapping[str, str] | None = None) -> Binding:
    source = absolute_module(s, imp.module, imp.level)
    if imp.name is None:
        target = source if imp.asname else source.split(".", 1)[0]
    else:
        target = f"{source}.{imp.name}" if source else imp.name
    if libraries:
        source, target = as_library(source, libraries), as_library(target, libraries)
    return Binding(s.module, imp.scope, imp.bound, target, source, imp.name, imp.line)


def as_library(name: str, libraries: Mapping[str, str]) -> str:
    """A name inside a vendored copy as the library it copies names it
    (``host.third_party.torch.distributed.x`` -> ``torch.distributed.x``); others unchanged."""
    parts = name.split(".")
    for i in range(len(parts), 1, -1):
        lib = libraries.get(".".join(parts[:i]))
        if lib is not None:
            return ".".join((lib, *parts[i:]))
    return name


def symbols_of(index: Index) -> SymbolTable:
    """The symbol table of an index (built once per run: the entry-point finder and the graphs
    stage share it)."""
    from ..index.scope import library_names

    with gc_paused(promote=True):  # many small records, no cycles: collections would only walk them
        return build_symbols(index.summaries.values(), library_names(index.files, index.scopes))


def build_symbols(summaries: Iterable[FileSummary], libraries: Mapping[str, str] | None = None) -> SymbolTable:
    """The symbol table of the summaries (in their order; a module named twice: the last wins).
    ``libraries``: module prefix of a vendored copy -> the library's own name
    (:func:`gyrelint.index.scope.library_names`); imports of the copy read as imports of the
    library, so its calls are the library's calls for every later stage."""
    every = list(summaries)
    sums = {s.module: s for s in every}
    files = {s.path: s.module for s in every}
    definitions: dict[str, Definition] = {}
    functions: dict[str, FunctionDef] = {}
    class_scopes: dict[str, set[str]] = defaultdict(set)
    methods: dict[str, set[str]] = defaultdict(set)
    local: dict[tuple[str, str], set[str]] = defaultdict(set)
    glob: dict[tuple[str, str], set[str]] = defaultdict(set)
    nonlocal_: dict[tuple[str, str], set[str]] = defaultdict(set)
    for mod, s in sums.items():
        for c in s.classes:
            cq = f"{mod}.{c.qualname}"
            definitions[cq] = Definition(cq, "class", mod, s.path, c.line, c.decorators)
            class_scopes[mod].add(c.qualname)
        for f in s.functions:
            _define(definitions, functions, methods, local, mod, s.path, f, "function")
        for f in s.lambdas:
            _define(definitions, functions, methods, local, mod, s.path, f, "lambda")
    bindings: dict[str, list[Binding]] = {}
    scoped: dict[tuple[str, str], dict[str, Binding]] = defaultdict(dict)
    aliases: dict[tuple[str, str], str] = {}
    for mod, s in sums.items():
        for fl in s.flows:
            key = (mod, fl.scope)
            if fl.op in ("=", "for", "with", "ann"):
                bound_names(fl.target, local[key])
            elif fl.op == "def":
                local[key].add(fl.target)  # type: ignore[arg-type]
            elif fl.op == "global":
                glob[key].add(fl.target)  # type: ignore[arg-type]
            elif fl.op == "nonlocal":
                nonlocal_[key].add(fl.target)  # type: ignore[arg-type]
        own: list[Binding] = []
        for imp in s.imports:
            if imp.name == "*":
                continue
            b = _binding(s, imp, libraries)
            own.append(b)
            local[(mod, imp.scope)].add(imp.bound)
            scoped[(mod, imp.scope)].setdefault(b.name, b)
        bindings[mod] = own
        for a in s.assignments:
            if a.scope == MODULE_SCOPE and a.value_kind == "name" and isinstance(a.value, str) \
                    and "." not in a.target and not a.augmented and a.value != a.target:
                aliases.setdefault((mod, a.target), a.value)
    for key, names in glob.items():
        local[key] -= names
    for key, names in nonlocal_.items():
        local[key] -= names
    stars = tuple(_star_bindings(sums, local))
    for b in stars:
        bindings[b.module].append(b)
        scoped[(b.module, b.scope)].setdefault(b.name, b)
    table = SymbolTable(
        modules=_ro(sums), files=_ro(files), definitions=_ro(definitions), functions=_ro(functions),
        classes=_ro({}), bindings=_ro({m: tuple(v) for m, v in bindings.items()}), stars=stars,
        locals=_ro({k: frozenset(v) for k, v in local.items()}),
        globals=_ro({k: frozenset(v) for k, v in glob.items()}),
        class_scopes=_ro({m: frozenset(v) for m, v in class_scopes.items()}),
        tops=frozenset(m.split(".", 1)[0] for m in sums),
        _scoped=_ro({k: _ro(v) for k, v in scoped.items()}), _module_alias=_ro(aliases),
        libraries=_ro(dict(libraries or {})),
    )
    # bases and attribute types are names too: resolved by a first table that knows no classes
    first = dataclasses.replace(table, classes=_ro(_classes(table, sums, methods, {})), _imaps={}, _memo={},
                                _mros={})
    return dataclasses.replace(table, classes=_ro(_classes(first, sums, methods, _attr_types(first, sums))),
                               _imaps={}, _memo={}, _mros={})


def _define(definitions: dict[str, Definition], functions: dict[str, FunctionDef], methods: dict[str, set[str]],
            local: dict[tuple[str, str], set[str]], mod: str, path: str, f: FunctionDef, kind: str) -> None:
    q = f"{mod}.{f.qualname}"
    functions[q] = f
    local[(mod, f.qualname)].update(p.name for p in f.params)
    if f.class_name is None:
        definitions[q] = Definition(q, kind, mod, path, f.line, f.decorators)
        return
    decs = {d.rsplit(".", 1)[-1] for d in f.decorators}
    mkind = "static" if "staticmethod" in decs else "class" if "classmethod" in decs else "inst"
    owner = f"{mod}.{f.class_name}"
    definitions[q] = Definition(q, "method" if kind == "function" else kind, mod, path, f.line, f.decorators,
                                owner, mkind)
    if kind == "function":
        methods[owner].add(f.name)


def _star_bindings(sums: Mapping[str, FileSummary], local: dict[tuple[str, str], set[str]]) -> list[Binding]:
    """Names ``from m import *`` binds: ``m.__all__`` when literal, else ``m``'s public module-level
    names (those it star-imports itself included, a few rounds deep), in a stable order."""
    out: list[Binding] = []
    for _ in range(_STAR_ROUNDS):
        added = False
        for mod, s in sums.items():
            for imp in s.imports:
                if imp.name != "*":
                    continue
                src = absolute_module(s, imp.module, imp.level)
                other = sums.get(src)
                if other is None:
                    continue
                names = other.all_exports or tuple(sorted(  # sorted: item order decides capped keys
                    n for n in local[(src, MODULE_SCOPE)] if not n.startswith("_")))
                have = local[(mod, imp.scope)]
                for n in names:
                    if n not in have:
                        have.add(n)
                        added = True
                        out.append(Binding(mod, imp.scope, n, f"{src}.{n}", src, n, imp.line, star=True))
        if not added:
            break
    return out


def _classes(table: SymbolTable, sums: Mapping[str, FileSummary], methods: Mapping[str, set[str]],
             attrs: Mapping[str, dict[str, str]]) -> dict[str, ClassSymbols]:
    """Every class with its bases resolved statically."""
    out: dict[str, ClassSymbols] = {}
    for mod, s in sums.items():
        for c in s.classes:
            cq = f"{mod}.{c.qualname}"
            scope = c.qualname.rsplit(".", 1)[0] if "." in c.qualname else MODULE_SCOPE
            bases = []
            for text in c.bases:
                got = table.resolve_in(mod, scope, text)
                if got is not None and got != cq and not got.startswith("<builtin>.") and got not in bases:
                    bases.append(got)
            out[cq] = ClassSymbols(cq, mod, scope, tuple(bases), frozenset(methods.get(cq, ())),
                                   _ro(dict(attrs.get(cq, {}))))
    return out


def _attr_types(table: SymbolTable, sums: Mapping[str, FileSummary]) -> dict[str, dict[str, str]]:
    """``self.x = Foo()`` / ``self.x: Foo`` / a class field ``x: Foo``: the type ``x`` holds, per class
    (the first assignment in file order wins; a repo function's result has no type here)."""
    attrs: dict[str, dict[str, str]] = defaultdict(dict)
    for mod, s in sums.items():
        for c in s.classes:
            cq = f"{mod}.{c.qualname}"
            for p in c.fields:
                t = table.resolve_in(mod, c.qualname, p.annotation) if p.annotation else None
                if t is not None and not t.startswith("<builtin>."):
                    attrs[cq].setdefault(p.name, t)
        for a in s.assignments:
            if a.augmented or not a.target.startswith("self.") or a.target.count(".") != 1:
                continue
            cq = table.class_of_scope(mod, a.scope)
            if cq is None:
                continue
            text = a.annotation or (a.value if a.value_kind == "call" and isinstance(a.value, str) else None)
            t = table.resolve_in(mod, a.scope, text) if text else None
            if t is not None and not t.startswith("<builtin>.") and (t in table.classes or not table.is_repo_name(t)):
                attrs[cq].setdefault(a.target[5:], t)
    return attrs

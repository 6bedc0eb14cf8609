"""Keys of a public Python API: the keyword arguments a user passes to the classes and functions a
library exports.

A library without a launcher (``LocalBackend(in_process=True)``, ``initialize_cluster(gpu="H100")``,
``Backend(base_url=...)``) takes its layout settings as keyword arguments, not as a config file or a
flag. Its API is what its packages export (``from .backend import LocalBackend`` in an
``__init__.py``, or its ``__all__``) and what the code written for its users (examples, scripts,
recipes) calls, or what the top-level package lists in its ``__all__``: a user constructs the class, or
calls the function, and types the parameter names.
Exported names no user-facing code calls are internals a package happens to re-export (a monkey
patch, a version check) and are left out. Only parameters a user may leave out (a default, or
keyword-only) count; config classes are read as config trees elsewhere, private names and code outside
the product (tests, docs, vendored copies) are skipped. The classifier decides later which of the
names are about the layout; most are not and are dropped.
"""

from __future__ import annotations

from ...graphs.symbols import SymbolTable
from ...index import Index
from ...index.summary import MODULE_SCOPE, FileSummary, FunctionDef
from ..scope import file_scope
from . import RawKey, value_text
from .config_tree import config_class

SOURCE = "keyword argument"
_VALUE_BASES = {"NamedTuple", "Enum", "IntEnum", "StrEnum"}
_PERIPHERAL = {"examples", "example", "scripts", "script", "recipes", "recipe", "benchmarks", "bench", "tools",
               "tutorials", "tutorial", "cookbook", "cookbooks", "demos", "demo", "notebooks"}
_SETUP = {"register", "initialize", "init", "setup", "configure", "connect", "launch", "start", "serve", "deploy"}
_MAX_EXPORTS = 400  # a package re-exporting more than this is a namespace of everything, not a curated API


def _outside(path: str) -> bool:
    """Tests, docs, vendored copies, examples and helper scripts are not the API a user imports."""
    parts = path.split("/")
    return bool(file_scope(path)) or any(p.lower() in _PERIPHERAL for p in parts[:-1]) or any(
        p.startswith("_") and p != "__init__.py" for p in parts[:-1])


def _exports(s: FileSummary, symbols: SymbolTable) -> list[str]:
    """Repo qualnames of the public names a package ``__init__`` binds (its ``__all__`` when literal)."""
    names = [i.asname or i.name for i in s.imports if i.scope == MODULE_SCOPE and i.name and i.name != "*"]
    names += [f.name for f in s.functions if not f.class_name and "." not in f.qualname]
    names += [c.name for c in s.classes if "." not in c.qualname]
    if s.all_exports is not None:
        allowed = set(s.all_exports)
        names = [n for n in names if n in allowed]
    out: list[str] = []
    for n in dict.fromkeys(names):
        if n.startswith("_"):
            continue
        qual = symbols.resolve_in(s.module, MODULE_SCOPE, n)
        if qual and (qual in symbols.classes or qual in symbols.functions):
            out.append(qual)
    return out


def _is_config(qual: str, symbols: SymbolTable) -> bool:
    """A config class (its fields are read as a config tree) or a value record (a named tuple, an enum)."""
    for c in symbols.mro(qual):
        d = symbols.definitions.get(c)
        if config_class(d.decorators if d is not None else (), (c,)) or c.rsplit(".", 1)[-1] in _VALUE_BASES:
            return True
    return False


def _callables(qual: str, symbols: SymbolTable) -> list[tuple[str, FunctionDef]]:
    """A function itself; for a class, its constructor (its own or inherited) and its public methods."""
    if qual in symbols.functions:
        return [(qual, symbols.functions[qual])]
    if _is_config(qual, symbols):
        return []
    out: list[tuple[str, FunctionDef]] = []
    init = symbols.method_of(qual, "__init__")
    if init and init in symbols.functions:
        out.append((init, symbols.functions[init]))
    info = symbols.classes.get(qual)
    for name in sorted(info.methods if info else ()):
        m = f"{qual}.{name}"
        d = symbols.definitions.get(m)
        if name.startswith("_") or m not in symbols.functions or d is None:
            continue
        # a factory (``initialize_cluster``) or a set-up call takes settings; other methods take per-call arguments
        if d.method_kind in ("class", "static") or name.split("_", 1)[0] in _SETUP:
            out.append((m, symbols.functions[m]))
    return out


def _user_facing(path: str) -> bool:
    """Code written for a library's users: examples, scripts, recipes beside the package."""
    parts = path.split("/")
    return not file_scope(path) and any(p.lower() in _PERIPHERAL for p in parts[:-1])


def _used(index: Index, symbols: SymbolTable, exported: set[str]) -> list[str]:
    """Exported callables the user-facing code calls (``LocalBackend()``, ``Cls.factory(...)``), in file order."""
    out: list[str] = []
    for path, s in index.summaries.items():
        if not _user_facing(path):
            continue
        for call in s.calls:
            qual = symbols.resolve_in(s.module, call.scope, call.func)
            if qual is None:
                continue
            owner = qual.rsplit(".", 1)[0]
            if qual in exported or (owner in exported and owner in symbols.classes):
                out.append(qual)
    return list(dict.fromkeys(out))


def _api_callables(qual: str, symbols: SymbolTable, exported: set[str]) -> list[tuple[str, FunctionDef]]:
    """What a user reaches from one used name: a function or method itself; for a class, the constructors and
    public methods of it and of its exported repo bases (``super().__init__(base_url=...)``)."""
    if qual not in symbols.classes:
        return [(qual, symbols.functions[qual])] if qual in symbols.functions else []
    out: list[tuple[str, FunctionDef]] = []
    for c in symbols.mro(qual):
        if c not in symbols.classes or (c != qual and c not in exported):
            continue
        out.extend(_callables(c, symbols))
    return out


def api_param_keys(index: Index, symbols: SymbolTable | None) -> list[RawKey]:
    """One key per optional parameter of each exported callable a user-facing file calls (classified later)."""
    if symbols is None:
        return []
    exported: set[str] = set()
    declared: list[str] = []  # a top-level package's literal ``__all__``: the API its authors chose to publish
    for s in index.summaries.values():
        if not s.is_package or _outside(s.path) or any(p.startswith("_") for p in s.module.split(".")):
            continue
        got = _exports(s, symbols)
        if len(got) <= _MAX_EXPORTS:
            exported.update(got)
            if s.all_exports is not None and "." not in s.module:
                declared.extend(got)
    if not exported:
        return []
    out: list[RawKey] = []
    seen: set[str] = set()
    for qual in dict.fromkeys([*_used(index, symbols, exported), *declared]):
        for fq, f in _api_callables(qual, symbols, exported):
            d = symbols.definitions.get(fq)
            if fq in seen or d is None or _outside(d.file):
                continue
            seen.add(fq)
            owner = d.owner.rsplit(".", 1)[-1] if d.owner else ""
            where = f"{owner}.{f.name}" if owner and f.name != "__init__" else owner or f.name
            for p in f.params:
                if p.name in ("self", "cls") or p.name.startswith("_") or p.kind in ("vararg", "kwarg"):
                    continue
                if p.default is None and p.kind != "kwonly":
                    continue  # a required argument is what the call is about, not a setting
                if p.annotation and symbols.resolve_in(d.module, MODULE_SCOPE, p.annotation) in symbols.classes:
                    continue  # an object the caller hands in (a manager, a client), not a setting
                line = p.default.line if p.default is not None and p.default.line else f.line
                value = p.default.value if p.default is not None and p.default.kind == "lit" else None
                out.append(RawKey(p.name, value_text(value), d.file, line, f"{SOURCE} ({where})", where,
                                  p.annotation))
    return out

"""Config keys written in Python: dict literals and dotlists merged into an OmegaConf config.

A launcher script often sets a framework's config in Python rather than YAML: a nested dict of
overrides (``{"trainer": {"nnodes": 1}, "actor_rollout_ref": {"rollout": {"name": "vllm"}}}``)
handed to ``OmegaConf.create``/``OmegaConf.merge``, directly, through a local name, or as what a
function of the repo returns; or ``key=value`` strings given to ``OmegaConf.from_dotlist`` or
Hydra's ``compose(overrides=[...])``. Each leaf of such a dict is a key under its dotted path, set
on the line that writes it, like a YAML file a launcher loads.

The summaries keep no dict structure, so the few files that hold such a dict are read again
(through ``safeio``, size-bounded) and parsed with :mod:`ast` — parsed, never run.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ...graphs.symbols import SymbolTable
from ...index import Index
from ...index.summary import MODULE_SCOPE, Arg, CallSite, FileSummary
from ..names import Namer
from . import RawKey, value_text

SOURCE = "python dict"
_MERGERS = {"omegaconf.OmegaConf.create", "omegaconf.OmegaConf.merge", "omegaconf.OmegaConf.unsafe_merge"}
_DOTLISTS = {"omegaconf.OmegaConf.from_dotlist", "hydra.compose", "hydra.experimental.compose"}
_ATTRS = {"create", "merge", "unsafe_merge", "from_dotlist", "compose"}
_MAX_KEYS = 4000  # per dict
_MAX_DEPTH = 12

Reader = Callable[[str], str | None]  # repo-relative path -> text (bounded, regular files only) or None


def _seg(k: ast.expr) -> str | None:
    if isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.replace("-", "_").isidentifier():
        return k.value
    return None


def _walk(node: ast.Dict, path: tuple[str, ...], file: str, out: list[RawKey], budget: list[int]) -> None:
    for k, v in zip(node.keys, node.values, strict=False):
        seg = _seg(k) if k is not None else None
        if seg is None or budget[0] <= 0:
            continue
        here = (*path, seg)
        if isinstance(v, ast.Dict) and v.keys and len(here) < _MAX_DEPTH:
            _walk(v, here, file, out, budget)
            continue
        budget[0] -= 1
        value = v.value if isinstance(v, ast.Constant) else None
        out.append(RawKey(".".join(here), value_text(value), file, k.lineno, SOURCE))


def _returned_dicts(tree: ast.Module, name: str, line: int) -> list[ast.Dict]:
    """The dict literals a function returns (``return {...}``, or ``d = {...}; ...; return d``)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name \
                and abs(node.lineno - line) <= 1 + len(node.decorator_list) * 3:
            dicts: list[ast.Dict] = []
            assigned: dict[str, ast.Dict] = {}
            for sub in ast.walk(node):
                if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Dict):
                    for t in sub.targets:
                        if isinstance(t, ast.Name):
                            assigned[t.id] = sub.value
                elif isinstance(sub, ast.Return) and sub.value is not None:
                    if isinstance(sub.value, ast.Dict):
                        dicts.append(sub.value)
                    elif isinstance(sub.value, ast.Name) and sub.value.id in assigned:
                        dicts.append(assigned[sub.value.id])
            return dicts
    return []


def _dicts_at(tree: ast.Module, line: int, name: str | None) -> list[ast.Dict]:
    """Dict literals on a line: assigned to ``name`` there, or an argument of a merge call there."""
    out: list[ast.Dict] = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) != line:
            continue
        if name is not None and isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) \
                and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            out.append(node.value)
        elif name is None and isinstance(node, ast.Call):
            out.extend(a for a in node.args if isinstance(a, ast.Dict))
    return out


class _Files:
    """Parsed files, read once each."""

    def __init__(self, read: Reader) -> None:
        self.read = read
        self.trees: dict[str, ast.Module | None] = {}

    def tree(self, path: str) -> ast.Module | None:
        if path not in self.trees:
            text = self.read(path)
            try:
                self.trees[path] = ast.parse(text) if text is not None else None
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self.trees[path] = None
        return self.trees[path]


def _dotlist(arg: Arg | None, path: str, line: int) -> list[RawKey]:
    """``["trainer.nnodes=2", "+x.y=1"]``: Hydra / OmegaConf dotlist overrides."""
    if arg is None or arg.kind != "lit" or not isinstance(arg.value, tuple):
        return []
    out = []
    for item in arg.value:
        if isinstance(item, str) and "=" in item:
            key, _, value = item.partition("=")
            key = key.lstrip("+~")
            if key and all(p.replace("-", "_").isidentifier() for p in key.split(".")):
                out.append(RawKey(key, value or None, path, line, SOURCE))
    return out


def python_dict_keys(index: Index, namers: dict[str, Namer], symbols: SymbolTable | None, read: Reader) -> list[RawKey]:
    """Keys of dict literals and dotlists merged into an OmegaConf config anywhere in the repo."""
    if symbols is None:
        return []
    files = _Files(read)
    out: list[RawKey] = []
    seen: set[tuple[str, int]] = set()
    for path, s in index.summaries.items():
        for call in s.calls:
            if call.attr not in _ATTRS:
                continue
            canon = set(namers[path].names(call))
            if canon & _DOTLISTS:
                out.extend(_dotlist(call.args[0] if call.args and call.attr == "from_dotlist"
                                    else call.kwarg("overrides"), path, call.line))
            elif canon & _MERGERS:
                for a in call.args:
                    for file, d in _sources(index, s, call, a, symbols, files):
                        if (file, d.lineno) not in seen:
                            seen.add((file, d.lineno))
                            _walk(d, (), file, out, [_MAX_KEYS])
    return out


def _sources(index: Index, s: FileSummary, call: CallSite, a: Arg, symbols: SymbolTable,
             files: _Files) -> list[tuple[str, ast.Dict]]:
    """The dict literals an argument of a merge call stands for: written in place, held by a local name assigned a
    literal or a repo function's result, or returned by a repo function called in place."""
    if a.kind == "other":
        tree = files.tree(s.path)
        return [(s.path, d) for d in _dicts_at(tree, call.line, None)] if tree is not None else []
    if a.kind == "call":
        return _returned(index, s, call.scope, str(a.value), symbols, files)
    if a.kind != "name" or not isinstance(a.value, str) or "." in a.value:
        return []
    last = None
    for x in s.assignments:  # the latest assignment of the name before the call, in the call's scope
        if x.scope == call.scope and x.target == a.value and x.line <= call.line and (last is None or x.line > last.line):
            last = x
    if last is None:
        return []
    if last.value_kind == "call" and isinstance(last.value, str):
        return _returned(index, s, call.scope, last.value, symbols, files)
    tree = files.tree(s.path)
    return [(s.path, d) for d in _dicts_at(tree, last.line, a.value)] if tree is not None else []


def _returned(index: Index, s: FileSummary, scope: str, func: str, symbols: SymbolTable,
              files: _Files) -> list[tuple[str, ast.Dict]]:
    qual = symbols.resolve_in(s.module, scope, func.removesuffix("()")) \
        or symbols.resolve_in(s.module, MODULE_SCOPE, func.removesuffix("()"))
    d = symbols.definitions.get(qual) if qual else None
    if d is None or d.kind != "function" or d.file not in index.summaries:
        return []
    tree = files.tree(d.file)
    name = qual.rsplit(".", 1)[-1]
    return [(d.file, x) for x in _returned_dicts(tree, name, d.line)] if tree is not None else []

"""Config sections splatted into constructors: a YAML key is really a callee's parameter.

Runs often load a YAML/JSON file and pass one section with ``**`` into a repo callable
(``Pool(**cfg["pool"]["args"])``, ``Learner(x, **learner_cfg.get("args", {}))``). The key's
name then says little; what the callee does with the same-named parameter (starts processes
with it, puts weights on a device with it) decides its class. Source is parsed, never run;
reads are bounded (file size, one local alias hop, one helper-parameter hop).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..index import Index, read_python
from .evidence import EvidenceResult
from .uses import _SIGNAL_CLASS, _WORDS

_MAX_BYTES = 1_000_000
_DEVICE_KWARGS = {"device", "device_map", "map_location"}


@dataclass(frozen=True, slots=True)
class SplatHit:
    """A section path (``("pool", "args")``) splatted into ``callee`` whose ``param`` is used by ``reason``."""

    cls: str
    reason: str


def _chain(node: ast.expr) -> tuple[str, tuple[str, ...]] | None:
    """``cfg["a"].get("b", {})`` → (``cfg``, (``a``, ``b``))."""
    path: list[str] = []
    while True:
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            path.append(node.slice.value)
            node = node.value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            path.append(node.args[0].value)
            node = node.func.value
        elif isinstance(node, ast.Name):
            return node.id, tuple(reversed(path))
        else:
            return None


def _callee(node: ast.Call) -> str | None:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


@dataclass(slots=True)
class _Fn:
    path: str
    scope: str
    node: ast.FunctionDef | ast.AsyncFunctionDef
    params: tuple[str, ...]


def _functions(tree: ast.Module, path: str) -> list[_Fn]:
    out: list[_Fn] = []

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for st in body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = st.args
                names = tuple(x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs))
                out.append(_Fn(path, prefix + st.name, st, names))
            elif isinstance(st, ast.ClassDef):
                walk(st.body, prefix + st.name + ".")
    walk(tree.body, "")
    return out


def _param_use(fn: _Fn, param: str, spawn_lines: dict[int, str]) -> SplatHit | None:
    """How ``fn`` uses ``param``: read by a call that starts processes/servers, or a device placement."""
    loops = [n for n in ast.walk(fn.node) if isinstance(n, (ast.For, ast.ListComp, ast.GeneratorExp, ast.SetComp))]
    for node in ast.walk(fn.node):
        if not (isinstance(node, ast.Name) and node.id == param and isinstance(node.ctx, ast.Load)):
            continue
        signal = spawn_lines.get(node.lineno)
        if signal is None:  # ``for _ in range(n)`` around the spawn call
            for lp in loops:
                it = lp.iter if isinstance(lp, ast.For) else lp.generators[0].iter
                if any(isinstance(x, ast.Name) and x.id == param for x in ast.walk(it)):
                    signal = next((s for ln, s in spawn_lines.items() if lp.lineno <= ln <= (lp.end_lineno or 0)), None)
                    if signal:
                        break
        if signal is not None and signal in _SIGNAL_CLASS:
            return SplatHit(_SIGNAL_CLASS[signal],
                            f"constructor parameter {fn.scope}({param}): read where {_WORDS.get(signal, signal)} "
                            f"({fn.path}:{node.lineno})")
    for node in ast.walk(fn.node):
        if not isinstance(node, ast.Call):
            continue
        uses = [k.value for k in node.keywords if k.arg in _DEVICE_KWARGS]
        if isinstance(node.func, ast.Attribute) and node.func.attr == "to":
            uses += node.args[:1]
        if any(isinstance(u, ast.Name) and u.id == param for u in uses):
            return SplatHit("process", f"constructor parameter {fn.scope}({param}): places tensors or weights on a "
                                       f"device ({fn.path}:{node.lineno})")
    return None


def splat_hits(index: Index, ev: EvidenceResult | None, keys: list[str]) -> dict[str, SplatHit]:
    """Dotted config key → the class its same-named callee parameter earns by use."""
    if ev is None or not keys:
        return {}
    fns: list[_Fn] = []
    for path in sorted(index.summaries):
        if index.out_of_scope(path) or not path.endswith(".py"):
            continue
        try:
            tree = ast.parse(read_python(index.root / path, _MAX_BYTES, index.root))
        except (OSError, SyntaxError, ValueError, Exception):  # noqa: BLE001 - hostile input: skip the file
            continue
        fns.extend(_functions(tree, path))
    by_name: dict[str, list[_Fn]] = {}
    for fn in fns:
        name = fn.scope.rsplit(".", 1)
        owner = name[0] if len(name) == 2 and name[1] == "__init__" else fn.scope.rsplit(".", 1)[-1]
        by_name.setdefault(owner.rsplit(".", 1)[-1], []).append(fn)
    # helper name → the section paths of its callers' positional arguments, for one helper-parameter hop
    sections: list[tuple[tuple[str, ...], str, str]] = []  # (section, root var, callee)
    calls_to: dict[str, list[tuple[tuple[str, ...], ...]]] = {}
    aliases: list[dict[str, tuple[str, tuple[str, ...]]]] = []
    for fn in fns:
        alias: dict[str, tuple[str, tuple[str, ...]]] = {}
        for node in ast.walk(fn.node):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                got = _chain(node.value)
                if got is not None and got[1]:
                    alias[node.targets[0].id] = got
        aliases.append(alias)
        for node in ast.walk(fn.node):
            callee = _callee(node) if isinstance(node, ast.Call) else None
            if callee is None:
                continue
            resolved = []
            for a in node.args:
                got = _chain(a)
                if got is not None and got[0] in alias:
                    got = (alias[got[0]][0], alias[got[0]][1] + got[1])
                resolved.append(got[1] if got else ())
            calls_to.setdefault(callee, []).append(tuple(resolved))
    for fn, alias in zip(fns, aliases, strict=True):
        for node in ast.walk(fn.node):
            callee = _callee(node) if isinstance(node, ast.Call) else None
            if callee is None:
                continue
            for kw in node.keywords:
                got = _chain(kw.value) if kw.arg is None else None
                if got is None:
                    continue
                root, sec = got
                for _ in range(2):
                    if root in alias:
                        root, sec = alias[root][0], alias[root][1] + sec
                sections.append((sec, root, callee))
                if root in fn.params:  # one hop: the callers of this helper say which section it gets
                    pos = fn.params.index(root) - (1 if fn.params[:1] in (("self",), ("cls",)) else 0)
                    for args in calls_to.get(fn.node.name, ()):
                        if 0 <= pos < len(args) and args[pos]:
                            sections.append((args[pos] + sec, root, callee))
    spawn_lines: dict[tuple[str, str], dict[int, str]] = {}
    for (path, scope), calls in ev.spawns.items():
        spawn_lines[(path, scope)] = {line: signal for signal, line, _t in calls}
    out: dict[str, SplatHit] = {}
    for key in keys:
        parent, _, leaf = key.rpartition(".")
        if not parent:
            continue
        for sec, _root, callee in sections:
            if not sec or not (parent == ".".join(sec) or parent.endswith("." + ".".join(sec))):
                continue
            for fn in by_name.get(callee, ()):
                if leaf not in fn.params:
                    continue
                hit = _param_use(fn, leaf, spawn_lines.get((fn.path, fn.scope), {}))
                if hit is not None:
                    out.setdefault(key, hit)
    return out

"""A table of callables handed to a generic executor runs as part of the caller's body.

A pipeline or step executor takes a mapping of handlers as a parameter and calls through it
(``handlers[type(cmd)](...)``); each caller hands the table of one class
(``execute(handlers=Decoder.TABLE)``, ``execute(handlers=steps.TABLE)`` with ``steps`` typed).
Value flow is not caller-specific, so the executor's dispatch site holds the union of every
caller's handlers: decoding steps next to optimizer steps. Passed through the executor, that
union tells a caller nothing (or the wrong side). This pass gives each caller an edge to the
handlers its own table holds: the executor's dispatch targets that are methods of the class
the handed attribute belongs to (or of its repo bases), and the overrides of the abstract ones.
"""

from __future__ import annotations

import re

from ..graphs.model import EXACT
from .facts import Facts, FnFacts, _canon_text

_TABLE_CALL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\[\]$")  # ``handlers[key](...)``: a call on a subscript of a name


def _params(fn: FnFacts) -> list[str]:
    names = [p.name for p in fn.definition.params if p.kind in ("pos", "kwonly")]
    return names[1:] if fn.cls and names and names[0] in ("self", "cls") else names


def _dispatch_sites(fn: FnFacts) -> dict[str, tuple[str, ...]]:
    """Parameter name -> the targets of this body's calls through a subscript of that parameter."""
    params = set(_params(fn))
    out: dict[str, set[str]] = {}
    for c in fn.calls:
        m = _TABLE_CALL.match(c.site.func)
        if m and m.group(1) in params and c.targets:
            out.setdefault(m.group(1), set()).update(c.targets)
    return {k: tuple(sorted(v)) for k, v in out.items()}


def _handed(c, callee: FnFacts, param: str) -> str | None:
    """The dotted text the call site binds to ``param`` of ``callee`` (keyword or position)."""
    arg = c.site.kwarg(param)
    if arg is None:
        params = _params(callee)
        i = params.index(param)
        if i < len(c.site.args):
            arg = c.site.args[i]
    if arg is None or arg.kind != "name" or not isinstance(arg.value, str) or "." not in arg.value:
        return None
    return arg.value


def handed_tables(facts: Facts) -> None:
    """Add, to each caller handing a class's handler table to an executor, edges to those handlers."""
    executors = {q: d for q, fn in facts.functions.items() if (d := _dispatch_sites(fn))}
    if not executors:
        return
    for fn in facts.functions.values():
        for c in fn.calls:
            if c.kind != EXACT or len(c.targets) != 1 or c.targets[0] not in executors:
                continue
            callee = facts.functions[c.targets[0]]
            for param, targets in executors[c.targets[0]].items():
                text = _handed(c, callee, param)
                owner = _canon_text(text.rsplit(".", 1)[0], fn.module, fn, facts) if text else None
                if owner is None or owner not in facts.classes:
                    continue
                classes = set(facts.mro(owner))
                mine = [t for t in targets if t.rsplit(".", 1)[0] in classes]
                for t in mine:
                    fn.extra.append(facts.overridden.get(t, ((t,), EXACT)))

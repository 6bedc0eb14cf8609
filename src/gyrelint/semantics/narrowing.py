"""Type narrowing across one call: an ``isinstance`` test in the caller types the callee's parameter.

``if isinstance(self.scorer, BatchScorer): score_all(rows, self.scorer)`` hands ``score_all`` an
object the caller has just checked to be a ``BatchScorer``, whatever ``score_all``'s annotation
says (a sibling base, or none). The graphs stage types the parameter by its annotation only, so
``scorer(...)`` in ``score_all`` reached the annotated family and never the checked one: a
batched grader's ``__call__`` had no caller and stayed neutral. This pass adds the checked
class's method (and, for an abstract one, its overrides, as ``facts.extra_edges`` does for any
abstract call) to the callee's calls on that parameter.

Flow-insensitive like the rest of the call facts: the test and the call must sit within a few
lines of each other in one body, and the argument must be the very text the test checks.
"""

from __future__ import annotations

from ..graphs.model import EXACT
from .facts import Facts, FnFacts, canon_in

NEAR = 3  # lines between ``if isinstance(x, C):`` and the call in its block that hands ``x`` on


def isinstance_narrowing(facts: Facts) -> None:
    """Add the narrowed class's methods to the callee's calls on the parameter the checked value binds."""
    for fn in facts.functions.values():
        checks = _checks(fn, facts)
        if not checks:
            continue
        for c in fn.calls:
            if c.kind != EXACT or len(c.targets) != 1:
                continue
            callee = facts.functions.get(c.targets[0])
            if callee is None or callee is fn:
                continue
            bound = list(enumerate((a.kind, a.value) for a in c.site.args)) + \
                [(k, (a.kind, a.value)) for k, a in c.site.kwargs]
            for pos, (kind, text) in bound:
                if kind != "name" or not isinstance(text, str):
                    continue
                classes = [cls for line, cls in checks.get(text, ()) if 0 <= c.site.line - line <= NEAR]
                param = _param(callee, pos)
                if classes and param is not None:
                    _type_param(callee, param, classes, facts)


def _checks(fn: FnFacts, facts: Facts) -> dict[str, list[tuple[int, str]]]:
    """Checked text -> (line, repo class) of each ``isinstance(text, Cls)`` in the body."""
    out: dict[str, list[tuple[int, str]]] = {}
    for c in fn.calls:
        if c.site.func != "isinstance" or len(c.site.args) != 2:
            continue
        obj, cls = c.site.args
        if obj.kind != "name" or cls.kind != "name" or not isinstance(obj.value, str) \
                or not isinstance(cls.value, str):
            continue
        canon = canon_in(fn, cls.value, facts)
        if canon in facts.classes:
            out.setdefault(obj.value, []).append((c.site.line, canon))
    return out


def _param(callee: FnFacts, pos: int | str) -> str | None:
    """The callee's parameter an argument binds: a keyword's name, or the positional slot
    (``self``/``cls`` are bound by the receiver, not by an argument)."""
    names = callee.params
    if isinstance(pos, str):
        return pos if pos in names else None
    kinds = [p.kind for p in callee.definition.params if p.name not in ("self", "cls")]
    return names[pos] if pos < len(names) and kinds[pos] == "pos" else None


def _type_param(callee: FnFacts, param: str, classes: list[str], facts: Facts) -> None:
    """Every call on ``param`` in the callee (``param(...)``, ``param.m(...)``) also reaches the
    narrowed classes' method of that name (an abstract one: its overrides too)."""
    for cc in callee.calls:
        func = cc.site.func
        if func == param:
            method = "__call__"
        elif func.startswith(param + ".") and func.count(".") == 1:
            method = func.partition(".")[2]
        else:
            continue
        for cls in classes:
            target = _method_of(cls, method, facts)
            if target is None or target in cc.targets:
                continue
            callee.extra.append(((target,), EXACT))
            more = facts.overridden.get(target)
            if more is not None:
                callee.extra.append(more)


def _method_of(cls: str, name: str, facts: Facts) -> str | None:
    """The method ``name`` a repo class defines or inherits from a repo base."""
    for k in facts.mro(cls):
        cf = facts.classes.get(k)
        if cf is not None and name in cf.methods and f"{k}.{name}" in facts.functions:
            return f"{k}.{name}"
    return None

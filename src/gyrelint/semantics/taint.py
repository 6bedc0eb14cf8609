"""Def-use inside one function body, over the value-flow facts the index records per file.

Two questions follow a value through a body the same way: which names hold the policy's
parameters (``payload``) and which hold what a generation call returned (``drivers``). Both
walk the same expression trees, bind the same assignment targets and iterate to the same
flow-insensitive fixed point; only what *makes* a value of interest differs, which is what a
subclass of :class:`BodyTaint` says.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..index.summary import Flow
from .facts import Facts

ROUNDS = 4  # flow-insensitive: a value assigned below its use in a loop still reaches it
_MAX_DEPTH = 30


def dotted_text(e: object) -> str:
    """Dotted text of a name/attribute tree (``self.net``), '' for anything else."""
    if not isinstance(e, tuple) or not e:
        return ""
    if e[0] == "n":
        return str(e[1])
    if e[0] == "a":
        base = dotted_text(e[1])
        return f"{base}.{e[2]}" if base else ""
    return ""


def _unstar(e: object) -> object:
    return e[1] if isinstance(e, tuple) and e[:1] == ("*",) else e


def call_values(e: tuple) -> Iterator[object]:
    """The argument trees of a call expression: positional ones unstarred, then keyword values."""
    for a in e[2]:
        yield _unstar(a)
    for _, v in e[3]:
        yield v


class FlowIndex:
    """The value-flow facts of function bodies, grouped by scope once per module when first asked."""

    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self._by_module: dict[str, dict[str, list[Flow]]] = {}

    def of(self, q: str) -> list[Flow]:
        fn = self.facts.functions[q]
        by_scope = self._by_module.get(fn.module)
        if by_scope is None:
            by_scope = {}
            s = self.facts.summaries.get(fn.module)
            for fl in s.flows if s is not None else ():
                by_scope.setdefault(fl.scope, []).append(fl)
            self._by_module[fn.module] = by_scope
        return by_scope.get(fn.definition.qualname, [])


class BodyTaint:
    """Which names of one body hold a value of interest; subclasses say which calls make one."""

    def __init__(self, flows: list[Flow], names: set[str] | None = None) -> None:
        self.flows = flows
        self.names: set[str] = set(names or ())

    def holds(self, e: object, depth: int = 0) -> bool:
        """The expression's value is (or is built from) a value of interest."""
        if not isinstance(e, tuple) or not e or depth > _MAX_DEPTH:
            return False
        op, d = e[0], depth + 1
        if op == "n":
            return e[1] in self.names
        if op == "a":
            return self.attr_holds(e, d)
        if op == "s":
            return self.holds(e[1], d)
        if op in ("l", "d"):
            for it in e[2]:
                if isinstance(it, tuple) and len(it) == 2 and not isinstance(it[0], str):
                    it = it[1]  # a dict item (key, value)
                if self.holds(_unstar(it), d):
                    return True
            return False
        if op == "u":
            return any(self.holds(a, d) for a in e[1])
        if op == "c":
            return self.call_holds(e, d)
        return False

    def attr_holds(self, e: tuple, depth: int) -> bool:
        t = dotted_text(e)
        return (bool(t) and t in self.names) or self.holds(e[1], depth)

    def call_holds(self, e: tuple, depth: int) -> bool:
        raise NotImplementedError

    def args_hold(self, e: tuple, depth: int) -> bool:
        """``gather(p)``, ``list(params)``, ``zip(names, tensors)``: an argument holds one."""
        return any(self.holds(a, depth) for a in call_values(e))

    def bind(self, target: object) -> bool:
        """Mark an assignment target (unpacked through lists and stars) as holding one; True if new."""
        if not isinstance(target, tuple) or not target:
            return False
        if target[0] == "l":
            grew = False
            for it in target[2]:
                grew |= self.bind(_unstar(it))
            return grew
        t = dotted_text(target)
        if t and t not in self.names:
            self.names.add(t)
            return True
        return False

    def grow(self) -> bool:
        """One more step beyond assignments (e.g. ``kept.append(x)``); True if a name was added."""
        return False

    def run(self) -> None:
        for _ in range(ROUNDS):
            grew = False
            for fl in self.flows:
                if fl.op in ("=", "for", "with") and self.holds(fl.value):
                    grew |= self.bind(fl.target)
            grew |= self.grow()
            if not grew:
                return

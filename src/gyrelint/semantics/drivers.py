"""Drivers by data flow: the loop that hands what the sampler produced to the trainer.

A one-process step loop calls a generation chain and a training chain, and ``sides`` sees both
callees. A loop over a service or a remote trainer does not: ``groups = await gather(rollouts)``
then ``await model.train(groups)``, where ``train`` is the client end of a trajectory handoff
(an HTTP post, a queue, an actor call) and the optimizer step runs behind it, several weak hops
away. What makes that loop the driver is what moves: the rollouts its own generation call
returned are the argument of the call that carries them to the trainer. This module follows
those values through one body (assignments, loops, unpacking, wrapping calls) over the
value-flow facts of the index; ``sides`` decides what the calls reach.
"""

from __future__ import annotations

from collections.abc import Callable

from ..index.summary import Flow
from .facts import CallFact, Facts, FnFacts

ROUNDS = 4  # flow-insensitive: a value assigned below its use in a loop still reaches it
# methods that store their argument in the receiver: ``kept.append(group)`` makes ``kept`` rollouts too
_GROW = frozenset({"append", "extend", "add", "insert", "appendleft", "update", "put", "put_nowait"})


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


def _text(e: object) -> str:
    """Dotted text of a name/attribute tree, '' for anything else."""
    if not isinstance(e, tuple) or not e:
        return ""
    if e[0] == "n":
        return str(e[1])
    if e[0] == "a":
        base = _text(e[1])
        return f"{base}.{e[2]}" if base else ""
    return ""


class _Rollouts:
    """Which names of one body hold what its generation calls returned."""

    def __init__(self, fn: FnFacts, flows: list[Flow], produces: Callable[[CallFact], bool]) -> None:
        self.names: set[str] = set()
        self.sources = {c.site.func for c in fn.calls if produces(c)}
        self.flows = flows
        self.grows = [c.site.expr for c in fn.calls if c.method in _GROW and isinstance(c.site.expr, tuple)
                      and c.site.expr[:1] == ("c",) and isinstance(c.site.expr[1], tuple)
                      and c.site.expr[1][:1] == ("a",)]

    def holds(self, e: object, depth: int = 0) -> bool:
        """The expression's value is (or is built from) rollouts of this body."""
        if not isinstance(e, tuple) or not e or depth > 30:
            return False
        op, d = e[0], depth + 1
        if op == "n":
            return e[1] in self.names
        if op in ("a", "s"):
            t = _text(e)
            return (bool(t) and t in self.names) or self.holds(e[1], d)
        if op in ("l", "d"):
            for it in e[2]:
                if isinstance(it, tuple) and len(it) == 2 and not isinstance(it[0], str):
                    it = it[1]  # a dict item (key, value)
                elif isinstance(it, tuple) and it[:1] == ("*",):
                    it = it[1]
                if self.holds(it, d):
                    return True
            return False
        if op == "u":
            return any(self.holds(a, d) for a in e[1])
        if op == "c":
            if _text(e[1]) in self.sources:
                return True
            if isinstance(e[1], tuple) and e[1][:1] == ("a",) and self.holds(e[1][1], d):
                return True  # ``groups.to(device)``, ``results.items()``
            args = [a[1] if isinstance(a, tuple) and a[:1] == ("*",) else a for a in e[2]]
            # ``list(groups)``, ``asyncio.gather(gather_groups(...), ...)``, ``filter(ok, groups)``
            return any(self.holds(a, d) for a in args) or any(self.holds(v, d) for _, v in e[3])
        return False

    def _bind(self, target: object) -> bool:
        if not isinstance(target, tuple) or not target:
            return False
        if target[0] == "l":
            grew = False
            for it in target[2]:
                grew |= self._bind(it[1] if isinstance(it, tuple) and it[:1] == ("*",) else it)
            return grew
        t = _text(target)
        if t and t not in self.names:
            self.names.add(t)
            return True
        return False

    def run(self) -> None:
        if not self.sources:
            return
        for _ in range(ROUNDS):
            grew = False
            for fl in self.flows:
                if fl.op in ("=", "for", "with") and self.holds(fl.value):
                    grew |= self._bind(fl.target)
            for e in self.grows:
                if any(self.holds(a) for a in e[2]):
                    grew |= self._bind(e[1][1])
            if not grew:
                return


def rollout_fed(fn: FnFacts, flows: list[Flow], produces: Callable[[CallFact], bool]) -> list[CallFact]:
    """The calls of ``fn`` that are handed what its generation calls (``produces``) returned.

    A generation call itself is not counted, nor a call whose rollouts arrive only through its
    receiver (``groups.append(x)`` stores into them; it hands nothing on).
    """
    body = _Rollouts(fn, flows, produces)
    body.run()
    if not body.sources:
        return []
    out: list[CallFact] = []
    for c in fn.calls:
        if c.site.func in body.sources or not isinstance(c.site.expr, tuple):
            continue
        e = c.site.expr
        if e[:1] != ("c",):
            continue
        args = [a[1] if isinstance(a, tuple) and a[:1] == ("*",) else a for a in e[2]]
        if any(body.holds(a) for a in args) or any(body.holds(v) for _, v in e[3]):
            out.append(c)
    return out

"""A call run in a child process, with a result queue, is one call: no handoff between the sides.

Reward graders and code sandboxes run the work in a child to bound its time: the parent makes a
local queue, starts ``Process(target=child, args=(..., q, ...))``, joins it and reads the one
result back; the child puts its result. The queue never outlives the call and both ends belong
to the same caller, so its put and get are that caller's plumbing (pattern E2), not the
trajectory handoff: this pass drops their queue evidence before the sides are assigned. A queue
the parent keeps reading in a loop, or one handed on to other code, is left alone.
"""

from __future__ import annotations

from .facts import Facts, FnFacts
from .handoff import QUEUE_SIGNALS
from .signals import Match

_QUEUE_TYPES = ("Queue", "SimpleQueue", "JoinableQueue")
_STARTERS = ("Process", "Thread")
_GETS = frozenset({"get", "get_nowait"})
_PUTS = frozenset({"put", "put_nowait"})


def _local_queues(fn: FnFacts) -> set[str]:
    return {a.target for a in fn.assigns
            if a.value_kind == "call" and "." not in a.target and isinstance(a.value, str)
            and a.value.rsplit(".", 1)[-1] in _QUEUE_TYPES}


def _tuple_names(e: object) -> list[str | None]:
    """Names of the items of a tuple/list expression tree (None for any other item)."""
    if not isinstance(e, tuple) or e[:1] != ("l",):
        return []
    return [str(it[1]) if isinstance(it, tuple) and it[:1] == ("n",) else None for it in e[2]]


def _params(fn: FnFacts) -> list[str]:
    names = [p.name for p in fn.definition.params if p.kind in ("pos", "kwonly")]
    return names[1:] if fn.cls and names and names[0] in ("self", "cls") else names


def child_result_queues(facts: Facts, matches: dict[str, list[Match]]) -> list[str]:
    """Drop the queue evidence of parent/child pairs that run one call in a child; returns the functions touched."""
    touched: set[str] = set()
    for q, fn in facts.functions.items():
        queues = _local_queues(fn)
        if not queues or not any(c.method == "join" for c in fn.calls):
            continue
        for c in fn.calls:
            if c.site.attr not in _STARTERS or c.site.kwarg("target") is None:
                continue
            expr = c.site.expr
            args = next((v for k, v in expr[3] if k == "args"), None) if isinstance(expr, tuple) and len(expr) > 3 \
                else None
            items = _tuple_names(args)
            held = [(i, n) for i, n in enumerate(items) if n in queues]
            if not held:
                continue
            children = [t for t in c.targets if t in facts.functions and t != q]
            got_lines = {g.site.line for g in fn.calls if g.method in _GETS and g.site.receiver in {n for _, n in held}}
            if not children or not got_lines or len(got_lines) > 1:
                continue  # no child of ours, or the parent keeps reading: a stream, not one result
            for child in children:
                cfn = facts.functions[child]
                names = _params(cfn)
                bound = {names[i] for i, _ in held if i < len(names)}
                put_lines = {p.site.line for p in cfn.calls if p.method in _PUTS and p.site.receiver in bound}
                if not put_lines:
                    continue
                _drop(matches, child, put_lines)
                _drop(matches, q, got_lines)
                touched |= {q, child}
    return sorted(touched)


def _drop(matches: dict[str, list[Match]], q: str, lines: set[int]) -> None:
    ms = matches.get(q)
    if ms:
        matches[q] = [m for m in ms if not (m.signal.id in QUEUE_SIGNALS and m.line in lines)]

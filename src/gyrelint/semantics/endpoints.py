"""Actor endpoints invoked through an adapter attribute: ``handle.method.<verb>(...)``.

Actor libraries expose a method of a remote actor as an attribute of its handle and run it
through a verb on that attribute: Ray's ``h.m.remote(x)`` (the graphs stage knows it),
and others' ``h.m.call(x)``, ``h.m.call_one(x)``, ``h.m.route(x)``, ``h.m.choose(x)``,
``h.m.broadcast(x)``. The handle comes out of an actor factory nobody can type, so the
resolver guesses the verb (``route``) among the library proxy's methods and the call never
reaches the actor's ``m``. The method is what runs: when the repo defines methods named ``m``
that carry the decorator their class marks its endpoints with (one decorator on two or more
of the class's methods, not a Python built-in one), the call is an edge to them. In one process
or many, what the loop calls decides its side (a split-process orchestrator that calls the
sampler's and the learner's endpoints drives both).
"""

from __future__ import annotations

from ..graphs.model import EXACT, WEAK
from .facts import Facts

# decorators that say how a method is defined, not that it is exposed to other processes
_PLAIN = frozenset({"property", "staticmethod", "classmethod", "abstractmethod", "cached_property", "override",
                    "wraps", "setter", "getter", "deleter", "overload", "final", "no_grad", "inference_mode",
                    "contextmanager", "asynccontextmanager", "lru_cache", "cache", "jit", "compile"})
MAX_EXACT = 4  # more same-named endpoints than this: a name guess
# the verbs actor libraries run an endpoint with (Ray's ``remote`` is the graphs stage's)
VERBS = frozenset({"call", "call_one", "choose", "route", "fanout", "broadcast", "stream", "cast", "acall",
                   "call_async", "invoke"})


def _mark(decorator: str) -> str | None:
    """The decorator's name as it marks endpoints (``endpoint``, ``ray.method``), or None for a plain one."""
    name = decorator.split("(", 1)[0]
    last = name.rsplit(".", 1)[-1]
    if not name or last in _PLAIN or name.startswith(("torch.", "functools.", "typing.", "abc.")):
        return None
    return name


def endpoint_methods(facts: Facts) -> dict[str, list[str]]:
    """method name -> repo methods carrying their class's endpoint decorator."""
    per_class: dict[tuple[str, str], list[str]] = {}
    for q, fn in facts.functions.items():
        if fn.cls is None or facts.out_of_scope(fn.module):
            continue
        for d in fn.definition.decorators:
            mark = _mark(d)
            if mark is not None:
                per_class.setdefault((fn.cls, mark), []).append(q)
    out: dict[str, list[str]] = {}
    for members in per_class.values():
        if len(members) < 2:
            continue
        for q in members:
            out.setdefault(facts.functions[q].definition.name, []).append(q)
    return {k: sorted(set(v)) for k, v in out.items()}


def endpoint_edges(facts: Facts) -> None:
    """Add an edge from ``h.m.verb(...)`` to the repo's endpoint methods named ``m`` (see the module doc).

    Only sites the graphs stage did not resolve exactly and whose verb is one actor libraries
    use (``VERBS``); ``self.m.verb`` (a method's own attribute) and calls whose verb is itself
    one of those endpoints are left alone.
    """
    methods = endpoint_methods(facts)
    if not methods:
        return
    for q, fn in facts.functions.items():
        for c in fn.calls:
            if c.ray or (c.targets and c.kind == EXACT):
                continue
            parts = c.site.func.split(".")
            if len(parts) < 3 or parts[0] in ("self", "cls") and len(parts) == 3 or "(" in c.site.func:
                continue
            cands = [t for t in methods.get(parts[-2], ()) if t != q]
            if not cands or parts[-1] not in VERBS or parts[-1] in methods:
                continue
            fn.extra.append((tuple(cands), EXACT if len(cands) <= MAX_EXACT else WEAK))

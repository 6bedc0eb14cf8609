"""Polymorphic dispatch from the rollout: the overrides a sampling body reaches through a base.

The rollout loop calls ``self.env.reset()`` on an attribute typed by the repo's base
environment, ``scorer(texts)`` on a parameter annotated with the base reward class, or
``entry["env"].step(a)`` on an object built from a ``{name: Cls}`` registry. The call resolves
to the base's method (or to the same-named methods of the registry's classes); the concrete
subclasses' bodies are what runs on every rollout, yet nothing hands them the caller's side:
the propagation only passes sides *up*, and the caller context only follows calls inside one
class or module. This pass does: each override (or registry class's method) with no side of its
own, that a sampling body reaches over a dispatched call and no training or driver body
reaches, is sampling, with ``override-dispatch`` evidence. Its own helpers in the same class
(the score helper of an environment's ``step``) follow in a few rounds, as in the caller context.

Applied after the rollout scoring, on the final sides: it passes nothing up, it never overrides
a side, and it leaves out bases with many overriding subclasses (a framework-wide root, where
the call says little about which subclass runs), reporters, service helpers and dunders other
than ``__call__``. The call graph's own edges are untouched.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..graphs.model import EXACT
from ..model import Evidence, Side
from .facts import Facts, FnFacts
from .sides import SideResult, calling_bodies, service_helper
from .signals import SAMPLING

DISPATCH_EVIDENCE = "override-dispatch"
MAX_OVERRIDES = 12  # more overriding subclasses than this: a root class, the call names no family
HELPER_ROUNDS = 3
_LATE_SIGNALS = frozenset({"env-step", "env-reset", "reward-scoring"})
# names that ask where or how the code runs (a device, a rank, the process environment a platform
# sets): that serves both sides alike
_LAYOUT_NAME = re.compile(r"(^|_)(device|devices|rank|world_size|dtype|env_?vars|environ)($|_)")
DISPATCH_HELPER_EDGE = 0.69  # an exact call with one target (``sides.DECAY_EXACT``)
_MIN_EDGE = 0.45  # an exact call over several same-named targets (``sides._decay``: 0.7 x 0.7), not a name guess


def override_dispatch(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult]) -> list[str]:
    """Label the overrides and registry methods sampling bodies dispatch to as sampling. Returns them."""
    children = children_of(facts)
    reached: dict[str, tuple[str, int]] = {}  # target -> (sampling caller, line)
    for q in sorted(results):
        r = results[q]
        fn = facts.functions.get(q)
        if r.side != Side.SAMPLING or fn is None or facts.out_of_scope(fn.module):
            continue
        for t, line in _dispatched(fn, facts, children):
            if t != q and t not in reached:
                reached[t] = (q, line)
    callers = calling_bodies(facts, edges)
    out: list[str] = []
    for t, (q, line) in sorted(reached.items()):
        if not _open(t, facts, results) or _other_side(t, edges, callers, results):
            continue
        _label(results[t], Evidence(DISPATCH_EVIDENCE, facts.functions[q].file, line, f"caller:{q}"))
        out.append(t)
    # the rollout scoring labelled the environments' own methods after the caller context ran:
    # their helpers follow here too
    late = [q for q, r in sorted(results.items()) if r.side == Side.SAMPLING and not r.solid and q not in out
            and any(e.signal in _LATE_SIGNALS for e in r.evidence)]
    out += _helpers(out + late, facts, edges, callers, results)
    return out


def children_of(facts: Facts) -> dict[str, list[str]]:
    """Repo class -> its direct repo subclasses (test modules' doubles left out)."""
    out: dict[str, list[str]] = {}
    for cq, cf in facts.classes.items():
        if facts.is_test(cf.module):
            continue
        for b in cf.bases:
            if b in facts.classes and b != cq:
                out.setdefault(b, []).append(cq)
    return out


def _overrides(cls: str, name: str, facts: Facts, children: dict[str, list[str]]) -> list[str]:
    """The methods ``name`` that the subclasses of ``cls`` define; empty when there are too many."""
    found = list(defining(cls, name, facts, children, include_self=False))
    return [] if len(found) > MAX_OVERRIDES else sorted(found)


def defining(cls: str, name: str, facts: Facts, children: dict[str, list[str]], *,
             include_self: bool) -> Iterator[str]:
    """The methods ``name`` that ``cls`` (when ``include_self``) and its repo subclasses define,
    depth first, at most 256 classes visited."""
    seen: set[str] = set()
    todo = [cls] if include_self else list(children.get(cls, ()))
    while todo and len(seen) < 256:
        k = todo.pop()
        if k in seen:
            continue
        seen.add(k)
        t = f"{k}.{name}"
        if k in facts.classes and name in facts.classes[k].methods and t in facts.functions:
            yield t
        todo.extend(children.get(k, ()))


def family_method(name: str) -> bool:
    """A method a call through a base class says something about: not a service helper, reporter
    or dunder (``__call__`` aside), and not a device, rank or process-environment getter."""
    return not ((name != "__call__" and service_helper(name)) or _LAYOUT_NAME.search(name.lower()))


def _dispatched(fn: FnFacts, facts: Facts, children: dict[str, list[str]]) -> list[tuple[str, int]]:
    """The repo methods one body reaches by dispatch: the overrides below each exact call into a
    repo class's method, and the same-named targets of a call over a registry's classes."""
    got: list[tuple[str, int]] = []
    for c in fn.calls:
        if c.kind != EXACT or not c.targets or c.ray:
            continue
        names = {t.rpartition(".")[2] for t in c.targets}
        if len(names) != 1:
            continue
        name = next(iter(names))
        if len(c.targets) > 1 and len(c.targets) <= MAX_OVERRIDES:
            got += [(t, c.site.line) for t in c.targets]
        for t in c.targets:
            tf = facts.functions.get(t)
            if tf is None or tf.cls is None or tf.definition.name != name:
                continue
            got += [(o, c.site.line) for o in _overrides(tf.cls, name, facts, children)]
    return got


def _open(t: str, facts: Facts, results: dict[str, SideResult]) -> bool:
    """``t`` may take the side: neutral, in scope, not a reporter, service helper or dunder, and
    whatever matched in its own body is sampling evidence too weak to decide alone."""
    r = results.get(t)
    fn = facts.functions.get(t)
    if r is None or fn is None or r.side != Side.NEUTRAL or facts.out_of_scope(fn.module):
        return False
    if not family_method(fn.definition.name):
        return False
    if any(k != SAMPLING and v > 0 for k, v in r.own.items()):
        return False
    return bool(fn.calls) or bool(fn.definition.returned)


def _other_side(t: str, edges: dict[str, dict[str, float]], callers: dict[str, set[str]],
                results: dict[str, SideResult]) -> bool:
    """A training or driver body calls ``t`` too, over more than a name guess."""
    for c in callers.get(t, ()):
        cr = results.get(c)
        if cr is not None and cr.side in (Side.TRAINING, Side.DRIVER, Side.HANDOFF) \
                and edges.get(c, {}).get(t, 0.0) >= _MIN_EDGE:
            return True
    return False


def _label(r: SideResult, ev: Evidence) -> None:
    r.side = Side.SAMPLING
    r.evidence = [*r.evidence, ev]


def _helpers(seeds: list[str], facts: Facts, edges: dict[str, dict[str, float]], callers: dict[str, set[str]],
             results: dict[str, SideResult]) -> list[str]:
    """Same-class helpers (exact calls) whose every caller is on the sampling side and one of them
    was labelled here: an environment's ``step`` that calls ``self.compute_reward(...)``."""
    out: list[str] = []
    frontier = list(seeds)
    for _ in range(HELPER_ROUNDS):
        nxt: list[str] = []
        for q in frontier:
            fn = facts.functions[q]
            for t, d in sorted(edges.get(q, {}).items()):
                tf = facts.functions.get(t)
                if d < DISPATCH_HELPER_EDGE or tf is None or t == q or tf.cls is None or tf.cls != fn.cls \
                        or t in out or not _open(t, facts, results) or results[t].has_own:
                    continue
                if all((cr := results.get(c)) is not None and cr.side == Side.SAMPLING
                       for c in callers.get(t, ())):
                    _label(results[t], Evidence(DISPATCH_EVIDENCE, fn.file, fn.line, f"caller:{q}"))
                    out.append(t)
                    nxt.append(t)
        if not nxt:
            break
        frontier = nxt
    return out


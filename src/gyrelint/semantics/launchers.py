"""Bodies that start both sides' actors (pattern R).

``self.generator = Generator.remote(...)`` and ``self.learner = Learner.remote(...)`` in one
``__init__``: each ``.remote`` starts a process running one class's methods, one class's methods
generate and the other's train. The constructor's own body holds no side's evidence (the call
only reaches the classes' ``__init__``), yet it starts the whole loop: it is the driver, as a
launcher that starts generation and training processes is (``sides._calls_both_chains``).
Applied on the final sides, like the caller context: it passes nothing up.
"""

from __future__ import annotations

from collections import defaultdict

from ..model import Evidence, Side
from .facts import Facts
from .sides import SideResult

LAUNCH_EVIDENCE = "actor-launch"
_SPAWN_METHODS = frozenset({"remote"})


def _class_sides(facts: Facts, results: dict[str, SideResult]) -> dict[str, set[Side]]:
    """Repo class -> the sides its own methods were labelled (neutral left out)."""
    out: dict[str, set[Side]] = defaultdict(set)
    for q, fn in facts.functions.items():
        r = results.get(q)
        if fn.cls is not None and r is not None and r.side != Side.NEUTRAL:
            out[fn.cls].add(r.side)
    return out


def _started_classes(fn, facts: Facts) -> list[tuple[str, int]]:
    """Repo classes whose actors the body starts (``Cls.remote(...)``, ``Cls.options(...).remote(...)``)."""
    out: list[tuple[str, int]] = []
    for c in fn.calls:
        if c.site.func.rsplit(".", 1)[-1] not in _SPAWN_METHODS:
            continue  # the call's method is the class's name after the resolver unwraps ``.remote``
        for t in c.targets:
            cls = t[:-len(".__init__")] if t.endswith(".__init__") else t
            if cls in facts.classes:
                out.append((cls, c.site.line))
                break
    return out


def actor_launchers(facts: Facts, results: dict[str, SideResult]) -> list[str]:
    """Label neutral bodies that start a sampling actor class and a training actor class as the driver.

    A class is a sampling actor when its own methods include sampling ones and no training or driver
    one, a training actor the other way round (weight-sync and trajectory methods say nothing).
    Returns the functions labelled."""
    roles = _class_sides(facts, results)
    out: list[str] = []
    for q in sorted(results):
        r = results[q]
        fn = facts.functions.get(q)
        if r.side != Side.NEUTRAL or fn is None or facts.out_of_scope(fn.module):
            continue
        found: dict[Side, int] = {}
        for cls, line in _started_classes(fn, facts):
            sides = roles.get(cls, set())
            if Side.SAMPLING in sides and not sides & {Side.TRAINING, Side.DRIVER}:
                found.setdefault(Side.SAMPLING, line)
            elif Side.TRAINING in sides and not sides & {Side.SAMPLING, Side.DRIVER}:
                found.setdefault(Side.TRAINING, line)
        if len(found) == 2:
            r.side, r.kind = Side.DRIVER, None
            r.evidence = [*r.evidence, Evidence(LAUNCH_EVIDENCE, fn.file, min(found.values()), "own")]
            out.append(q)
    return out

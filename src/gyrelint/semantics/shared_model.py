"""One model object kept on an instance serves both chains: the loop is online with nothing to push.

``same_object`` (``handoff.py``) finds a value a loop hands both to a sampler and to a trainer as an
argument. Trainer classes often keep the model on ``self`` instead: a loop calls
``trainer.make_experience(batch)`` then ``trainer.learn(exp)`` on one instance, the first generates
with ``self.policy.generate(...)`` (directly or through another method of the instance), the second
runs ``self.policy(...)``, ``self.policy.backward(loss)`` or ``self.policy.step()``. Both methods
read the same attribute of the same instance, so the sampler uses the weights the optimizer has just
written, in one process.
"""

from __future__ import annotations

from collections import deque

from ..model import Side
from .facts import Facts
from .sides import SideResult
from .taint import FlowIndex
from .wrapped_model import library_trained, unwrapped_views

# what running a module for training looks like on the attribute that holds it (``self.X(...)`` too)
_TRAIN_USE = frozenset({"forward", "backward", "step", "parameters", "named_parameters"})
_GENERATE = frozenset({"generate"})
_MAX_VISIT = 40
_DEPTH = 3


def _side(sides: dict[str, SideResult], q: str) -> Side | None:
    r = sides.get(q)
    return r.side if r is not None else None


def _instance_uses(facts: Facts, sides: dict[str, SideResult], start: str,
                   samplers: tuple[Side, ...] = (Side.SAMPLING,),
                   flows: FlowIndex | None = None) -> tuple[set[str], set[str]]:
    """(attributes sampled with, attributes trained) by ``start`` and the methods it calls on ``self``;
    ``samplers``: the sides whose ``self.X.generate(...)`` counts as sampling with ``X``."""
    sampled: set[str] = set()
    trained: set[str] = set()
    seen = {start}
    todo: deque[tuple[str, int]] = deque([(start, 0)])
    while todo and len(seen) <= _MAX_VISIT:
        q, depth = todo.popleft()
        fn = facts.functions.get(q)
        if fn is None or fn.cls is None:
            continue
        side = _side(sides, q)
        views = unwrapped_views(flows.of(q)) if flows is not None and side in samplers else {}
        for c in fn.calls:
            if c.ray:
                continue
            parts = c.site.func.split(".")
            if parts[0] in views and len(parts) == 2 and parts[1] in _GENERATE:
                sampled.add(views[parts[0]])  # ``m = unwrap_model(self.model); m.generate(...)``
            if parts[0] != "self":
                continue
            if len(parts) == 2 and depth < _DEPTH:  # ``self.collect(...)``: another method of the instance
                for t in c.targets[:3]:
                    if t not in seen:
                        seen.add(t)
                        todo.append((t, depth + 1))
                if not c.instance:
                    continue
            if len(parts) < 2:
                continue
            attr, rest = parts[1], parts[2:]
            if rest and (rest[-1] in _GENERATE and side in samplers
                         or any(_side(sides, t) == Side.SAMPLING for t in c.targets)):
                sampled.add(attr)
            if side == Side.TRAINING and (not rest and c.instance or rest and rest[-1] in _TRAIN_USE):
                trained.add(attr)
    return sampled, trained


def same_instance_model(facts: Facts, sides: dict[str, SideResult],
                        loops: dict[str, list[int]], flows: FlowIndex | None = None) -> tuple[str, int, str] | None:
    """Where a loop samples and trains through one instance whose methods share the model attribute.

    Returns (file, line of the sampling call in the loop, ``receiver.attribute``), or None."""
    for q in sorted(facts.functions):
        fn = facts.functions[q]
        first = min(loops.get(q, ()), default=None)
        if first is None or not fn.calls:
            continue
        per: dict[str, tuple[dict[str, int], set[str]]] = {}
        for c in fn.calls:
            recv = c.site.receiver
            if c.site.line > first and recv == "self" and (lib := library_trained(c)):
                per.setdefault(recv, ({}, set()))[1].update(lib)  # a library's step trains the instance's model
            if c.ray or c.site.line <= first or not recv or not c.targets:
                continue
            if not (recv.isidentifier() or recv.startswith("self.") and recv[5:].isidentifier()):
                continue
            s_at, t_at = per.setdefault(recv, ({}, set()))
            for t in c.targets[:3]:
                if facts.functions.get(t) is None or facts.functions[t].cls is None:
                    continue
                sampled, trained = _instance_uses(facts, sides, t, flows=flows)
                for a in sampled:
                    s_at.setdefault(a, c.site.line)
                t_at.update(trained)
        for recv in sorted(per):
            s_at, t_at = per[recv]
            both = sorted(set(s_at) & t_at)
            if both:
                return fn.file, s_at[both[0]], f"{recv}.{both[0]}"
    return same_class_model(facts, sides)


def same_class_model(facts: Facts, sides: dict[str, SideResult]) -> tuple[str, int, str] | None:
    """One class samples and trains through the same attribute, its loop out of sight.

    The loop that alternates the two is often a library base class's method (``learn`` of an RL
    library's on-policy algorithm calls the instance's rollout collection, then its update), so no
    repo function calls both and :func:`same_instance_model` finds no loop. The instance is then the
    evidence: a sampling (or driving) method of the class, own or inherited from a repo base,
    generates with ``self.X`` (directly or through methods of the instance), and a training method of
    the same class steps or runs ``self.X``. Returns (file, line of the sampling method, ``self.X``)."""
    for cq in sorted(facts.classes):
        methods: dict[str, str] = {}  # name -> qualname, the first definition along the repo MRO
        for c in facts.mro(cq):
            for m in sorted(facts.classes[c].methods):
                methods.setdefault(m, f"{c}.{m}")
        sampled: dict[str, str] = {}
        trained: set[str] = set()
        for q in sorted(methods.values()):
            side = _side(sides, q)
            if side in (Side.SAMPLING, Side.DRIVER):
                for a in _instance_uses(facts, sides, q, (Side.SAMPLING, Side.DRIVER))[0]:
                    sampled.setdefault(a, q)
            elif side == Side.TRAINING:
                trained |= _instance_uses(facts, sides, q)[1]
        both = sorted(set(sampled) & trained)
        if both:
            fn = facts.functions[sampled[both[0]]]
            return fn.file, fn.line, f"self.{both[0]}"
    return None

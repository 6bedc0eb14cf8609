"""Rollout reshaping between the sides, found by where a driver's data goes.

A step loop generates, then hands what came back to helpers that group episodes, filter groups,
pad or tokenize them into the trainer's batch type, and only then calls the update. Those
helpers call no library with a side (list comprehensions, dict shuffling), so nothing below them
says what they are; the driver's body does: their argument is the generation chain's output
(``drivers.rollout_fed``), and the loop is a driver. DESIGN.md puts such code on the trajectory
handoff ("a training-side method that only pulls or reshapes rollout output belongs here").
Applied after propagation, like the caller context: it passes nothing up.
"""

from __future__ import annotations

from ..graphs.model import EXACT
from ..model import Evidence, HandoffKind, Side
from .drivers import rollout_fed
from .facts import CallFact, Facts
from .inplace import reshaped_in_place
from .sides import FIRM, TRAINING, SideResult, _generates, _learns, reports, service_helper
from .taint import BodyTaint, FlowIndex, call_values, dotted_text

RESHAPE = "rollout-reshape"  # the evidence such a helper gets: the driver's call handing it rollouts


def rollout_reshapers(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult],
                      flows: FlowIndex) -> list[str]:
    """Label the repo functions a driver hands its fresh rollouts to, that carry no side, as the
    trajectory handoff. Returns them.

    Only an exact call with one repo target counts, into a function that is neither a
    reporter, a service helper (save, evaluate, predicates), a dunder, nor out of scope, has no
    evidence of its own and no side from propagation; what it returns does not go on into a
    sampling call, and either reaches a training call (through repo calls and the attributes of
    an object handed on: a library call such as ``torch.tensor(scores)`` makes numbers, not the
    batch) or the helper is itself the client of a learner (training evidence arrives faintly). The rollouts are what a firm call into a generation chain returned in the
    driver's own body.
    """
    out: dict[str, Evidence] = {}
    for q in sorted(results):
        r = results[q]
        if r.side != Side.DRIVER:
            continue
        fn = facts.functions.get(q)
        if fn is None or facts.out_of_scope(fn.module):
            continue
        row = edges.get(q, {})
        gens = {t for t, d in row.items() if d >= FIRM and (cr := results.get(t)) is not None
                and (cr.side == Side.SAMPLING and _generates(cr) or _makes_experience(t, cr, facts))}
        if not gens:
            continue
        fed = rollout_fed(fn, flows.of(q), lambda c, gens=gens: any(t in gens for t in c.targets))
        for c in fed:
            tg = [t for t in c.targets if t != q and t in facts.functions]
            if c.kind != EXACT or len(tg) != 1 or c.ray:
                continue
            t = tg[0]
            tr = results.get(t)
            tf = facts.functions[t]
            name = tf.definition.name
            if tr is None or tr.side != Side.NEUTRAL or tr.has_own \
                    or service_helper(name) or facts.out_of_scope(tf.module) or t in out:
                continue
            if _back_to_sampling(fn, flows, t, results):
                continue  # it turns the model's output into the next env step: the rollout's own loop
            if not (_learner_behind(tr) or _reaches_trainer(fn, flows, c, results)
                    or reshaped_in_place(fn, c, tf, fed, results)):
                continue  # scores or stats computed from the rollouts: numbers, not the batch the trainer takes
            out[t] = Evidence(RESHAPE, fn.file, c.site.line, f"caller:{q}")
    for t in list(out):
        for h in _store_helpers(t, facts, results, out):
            out[h] = Evidence(RESHAPE, facts.functions[t].file, facts.functions[t].line, f"store:{t}")
    for t, ev in out.items():
        r = results[t]
        r.side, r.kind = Side.HANDOFF, HandoffKind.TRAJECTORY
        r.evidence = [*r.evidence, ev]
    return sorted(out)


# what a parameter update rests on: a body with one of these trains, it does not make experience
_UPDATES = frozenset({"optimizer-step", "megatron-forward-backward", "engine-backward", "tensor-backward",
                      "trainer-loss-hook"})


def _makes_experience(q: str, r: SideResult, facts: Facts) -> bool:
    """A driver callee that generates and scores what it generated (forward passes of the critic,
    the reference, the reward model) and returns it, with no parameter update of its own: in a
    one-process loop it is the experience maker, and what it returns is the fresh rollouts."""
    if r.side != Side.DRIVER or not _generates(r):
        return False
    fn = facts.functions.get(q)
    if fn is None or not fn.definition.returned:
        return False
    if any(m.signal.id in _UPDATES for m in r.own_matches):
        return False
    o = r.origins.get(TRAINING)
    return o is None or o.signal not in _UPDATES


_GROW = frozenset({"append", "extend", "insert", "appendleft"})


def _stores(fn) -> str | None:
    """The ``self`` attribute a method grows with one of its parameters (``self.held.append(item)``)."""
    params = set(fn.params)
    for c in fn.calls:
        rec = c.site.receiver or ""
        if c.method in _GROW and rec.startswith("self.") and rec.count(".") == 1 \
                and any(a.kind == "name" and a.value in params for a in c.site.args):
            return rec
    return None


def _store_helpers(t: str, facts: Facts, results: dict[str, SideResult], out: dict) -> list[str]:
    """When the handed-to method stores the rollouts in its object (an in-process experience
    buffer), the methods of the same class it runs on that store (cut it into training pieces,
    empty it) carry the same rollouts: they are the handoff too. Found through exact ``self``
    calls, transitively; dunders, reporters and methods with a side of their own stay out."""
    fn = facts.functions[t]
    if fn.cls is None or _stores(fn) is None:
        return []
    got: list[str] = []
    todo = [fn]
    seen = {t}
    while todo:
        f = todo.pop()
        for c in f.calls:
            if c.kind != EXACT or not (c.site.receiver or "") == "self":
                continue
            for h in c.targets:
                hf = facts.functions.get(h)
                hr = results.get(h)
                if h in seen or hf is None or hf.cls != fn.cls or hr is None:
                    continue
                seen.add(h)
                name = hf.definition.name
                if hr.side != Side.NEUTRAL or hr.has_own or name.startswith("__") or reports(name) or h in out:
                    continue
                got.append(h)
                todo.append(hf)
    return got


def _back_to_sampling(fn, flows: FlowIndex, t: str, results: dict[str, SideResult]) -> bool:
    """What ``t`` returns in ``fn`` goes on into a sampling call (parsed actions handed to the
    environment, a prompt built for the next turn): a multi-turn rollout, not the way to the trainer."""
    for c in rollout_fed(fn, flows.of(fn.qualname), lambda c: t in c.targets):
        if any((r := results.get(x)) is not None and r.side == Side.SAMPLING for x in c.targets):
            return True
    return False


def _learner_behind(r: SideResult) -> bool:
    """A learner's training evidence arrives below the helper, too faint to label it (the client end)."""
    return r.total.get(TRAINING, 0.0) > 0 and _learns(r)


# builtins that hand the elements of their arguments back unchanged (``enumerate(zip(batches, extra))``)
_ITERATES = frozenset({"enumerate", "zip", "list", "tuple", "reversed", "sorted", "iter"})


class _Downstream(BodyTaint):
    """Names of a driver body holding what one call returned, passed on through repo calls only."""

    def __init__(self, fn, flows, source: CallFact) -> None:
        super().__init__(flows)
        self.source = source.site.func
        self.repo = {c.site.func for c in fn.calls if c.targets}

    def call_holds(self, e: tuple, depth: int) -> bool:
        func = dotted_text(e[1])
        if func == self.source:
            return True
        if isinstance(e[1], tuple) and e[1][:1] == ("a",) and self.holds(e[1][1], depth):
            return True  # ``groups.values()``
        return (func in self.repo or func in _ITERATES) and self.args_hold(e, depth)

    def hands_on(self, e: object) -> bool:
        """The argument holds the value, or is an object one of whose attributes does."""
        if self.holds(e):
            return True
        t = dotted_text(e)
        return bool(t) and any(n.startswith(t + ".") for n in self.names)


def _reaches_trainer(fn, flows: FlowIndex, call: CallFact, results: dict[str, SideResult]) -> bool:
    """What ``call`` returns in ``fn`` ends up as an argument of a call into training code."""
    body = _Downstream(fn, flows.of(fn.qualname), call)
    body.run()
    for c in fn.calls:
        e = c.site.expr
        if c is call or not isinstance(e, tuple) or e[:1] != ("c",):
            continue
        if not any(body.hands_on(a) for a in call_values(e)):
            continue
        for t in c.targets:
            r = results.get(t)
            if r is not None and (r.side in (Side.TRAINING, Side.DRIVER) or _learner_behind(r)):
                return True
    return False

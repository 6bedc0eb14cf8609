"""The rollout's own plumbing, found by where a sampling body's generation output goes.

A multi-turn rollout generates, hands the model's output to a helper that parses it into
actions (or builds the next turn's prompt from it), and hands what the helper returns to the
environment's step or to the next generation. The helper calls no library with a side (string
parsing, dict shuffling) and may live in another class or module than the loop, so neither its
body nor the caller context says what it is; the loop's body does: the value flows from a
generation call, through the helper, back into a sampling call. Such a helper is the sampling
side's code. Applied after propagation, like the caller context: it passes nothing up, and its
answers are solid, so the caller context then carries them to the helper's own helpers.
"""

from __future__ import annotations

from collections.abc import Callable

from ..graphs.model import EXACT
from ..model import Evidence, Side
from .drivers import rollout_fed
from .facts import CallFact, Facts, FnFacts
from .sides import FIRM, SideResult, _generates, service_helper
from .signals import SAMPLING
from .taint import FlowIndex, call_values, dotted_text

PLUMBING = "rollout-plumbing"  # the evidence: the sampling body's call that hands it generation output


def rollout_plumbing(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult],
                     flows: FlowIndex) -> list[str]:
    """Label the repo helpers a sampling body hands its fresh generation output to, and whose
    result it hands on into a sampling call, as sampling. Returns them.

    Only an exact call with one repo target counts, into a function that is neither a reporter,
    a service helper (save, log, evaluate, predicates), a dunder, nor out of scope, and has no
    evidence and no side of its own. The generation output is what a firm call into a
    generation chain (a repo function on the sampling side, or a library call whose sampling
    signal matched in this body) returned in the same body; the way back is a call of the same
    body into such a chain or into a repo function on the sampling side.
    """
    out: dict[str, Evidence] = {}
    for q in sorted(results):
        r = results[q]
        if r.side != Side.SAMPLING or not r.solid:
            continue
        fn = facts.functions.get(q)
        if fn is None or facts.out_of_scope(fn.module):
            continue
        row = edges.get(q, {})
        gen_lines = {m.line for m in r.own_matches if m.signal.side == SAMPLING}

        def produces(c: CallFact, row=row, gen_lines=gen_lines) -> bool:
            return sampling_call(c, row, results, gen_lines, generation=True)

        fed = rollout_fed(fn, flows.of(q), produces)
        if not fed:
            continue
        for c in fed:
            t = sole_target(c, q, facts)
            if t is None or t in out or not plain_helper(t, facts, results):
                continue
            if not _back_into_sampling(fn, flows, c, t, row, results, gen_lines):
                continue
            out[t] = Evidence(PLUMBING, fn.file, c.site.line, f"caller:{q}")
    return label_sampling(out, results)


def label_sampling(found: dict[str, Evidence], results: dict[str, SideResult]) -> list[str]:
    """Give each helper found its sampling side, solid, with its evidence; returns them, sorted.
    Solid: for the helper's own helpers, the caller context carries the side on from here."""
    for t, ev in found.items():
        r = results[t]
        r.side = Side.SAMPLING
        r.solid = True
        r.evidence = [*r.evidence, ev]
    return sorted(found)


def sole_target(c: CallFact, caller: str, facts: Facts) -> str | None:
    """The one repo function an exact call (not over ``.remote``) reaches, other than the caller; else None."""
    if c.kind != EXACT or c.ray or len(c.targets) != 1:
        return None
    t = c.targets[0]
    return t if t != caller and t in facts.functions else None


def sampling_call(c: CallFact, row: dict[str, float], results: dict[str, SideResult], gen_lines: set[int],
             *, generation: bool) -> bool:
    """``c`` is a call into the sampling side: a library call whose sampling signal matched on its
    line, or a firm call of a repo function on the sampling side (a generation chain when asked)."""
    if c.site.line in gen_lines and not any(t in results for t in c.targets):
        return True
    for t in c.targets:
        cr = results.get(t)
        if cr is None or cr.side != Side.SAMPLING or row.get(t, 0.0) < FIRM:
            continue
        if not generation or _generates(cr):
            return True
    return False


def only_callers_on(t: str, callers: dict[str, set[str]], facts: Facts, results: dict[str, SideResult],
                    on: Callable[[SideResult], bool]) -> bool:
    """Every in-scope caller of ``t`` is labelled and passes ``on`` (a sampling side, a weight sync), and
    there is at least one: a helper that only that side uses takes its side."""
    seen = False
    for c in callers.get(t, ()):
        cf = facts.functions.get(c)
        if cf is not None and facts.out_of_scope(cf.module):
            continue
        cr = results.get(c)
        if cr is None or not on(cr):
            return False
        seen = True
    return seen


def plain_helper(t: str, facts: Facts, results: dict[str, SideResult]) -> bool:
    tr = results.get(t)
    tf: FnFacts = facts.functions[t]
    name = tf.definition.name
    return not (tr is None or tr.side != Side.NEUTRAL or tr.has_own or service_helper(name)
                or facts.out_of_scope(tf.module)
                or not tf.definition.returned)


def _back_into_sampling(fn: FnFacts, flows: FlowIndex, call: CallFact, t: str, row: dict[str, float],
                        results: dict[str, SideResult], gen_lines: set[int]) -> bool:
    """What ``t`` returns in ``fn`` goes on into a later sampling call of the same body (the parsed
    actions handed to the environment's step, the next turn's prompt handed to the engine)."""
    for c in rollout_fed(fn, flows.of(fn.qualname), lambda c: c is call or t in c.targets):
        if c is call or t in c.targets:
            continue
        if sampling_call(c, row, results, gen_lines, generation=False):
            return True
    return False


CALLBACK = "generation-callback"  # the evidence: the generation call that is handed the object


def generation_callbacks(facts: Facts, results: dict[str, SideResult]) -> list[str]:
    """Label the ``__call__`` of repo objects handed to a library generation call as sampling.

    ``model.generate(ids, logits_processor=[self.masker], stopping_criteria=[Stop(...)])``
    calls the objects it is handed at every decoding step: a logits mask, a stop criterion, a
    streamer's hook run inside the rollout, whatever they are named. The generation call is a
    library call (a name guess among repo methods aside) whose sampling signal matched on its line in a body on the sampling side; the
    object is an attribute of ``self`` or a local name whose type is a repo class with a
    ``__call__`` that has no side and no evidence of its own. Its answers are solid, so the
    caller context carries the side on to the class's own helpers.
    """
    out: dict[str, Evidence] = {}
    for q in sorted(results):
        r = results[q]
        if r.side != Side.SAMPLING:
            continue
        fn = facts.functions.get(q)
        if fn is None or facts.out_of_scope(fn.module):
            continue
        gen_lines = {m.line for m in r.own_matches if m.signal.side == SAMPLING}
        if not gen_lines:
            continue
        own_cls = facts.classes.get(fn.cls) if fn.cls else None
        for c in fn.calls:
            if c.site.line not in gen_lines or c.kind == EXACT and any(t in facts.functions for t in c.targets) \
                    or not isinstance(c.site.expr, tuple) or c.site.expr[:1] != ("c",):
                continue
            for v in _handed(c.site.expr):
                name = dotted_text(v)
                typ = None
                if name.startswith("self.") and name.count(".") == 1 and own_cls is not None:
                    typ = own_cls.attr_types.get(name[5:])
                elif name and "." not in name:
                    typ = fn.local_types.get(name)
                t = f"{typ}.__call__" if typ else None
                if t is None or t in out or t not in facts.functions:
                    continue
                tr = results.get(t)
                if tr is None or tr.side != Side.NEUTRAL or tr.has_own or facts.out_of_scope(facts.functions[t].module):
                    continue
                out[t] = Evidence(CALLBACK, fn.file, c.site.line, f"caller:{q}")
    for t, ev in out.items():
        r = results[t]
        r.side = Side.SAMPLING
        r.solid = True
        r.evidence = [*r.evidence, ev]
    return sorted(out)


def _handed(e: tuple) -> list[object]:
    """The argument trees of a call, with the items of list/tuple literals among them."""
    got: list[object] = []
    for v in call_values(e):
        if isinstance(v, tuple) and v[:1] == ("l",) and len(v) > 2 and isinstance(v[2], (list, tuple)):
            got.extend(v[2][:16])
        else:
            got.append(v)
    return got

"""Helpers that build what a weight-sync body hands to its push into the engine (pattern O).

The sync gathers the trainer's state dict through a helper (collecting adapter tensors layer by
layer), renames its keys for the engine with another, and wraps it in a generator of
``(name, tensor)`` pairs with a third, then hands the result to ``load_weights`` or an adapter
request. The helpers call no library with a side (a state-dict getter, a regex, a tensor
method), and the caller context only follows what their own bodies are handed: a helper that
*produces* the weights is handed nothing derived from them. The sync body's data flow says what
they are: the helper's result goes into the call that pushes the weights, in the same body. Such
a helper is the weight sync's code when every body that calls it is the weight sync. Applied
after propagation, like the caller context: it passes nothing up.
"""

from __future__ import annotations

from ..model import Evidence, HandoffKind, Side
from .drivers import rollout_fed
from .facts import CallFact, Facts, FnFacts
from .plumbing import only_callers_on, sole_target
from .sides import SideResult, _builds_only, calling_bodies, service_helper
from .signals import WEIGHT_SYNC
from .taint import FlowIndex

WEIGHT_INPUT = "weight-sync-input"  # the evidence: the sync body's call whose result it pushes into the engine


def weight_sync_inputs(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult],
                       flows: FlowIndex) -> list[str]:
    """Label the repo helpers whose result a solid weight-sync body hands into its own push as
    weight sync, when all their in-scope callers are weight sync. Returns them, sorted.

    The push is a call on a line where the body's own weight-sync signal matched (not a set-up
    one: opening a process group pushes nothing). Only an exact call with one repo target counts,
    into a plain helper (no side or evidence of its own, not a service helper, in scope) that
    returns or yields something other than a formatted literal (an id, a key) and does some work
    (one that only builds a literal is no side's code). Helpers of those helpers keep the caller
    context's say."""
    callers = calling_bodies(facts, edges)
    out: dict[str, Evidence] = {}
    for q in sorted(results):
        r = results[q]
        if r.side != Side.HANDOFF or r.kind != HandoffKind.WEIGHT_SYNC or not r.solid:
            continue
        fn = facts.functions.get(q)
        if fn is None or facts.out_of_scope(fn.module):
            continue
        push_lines = {m.line for m in r.own_matches if m.signal.kind == WEIGHT_SYNC and not m.signal.setup}
        if not push_lines:
            continue
        for c in fn.calls:
            t = sole_target(c, q, facts)
            if t is None or t in out or not _plain(t, facts, results, flows):
                continue
            if not only_callers_on(t, callers, facts, results, lambda r: r.side == Side.HANDOFF and r.kind == HandoffKind.WEIGHT_SYNC):
                continue
            if _into_push(fn, flows, c, push_lines, results):
                out[t] = Evidence(WEIGHT_INPUT, fn.file, c.site.line, f"caller:{q}")
    for t, ev in out.items():
        tr = results[t]
        tr.side, tr.kind, tr.solid = Side.HANDOFF, HandoffKind.WEIGHT_SYNC, True
        tr.evidence = [*tr.evidence, ev]
    return sorted(out)


def _plain(t: str, facts: Facts, results: dict[str, SideResult], flows: FlowIndex) -> bool:
    """No side or evidence of its own, not a service helper, in scope, hands something back that is
    not a literal, does work."""
    tr = results.get(t)
    tf: FnFacts = facts.functions[t]
    if tr is None or tr.side != Side.NEUTRAL or tr.has_own or service_helper(tf.definition.name):
        return False
    if facts.out_of_scope(tf.module) or not (tf.definition.returned or tf.definition.yields):
        return False
    rets = [fl.value for fl in flows.of(t) if fl.op == "ret"]
    if rets and all(isinstance(v, tuple) and v[:1] == ("k",) for v in rets):
        return False  # it returns a string or number it formats (an adapter's id, a key): no weights move
    return not _builds_only(tf)


def _into_push(fn: FnFacts, flows: FlowIndex, call: CallFact, push_lines: set[int],
               results: dict[str, SideResult]) -> bool:
    """What ``call`` returns in ``fn`` goes into a later call of the same body on a push line."""
    for c in rollout_fed(fn, flows.of(fn.qualname), lambda x: x is call):
        if c is not call and c.site.line in push_lines and not any(t in results for t in c.targets):
            return True
    return False

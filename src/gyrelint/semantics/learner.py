"""The training side where the learner is a library's object, and the helpers the learner's callers lean on.

A repo that drives a training library's workers holds them in an attribute whose type the repo
never sees (a worker group built by the library, handed in by a constructor argument): the
calls that run the update or recompute log-probs on them resolve to nothing, so no body on the
way up to the step loop carries evidence. The method called says what runs on the far side:
updating the actor/critic/policy, recomputing (old/reference) log-probs or values of a batch it
is handed. A loss object handed to the library (its ``__call__`` runs inside the library's
update) says what it is by returning what a library loss function computed.

Below the labelled bodies, the caller context (``sides.caller_context``) gives a helper its
callers' side only when every caller sits next to it on one solid side and the helper has no
evidence at all. Two cases it leaves out are still plainly one side's code: a helper whose own
faint evidence (below the threshold) is of that same side, and a helper whose only other
callers are tests. And a weight receiver hands what it fetched from the transport to a helper
that turns it into the tensor it loads: the helper is the receiver's code, though no parameter
of the trainer's policy reaches it in the receiving process.

Applied after propagation, like the caller context: these passes pass nothing up.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..graphs.model import EXACT
from ..model import Evidence, HandoffKind, Side
from .facts import MEDIUM, Facts, FnFacts
from .sides import (
    _NAMING,
    _SERVICE_NAME,
    WEIGHT_SYNC,
    SideResult,
    _builds_only,
    _layout_query,
    _sets_up_only,
    _side_key,
    calling_bodies,
    service_helper,
)
from .signals import TRAINING, Signal
from .taint import BodyTaint, FlowIndex, call_values, dotted_text

# what a learner's worker is asked to do with a batch: update a role's parameters, or recompute
# what the loss needs (old/reference log-probs, values) on the training engine
_LEARNER_METHOD = re.compile(r"(update|train)_(actor|critic|policy|value|values)"
                             r"|compute_(ref_|old_)?(log_prob|log_probs|logprob|logprobs|logps|values)")


def _unresolved_handle(c, fn: FnFacts) -> bool:
    """A method call on an object held in an attribute or a name, whose type nothing in the repo or
    its imports knows (``self.workers.update_actor(batch)``): neither a repo body nor a known
    library call answers for it."""
    rec = c.site.receiver
    if not rec or rec == "self" or "(" in rec or "[" in rec or c.names or c.into_repo(fn.qualname):
        return False
    return rec.startswith("self.") or "." not in rec


def _handed_data(c) -> bool:
    """At least one argument is a value (a name, a call, an expression), not a literal or a flag."""
    return any(a.kind != "lit" for a in c.site.args) or any(a.kind != "lit" for _, a in c.site.kwargs)


def _learner_call(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    for c in fn.calls:
        if _LEARNER_METHOD.fullmatch(c.method) and _unresolved_handle(c, fn) and _handed_data(c):
            return ((c.site.line, MEDIUM),)
    return ()


_LOSS_NAME = re.compile(r"(\w+_)?loss")


def _returns_library_loss(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """The body returns what a library function named for a loss computed from the values it is
    handed (``return ppo_loss(self.config, model_output, data)``): a loss function or a loss
    object's ``__call__``. A repo callee speaks for itself (it is not counted here)."""
    params = [p for p in fn.params if p not in ("self", "cls")]
    if len(params) < 2:
        return ()
    returned = {t[:-2] if t.endswith("()") else t for t in fn.definition.returned}
    for c in fn.calls:
        if c.site.receiver or not _LOSS_NAME.fullmatch(c.site.func) or c.targets or c.site.func not in returned:
            continue
        if any(a.kind == "name" and str(a.value).split(".", 1)[0] in params for a in c.site.args) \
                or any(a.kind == "name" and str(a.value).split(".", 1)[0] in params for _, a in c.site.kwargs):
            return ((c.site.line, MEDIUM),)
    return ()


LEARNER_SIGNALS: tuple[Signal, ...] = (
    Signal(id="learner-handle-call", side=TRAINING, weight=2.5,
           rationale="Asking a worker of unknown (library) type to update the actor/critic/policy on a batch, or to "
                     "recompute its log-probs or values, runs the training step on the far side.",
           body=_learner_call,
           examples_match=(
               "class Backend:\n    def __init__(self, cls):\n        self.workers = cls()\n\n"
               "    def target(self, batch):\n        out = self.workers.update_actor(batch)\n        return out['metrics']\n",
               "class Backend:\n    def target(self, batch):\n"
               "        batch['old_log_probs'] = self.workers.compute_log_prob(batch)\n        return batch\n",
           ),
           examples_nomatch=(
               "class Cache:\n    def target(self):\n        return self.store.update_policy('fifo')\n",
               "class Worker:\n    def update_actor(self, batch):\n        return batch\n\n"
               "class Backend:\n    def __init__(self):\n        self.workers = Worker()\n\n"
               "    def target(self, batch):\n        return self.workers.update_actor(batch)\n",
           )),
    Signal(id="library-loss-return", side=TRAINING, weight=2.0,
           rationale="Returning what a library loss function computed from the arguments is a loss function (or a "
                     "loss object's __call__ the training library runs in its update).",
           body=_returns_library_loss,
           examples_match=(
               "from rlkit.losses import clipped_loss\n\nclass MyLoss:\n"
               "    def __call__(self, model_output, data):  # gyrelint-example-target: MyLoss.__call__\n"
               "        return clipped_loss(self.cfg, model_output, data)\n",
           ),
           examples_nomatch=(
               "from rlkit.losses import clipped_loss\n\ndef target(cfg):\n    return clipped_loss(cfg)\n",
               "def my_loss(a, b):\n    return a - b\n\ndef target(x, y):\n    return my_loss(x, y)\n",
           )),
)


# ---------------------------------------------------------------- post-propagation passes

LEARNER_CONTEXT = "learner-context"  # the evidence: the solid training caller the helper serves


def training_helpers(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult]) -> list[str]:
    """Label as training the helpers the caller context leaves out though they are the trainer's code.

    Like ``sides.caller_context``: every caller sits in the same class (a method) or module (a
    function), is solid and on the training side (not only setting it up), and the helper is no dunder, logging/saving/
    set-up helper, layout query or literal builder. Two things differ: callers in out-of-scope
    code (tests) do not count, though at least one in-scope caller must remain; and the helper
    may carry own evidence below the threshold, as long as all of it is training evidence. Only
    helpers the caller context would not have labelled are new. A few rounds, so a helper of a
    helper follows. Returns the labelled functions."""
    callers = calling_bodies(facts, edges)
    todo = []
    for q in sorted(callers):
        r = results.get(q)
        fn = facts.functions.get(q)
        if r is None or fn is None or r.side != Side.NEUTRAL or facts.out_of_scope(fn.module):
            continue
        if r.has_own and not all(m.signal.side == TRAINING for m in r.own_matches):
            continue
        name = fn.definition.name
        if service_helper(name) or _layout_query(fn) or _builds_only(fn):
            continue
        todo.append((q, fn))
    out: list[str] = []
    for _ in range(4):
        changed: list[tuple[str, str]] = []
        for q, fn in todo:
            if results[q].side != Side.NEUTRAL:
                continue
            inside = [c for c in sorted(callers[q])
                      if (cf := facts.functions.get(c)) is None or not facts.out_of_scope(cf.module)]
            ok = bool(inside)
            for c in inside:
                cf = facts.functions.get(c)
                cr = results.get(c)
                if cf is None or cr is None or (cf.cls != fn.cls if fn.cls else cf.module != fn.module) \
                        or not cr.solid or cr.side != Side.TRAINING or _sets_up_only(cr):
                    ok = False
                    break
            if ok:
                changed.append((q, inside[0]))
        for q, c in changed:
            r = results[q]
            cf = facts.functions[c]
            r.side, r.solid = Side.TRAINING, True
            r.evidence = [*r.evidence, Evidence(LEARNER_CONTEXT, cf.file, cf.line, f"caller:{c}")]
            out.append(q)
        if not changed:
            break
    return sorted(out)


RECEIVED = "weight-receive-helper"  # the evidence: the receiver's call handing the helper what it fetched


class _Fetched(BodyTaint):
    """Names of a receiver's body holding what one of its library calls returned."""

    def __init__(self, flows, sources: set[str]) -> None:
        super().__init__(flows)
        self.sources = sources

    def call_holds(self, e: tuple, depth: int) -> bool:
        return dotted_text(e[1]) in self.sources or self.args_hold(e, depth)


class _Returned(BodyTaint):
    """Names of a body holding what one call returned."""

    def __init__(self, flows, source: str) -> None:
        super().__init__(flows)
        self.source = source

    def call_holds(self, e: tuple, depth: int) -> bool:
        return dotted_text(e[1]) == self.source or self.args_hold(e, depth)


def receiver_helpers(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult],
                     flows: FlowIndex) -> list[str]:
    """Label the repo helpers a solid weight-sync body hands what it fetched, and whose result
    it loads, as the weight sync. Returns them.

    The receiver pulls a handle or a tensor from the transport with a library call, hands it to
    a helper (read the tensor back out of the handle, reshape it to the engine's layout) and
    loads what the helper returns into the model with the call its weight-sync evidence sits on.
    Only an exact call with one repo target counts, into a function with no side and no evidence
    of its own that calls something and is no dunder, logging/saving helper (loading is let
    through) or name/key builder; the fetched value is what a library call of the same body
    (no repo target) returned.
    """
    out: dict[str, Evidence] = {}
    for q in sorted(results):
        r = results[q]
        if _side_key(r) != WEIGHT_SYNC or not r.solid:
            continue
        fn = facts.functions.get(q)
        if fn is None or facts.out_of_scope(fn.module):
            continue
        load_lines = {m.line for m in r.own_matches if m.signal.kind == WEIGHT_SYNC}
        if not load_lines:
            continue
        body = flows.of(q)
        fetched = _Fetched(body, {c.site.func for c in fn.calls if not c.targets and c.site.line not in load_lines
                                  and c.site.receiver and c.site.receiver != "self"})
        fetched.run()
        for c in fn.calls:
            tg = [t for t in c.targets if t in facts.functions]
            if c.kind != EXACT or len(tg) != 1 or len(c.targets) != 1 or c.ray or tg[0] == q or tg[0] in out:
                continue
            t = tg[0]
            if not _plain_helper(t, facts, results):
                continue
            e = c.site.expr
            if not isinstance(e, tuple) or e[:1] != ("c",) or not any(fetched.holds(a) for a in call_values(e)):
                continue
            back = _Returned(body, c.site.func)
            back.run()
            if not any(o.site.line in load_lines and isinstance(o.site.expr, tuple) and o.site.expr[:1] == ("c",)
                       and any(back.holds(a) for a in call_values(o.site.expr)) for o in fn.calls):
                continue
            out[t] = Evidence(RECEIVED, fn.file, c.site.line, f"caller:{q}")
    for t, ev in out.items():
        r = results[t]
        r.side, r.kind, r.solid = Side.HANDOFF, HandoffKind.WEIGHT_SYNC, True
        r.evidence = [*r.evidence, ev]
    return sorted(out)


def _plain_helper(t: str, facts: Facts, results: dict[str, SideResult]) -> bool:
    tr = results.get(t)
    tf = facts.functions[t]
    name = tf.definition.name.lower()
    return not (tr is None or tr.side != Side.NEUTRAL or tr.has_own or name.startswith("__") or not tf.calls
                or _SERVICE_NAME.search(name.replace("load", "")) or _NAMING.search(name)
                or facts.out_of_scope(tf.module) or not tf.definition.returned)

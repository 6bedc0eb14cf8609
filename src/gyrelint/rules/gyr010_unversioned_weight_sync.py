"""GYR010: weight sync with no policy version or step the sampler can report."""

from __future__ import annotations

from collections.abc import Iterator

from ..index.summary import FileSummary
from ..model import Finding, HandoffKind, Severity, Side
from .base import Example, Rule, RuleContext, loc, tokens

_VERSION = {"version", "versions"}
_STEP = {"step", "steps", "global_step", "iteration", "iter", "epoch"}


def _has_version(s: FileSummary, scope: str, allow_step: bool) -> tuple[int, str] | None:
    """(line, name) of a version (or step) token the scope passes, stores or reports."""
    words = _VERSION | (_STEP if allow_step else set())

    def hit(name: str) -> bool:
        toks = tokens(name)
        return bool(set(toks) & words) or (allow_step and "_".join(toks[-2:]) == "global_step")

    d = next((f for f in s.functions if f.qualname == scope), None)
    if d is not None:
        for p in d.params:
            if hit(p.name):
                return d.line, p.name
    for c in s.calls:
        if c.scope != scope:
            continue
        for k, a in c.kwargs:
            if hit(k):
                return c.line, k
            if a.kind == "name" and isinstance(a.value, str) and hit(a.value.rsplit(".", 1)[-1]):
                return c.line, a.value
        for a in c.args:
            if a.kind == "name" and isinstance(a.value, str) and hit(a.value.rsplit(".", 1)[-1]):
                return c.line, a.value
        if c.attr != "step" and hit(c.attr) and set(tokens(c.attr)) & _VERSION:
            return c.line, c.func
    for a in s.assignments:
        if a.scope == scope and hit(a.target.rsplit(".", 1)[-1]):
            return a.line, a.target
    for sub in s.subscripts:
        if sub.scope == scope and hit(sub.key):
            return sub.line, sub.key
    for st in s.strings:
        if st.scope == scope and len(st.value) <= 60 and set(tokens(st.value)) & _VERSION:
            return st.line, st.value
    return None


_BAD = """\
def sync_weights(model, llm):
    engine_model = llm.llm_engine.model_executor.driver_worker.model_runner.model
    engine_model.load_weights(model.state_dict().items())
"""

_GOOD = """\
def sync_weights(model, llm, global_step):
    engine_model = llm.llm_engine.model_executor.driver_worker.model_runner.model
    engine_model.load_weights(model.state_dict().items())
    llm.policy_version = global_step  # rollouts record which policy produced them
"""


class UnversionedWeightSync(Rule):
    id = "GYR010"
    name = "unversioned-weight-sync"
    severity = Severity.WARNING
    summary = "Weights are synced to the sampler with no policy version or step the sampler can report."
    rationale = ("The loop is online only if the sampler really uses new weights. A version (or the training step) "
                 "sent with each sync and reported with each rollout is the one counter that proves it; without "
                 "it a sync that silently fails looks exactly like one that works.")
    fix = ("Send the training step / policy version with each weight sync and record it with every rollout, "
           "then check the weight carrier (group, names) first when it stops changing.")
    bad = (Example({"sync.py": _BAD}, "loads weights but nothing says which policy the engine now holds"),)
    good = (Example({"sync.py": _GOOD}, "the sync records the step as the sampler's policy version"),)
    tags = ("weight-sync", "counters")

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        syncs = ctx.functions(Side.HANDOFF, kind=HandoffKind.WEIGHT_SYNC)
        if not syncs:
            return
        on_path = [ctx.analysis.functions[q] for q in ctx.analysis.handoff.weight_sync_path
                   if q in ctx.analysis.functions]
        for q in dict.fromkeys(f.qualname for f in syncs + on_path):
            sc = ctx.scope_of(q)
            if sc and _has_version(sc[0], sc[1], allow_step=True):
                return
        for f in ctx.functions(Side.SAMPLING) + ctx.functions(Side.HANDOFF, kind=HandoffKind.TRAJECTORY):
            sc = ctx.scope_of(f.qualname)
            if sc and _has_version(sc[0], sc[1], allow_step=False):
                return
        first = ([f for f in syncs if f.reached] or syncs)[0]
        ev = [loc(f, f"weight sync: {f.qualname}") for f in syncs[:8]]
        yield self.finding(
            f"weights reach the sampler through {first.qualname}"
            f"{f' (and {len(syncs) - 1} more)' if len(syncs) > 1 else ''}, but no policy version or training "
            f"step travels with them, so the sampler cannot report which policy it runs",
            loc(first), "unversioned", ev)


RULE = UnversionedWeightSync

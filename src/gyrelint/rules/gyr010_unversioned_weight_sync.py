"""GYR010: weight sync with no policy version or step the sampler can report."""

from __future__ import annotations

from collections.abc import Iterator

from ..index.summary import FileSummary
from ..model import Finding, HandoffKind, Severity, Side
from .base import Example, Rule, RuleContext, loc, tokens

_VERSION = {"version", "versions"}
_STEP = {"step", "global_step", "iteration", "train_step", "update_step"}


def _hit(name: str, allow_step: bool) -> bool:
    toks = tokens(name)
    if set(toks) & _VERSION:
        return True
    return allow_step and bool(toks) and ("_".join(toks[-2:]) in _STEP or toks[-1] in _STEP)


def _scope_version(s: FileSummary, scope: str, allow_step: bool) -> tuple[int, str] | None:
    """(line, name) of a version (or step) the scope receives, stores, passes or reports."""
    d = next((f for f in s.functions if f.qualname == scope), None)
    if d is not None:
        for p in d.params:
            if _hit(p.name, allow_step):
                return d.line, p.name
    for c in s.calls:
        if c.scope != scope:
            continue
        for k, _ in c.kwargs:
            if _hit(k, allow_step):
                return c.line, k
        if c.attr != "step" and set(tokens(c.attr)) & _VERSION:
            return c.line, c.func
    for a in s.assignments:
        if a.scope == scope and _hit(a.target.rsplit(".", 1)[-1], allow_step):
            return a.line, a.target
    for sub in s.subscripts:
        if sub.scope == scope and _hit(sub.key, allow_step):
            return sub.line, sub.key
    for st in s.strings:
        if st.scope == scope and len(st.value) <= 60 and set(tokens(st.value)) & _VERSION:
            return st.line, st.value
    return None


def _call_passes_version(ctx: RuleContext, targets: set[str]) -> bool:
    """Some call into a weight-sync function hands it a version or the training step."""
    short = {q.rsplit(".", 1)[-1] for q in targets}
    sites = []
    resolved = getattr(ctx.analysis.graphs, "resolved", {}) or {}
    for calls in resolved.values():
        sites += [rc.site for rc in calls if targets & set(rc.targets)]
    if not resolved:
        sites = [c for s in ctx.summaries() for c in s.calls if c.attr in short]
    for site in sites:
        names = [k for k, _ in site.kwargs]
        names += [a.value.rsplit(".", 1)[-1] for a in site.args if a.kind == "name" and isinstance(a.value, str)]
        names += [a.value.rsplit(".", 1)[-1] for _, a in site.kwargs if a.kind == "name" and isinstance(a.value, str)]
        if any(_hit(n, True) for n in names):
            return True
    return False


_LOOP = """\
import torch
from vllm import LLM, SamplingParams


def rollout(llm, prompts):
    outs = llm.generate(prompts, SamplingParams(temperature=1.0))
    return [{{"input_ids": o.outputs[0].token_ids}} for o in outs]


def sync_weights(model, llm{param}):
    engine_model = llm.llm_engine.model_executor.driver_worker.model_runner.model
    engine_model.load_weights(model.state_dict().items()){record}


def train(model, llm, prompts, steps):
    optimizer = torch.optim.AdamW(model.parameters())
    for global_step in range(steps):
        batch = rollout(llm, prompts)
        loss = model(batch[0]["input_ids"]).loss
        loss.backward()
        optimizer.step()
        sync_weights(model, llm{arg})


if __name__ == "__main__":
    train(torch.nn.Linear(4, 4), LLM("m"), ["hi"], 10)
"""

_BAD = _LOOP.format(param="", record="", arg="")
_GOOD = _LOOP.format(param=", version", arg=", version=global_step",
                     record="\n    llm.policy_version = version  # rollouts can record which policy made them")


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
    bad = (Example({"train.py": _BAD}, "loads weights but nothing says which policy the engine now holds"),)
    good = (Example({"train.py": _GOOD}, "the step travels with the weights as the sampler's policy version"),)
    tags = ("weight-sync", "counters")

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        syncs = ctx.functions(Side.HANDOFF, kind=HandoffKind.WEIGHT_SYNC)
        if not syncs:
            return
        for f in syncs:
            sc = ctx.scope_of(f.qualname)
            if sc and _scope_version(sc[0], sc[1], allow_step=True):
                return
        if _call_passes_version(ctx, {f.qualname for f in syncs}):
            return
        for f in ctx.functions(Side.SAMPLING) + ctx.functions(Side.HANDOFF, kind=HandoffKind.TRAJECTORY):
            sc = ctx.scope_of(f.qualname)
            if sc and _scope_version(sc[0], sc[1], allow_step=False):
                return
        first = ([f for f in syncs if f.reached] or syncs)[0]
        ev = [loc(f, f"weight sync: {f.qualname}") for f in syncs[:8]]
        yield self.finding(
            f"weights reach the sampler through {first.qualname}"
            f"{f' (and {len(syncs) - 1} more)' if len(syncs) > 1 else ''}, but no policy version or training "
            f"step travels with them, so the sampler cannot report which policy it runs",
            loc(first), "unversioned", ev)


RULE = UnversionedWeightSync

"""GYR003: the loop is not online — no path from the parameter update back into the sampler."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Finding, HandoffKind, Severity, Side
from .base import Example, Rule, RuleContext, chain, loc

_BAD = """\
import torch
from vllm import LLM, SamplingParams


def rollout(llm, prompts):
    outs = llm.generate(prompts, SamplingParams(temperature=1.0))
    return [{"input_ids": o.outputs[0].token_ids} for o in outs]


def train(model, llm, prompts, steps):
    optimizer = torch.optim.AdamW(model.parameters())
    for _ in range(steps):
        batch = rollout(llm, prompts)
        loss = model(batch[0]["input_ids"]).loss
        loss.backward()
        optimizer.step()
        # the sampler keeps the initial weights forever


if __name__ == "__main__":
    train(torch.nn.Linear(4, 4), LLM("m"), ["hi"], 10)
"""

_GOOD = """\
import torch
from vllm import LLM, SamplingParams


def rollout(llm, prompts):
    outs = llm.generate(prompts, SamplingParams(temperature=1.0))
    return [{"input_ids": o.outputs[0].token_ids} for o in outs]


def sync_weights(model, llm):
    engine_model = llm.llm_engine.model_executor.driver_worker.model_runner.model
    engine_model.load_weights(model.state_dict().items())


def train(model, llm, prompts, steps):
    optimizer = torch.optim.AdamW(model.parameters())
    for _ in range(steps):
        batch = rollout(llm, prompts)
        loss = model(batch[0]["input_ids"]).loss
        loss.backward()
        optimizer.step()
        sync_weights(model, llm)


if __name__ == "__main__":
    train(torch.nn.Linear(4, 4), LLM("m"), ["hi"], 10)
"""


def path_syncs(ctx: RuleContext) -> list[str]:
    """The weight-sync functions on the reported weight-sync path."""
    fns = ctx.analysis.functions
    return [q for q in ctx.analysis.handoff.weight_sync_path
            if q in fns and fns[q].handoff_kind == HandoffKind.WEIGHT_SYNC]


class LoopNotOnline(Rule):
    id = "GYR003"
    name = "loop-not-online"
    severity = Severity.ERROR
    summary = "No path from the parameter update back into the sampler's weights: the loop is not online."
    rationale = ("Online RL samples with the current policy. If the optimizer updates the trainer's copy of the "
                 "weights and nothing pushes them into the inference engine, every rollout comes from the initial "
                 "policy: the run looks healthy while it learns off-policy from a frozen sampler.")
    fix = ("Push the trainer's parameters into the sampler after each update (load the weights into the engine) "
           "and check the weight carrier first: the group/handle, the names, then the call site.")
    bad = (Example({"train.py": _BAD}, "optimizer steps, the engine never receives the new weights"),)
    good = (Example({"train.py": _GOOD}, "weights are loaded into the engine after each step"),)
    tags = ("handoff", "weight-sync")

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        handoff = ctx.analysis.handoff
        if handoff.online and (not handoff.weight_sync_path or path_syncs(ctx)):
            return  # online, and the path (when given) passes through a weight-sync step
        sampling = chain(ctx, Side.SAMPLING)
        training = chain(ctx, Side.TRAINING)
        if not ctx.functions(Side.SAMPLING) and not ctx.functions(Side.TRAINING) or not sampling or not training:
            return  # GYR001/GYR002 speak about a missing chain
        syncs = ctx.functions(Side.HANDOFF, kind=HandoffKind.WEIGHT_SYNC)
        path_ev = []
        for q in handoff.weight_sync_path:
            f = ctx.analysis.functions.get(q)
            if f is not None:
                path_ev.append(loc(f, f"weight-sync path: {q}"))
        if syncs:
            where = loc(syncs[0])
            msg = (f"weight sync code exists ({syncs[0].qualname}) but no path connects the parameter update to it: "
                   f"the sampler never gets the trained weights")
            ev = path_ev + [loc(f, f"weight sync: {f.qualname}") for f in syncs[:6]]
            key = "broken"
        else:
            pure_t, pure_s = ctx.functions(Side.TRAINING), ctx.functions(Side.SAMPLING)
            trainers = [f for f in pure_t if f.reached] or pure_t or [f for f in training if f.reached] or training
            samplers = [f for f in pure_s if f.reached] or pure_s or [f for f in sampling if f.reached] or sampling
            where = loc(trainers[0])
            msg = (f"no weight sync found: parameters updated in the training chain ({trainers[0].qualname}) "
                   f"never reach the sampler ({samplers[0].qualname})")
            ev = [loc(f, f"training: {f.qualname}") for f in trainers[:4]]
            ev += [loc(f, f"sampling: {f.qualname}") for f in samplers[:4]]
            key = "absent"
        yield self.finding(msg, where, key, ev)


RULE = LoopNotOnline

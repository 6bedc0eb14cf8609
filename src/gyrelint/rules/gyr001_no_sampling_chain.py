"""GYR001: no sampling chain is reachable from any entry point."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Finding, Location, Severity, Side
from .base import Example, Rule, RuleContext, loc

_BAD = """\
import torch


def train(model, batches):
    optimizer = torch.optim.AdamW(model.parameters())
    for batch in batches:
        loss = model(batch["input_ids"]).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    train(torch.nn.Linear(4, 4), [])
"""

_GOOD = """\
import torch
from vllm import LLM, SamplingParams


def rollout(llm, prompts):
    outs = llm.generate(prompts, SamplingParams(temperature=1.0))
    return [{"input_ids": o.outputs[0].token_ids} for o in outs]


def train(model, llm, prompts):
    optimizer = torch.optim.AdamW(model.parameters())
    batch = rollout(llm, prompts)
    loss = model(batch[0]["input_ids"]).loss
    loss.backward()
    optimizer.step()


if __name__ == "__main__":
    train(torch.nn.Linear(4, 4), LLM("m"), ["hi"])
"""


def started_by_reference(ctx: RuleContext, funcs: list) -> bool:
    """Some reached code passes one of ``funcs`` as a value (``Process(target=f)``, ``pool.submit(f)``)."""
    reached_scopes: dict[str, set[str]] = {}
    for f in ctx.analysis.functions.values():
        if f.reached:
            sc = ctx.scope_of(f.qualname)
            if sc:
                reached_scopes.setdefault(sc[0].path, set()).add(sc[1])
    names = {f.qualname.rsplit(".", 1)[-1] for f in funcs}
    for path, scopes in reached_scopes.items():
        s = ctx.summary(path)
        if s is None:
            continue
        for call in s.calls:
            if call.scope not in scopes:
                continue
            for a in list(call.args) + [v for _, v in call.kwargs]:
                if a.kind == "name" and isinstance(a.value, str) and a.value.rsplit(".", 1)[-1] in names:
                    return True
    return False


class NoSamplingChain(Rule):
    id = "GYR001"
    name = "no-sampling-chain"
    severity = Severity.ERROR
    summary = "No sampling chain is reachable from any entry point."
    rationale = ("An online RL run must act with the current policy: some code reachable from the launcher has to "
                 "call the inference engine or environment and produce trajectories. When no entry point reaches "
                 "it, the trainer consumes stale or empty data, or the launcher starts the wrong program.")
    fix = ("Call the rollout (inference engine / environment) from the step loop an entry point runs, "
           "then check the trajectory carrier and its fields reach the trainer.")
    bad = (Example({"train.py": _BAD}, "trains, but nothing samples with the policy"),)
    good = (Example({"train.py": _GOOD}, "the step loop calls the rollout"),)
    tags = ("chains",)

    side = Side.SAMPLING
    other = Side.TRAINING
    what = "sampling"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        mine = ctx.functions(self.side)
        theirs = ctx.functions(self.other)
        drivers = ctx.functions(Side.DRIVER)
        if not mine and not theirs and not drivers:
            return  # neither chain anywhere: not an RL loop, nothing to say
        if any(f.reached for f in mine + drivers):
            return  # a reached driver drives both chains
        if mine and started_by_reference(ctx, mine):
            return  # handed to a process/thread/executor as a target: it runs, the graph lost the edge
        theirs = theirs + drivers
        entries = [e for e in ctx.analysis.entry_points if e.exists]
        entry_ev = [Location(e.source or e.file or ".", max(e.line, 1), f"entry point ({e.found_by}): {e.module or e.file}")
                    for e in entries]
        if mine:
            if ctx.analysis.handoff.online and any(f.reached for f in theirs):
                # the weight-sync path runs from the update to the sampler: the loop is there, and the
                # gap is in what the entry points were seen to call, not in the code
                return
            # point at the function with the most evidence of its own (the optimizer step, the engine call)
            mine = sorted(mine, key=lambda f: (-sum(e.via == "own" for e in f.evidence), not f.reached,
                                               f.file, f.line))
            where = loc(mine[0])
            msg = (f"{self.what} code exists ({mine[0].qualname} and {len(mine) - 1} more) but no entry point "
                   f"reaches it" if len(mine) > 1 else
                   f"{self.what} code exists ({mine[0].qualname}) but no entry point reaches it")
            ev = [loc(f, f"{self.what}: {f.qualname}") for f in mine[:6]] + entry_ev[:6]
            yield self.finding(msg, where, "unreached", ev)
            return
        reached = [f for f in theirs if f.reached] or theirs
        where = loc(reached[0])
        msg = (f"no {self.what} chain found: the {self.other.value} chain ({reached[0].qualname}) has no "
               f"{self.what} counterpart")
        ev = [loc(f, f"{self.other.value}: {f.qualname}") for f in reached[:6]] + entry_ev[:6]
        yield self.finding(msg, where, "absent", ev)


RULE = NoSamplingChain

"""GYR004: a trajectory field read on the training side that nothing produces."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Finding, Location, Severity
from .base import Example, Rule, RuleContext

_BAD = """\
import torch
from vllm import LLM, SamplingParams


def rollout(llm, prompts):
    outs = llm.generate(prompts, SamplingParams(temperature=1.0))
    batch = {}
    batch["input_ids"] = [o.outputs[0].token_ids for o in outs]
    batch["rewards"] = [0.0 for _ in outs]
    return batch


def train_step(model, optimizer, batch):
    logits = model(batch["input_ids"])
    scale = batch["advantages"] / (1.0 + abs(batch["rewards"]))  # nobody writes "advantages"
    loss = -(logits.mean() * scale).mean()
    loss.backward()
    optimizer.step()

def main(model, llm, prompts, steps):
    optimizer = torch.optim.AdamW(model.parameters())
    for _ in range(steps):
        batch = rollout(llm, prompts)
        train_step(model, optimizer, batch)


if __name__ == "__main__":
    main(torch.nn.Linear(4, 4), LLM("m"), ["hi"], 10)
"""

_GOOD = """\
import torch
from vllm import LLM, SamplingParams


def rollout(llm, prompts):
    outs = llm.generate(prompts, SamplingParams(temperature=1.0))
    batch = {}
    batch["input_ids"] = [o.outputs[0].token_ids for o in outs]
    batch["rewards"] = [0.0 for _ in outs]
    return batch


def train_step(model, optimizer, batch):
    logits = model(batch["input_ids"])
    scale = batch["rewards"] / (1.0 + abs(batch["rewards"]))
    loss = -(logits.mean() * scale).mean()
    loss.backward()
    optimizer.step()

def main(model, llm, prompts, steps):
    optimizer = torch.optim.AdamW(model.parameters())
    for _ in range(steps):
        batch = rollout(llm, prompts)
        train_step(model, optimizer, batch)


if __name__ == "__main__":
    main(torch.nn.Linear(4, 4), LLM("m"), ["hi"], 10)
"""


class UnproducedField(Rule):
    id = "GYR004"
    name = "unproduced-trajectory-field"
    severity = Severity.ERROR
    summary = "A trajectory field is read on the training side but nothing produces it."
    rationale = ("The trajectory contract is the set of fields the sampler writes and the trainer reads. A field "
                 "read but never written fails at run time (KeyError/AttributeError) or, worse, silently falls "
                 "back to a default and trains on zeros.")
    fix = ("Check the trajectory fields first: write the field on the sampling side (or in the handoff that "
           "builds the batch), or read the name the sampler actually produces.")
    bad = (Example({"loop.py": _BAD}, "the trainer reads 'advantages', the sampler never writes it"),)
    good = (Example({"loop.py": _GOOD}, "every field the trainer reads is produced"),)
    tags = ("handoff", "trajectory")

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        fields = ctx.analysis.handoff.fields
        if not fields.produced:
            return  # no producer seen at all: the contract is unknown, not broken
        produced = sorted(fields.produced)
        for name in fields.missing:
            for use in fields.consumed.get(name, []):
                where = Location(use.file, max(use.line, 1), f"read in {use.function}")
                ev = [where]
                for p in produced[:5]:
                    first = fields.produced[p][0] if fields.produced[p] else None
                    if first is not None:
                        ev.append(Location(first.file, max(first.line, 1), f"produced: {p} in {first.function}"))
                yield self.finding(
                    f"trajectory field '{name}' is read in {use.function} but never produced by the sampling side "
                    f"(produced: {', '.join(produced[:8])}{', ...' if len(produced) > 8 else ''})",
                    where, f"{name}\0{use.function}", ev)


RULE = UnproducedField

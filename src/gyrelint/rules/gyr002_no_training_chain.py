"""GYR002: no training chain is reachable from any entry point."""

from __future__ import annotations

from ..model import Severity, Side
from .base import Example
from .gyr001_no_sampling_chain import NoSamplingChain

_BAD = """\
from vllm import LLM, SamplingParams


def rollout(llm, prompts):
    outs = llm.generate(prompts, SamplingParams(temperature=1.0))
    return [o.outputs[0].text for o in outs]


if __name__ == "__main__":
    print(rollout(LLM("m"), ["hi"]))
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


class NoTrainingChain(NoSamplingChain):
    id = "GYR002"
    name = "no-training-chain"
    severity = Severity.ERROR
    summary = "No training chain is reachable from any entry point."
    rationale = ("Trajectories are only useful when something consumes them: computes advantages and losses and "
                 "steps the optimizer. When no entry point reaches that code, the run samples forever and the "
                 "policy never changes.")
    fix = ("Call the training step (loss, backward, optimizer step) from the loop an entry point runs, "
           "then check the trajectory carrier and fields it reads.")
    bad = (Example({"generate.py": _BAD}, "samples, but nothing trains on the samples"),)
    good = (Example({"train.py": _GOOD}, "the loop trains on what it samples"),)
    tags = ("chains",)

    side = Side.TRAINING
    other = Side.SAMPLING
    what = "training"


RULE = NoTrainingChain

"""RLX001: a hand-written decoding loop samples tokens while autograd is recording."""

from __future__ import annotations

from collections.abc import Iterator

from gyrelint.index.summary import FileSummary, FunctionDef
from gyrelint.model import Finding, Location, Severity
from gyrelint.rules.base import Example, Rule, RuleContext

# context managers and decorators that stop autograd from recording (torch and its re-exports)
_NO_GRAD = ("no_grad", "inference_mode", "set_grad_enabled")
# token samplers of a hand-written decoding step (torch.multinomial, tensor.multinomial)
_SAMPLERS = ("multinomial",)


def _last(text: str) -> str:
    return text.removesuffix("()").rsplit(".", 1)[-1]


def _sampling_calls(summary: FileSummary, fn: FunctionDef) -> list[int]:
    """Lines where the function's own body samples a token, or [] when it turns grad off."""
    if any(_last(d) in _NO_GRAD for d in fn.decorators):
        return []
    calls = [c for c in summary.calls if c.scope == fn.qualname]
    if any(_last(c.func) in _NO_GRAD for c in calls):
        return []
    return [c.line for c in calls if _last(c.func) in _SAMPLERS]


class SampleWithGrad(Rule):
    id = "RLX001"
    name = "sample-with-grad"
    severity = Severity.WARNING
    summary = "A hand-written decoding loop samples tokens while autograd is recording."
    rationale = ("Rollouts never backpropagate through decoding, but with grad enabled every step's "
                 "forward pass keeps its activations for a backward pass that never comes: rollout "
                 "memory grows with the response length and the batch you can sample shrinks. "
                 "(Library `generate` methods usually turn grad off themselves; a loop of your own does not.)")
    fix = "Wrap the loop in `with torch.no_grad():` (or `torch.inference_mode()`), or decorate the function."
    tags = ("memory", "sampling")
    bad = (Example({"rollout.py": (
        "import torch\n\n\n"
        "def sample(policy, ids, steps):\n"
        "    for _ in range(steps):\n"
        "        probs = policy(ids).logits[:, -1].softmax(-1)\n"
        "        ids = torch.cat([ids, torch.multinomial(probs, 1)], dim=-1)\n"
        "    return ids\n")},
        "a decoding loop under the default grad mode"),)
    good = (Example({"rollout.py": (
        "import torch\n\n\n"
        "def sample(policy, ids, steps):\n"
        "    with torch.no_grad():\n"
        "        for _ in range(steps):\n"
        "            probs = policy(ids).logits[:, -1].softmax(-1)\n"
        "            ids = torch.cat([ids, torch.multinomial(probs, 1)], dim=-1)\n"
        "    return ids\n\n\n"
        "@torch.inference_mode()\n"
        "def sample_eval(policy, ids):\n"
        "    return torch.multinomial(policy(ids).logits[:, -1].softmax(-1), 1)\n")},
        "grad off by a context manager or a decorator"),)

    @classmethod
    def docs_url(cls) -> str:
        return "https://github.com/gyrelint/gyrelint/blob/main/examples/rule-pack/docs/RLX001.md"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for summary in sorted(ctx.summaries(), key=lambda s: s.path):
            for fn in summary.functions:
                for line in _sampling_calls(summary, fn):
                    yield self.finding(f"`{fn.qualname}` samples tokens with autograd recording",
                                       Location(summary.path, line, fn.qualname), key=fn.qualname)

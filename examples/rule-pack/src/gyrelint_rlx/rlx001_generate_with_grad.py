"""RLX001: a function calls ``.generate(...)`` with autograd still recording."""

from __future__ import annotations

from collections.abc import Iterator

from gyrelint.index.summary import FileSummary, FunctionDef
from gyrelint.model import Finding, Location, Severity
from gyrelint.rules.base import Example, Rule, RuleContext

# context managers and decorators that stop autograd from recording (torch and its re-exports)
_NO_GRAD = ("no_grad", "inference_mode", "set_grad_enabled")


def _stops_grad(text: str) -> bool:
    last = text.removesuffix("()").rsplit(".", 1)[-1]
    return last in _NO_GRAD


def _generate_calls(summary: FileSummary, fn: FunctionDef) -> list[int]:
    """Lines of ``x.generate(...)`` in the function's own body, or [] when it turns grad off."""
    if any(_stops_grad(d) for d in fn.decorators):
        return []
    calls = [c for c in summary.calls if c.scope == fn.qualname]
    if any(_stops_grad(c.func) for c in calls):
        return []
    return [c.line for c in calls if c.func.endswith(".generate")]


class GenerateWithGrad(Rule):
    id = "RLX001"
    name = "generate-with-grad"
    severity = Severity.WARNING
    summary = "A rollout calls `.generate(...)` while autograd is recording."
    rationale = ("Sampling never backpropagates through the generation loop, but with grad enabled "
                 "every decoding step keeps its activations for a backward pass that never comes: "
                 "rollout memory grows with the response length and the batch you can sample shrinks.")
    fix = "Wrap the call in `with torch.no_grad():` (or `torch.inference_mode()`), or decorate the function."
    tags = ("memory", "sampling")
    bad = (Example({"rollout.py": (
        "import torch\n\n\n"
        "def sample(policy, prompts):\n"
        "    return policy.generate(prompts, max_new_tokens=256)\n")},
        "generation under the default grad mode"),)
    good = (Example({"rollout.py": (
        "import torch\n\n\n"
        "def sample(policy, prompts):\n"
        "    with torch.no_grad():\n"
        "        return policy.generate(prompts, max_new_tokens=256)\n\n\n"
        "@torch.inference_mode()\n"
        "def sample_eval(policy, prompts):\n"
        "    return policy.generate(prompts)\n")},
        "grad off by a context manager or a decorator"),)

    @classmethod
    def docs_url(cls) -> str:
        return "https://github.com/gyrelint/gyrelint/blob/main/examples/rule-pack/docs/RLX001.md"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for summary in sorted(ctx.summaries(), key=lambda s: s.path):
            for fn in summary.functions:
                for line in _generate_calls(summary, fn):
                    yield self.finding(f"`{fn.qualname}` calls `.generate(...)` with autograd recording",
                                       Location(summary.path, line, fn.qualname), key=fn.qualname)

"""GYR006: the run logs no sampled count, consumed count or training step around the handoff."""

from __future__ import annotations

from collections.abc import Iterator

from ..graphs.symbols import SymbolTable
from ..index.summary import FileSummary
from ..model import Finding, HandoffKind, Location, Severity, Side
from .base import Example, Rule, RuleContext, chain, loc, tokens

# A metric name counts as a counter when its tokens hold one of these shapes.
_ITEMS = {"sample", "samples", "rollout", "rollouts", "trajectory", "trajectories", "traj", "trajs", "episode",
          "episodes", "generation", "generations", "completion", "completions", "sequence", "sequences",
          "experience", "experiences", "response", "responses", "prompt", "prompts"}
_COUNT = {"num", "n", "count", "counts", "total", "cnt", "number", "nb"}
_SAMPLED = {"sampled", "generated", "produced", "collected"}
_CONSUMED = {"consumed", "trained", "seen", "processed", "used"}
_STEP_WORDS = {"global_step", "train_step", "training_step", "update_step", "optimizer_step", "num_updates",
               "policy_version", "weight_version", "model_version", "global_steps", "train_steps"}
_LOG_SINKS = {"log", "log_metrics", "log_dict", "add_scalar", "add_scalars", "info", "debug", "warning", "print",
              "record", "track", "report", "log_stats", "write", "update", "set_postfix", "echo"}
_PROBE = {"sampled": "sampled", "consumed": "consumed", "step": "step"}

COUNTERS = ("sampled", "consumed", "step")
_WHAT = {
    "sampled": "trajectories sampled",
    "consumed": "trajectories consumed by the trainer",
    "step": "training steps",
}


def classify(name: str) -> set[str]:
    """Which of the three counters a metric/key name speaks of (possibly none)."""
    toks = tokens(name)
    if not toks or len(toks) > 8:
        return set()
    out: set[str] = set()
    joined = "_".join(toks)
    ts = set(toks)
    if any(w in joined for w in _STEP_WORDS) or toks == ["step"] or toks[-2:] in (["train", "step"], ["trainer", "step"]) \
            or toks[-1:] == ["steps"] and ts & {"train", "training", "optimizer", "update", "global"}:
        out.add("step")
    if ts & _SAMPLED and (ts & _ITEMS or len(toks) <= 2):
        out.add("sampled")
    if ts & _CONSUMED and (ts & _ITEMS or len(toks) <= 2 or "tokens" in ts):
        out.add("consumed")
    if ts & _ITEMS and ts & _COUNT and not (ts & _CONSUMED):
        # "rollout/num_samples", "n_trajectories": a count of produced items
        out.add("sampled")
    return out


def _names(s: FileSummary) -> Iterator[tuple[str, int]]:
    """Names that may be logged metrics: short string constants, dict keys written, log-call kwargs."""
    for c in s.strings:
        v = c.value
        if len(v) <= 80 and "\n" not in v:
            yield v, c.line
    for sub in s.subscripts:
        if sub.mode == "write":
            yield sub.key, sub.line
    for call in s.calls:
        if call.attr in _LOG_SINKS:
            for k, _ in call.kwargs:
                yield k, call.line
            for a in call.args:
                if a.kind == "lit" and isinstance(a.value, str) and len(a.value) <= 200:
                    for part in a.value.replace("{}", " ").replace(":", " ").replace("=", " ").split():
                        yield part, call.line


def _probe_calls(symbols: SymbolTable, s: FileSummary) -> Iterator[tuple[str, int]]:
    """Calls into gyrelint's own probe (``probe.sampled(n)`` ...), counted without any configuration."""
    bound = {b.name for b in symbols.bindings.get(s.module, ()) if not b.star and b.source.startswith("gyrelint")
             and (b.imported in (None, "probe") or "probe" in b.source)}
    for call in s.calls:
        head = call.func.split(".", 1)[0]
        if head in bound and call.attr in _PROBE:
            yield _PROBE[call.attr], call.line
        elif call.receiver and call.attr in ("sampled", "consumed") and (call.args or call.kwargs):
            # any counter object with a method named after the counter: ``stats.consumed(len(batch))``
            yield call.attr, call.line


def counters_found(ctx: RuleContext) -> dict[str, tuple[str, int, str]]:
    """counter -> (file, line, name) of the first place that logs it."""
    found: dict[str, tuple[str, int, str]] = {}
    for s in ctx.summaries():
        for counter, line in _probe_calls(ctx.symbols, s):
            found.setdefault(counter, (s.path, line, f"probe.{counter}"))
        for name, line in _names(s):
            for counter in classify(name):
                found.setdefault(counter, (s.path, line, name))
        if len(found) == len(COUNTERS):
            break
    try:  # what the semantics stage reports as logged counts too, so `analyze` and `check` agree
        from ..semantics.counters import logged_counters

        theirs = logged_counters(ctx.analysis.index)
        for name, mine in (("sampled", "sampled"), ("consumed", "consumed"), ("steps", "step")):
            for use in theirs.found.get(name, [])[:1]:
                found.setdefault(mine, (use.file, use.line, use.key))
    except Exception:  # noqa: BLE001 - an older or missing semantics stage leaves our own detection
        pass
    return found


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
        print("loss", loss.item())
"""

_GOOD = """\
import logging

import torch
from vllm import LLM, SamplingParams

log = logging.getLogger(__name__)


def rollout(llm, prompts):
    outs = llm.generate(prompts, SamplingParams(temperature=1.0))
    return [{"input_ids": o.outputs[0].token_ids} for o in outs]


def train(model, llm, prompts, steps):
    optimizer = torch.optim.AdamW(model.parameters())
    sampled = consumed = 0
    for global_step in range(steps):
        batch = rollout(llm, prompts)
        sampled += len(batch)
        loss = model(batch[0]["input_ids"]).loss
        loss.backward()
        optimizer.step()
        consumed += len(batch)
        log.info("global_step=%d sampled=%d consumed=%d", global_step, sampled, consumed)
"""


class MissingCounters(Rule):
    id = "GYR006"
    name = "missing-counters"
    severity = Severity.WARNING
    summary = "The run does not log trajectories sampled, trajectories consumed or training steps."
    rationale = ("Three counters verify an online RL run from its log alone: trajectories sampled, trajectories "
                 "consumed, training steps. consumed = 0 while sampled > 0 means the handoff is broken; steps "
                 "that stop increasing mean the link is down. Without them a stalled run looks like a slow one.")
    fix = ("Log the missing counter next to the handoff (e.g. gyrelint.probe.sampled/consumed/step or a metric "
           "key such as num_samples_consumed) so a broken carrier shows as consumed = 0.")
    bad = (Example({"train.py": _BAD}, "logs only the loss"),)
    good = (Example({"train.py": _GOOD}, "logs the step and both trajectory counts"),)
    tags = ("counters",)

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        sampling = chain(ctx, Side.SAMPLING)
        training = chain(ctx, Side.TRAINING)
        if not ctx.functions(Side.SAMPLING) and not ctx.functions(Side.TRAINING) or not sampling or not training:
            return
        found = counters_found(ctx)
        missing = [c for c in COUNTERS if c not in found]
        if not missing:
            return
        drivers = [f for f in ctx.functions(Side.DRIVER) if f.reached] or ctx.functions(Side.DRIVER)
        hand = ctx.functions(Side.HANDOFF, kind=HandoffKind.TRAJECTORY)
        near = (drivers or hand or [f for f in training if f.reached] or training)[0]
        for counter in missing:
            ev = [loc(near, f"handoff/loop: {near.qualname}")]
            ev += [Location(f, ln, f"logs {c}: {name}") for c, (f, ln, name) in sorted(found.items())]
            yield self.finding(f"no log of {_WHAT[counter]} found around the handoff ({near.qualname})",
                               loc(near), counter, ev)


RULE = MissingCounters

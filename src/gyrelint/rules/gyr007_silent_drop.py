"""GYR007: training-side code can skip a whole batch without counting or logging it."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..model import Finding, HandoffKind, Location, Severity, Side
from .base import Example, Rule, RuleContext, loc, norm, tokens

# condition tokens that speak of the data in flight (not of a config flag)
_DATA = {
    "batch", "batches", "data", "sample", "samples", "rollout", "rollouts", "trajectory", "trajectories", "traj",
    "experience", "experiences", "micro", "mb", "minibatch", "mini", "reward", "rewards", "score", "scores",
    "adv", "advantage", "advantages", "mask", "masks", "len", "numel", "nan", "isnan", "isfinite", "isinf", "inf",
    "empty", "size", "shape", "std", "valid", "tokens", "token", "seq", "seqs", "sequence", "sequences",
    "response", "responses", "group", "groups", "item", "items", "prompts", "prompt", "logprobs", "loss", "buffer",
    "queue", "outputs", "output", "episode", "episodes", "count", "num",
}
# the data a whole batch is made of: a condition must read one of these to drop a batch
_BATCH = {
    "batch", "batches", "data", "samples", "rollout", "rollouts", "trajectory", "trajectories", "traj", "trajs",
    "experience", "experiences", "micro", "mb", "minibatch", "mini", "reward", "rewards", "score", "scores", "adv",
    "advantage", "advantages", "group", "groups", "episode", "episodes", "responses", "prompts", "loss", "logprobs",
    "buffer",
}
# conditions that are about mode or configuration, not about the data
_FLAGS = re.compile(r"^(not\s+)?(self\.)?(training|enabled|is_\w+|use_\w+|do_\w+|_?\w*flag\w*|debug|dry_run)$")


# ``x is None``, ``not x``, ``len(x) == 0``: an empty or absent batch has nothing to drop
_EMPTY = re.compile(
    r"^(not\s+)?[\w.\[\]'\"]+(\(\))?(\s+is\s+(not\s+)?None)?$"
    r"|^(len\([^()]*\)|[\w.]+\.(numel|size|__len__)\(\))\s*(==|<=|<)\s*[01]$"
)
# ``k == "name"``, ``"x" in name``, ``k in ("a", "b")``: dispatch on keys, not a filter of data
_KEY_TEST = re.compile(
    r"(==|!=)\s*['\"]|['\"]\s*(not\s+)?in\s|\bin\s*[\(\[{]\s*['\"]|\.keys\(\)"
    r"|^(not\s+)?(key|keys|k|name|field|attr|col|column|domain|tag|metric)\w*\s+(not\s+)?in\s"
)
# ``not out.get(KEY, False)``: a flag looked up in a mapping
_LOOKUP = re.compile(r"^(not\s+)?[\w.\[\]]+\.get\(")
# ``len(window) < n``: waiting for enough items (accumulation), nothing is dropped
_ACCUMULATE = re.compile(r"^len\([^()]*\)\s*<=?\s*[\w.]+$")


def drops_data(condition: str) -> bool:
    cond = norm(condition)
    if _FLAGS.match(cond) or _EMPTY.match(cond) or _KEY_TEST.search(cond) or _ACCUMULATE.match(cond) \
            or _LOOKUP.match(cond):
        return False
    toks = set(tokens(cond))
    if not toks & _BATCH:
        return False
    # rank/world checks ("if rank != 0: return") are about who works, not what is dropped
    if toks & {"rank", "world", "local_rank", "is_main_process", "main"} and not toks & {"batch", "data", "samples"}:
        return False
    return True


_BAD = """\
import torch


def train_epoch(model, optimizer, batches):
    for batch in batches:
        if batch["rewards"].std() == 0:
            continue  # the whole batch vanishes, nobody knows
        loss = model(batch["input_ids"]).loss
        loss.backward()
        optimizer.step()
"""

_GOOD = """\
import logging

import torch

log = logging.getLogger(__name__)


def train_epoch(model, optimizer, batches):
    dropped = 0
    for batch in batches:
        if batch["rewards"].std() == 0:
            dropped += 1
            log.info("dropped batch with constant rewards (%d so far)", dropped)
            continue
        loss = model(batch["input_ids"]).loss
        loss.backward()
        optimizer.step()
"""


class SilentDrop(Rule):
    id = "GYR007"
    name = "silent-batch-drop"
    severity = Severity.WARNING
    summary = "Training-side code can skip or filter a whole batch without counting or logging it."
    rationale = ("When the trainer drops a batch (constant rewards, empty masks, NaNs, over-long sequences) and "
                 "says nothing, 'sampled > consumed' has no explanation in the log and a broken handoff looks "
                 "like filtering. Every drop should be counted or logged where it happens.")
    fix = ("Count or log the dropped batch in this branch (e.g. gyrelint.probe.consumed(0) or a 'dropped' "
           "metric), so sampled vs consumed stays explainable; then check the fields the condition reads.")
    bad = (Example({"train.py": _BAD}, "skips batches with constant rewards silently"),)
    good = (Example({"train.py": _GOOD}, "counts and logs the drop"),)
    tags = ("counters", "trajectory")

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        consumers = ctx.functions(Side.TRAINING, Side.DRIVER)
        consumers += ctx.functions(Side.HANDOFF, kind=HandoffKind.TRAJECTORY)
        # code a run executes: reached from an entry point (when reachability is known at all),
        # and doing training/handoff work itself rather than only being called on that side
        if any(f.reached for f in ctx.analysis.functions.values()):
            consumers = [f for f in consumers if f.reached]
        consumers = [f for f in consumers if any(e.via == "own" for e in f.evidence) or not f.evidence]
        seen: set[tuple[str, int]] = set()
        for f in consumers:
            scope = ctx.scope_of(f.qualname)
            if scope is None:
                continue
            summary, rel = scope
            for skip in summary.skips:
                if skip.scope != rel or skip.logs or skip.kind not in ("continue", "return"):
                    continue
                if not drops_data(skip.condition) or (summary.path, skip.line) in seen:
                    continue
                seen.add((summary.path, skip.line))
                what = "the rest of this call's batch" if skip.kind == "return" else "a batch of the loop"
                where = Location(summary.path, max(skip.line, 1), f"if {norm(skip.condition)}: {skip.kind}")
                yield self.finding(
                    f"{f.side.value}-side {f.qualname} drops {what} when `{norm(skip.condition)[:80]}` "
                    f"({skip.kind}) without counting or logging it",
                    where, f"{f.qualname}\0{skip.kind}\0{norm(skip.condition)}", [where, loc(f)])


RULE = SilentDrop

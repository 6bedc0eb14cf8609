"""Drivers by data flow: the loop that hands what the sampler produced to the trainer.

A one-process step loop calls a generation chain and a training chain, and ``sides`` sees both
callees. A loop over a service or a remote trainer does not: ``groups = await gather(rollouts)``
then ``await model.train(groups)``, where ``train`` is the client end of a trajectory handoff
(an HTTP post, a queue, an actor call) and the optimizer step runs behind it, several weak hops
away. What makes that loop the driver is what moves: the rollouts its own generation call
returned are the argument of the call that carries them to the trainer. This module follows
those values through one body (assignments, loops, unpacking, wrapping calls) over the
value-flow facts of the index; ``sides`` decides what the calls reach.
"""

from __future__ import annotations

from collections.abc import Callable

from ..index.summary import Flow
from .facts import CallFact, FnFacts
from .taint import BodyTaint, call_values, dotted_text

# methods that store their argument in the receiver: ``kept.append(group)`` makes ``kept`` rollouts too
_GROW = frozenset({"append", "extend", "add", "insert", "appendleft", "update", "put", "put_nowait"})


class _Rollouts(BodyTaint):
    """Which names of one body hold what its generation calls returned."""

    def __init__(self, fn: FnFacts, flows: list[Flow], produces: Callable[[CallFact], bool]) -> None:
        super().__init__(flows)
        self.sources = {c.site.func for c in fn.calls if produces(c)}
        self.grows = [c.site.expr for c in fn.calls if c.method in _GROW and isinstance(c.site.expr, tuple)
                      and c.site.expr[:1] == ("c",) and isinstance(c.site.expr[1], tuple)
                      and c.site.expr[1][:1] == ("a",)]

    def call_holds(self, e: tuple, depth: int) -> bool:
        if dotted_text(e[1]) in self.sources:
            return True
        if isinstance(e[1], tuple) and e[1][:1] == ("a",) and self.holds(e[1][1], depth):
            return True  # ``groups.to(device)``, ``results.items()``
        # ``list(groups)``, ``asyncio.gather(gather_groups(...), ...)``, ``filter(ok, groups)``
        return self.args_hold(e, depth)

    def grow(self) -> bool:
        grew = False
        for e in self.grows:
            if any(self.holds(a) for a in e[2]):
                grew |= self.bind(e[1][1])
        return grew


def rollout_fed(fn: FnFacts, flows: list[Flow], produces: Callable[[CallFact], bool]) -> list[CallFact]:
    """The calls of ``fn`` that are handed what its generation calls (``produces``) returned.

    A generation call itself is not counted, nor a call whose rollouts arrive only through its
    receiver (``groups.append(x)`` stores into them; it hands nothing on).
    """
    body = _Rollouts(fn, flows, produces)
    if not body.sources:
        return []
    body.run()
    out: list[CallFact] = []
    for c in fn.calls:
        if c.site.func in body.sources or not isinstance(c.site.expr, tuple):
            continue
        e = c.site.expr
        if e[:1] != ("c",):
            continue
        if any(body.holds(a) for a in call_values(e)):
            out.append(c)
    return out


# where a batch comes from before any generation (see ``facts.prompt_fed``): names so called hold prompts
PROMPT_WORDS = ("prompt", "dataset", "loader", "row", "example", "question", "batch_dict", "raw_batch")
# ... unless the name ends in a word saying it holds a property of them: ``prompt_mask`` marks the prompt
# tokens of sequences already generated, ``prompt_lens`` counts them; neither is a prompt drawn for sampling
_PROPERTY_END = ("mask", "masks", "len", "lens", "length", "lengths", "count", "counts", "idx", "indices",
                 "offset", "offsets", "size", "sizes", "num", "shape", "shapes")


def _prompt_name(name: str) -> bool:
    low = name.lower()
    return any(w in low for w in PROMPT_WORDS) and low.rsplit("_", 1)[-1] not in _PROPERTY_END


class _Prompts(BodyTaint):
    """Which names of one body hold the prompts it drew (names saying so, and what is built from them)."""

    def __init__(self, fn: FnFacts, flows: list[Flow]) -> None:
        seeds = {p for p in fn.params if _prompt_name(p)}
        for fl in flows:
            t = dotted_text(fl.target) if fl.op in ("=", "for", "with") else ""
            if t and _prompt_name(t.rsplit(".", 1)[-1]):
                seeds.add(t)
        super().__init__(flows, seeds)

    def call_holds(self, e: tuple, depth: int) -> bool:
        if isinstance(e[1], tuple) and e[1][:1] == ("a",) and self.holds(e[1][1], depth):
            return True
        return self.args_hold(e, depth)


def prompt_requests(fn: FnFacts, flows: list[Flow], carriers: Callable[[CallFact], bool]) -> list[CallFact]:
    """The calls into a rollout carrier (``carriers``) that ``fn`` hands the prompts it drew:
    ``gen_batch = build(batch_dict); out = self.rollout_client(gen_batch)``."""
    wanted = [c for c in fn.calls if carriers(c) and isinstance(c.site.expr, tuple) and c.site.expr[:1] == ("c",)]
    if not wanted:
        return []
    body = _Prompts(fn, flows)
    if not body.names:
        return []
    body.run()
    return [c for c in wanted if any(body.holds(a) for a in call_values(c.site.expr))]

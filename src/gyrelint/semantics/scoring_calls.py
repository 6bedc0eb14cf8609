"""Library-level checks for three calls whose side follows what moves, not the name.

- A remote reward model: an HTTP request whose *response* has its score field read
  (``json.loads(requests.post(url, json=p).text)["scores"]``) asks a reward server to score
  samples: the rollout path's scoring, wherever the URL comes from. A request that only *sends*
  a reward (a dashboard push) reads nothing back and is no scorer.
- A ``GenerationConfig()`` built with no arguments and only probed with ``hasattr``/``getattr``
  (to drop the keys it does not know) configures no decoding: its setup evidence is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..index.summary import Flow
from .facts import tokens_of
from .taint import BodyTaint, dotted_text

if TYPE_CHECKING:
    from .facts import CallFact, Facts, FnFacts

# rollout-side scoring, not acting with the policy: what the driver and generation tests leave out
SCORING_SIGNALS = frozenset({"reward-scoring", "reward-model-forward", "http-reward-request"})

# the fields a reward server answers with
_SCORE_KEYS = frozenset({"score", "scores", "reward", "rewards"})
_SENDS = frozenset({"post", "apost", "async_post", "_post", "request", "arequest"})
_PROBES = frozenset({"hasattr", "getattr"})


class _Response(BodyTaint):
    """Names holding an HTTP response (or what was parsed from it: ``.json()``, ``json.loads(r.text)``)."""

    def __init__(self, flows: list[Flow], requests: set[str]) -> None:
        super().__init__(flows)
        self.requests = requests

    def call_holds(self, e: tuple, depth: int) -> bool:
        if dotted_text(e[1]) in self.requests:
            return True
        return self.holds(e[1], depth) or self.args_hold(e, depth)


def _score_read(e: object, taint: _Response, depth: int = 0) -> bool:
    """``e`` reads a score field (``x["scores"]``) of a value that holds the response."""
    if not isinstance(e, tuple) or not e or depth > 20:
        return False
    if e[0] == "s" and len(e) == 3 and isinstance(e[2], tuple) and e[2][:1] == ("k",) \
            and e[2][1] in _SCORE_KEYS and taint.holds(e[1]):
        return True
    parts = e[1:] if isinstance(e[0], str) else e  # an expression's operands, or a tuple of arguments
    return any(_score_read(x, taint, depth + 1) for x in parts if isinstance(x, tuple))


def _flows_by_scope(module: str, facts: Facts) -> dict[str, list[Flow]]:
    def compute() -> dict[str, list[Flow]]:
        got: dict[str, list[Flow]] = {}
        summary = facts.summaries.get(module)
        for fl in summary.flows if summary is not None else ():
            got.setdefault(fl.scope, []).append(fl)
        return got
    return facts.memo_class("flows-by-scope", module, compute)


def reward_request(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """The body sends an HTTP request and reads a score field of what came back."""
    from .catalog import _is_http  # the catalog's notion of an HTTP call; it imports this module
    from .facts import MEDIUM

    if not fn.definition.returned or not any(s.mode == "read" and s.key in _SCORE_KEYS for s in fn.subs):
        return ()
    sends = [c for c in fn.calls if c.method in _SENDS and _is_http(c)]
    if not sends:
        return ()
    body = _flows_by_scope(fn.module, facts).get(fn.definition.qualname, [])
    taint = _Response(body, {c.site.func for c in sends})
    taint.run()
    if any(fl.op in ("=", "ret") and _score_read(fl.value, taint) for fl in body):
        return ((sends[0].site.line, MEDIUM),)
    return ()


def decoding_config(c: CallFact, fn: FnFacts, s: float) -> float:
    """A generation config that configures decoding, not an empty one probed for its field names."""
    if c.site.args or c.site.kwargs or c.site.star_args:
        return s
    built = {a.target for a in fn.assigns if a.line == c.site.line and a.value_kind == "call"}
    if not built:
        return s
    uses = [x for x in fn.calls if x is not c and any(a.kind == "name" and a.value in built
                                                       for a in (*x.site.args, *(v for _, v in x.site.kwargs)))]
    if uses and all(x.method in _PROBES for x in uses) and not any(x.site.receiver in built for x in fn.calls):
        return 0.0
    return s


# what a reward model's *training* does with the same forward (the pairwise loss)
_TRAINS = ("loss", "backward", "logsigmoid", "log_sigmoid")


def reward_model_forward(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """A model run whose outputs the body returns as scores or rewards, with no loss: a reward
    model scoring samples (a reward server's handler, the rollout's scorer), not a trainer's forward."""
    from .catalog import _repo_function  # the catalog's test for a repo helper named like a model
    from .facts import MEDIUM
    from .module_api import module_plumbing

    returned = {t for r in fn.definition.returned for t in tokens_of(r)}
    if not returned & _SCORE_KEYS or fn.definition.yields:
        return ()
    text = fn.token_text()
    if any(w in text for w in _TRAINS):
        return ()
    for c in fn.calls:
        if c.obj_role == "hf_model" and c.method != "generate" and not module_plumbing(c.method) \
                and not _repo_function(c, facts):
            if "reward" in c.site.func.lower():
                return ()  # ``self.reward_model(...)``: reward-scoring's own case, not counted twice
            return ((c.site.line, MEDIUM),)
    return ()

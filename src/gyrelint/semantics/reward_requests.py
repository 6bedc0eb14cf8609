"""A request to a deployed reward model: an HTTP send whose reply is read for rewards or scores.

The remote reward model of a rollout is called like any web service (``requests.post(url,
json=...)``); nothing in the call's name says reward. The reply does: the body reads
``["rewards"]`` / ``["score"]`` out of what came back. That is rollout-side scoring of the samples
it sent, like calling a local reward model on them.
"""

from __future__ import annotations

from collections.abc import Callable

from .facts import CallFact, FnFacts

_REPLY_KEYS = frozenset({"reward", "rewards", "score", "scores"})
_SENDS = frozenset({"post", "apost", "async_post", "_post", "request", "arequest", "put"})


def reward_reply_line(fn: FnFacts, is_http: Callable[[CallFact], bool]) -> int | None:
    """The line of an HTTP send in a body that reads a reward or score key out of a reply."""
    if not any(s.mode == "read" and s.key in _REPLY_KEYS for s in fn.subs):
        return None
    for c in fn.calls:
        if c.method in _SENDS and is_http(c):
            return c.site.line
    return None

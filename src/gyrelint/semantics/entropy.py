"""The entropy of the policy's token distribution computed from logits.

``logsumexp(logits) - sum(softmax(logits) * logits)`` (or ``-(p * log_softmax(logits)).sum(-1)``)
is the per-token entropy a policy loss's entropy bonus and its KL guards read; the log-prob
signal (``log_softmax`` + ``gather``) does not see it, since nothing is gathered.
"""

from __future__ import annotations

from .facts import FnFacts


def entropy_from_logits(fn: FnFacts) -> int | None:
    """The line of the softmax of an entropy-shaped body: a softmax next to a logsumexp or a
    log-softmax, summed over the vocabulary."""
    called = fn.called()
    soft = [c for c in fn.calls if c.method == "softmax"]
    if not soft or not (called & {"logsumexp", "log_softmax"}) or not (called & {"sum"}):
        return None
    return soft[0].site.line

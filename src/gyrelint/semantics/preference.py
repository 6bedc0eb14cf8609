"""Pairwise preference losses written without the usual loss calls.

DPO is often spotted by its ``logsigmoid``; its relatives are not: a hinge (``relu(1 - beta * m)``),
a squared or softplus margin over the same quantity, the difference between the policy's and the
reference's chosen-minus-rejected log-probs. The shape is general: a body that handles chosen and
rejected log-probs and puts them through a loss non-linearity is an offline preference objective,
training by its body. Reward-model accuracy and logging of the same values use comparisons and
means, not these functions.
"""

from __future__ import annotations

from .facts import FnFacts

_PAIR = frozenset({"chosen", "rejected"})
_LOGPROB = frozenset({"logps", "logp", "logprobs", "logratios", "logratio"})
_MARGIN_FNS = frozenset({"relu", "softplus", "logsigmoid", "log_sigmoid", "sigmoid", "hinge_embedding_loss"})


def preference_margin_line(fn: FnFacts) -> int | None:
    """Line of the loss non-linearity applied in a body over chosen/rejected log-probs, or None."""
    toks = fn.tokens()
    if not _PAIR <= toks or not (toks & _LOGPROB or {"log", "probs"} <= toks):
        return None
    for c in fn.calls:
        if c.method in _MARGIN_FNS and any(n.startswith("torch.") for n in c.names):
            return c.site.line
    return None

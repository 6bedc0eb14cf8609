"""A forward pass whose logits only become predictions: an evaluation, not the trainer's forward.

A multiple-choice evaluator runs the model, softmaxes the logits of the answer letters and
returns the ``argmax`` as the predicted letter. Nothing of it is a log-prob, a value or a loss
a trainer could use; the trainer's forward keeps the log-probs (``log_softmax``, ``gather``) or
the loss. A greedy decoding loop also takes an ``argmax``, but it is recognised before this test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .facts import FnFacts

# what a trainer's forward keeps of the outputs (substrings of the body's identifiers)
_KEPT = ("logprob", "log_prob", "logp", "log_softmax", "gather", "loss", "entropy", "value", "backward", "kl")


def predicts_only(fn: FnFacts) -> bool:
    """The body takes an ``argmax`` of the model's outputs and keeps no log-prob, value or loss."""
    if "argmax" not in fn.called():
        return False
    text = fn.token_text()
    return not any(k in text for k in _KEPT)

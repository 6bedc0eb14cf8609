"""Bodies that only run a tokenizer or processor over their input.

``def tokenize_fn(self, texts, max_length): return {k: v.to(d) for k, v in self.tokenizer(texts).items()}``
turns text into ids for whoever calls it: the sampler before generating, the trainer before a
forward pass, evaluation, data loading. Called only from the sampler today, it is still data
preparation, no side's code (the generation inputs pass leaves encoders alone for the same reason).
"""

from __future__ import annotations

from .facts import FnFacts

ENCODERS = frozenset({"tokenizer", "tokenize", "processor", "tokenizers", "processors", "encode", "batch_encode_plus",
                      "encode_plus", "apply_chat_template"})
# what an encoder's caller does with the encoding: move it, unpack it, measure it
_PLUMBING = frozenset({"to", "items", "keys", "values", "get", "cuda", "cpu", "len", "dict", "list", "tuple", "pop",
                       "squeeze", "unsqueeze", "tolist"})


def encodes_only(fn: FnFacts) -> bool:
    """Every call of the body is a tokenizer/processor call or plumbing of its result, one at least an encoder."""
    encoders = 0
    for c in fn.calls:
        last = c.site.func.rsplit(".", 1)[-1]
        if last in ENCODERS or c.method in ENCODERS:
            encoders += 1
        elif c.method not in _PLUMBING and last not in _PLUMBING:
            return False
    return encoders > 0

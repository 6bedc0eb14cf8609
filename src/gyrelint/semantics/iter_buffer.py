"""A store the trainer iterates: a class that appends what it is handed and serves it by ``__iter__``.

A replay buffer is found by its draw (``random.sample(self.items, n)``, ``pop``). An on-policy
buffer often has none: it collects the iteration's minibatches and is handed to the training loop
as its data loader, which iterates it (``def __iter__(self): return iter(self.buffer)``). The
iteration is the draw when the same list is where some method stores experience; a list wrapper
that stores names, hooks or handles is still no buffer.
"""

from __future__ import annotations

from .facts import FnFacts

_ITER_DRAWS = frozenset({"iter", "enumerate"})


def iteration_draw(fn: FnFacts, grown: set[str]) -> tuple[int, str] | None:
    """``__iter__`` returning ``iter(self.<list>)`` (or iterating it) for one of the grown lists."""
    if fn.definition.name != "__iter__":
        return None
    for c in fn.calls:
        if c.method not in _ITER_DRAWS or c.site.receiver is not None:
            continue
        for a in c.site.args:
            if isinstance(a.value, str) and a.value.startswith("self.") and a.value[5:] in grown:
                return c.site.line, a.value[5:]
    return None


def batch_word(word: str) -> bool:
    """A compound batch name the underscore split leaves whole (``minibatch``, ``microbatches``)."""
    return word.endswith(("batch", "batches")) and word not in ("batch", "batches")

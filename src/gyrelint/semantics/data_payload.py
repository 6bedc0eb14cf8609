"""A broadcast payload the body builds from plain Python data is no parameter.

``dist.broadcast(t, src)`` is how trainers push weights, and also how launchers share a string, a
length or a flag across ranks: ``t = torch.LongTensor([len(encoded)])``. When the tensor sent is a
local made here by a data constructor (``torch.tensor``, ``as_tensor``, ``LongTensor``,
``ByteTensor``...) from lists, lengths or encoded text, what moves is data, whatever the
``tensor`` word in its name says. A buffer allocated by shape (``torch.empty(shape)``) is left
alone: that is how a receiver takes weights off a broadcast.
"""

from __future__ import annotations

import re

from .facts import CallFact, FnFacts

# constructors that copy Python data into a tensor (typed legacy constructors included)
_DATA_CTOR = re.compile(r"^(tensor|as_tensor|from_numpy|frombuffer|[A-Z][a-z]*Tensor)$")
# plain builtins, text helpers and rank queries that may sit next to the constructor on the same
# line (``torch.ByteTensor(list(data)) if dist.get_rank() == src else ...``)
_PLAIN = frozenset({"len", "list", "tuple", "bytes", "bytearray", "int", "float", "str", "encode", "ord", "range",
                    "get_rank", "get_world_size", "item"})


def built_from_data(fn: FnFacts, name: str) -> bool:
    """Every assignment of the local ``name`` is a data constructor call over plain values."""
    if not name or name in fn.params or "." in name:
        return False
    lines = {a.line for a in fn.assigns if a.target == name}
    if not lines:
        return False
    for line in lines:
        calls = [c for c in fn.calls if c.site.line == line]
        if not any(_DATA_CTOR.match(c.method) for c in calls):
            return False
        if not all(_DATA_CTOR.match(c.method) or c.method in _PLAIN for c in calls):
            return False
    return True


def sends_data(c: CallFact, fn: FnFacts) -> bool:
    """The first argument of the send is a local built from plain data (see ``built_from_data``)."""
    first = c.site.args[0] if c.site.args else c.site.kwarg("tensor")
    return first is not None and first.kind == "name" and isinstance(first.value, str) \
        and built_from_data(fn, first.value)

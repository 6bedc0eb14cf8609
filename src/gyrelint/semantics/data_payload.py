"""A broadcast payload the body builds from plain Python data is no parameter.

``dist.broadcast(t, src)`` is how trainers push weights, and also how launchers share a string, a
length or a flag across ranks: ``t = torch.LongTensor([len(encoded)])``. When the tensor sent is a
local made here by a data constructor (``torch.tensor``, ``as_tensor``, ``LongTensor``,
``ByteTensor``...) from lists, lengths or encoded text, what moves is data, whatever the
``tensor`` word in its name says. A buffer allocated by shape (``torch.empty(shape)``) is left
alone: that is how a receiver takes weights off a broadcast. The one exception is the leader /
follower pair of a model-parallel group: when the same local is built from data on the sending
branch and allocated empty on the receiving branch, both ends share that data (row ids, shapes).
"""

from __future__ import annotations

import re

from .facts import CallFact, FnFacts, tokens_of

# constructors that copy Python data into a tensor (typed legacy constructors included)
_DATA_CTOR = re.compile(r"^(tensor|as_tensor|from_numpy|frombuffer|[A-Z][a-z]*Tensor)$")
# plain builtins, text helpers and rank queries that may sit next to the constructor on the same
# line (``torch.ByteTensor(list(data)) if dist.get_rank() == src else ...``)
_PLAIN = frozenset({"len", "list", "tuple", "bytes", "bytearray", "int", "float", "str", "encode", "ord", "range",
                    "get_rank", "get_world_size", "item", "cuda", "cpu", "current_device"})
# allocations by shape: how the non-source ranks receive what the source rank built
_ALLOC = frozenset({"empty", "zeros", "ones", "full"})


def built_from_data(fn: FnFacts, name: str, before: int | None = None) -> bool:
    """Every assignment of the local ``name`` is a data constructor call over plain values, or,
    next to one, an allocation by shape (the receiving ranks' buffer). With ``before`` (the send's
    line) only assignments above it count, and an earlier value that a later tensor-making
    assignment replaces (``ids = fetch(...)`` then ``ids = torch.tensor(ids).cuda()``) is input to
    that tensor, not what is sent."""
    if not name or name in fn.params or "." in name:
        return False
    lines = sorted({a.line for a in fn.assigns if a.target == name and (before is None or a.line < before)})
    if not lines:
        return False
    kinds = [made_by(fn, line) for line in lines]
    last_made = max((i for i, k in enumerate(kinds) if k), default=-1)
    if last_made < 0 or any(not k for k in kinds[last_made + 1:]):
        return False  # nothing sent here is made by a constructor, or a plain value rebinds it last
    made = [k for k in kinds if k]
    return "data" in made  # an empty buffer alone is a receiver's, maybe of weights


def made_by(fn: FnFacts, line: int) -> str:
    """``data`` for a data constructor over plain values on the line, ``alloc`` for an allocation by
    shape, else ``""``."""
    calls = [c for c in fn.calls if c.site.line == line]
    if any(_DATA_CTOR.match(c.method) for c in calls) \
            and all(_DATA_CTOR.match(c.method) or c.method in _PLAIN for c in calls):
        return "data"
    if any(c.method in _ALLOC for c in calls) and all(c.method in _ALLOC or c.method in _PLAIN for c in calls):
        return "alloc"
    return ""


def sends_data(c: CallFact, fn: FnFacts) -> bool:
    """The first argument of the send is a local built from plain data (see ``built_from_data``)."""
    first = c.site.args[0] if c.site.args else c.site.kwarg("tensor")
    return first is not None and first.kind == "name" and isinstance(first.value, str) \
        and built_from_data(fn, first.value, c.site.line)


# what a rollout batch is called; an entry of one (``batch_data[key]``) is a rollout column
_BATCH_WORDS = frozenset({"batch", "data", "experience", "experiences", "rollout", "rollouts", "sample", "samples",
                          "trajectory", "trajectories", "prompts", "responses"})
_WEIGHT_WORDS = frozenset({"param", "params", "parameters", "named_parameters", "weight", "weights", "state_dict",
                           "model", "bucket", "buckets"})
# device moves on the payload: ``batch[key].cuda()`` still sends ``batch[key]``
_MOVES = (".cuda", ".cpu", ".contiguous", ".to")


def sends_batch_entry(c: CallFact) -> bool:
    """The send's payload is a local batch or an entry of one (``batch_data[key].cuda()``): the ranks
    of a model-parallel group sharing rollout columns, not a weight push. Weight pushes send
    parameters (``param.data``, ``state_dict[name]``), which name no batch."""
    first = c.site.args[0] if c.site.args else c.site.kwarg("tensor")
    if first is None or first.kind not in ("name", "call") or not isinstance(first.value, str):
        return False
    text = first.value
    while text.endswith(_MOVES):
        text = text.rsplit(".", 1)[0]
    if "." in text.replace("[]", "") or "(" in text:
        return False  # an attribute chain or a computed value: not a plain local entry
    root = text.split("[", 1)[0]
    words = set(tokens_of(root))
    return bool(words & _BATCH_WORDS) and not words & _WEIGHT_WORDS

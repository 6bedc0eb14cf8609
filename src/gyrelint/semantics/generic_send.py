"""Collectives that send whatever the caller hands them: no weights of their own.

A helper such as ``def share(tensor, src=0): dist.broadcast(tensor, src); return tensor`` puts
its own parameter on the wire. Whether that is a weight push depends on what each caller passes
(a seed, a flag, a batch, a parameter), which the payload check (``payload.py``) follows across
the call. The helper's body alone is no weight-sync evidence, and a caller that only broadcasts a
random seed through it must not inherit any.
"""

from __future__ import annotations

from .facts import CallFact, FnFacts

# keyword names a collective takes its payload under
_PAYLOAD_KWARGS = ("tensor", "tensors", "tensor_list", "obj", "object_list")


def generic_tensor_send(c: CallFact, fn: FnFacts) -> bool:
    """The collective's payload is a plain parameter of the calling body (``broadcast(tensor, ...)``)."""
    sent = c.site.args[0] if c.site.args else None
    if sent is None:
        sent = next((a for k, a in c.site.kwargs if k in _PAYLOAD_KWARGS), None)
    if sent is None or sent.kind != "name" or not isinstance(sent.value, str):
        return False
    return sent.value in fn.params


# positional index of ``group`` in torch.distributed's broadcasts
_GROUP_AT = {"broadcast": 2, "broadcast_object_list": 2}


def world_group_collective(c: CallFact) -> bool:
    """``dist.broadcast(t, src)`` with no group: a broadcast to every rank of the default (world)
    group, which the launcher made of the training ranks; weights reach an engine over a group created
    for the purpose (``group=self._update_group``) or an engine's own communicator, so such a
    broadcast makes the training ranks agree (loaded weights, seeds). Point-to-point sends stay
    crossings: a relay (a parameter server) can be one extra rank of the default group, addressed
    by ``dst``."""
    at = _GROUP_AT.get(c.method)
    if at is None or not any(n.startswith("torch.distributed.") for n in c.names):
        return False
    return len(c.site.args) <= at and not c.site.star_args and not any(k == "group" for k, _ in c.site.kwargs)

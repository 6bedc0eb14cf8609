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

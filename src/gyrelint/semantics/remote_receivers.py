"""The receiving end of a rank-to-rank weight push: the method the sender starts before it sends.

A trainer that ships its parameters to another process over a collective (``dist.send(v, dst)``
per tensor, or a broadcast) first asks the receiving actor to post the matching receives
(``server.receive_all.remote()``), then sends. The receiving method's body is only
``dist.recv(buf, src)`` into the buffers it keeps: no parameter named, nothing loaded into a module,
so neither the catalog nor the payload check sees it. What joins the two is the call: a repo
method started over ``.remote`` by a solid weight-sync body that itself sends over a typed
collective, and whose own body receives over one, is the weight sync's other end.

Precision: only a body with no side of its own is labelled; the sender must send over a library
collective (``torch.distributed``, a PyNccl communicator, ...) in the same body, and the target
must receive over one: a remote call to a logger or a lock from the same sender stays neutral. An
untyped handle's call counts when its name guess has one candidate.
Applied after propagation: it passes nothing up.
"""

from __future__ import annotations

from ..graphs.model import EXACT
from ..model import Evidence, HandoffKind, Side
from .facts import CallFact, Facts
from .sides import SideResult

RECEIVER = "collective-receiver"  # the evidence kind

_SEND = frozenset({"send", "isend", "broadcast", "scatter", "batch_isend_irecv"})
_RECV = frozenset({"recv", "irecv", "broadcast", "batch_isend_irecv"})


def _typed(c: CallFact) -> bool:
    """A library's collective (canonical names known or the receiver typed as a communicator)."""
    return (bool(c.names) and not any(n.startswith("<builtin>") for n in c.names)) or c.role == "pg_comm"


def remote_receivers(facts: Facts, results: dict[str, SideResult]) -> None:
    """Label the methods a collective weight sender starts over ``.remote`` and that receive."""
    for q in sorted(facts.functions):
        r = results.get(q)
        fn = facts.functions[q]
        if r is None or r.side != Side.HANDOFF or r.kind != HandoffKind.WEIGHT_SYNC or not r.solid:
            continue
        if not any(c.method in _SEND and _typed(c) for c in fn.calls):
            continue
        for c in fn.calls:
            if not c.ray or (c.kind != EXACT and len(c.targets) != 1):
                continue  # a name guess counts when it has one candidate: the receive in it guards the rest
            for t in c.targets:
                tf, tr = facts.functions.get(t), results.get(t)
                if tf is None or tr is None or tr.side != Side.NEUTRAL or tr.has_own or facts.out_of_scope(tf.module):
                    continue
                line = next((x.site.line for x in tf.calls if x.method in _RECV and _typed(x)), None)
                if line is None:
                    continue
                tr.side, tr.kind, tr.solid = Side.HANDOFF, HandoffKind.WEIGHT_SYNC, True
                tr.evidence = tr.evidence + [Evidence(RECEIVER, tf.file, line, f"caller:{q}")]

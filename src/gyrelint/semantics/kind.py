"""The handoff kind of a bare transport follows what its neighbours on the call graph move.

A ZMQ socket, a shared-memory buffer, a pipe or an object collective carries whatever it is
given: rollouts in one framework, buckets of parameters in the next (issue 14 item 4, pattern N).
The catalog can only say "transport"; it files such evidence as trajectory by default. When a
function's handoff evidence is a bare transport and nothing in its own body or on the call
graph around it carries rollouts, while the handoff functions that call it or that it calls move
weights, it is part of the weight sync: the receiver's socket set-up under a method that loads
what arrives, the shared buffer a weight sender fills. One weight-sync neighbour against no
trajectory neighbour decides; a transport both kinds use keeps the trajectory kind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..model import HandoffKind, Side
from .facts import Facts
from .sides import DECAY_EXACT, SideResult
from .signals import HANDOFF, TRAJECTORY, WEIGHT_SYNC

# catalog signals that only say "something crosses here", whatever it is
TRANSPORTS = frozenset({"zmq-socket", "zmq-transport", "shared-memory", "object-collective", "pipe-transport",
                        "ray-put", "queue-put", "queue-get", "kv-store-batch", "message-broker-batch"})
_UNCHECKED = frozenset({"zmq-socket", "zmq-transport", "shared-memory", "pipe-transport"})
ROUNDS = 6  # a receiver's socket set-up sits two or three calls below the method that loads the weights


def bare_transport(r: SideResult) -> bool:
    """Labelled trajectory handoff on transport evidence alone: no batch type, no rollout carrier."""
    if r.side != Side.HANDOFF or r.kind != HandoffKind.TRAJECTORY:
        return False
    own = [m for m in r.own_matches if m.signal.side == HANDOFF and m.signal.kind == TRAJECTORY
           and not m.signal.guard]
    if not own or any(m.signal.id not in TRANSPORTS or m.signal.container for m in own):
        return False
    o = r.origins.get(TRAJECTORY)
    return o is None or not o.container


def echo_source(r: SideResult) -> str | None:
    """The callee a trajectory label was inherited from, when the body has no handoff evidence of its own."""
    if r.side != Side.HANDOFF or r.kind != HandoffKind.TRAJECTORY or r.own.get(TRAJECTORY):
        return None
    o = r.origins.get(TRAJECTORY)
    if o is None or o.container or not o.via.startswith("callee:"):
        return None
    return o.via[len("callee:"):]


def settle_transport_kind(facts: Facts, edges: Mapping[str, Mapping[str, float]],
                          sides: dict[str, SideResult], anchors: frozenset[str] = frozenset()) -> list[str]:
    """Relabel bare transports whose users move weights; returns those relabelled, sorted.

    The users are the firm callers: what a carrier carries is what its callers hand it or take
    from it, its callees are its own mechanism. A caller counts for the weight sync when it has
    weight-sync evidence of its own (a push, a load into the engine, in its body or a closure it
    defines) or was settled here, not one inherited from another function; any other
    trajectory-handoff caller, decided or not, keeps the trajectory kind. A function labelled
    only by what it inherits from a bare transport (an echo) is settled the same way, and
    follows that transport when it turns out to carry weights. ``anchors`` are weight-sync
    functions decided by other evidence than their own body (the implementations of a
    weight-sync interface, ``siblings.py``): they count as such a caller.
    """
    firm = DECAY_EXACT * 0.85
    callers: dict[str, set[str]] = {}
    for q, row in edges.items():
        for t, d in row.items():
            if d >= firm and t != q:
                callers.setdefault(t, set()).add(q)
    bare = {q for q, r in sides.items() if q in facts.functions and bare_transport(r)}
    echo: dict[str, str] = {}  # echo -> the bare transport (or echo) it inherits its label from
    grown = True
    while grown:
        grown = False
        for q, r in sides.items():
            src = None if q in bare or q in echo or q not in facts.functions else echo_source(r)
            if src is not None and (src in bare or src in echo):
                echo[q] = src
                grown = True
    changed: set[str] = set()

    def flip(q: str) -> None:
        r = sides[q]
        r.kind = HandoffKind.WEIGHT_SYNC
        r.own[WEIGHT_SYNC] = max(r.own.get(WEIGHT_SYNC, 0.0), r.own.pop(TRAJECTORY, 0.0))
        changed.add(q)

    for _ in range(ROUNDS):
        flipped = []
        for q in sorted((bare | set(echo)) - changed):
            w = t = 0
            for n in callers.get(q, set()):
                nr = sides.get(n)
                if nr is None or nr.side != Side.HANDOFF:
                    continue  # other sides use both kinds
                if n in changed or (n in anchors and nr.kind == HandoffKind.WEIGHT_SYNC):
                    w += 1
                elif _echoes(n, q, echo):
                    # labelled by this very transport: only the weight sync it does besides counts
                    w += _anchored(n, nr)
                elif nr.kind == HandoffKind.WEIGHT_SYNC and _anchored(n, nr):
                    w += 1
                elif nr.kind == HandoffKind.TRAJECTORY:
                    t += 1
            if w and not t:
                flipped.append(q)
        if not flipped:
            break
        for q in flipped:
            flip(q)
    _weight_modules(facts, sides, bare | set(echo), changed, flip)
    grown = bool(changed)
    while grown:
        grown = False
        for q in sorted(echo):
            if q not in changed and echo[q] in changed:
                flip(q)
                grown = True
    return sorted(changed)


def _weight_modules(facts: Facts, sides: dict[str, SideResult], open_: set[str], changed: set[str],
                    flip: Callable[[str], None]) -> None:
    """Bare transports left undecided in a module that only moves weights carry weights.

    A weight-transfer module (a checkpoint engine, a bucketed sender and receiver) opens its
    sockets in set-up methods no weight-sync caller reaches by a call (``__init__``): when every
    function of the module that takes a side is a handoff, one at least is an anchored weight
    sync and none is a decided trajectory handoff, its remaining sockets and shared buffers (the
    transports matched whatever they carry) are the weight sync.
    A module with any sampling, training or driver function (a rollout worker that both receives
    weights and ships rollouts) is left as it is.
    """
    by_module: dict[str, list[str]] = {}
    for q, r in sides.items():
        fn = facts.functions.get(q)
        if fn is not None and r.side != Side.NEUTRAL:
            by_module.setdefault(fn.module, []).append(q)
    for _, qs in sorted(by_module.items()):
        left = [q for q in qs if q in open_ and q not in changed and _unchecked(sides[q])]
        if not left:
            continue
        rs = [(q, sides[q]) for q in qs]
        if any(r.side != Side.HANDOFF for _, r in rs):
            continue
        if any(r.kind == HandoffKind.TRAJECTORY and q not in open_ for q, r in rs):
            continue
        if any(r.kind == HandoffKind.WEIGHT_SYNC and (q in changed or _anchored(q, r)) for q, r in rs):
            for q in sorted(left):
                flip(q)


def _unchecked(r: SideResult) -> bool:
    """Its transport evidence carries no payload check (a queue, the object store or an object
    collective are matched for rollout-like payloads only; a socket or shared buffer for any)."""
    ids = {m.signal.id for m in r.own_matches if m.signal.side == HANDOFF}
    return ids <= _UNCHECKED


def _anchored(q: str, r: SideResult) -> bool:
    """Weight-sync evidence of the body's own, or of a closure defined inside it (a per-bucket callback)."""
    if r.own.get(WEIGHT_SYNC):
        return True
    o = r.origins.get(WEIGHT_SYNC)
    return o is not None and o.via.startswith(f"callee:{q}.")


def _echoes(n: str, q: str, echo: Mapping[str, str]) -> bool:
    """``n`` inherits its trajectory label, over a chain of echoes, from ``q``."""
    seen = set()
    while n in echo and n not in seen:
        seen.add(n)
        n = echo[n]
        if n == q:
            return True
    return False

"""Implementations of one repo interface method do one job: the silent ones take the job's side.

A framework declares ``send_weights`` once on a base class and implements it per transport:
over NCCL (a broadcast the catalog knows), over a transfer library nothing in the catalog
names, over a key-value store reached through a client object. Or it declares ``score`` on a
base grader and implements it per task: one calls a model, the others parse text. The
implementations the catalog recognises take their side; the rest, doing the same job with
other tools, stay neutral, or worse, a bare socket in one of them makes it a trajectory handoff.

The interface is the evidence: the concrete overrides of one root method (the topmost repo
class that defines the name, with at most ``MAX_MEMBERS`` overriding subclasses) vote with the
sides they took from their own bodies and helpers. When at least two vote and every vote agrees,
the members left without a side (and, for a weight-sync interface, the members labelled only by a
bare transport) take that side, with ``interface-consensus`` evidence; a voter's own bases do
not (the default a voter extends with ``super()`` is not what the voter adds). Abstract declarations,
stubs that call nothing, test doubles, reporters, service helpers, layout getters and dunders
other than ``__call__`` take nothing. Sides lent by the override dispatch do not vote (they
say which caller reached the family, not what the member does).
"""

from __future__ import annotations

from ..model import Evidence, HandoffKind, Side
from .dispatch import DISPATCH_EVIDENCE, children_of, defining, family_method
from .facts import Facts, abstract
from .kind import bare_transport, echo_source
from .sides import SideResult
from .signals import SAMPLING, TRAINING, TRAJECTORY, WEIGHT_SYNC

CONSENSUS_EVIDENCE = "interface-consensus"
MAX_MEMBERS = 12  # more implementations than this: a framework-wide root, the name says little
MIN_VOTES = 2

_Vote = tuple[Side, HandoffKind | None]
_VOTABLE = frozenset({(Side.SAMPLING, None), (Side.TRAINING, None), (Side.HANDOFF, HandoffKind.WEIGHT_SYNC),
                      (Side.HANDOFF, HandoffKind.TRAJECTORY)})
_KEY = {Side.SAMPLING: SAMPLING, Side.TRAINING: TRAINING}


def interface_consensus(facts: Facts, results: dict[str, SideResult]) -> list[str]:
    """Give the silent implementations of an agreed interface its side. Returns them, sorted."""
    children = children_of(facts)
    out: list[str] = []
    for root, name in _roots(facts, children):
        members = _members(root, name, facts, children)
        if len(members) < MIN_VOTES or len(members) > MAX_MEMBERS:
            continue
        votes: dict[_Vote, list[str]] = {}
        open_: list[str] = []
        for q in members:
            r = results.get(q)
            if r is None:
                continue
            v = _vote(q, r)
            if v is not None:
                votes.setdefault(v, []).append(q)
            elif _silent(q, r, facts):
                open_.append(q)
        if len(votes) != 1 or not open_:
            continue
        (side, kind), voters = next(iter(votes.items()))
        key = _KEY.get(side) or (WEIGHT_SYNC if kind == HandoffKind.WEIGHT_SYNC else TRAJECTORY)
        if len(voters) < MIN_VOTES:
            continue
        bases = {b for v in voters for b in facts.mro(facts.functions[v].cls or "")[1:]}
        for q in open_:
            r = results[q]
            if facts.functions[q].cls in bases:
                continue  # a voter's own base: the default it extends (``super()``), not a sibling
            if r.side == Side.HANDOFF and kind != HandoffKind.WEIGHT_SYNC:
                continue  # a bare transport among rollout-side or training implementations: leave it
            if r.side == Side.NEUTRAL and any(v > 0 and k != key for k, v in r.own.items()):
                continue  # its own body says something else, however faintly
            fn = facts.functions[voters[0]]
            r.side, r.kind = side, kind
            r.evidence = [*r.evidence, Evidence(CONSENSUS_EVIDENCE, fn.file, fn.line, f"sibling:{voters[0]}")]
            out.append(q)
    return sorted(out)


def _roots(facts: Facts, children: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(class, method) pairs where the class is the topmost repo class defining the method and has subclasses."""
    got: list[tuple[str, str]] = []
    for cq in sorted(children):
        cf = facts.classes.get(cq)
        if cf is None or facts.out_of_scope(cf.module):
            continue
        above = facts.mro(cq)[1:]
        for name in sorted(cf.methods):
            if not family_method(name):
                continue
            if any(name in facts.classes[b].methods for b in above if b in facts.classes):
                continue
            got.append((cq, name))
    return got


def _members(root: str, name: str, facts: Facts, children: dict[str, list[str]]) -> list[str]:
    """The concrete implementations of ``root.name``: the root's own unless abstract, and every
    subclass's override, in scope, each once; empty past ``MAX_MEMBERS``."""
    found: list[str] = []
    for q in defining(root, name, facts, children, include_self=True):
        fn = facts.functions[q]
        if facts.out_of_scope(fn.module) or abstract(fn):
            continue
        found.append(q)
        if len(found) > MAX_MEMBERS:
            return []
    return sorted(found)


def _vote(q: str, r: SideResult) -> _Vote | None:
    """The side a member took by what it does; None for no side, a bare transport or a lent side."""
    v = (r.side, r.kind if r.side == Side.HANDOFF else None)
    if v not in _VOTABLE:
        return None
    if r.side == Side.HANDOFF and r.kind == HandoffKind.TRAJECTORY and (bare_transport(r) or echo_source(r)):
        return None
    if any(e.signal in (DISPATCH_EVIDENCE, CONSENSUS_EVIDENCE) for e in r.evidence):
        return None
    return v


def _silent(q: str, r: SideResult, facts: Facts) -> bool:
    """A member that may take the family's side: neutral (or a bare transport), a body that does something."""
    fn = facts.functions[q]
    if not (fn.calls or fn.definition.returned):
        return False
    if r.side == Side.NEUTRAL:
        return True
    return r.side == Side.HANDOFF and r.kind == HandoffKind.TRAJECTORY and (bare_transport(r) or
                                                                          echo_source(r) is not None)

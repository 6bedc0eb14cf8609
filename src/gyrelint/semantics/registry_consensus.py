"""Functions one registry lookup dispatches to do one job: the silent ones take the job's side.

A trainer keeps its advantage estimators (or losses, or reward graders) in a dict a registering
decorator fills, and calls the one the config names: ``ESTIMATORS[name](**inputs)``. The
resolver follows the lookup to every registered function. The ones whose bodies the catalog
recognises (a GAE recursion, a group normalisation) take their side; the others, doing the same
job in other words (a leave-one-out baseline, a best-minus-second score), stay neutral, and so
does the one-line dispatcher: its call spreads over all of them, too thin to pass a side up.

The registry is the evidence, as the interface is for :mod:`.siblings`: the functions one call on
a subscript (``table[key](...)``) reaches vote with the sides they took from their own bodies and
helpers. When at least two vote and every vote agrees, the members left without a side take that
side, with ``registry-consensus`` evidence, and so does the dispatching body when it has no
evidence of its own and none of its other callees says otherwise. Members that are out of scope,
stubs, service helpers or dunders take nothing; sides lent by the override dispatch or a consensus
do not vote. Applied on the final sides: it passes nothing up.
"""

from __future__ import annotations

from ..model import Evidence, HandoffKind, Side
from .facts import CallFact, Facts
from .siblings import _silent, _vote
from .sides import SideResult, service_helper
from .signals import SAMPLING, TRAINING, TRAJECTORY, WEIGHT_SYNC

REGISTRY_EVIDENCE = "registry-consensus"
MIN_VOTES = 2

_Vote = tuple[Side, HandoffKind | None]


def registry_consensus(facts: Facts, results: dict[str, SideResult]) -> list[str]:
    """Give the silent members of an agreed registry, and its neutral dispatcher, their side. Returns them."""
    out: list[str] = []
    for q in sorted(facts.functions):
        fn = facts.functions[q]
        if facts.out_of_scope(fn.module) or q not in results:
            continue
        for c in fn.calls:
            members = _members(c, q, facts)
            if len(members) < MIN_VOTES:
                continue
            agreed = _agreed(members, results)
            if agreed is None:
                continue
            (side, kind), voter = agreed
            ev = Evidence(REGISTRY_EVIDENCE, fn.file, c.site.line, f"registry:{voter}")
            for m in members:
                r = results[m]
                if (r.side == Side.NEUTRAL or _vote(m, r) is None) and _silent(m, r, facts) and not _other_own(r, side, kind) \
                        and not service_helper(facts.functions[m].definition.name):
                    _label(r, side, kind, ev)
                    out.append(m)
            r = results[q]
            if r.side == Side.NEUTRAL and not r.has_own and _callees_agree(fn, members, side, kind, results):
                _label(r, side, kind, ev)
                out.append(q)
    return sorted(set(out))


def _members(c: CallFact, caller: str, facts: Facts) -> list[str]:
    """The repo functions a call on a subscript (``table[key](...)``) reaches, in scope, each once."""
    e = c.site.expr
    if not (isinstance(e, tuple) and e[:1] == ("c",) and isinstance(e[1], tuple) and e[1][:1] == ("s",)):
        return []
    got: list[str] = []
    for t in c.targets:
        tf = facts.functions.get(t)
        if tf is None or t == caller or facts.out_of_scope(tf.module) or tf.definition.name.startswith("__"):
            continue
        if t not in got:
            got.append(t)
    return sorted(got)


def _agreed(members: list[str], results: dict[str, SideResult]) -> tuple[_Vote, str] | None:
    """The one side at least two members took by what they do, and a voter; None when they disagree."""
    votes: dict[_Vote, list[str]] = {}
    for m in members:
        r = results.get(m)
        v = _vote(m, r) if r is not None else None
        if v is not None and not any(e.signal == REGISTRY_EVIDENCE for e in r.evidence):
            votes.setdefault(v, []).append(m)
    if len(votes) != 1:
        return None
    v, voters = next(iter(votes.items()))
    return (v, voters[0]) if len(voters) >= MIN_VOTES else None


def _key(side: Side, kind: HandoffKind | None) -> str:
    if side == Side.SAMPLING:
        return SAMPLING
    if side == Side.TRAINING:
        return TRAINING
    return WEIGHT_SYNC if kind == HandoffKind.WEIGHT_SYNC else TRAJECTORY


def _other_own(r: SideResult, side: Side, kind: HandoffKind | None) -> bool:
    """Its own body says something else, however faintly."""
    key = _key(side, kind)
    return any(v > 0 and k != key for k, v in r.own.items())


def _callees_agree(fn, members: list[str], side: Side, kind: HandoffKind | None,
                   results: dict[str, SideResult]) -> bool:
    """Every repo callee of the dispatcher outside the registry is neutral or on the registry's side."""
    inside = set(members)
    for c in fn.calls:
        for t in c.targets:
            r = results.get(t)
            if t in inside or r is None or t == fn.qualname:
                continue
            if r.side != Side.NEUTRAL and (r.side, r.kind if r.side == Side.HANDOFF else None) != (side, kind):
                return False
    return True


def _label(r: SideResult, side: Side, kind: HandoffKind | None, ev: Evidence) -> None:
    r.side, r.kind = side, kind if side == Side.HANDOFF else None
    r.evidence = [*r.evidence, ev]

"""What a change (a fork, a branch, a release) moved in the online-RL loop: two analyses in,
one frozen report out.

Pure functions over two :class:`~gyrelint.analysis.Analysis` records; exporting the revisions
(``gitrev``) and rendering the report (``render.diff``) live elsewhere. A loop regresses when a
chain is no longer reached, when the weight-sync path stops passing through a weight-sync step,
or when a weight-sync step the loop relied on loses its call: the push itself disappeared (the
function is no longer a weight-sync step) or a caller that reached it calls it at fewer places.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .model import Finding, FunctionReport, HandoffKind, KeyEntry, Location, Side

if TYPE_CHECKING:
    from .analysis import Analysis

CROSS_CLASSES = ("process", "port", "comm", "layout")  # the key classes that decide the process layout


@dataclass(frozen=True, slots=True)
class KeyChange:
    """A listed key both revisions declare, with another value at its definition."""

    name: str
    cls: str
    before: str | None
    after: str | None
    file: str  # the head's definition
    line: int


@dataclass(frozen=True, slots=True)
class SideChange:
    qualname: str
    before: str
    after: str
    file: str
    line: int


@dataclass(frozen=True, slots=True)
class DiffReport:
    base: str
    head: str
    side_changes: tuple[SideChange, ...] = ()
    boundary_added: tuple[str, ...] = ()
    boundary_removed: tuple[str, ...] = ()
    online_before: bool = False
    online_after: bool = False
    weight_sync: str = "unchanged"  # "broken" | "restored" | "changed" | "unchanged"
    path_before: tuple[str, ...] = ()
    path_after: tuple[str, ...] = ()
    keys_added: tuple[KeyEntry, ...] = ()
    keys_removed: tuple[KeyEntry, ...] = ()
    keys_changed: tuple[KeyChange, ...] = ()
    verdict_before: str = "unknown"
    verdict_after: str = "unknown"
    new_findings: tuple[Finding, ...] = ()
    fixed_findings: int = 0
    chains_lost: tuple[str, ...] = ()
    chains_gained: tuple[str, ...] = ()
    sync_lost: tuple[Finding, ...] = ()  # GYR003 at each function whose weight-sync call disappeared

    @property
    def regressed(self) -> bool:
        return self.weight_sync == "broken" or bool(self.chains_lost)


def chains(a: Analysis) -> set[str]:
    """The chains (sampling, training) some entry point reaches."""
    out = set()
    for side in (Side.SAMPLING, Side.TRAINING):
        if any(f.side == side and f.reached for f in a.functions.values()):
            out.add(side.value)
    return out


def online(a: Analysis) -> bool:
    """Online, and the weight-sync path (when one is given) still passes through a weight-sync step."""
    if not a.handoff.online:
        return False
    path = a.handoff.weight_sync_path
    return not path or any(q in a.functions and a.functions[q].handoff_kind == HandoffKind.WEIGHT_SYNC
                           for q in path)


def _is_sync(f: FunctionReport | None) -> bool:
    return f is not None and f.side == Side.HANDOFF and f.handoff_kind == HandoffKind.WEIGHT_SYNC


def _callers(a: Analysis, q: str) -> dict[str, list[int]]:
    """Functions that call ``q`` by an exact edge of ``a``'s call graph, each with its call lines."""
    g = a.graphs.calls
    if q not in g:
        return {}
    return {u: sorted(d.get("lines") or [0]) for u, d in g.pred[q].items()
            if u in a.functions and d.get("kind") != "weak"}


def lost_syncs(base: Analysis, head: Analysis) -> list[Finding]:
    """GYR003 at each function of ``head`` where a weight-sync step of ``base`` lost its call.

    A reached weight-sync step of the base is lost when, in the head, the function is gone or no
    longer a weight-sync step (its push was removed: the finding is at the function), or when a
    reached caller calls it at fewer places than before (a call replaced or deleted: the finding
    is at the caller). A push that moved (the head reaches a weight-sync step the base did not
    have) is a change, not a loss."""
    from .rules.gyr003_loop_not_online import RULE

    rule = RULE()
    base_syncs = sorted(q for q, f in base.functions.items() if _is_sync(f) and f.reached)
    moved = [q for q, f in head.functions.items() if _is_sync(f) and f.reached and not _is_sync(base.functions.get(q))]
    if not base_syncs or moved:
        return []
    out: list[Finding] = []
    for q in base_syncs:
        old, new = base.functions[q], head.functions.get(q)
        if not _is_sync(new):
            ev = [Location(e.file, max(e.line, 1), f"in the base: {e.signal}") for e in old.evidence if e.via == "own"]
            where = Location(new.file, max(new.line, 1), q) if new is not None else Location(old.file, old.line, q)
            what = "no longer pushes weights" if new is not None else "was removed"
            out.append(rule.finding(f"{q} {what}: it was a weight-sync step of the online loop, so the sampler "
                                    f"never receives new weights", where, f"lost\0{q}", [where, *ev]))
            continue
        now = _callers(head, q)
        for caller, lines in sorted(_callers(base, q).items()):
            f, kept = head.functions.get(caller), len(now.get(caller, ()))
            if kept >= len(lines) or not base.functions[caller].reached:
                continue
            if f is None:  # the caller itself was deleted: a loss only when nothing else reaches the sync
                if not new.reached:
                    where = Location(new.file, max(new.line, 1), q)
                    out.append(rule.finding(f"{q} is no longer reached: {caller}, which called it, was removed, so "
                                            f"the sampler never receives new weights", where,
                                            f"orphan\0{caller}\0{q}", [where]))
                continue
            where = Location(f.file, max(f.line, 1), caller)
            ev = [where, *(Location(base.functions[caller].file, max(ln, 1), f"in the base: calls {q}")
                           for ln in lines),
                  Location(new.file, max(new.line, 1), f"weight sync: {q}")]
            msg = (f"{caller} no longer calls the weight sync {q}: the sampler never receives new weights from it"
                   if not kept else
                   f"{caller} calls the weight sync {q} at {kept} place{'s' if kept != 1 else ''} instead of {len(lines)}: where the call "
                   f"was removed, the sampler never receives the new weights")
            out.append(rule.finding(msg, where, f"dropped\0{caller}\0{q}", ev))
    return out


def _keys(a: Analysis) -> dict[tuple[str, str], KeyEntry]:
    """The listed cross-process and layout knobs, one per key (``Topology.keys``, at its definition):
    a key mentioned at one more place is no change, a flipped value is."""
    return {(k.name, k.cls): k for k in a.topology.keys if k.cls in CROSS_CLASSES and not k.scope}


def compare(base: Analysis, head: Analysis, base_label: str, head_label: str) -> DiffReport:
    """What moved in the loop from ``base`` to ``head``."""
    side_changes = []
    for q, new in sorted(head.functions.items()):
        old = base.functions.get(q)
        if old is not None and old.side != new.side:
            side_changes.append(SideChange(q, old.side.value, new.side.value, new.file, new.line))
    bb, hb = set(base.boundary_modules), set(head.boundary_modules)
    lost = lost_syncs(base, head)
    online_before, online_after = online(base), online(head) and not lost
    path_before, path_after = tuple(base.handoff.weight_sync_path), tuple(head.handoff.weight_sync_path)
    status = "unchanged"
    if online_before and not online_after:
        status = "broken"
    elif online_after and not online_before:
        status = "restored"
    elif path_before != path_after:
        status = "changed"

    kb, kh = _keys(base), _keys(head)
    old_fps = {f.fingerprint for f in base.findings}
    new_fps = {f.fingerprint for f in head.findings}
    cb, ch = chains(base), chains(head)
    return DiffReport(
        base=base_label, head=head_label, side_changes=tuple(side_changes),
        boundary_added=tuple(sorted(hb - bb)), boundary_removed=tuple(sorted(bb - hb)),
        online_before=online_before, online_after=online_after, weight_sync=status,
        path_before=path_before, path_after=path_after,
        keys_added=tuple(k for key, k in sorted(kh.items()) if key not in kb),
        keys_removed=tuple(k for key, k in sorted(kb.items()) if key not in kh),
        keys_changed=tuple(KeyChange(k.name, k.cls, kb[key].value, k.value, k.file, k.line)
                           for key, k in sorted(kh.items()) if key in kb and kb[key].value != k.value),
        verdict_before=base.topology.verdict, verdict_after=head.topology.verdict,
        new_findings=tuple(f for f in head.findings if f.fingerprint not in old_fps),
        fixed_findings=len(old_fps - new_fps),
        chains_lost=tuple(sorted(cb - ch)), chains_gained=tuple(sorted(ch - cb)),
        sync_lost=tuple(lost),
    )

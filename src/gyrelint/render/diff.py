"""``gyrelint diff`` as JSON (``gyrelint-diff/1``), terminal text or a Markdown PR comment."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..escape import json_safe, md_text, term, term_block
from .paths import REPO_RELATIVE, PathContext

if TYPE_CHECKING:
    from ..compare import DiffReport, KeyChange
    from ..model import Finding, KeyEntry

_MAX_ROWS = 200


def _key(k: KeyEntry) -> dict[str, Any]:
    return {"key": k.name, "class": k.cls, "value": k.value, "file": k.file, "line": k.line}


def _changed(k: KeyChange) -> dict[str, Any]:
    return {"key": k.name, "class": k.cls, "before": k.before, "after": k.after, "file": k.file, "line": k.line}


def _finding(f: Finding) -> dict[str, Any]:
    return {"rule": f.rule, "severity": f.severity.value, "message": f.message, "file": f.file, "line": f.line,
            "fix": f.fix, "fingerprint": f.fingerprint}


def to_json(r: DiffReport) -> dict[str, Any]:
    """The diff as plain data; every string valid Unicode. Fields are only ever added."""
    return json_safe({
        "schema": "gyrelint-diff/1",
        "base": r.base,
        "head": r.head,
        "regressed": r.regressed,
        "side_changes": [{"qualname": c.qualname, "before": c.before, "after": c.after, "file": c.file,
                          "line": c.line} for c in r.side_changes],
        "boundary_modules": {"added": list(r.boundary_added), "removed": list(r.boundary_removed)},
        "weight_sync": {"status": r.weight_sync, "online_before": r.online_before, "online_after": r.online_after,
                        "path_before": list(r.path_before), "path_after": list(r.path_after),
                        "lost": [_finding(f) for f in r.sync_lost]},
        "topology": {"verdict_before": r.verdict_before, "verdict_after": r.verdict_after,
                     "keys_added": [_key(k) for k in r.keys_added], "keys_removed": [_key(k) for k in r.keys_removed],
                     "keys_changed": [_changed(k) for k in r.keys_changed]},
        "chains": {"lost": list(r.chains_lost), "gained": list(r.chains_gained)},
        "new_findings": [_finding(f) for f in r.new_findings],
        "fixed_findings": r.fixed_findings,
    })


def render_text(r: DiffReport, markdown: bool = False, paths: PathContext | None = None) -> str:
    """The diff for a terminal or, with ``markdown``, a PR comment; repo text escaped for either,
    files shown through ``paths`` (default: repo-relative)."""
    loc = (paths or REPO_RELATIVE).loc
    e = md_text if markdown else term
    h = (lambda s: f"#### {s}") if markdown else (lambda s: f"{s}:")
    b = "- " if markdown else "  "
    out = [("### " if markdown else "") + f"gyrelint diff {e(r.base)} -> {e(r.head)}"]
    status = "REGRESSED" if r.regressed else "no loop regression"
    out.append(f"{'**' if markdown else ''}{status}{'**' if markdown else ''}")
    if r.chains_lost:
        out.append(f"{b}chain lost: {', '.join(map(e, r.chains_lost))} (no longer reached from any entry point)")
    if r.chains_gained:
        out.append(f"{b}chain gained: {', '.join(map(e, r.chains_gained))}")
    ws = {"broken": "weight-sync path BROKEN: the loop was online and is not any more",
          "restored": "weight-sync path restored: the loop is online again",
          "changed": "weight-sync path changed", "unchanged": "weight-sync path unchanged"}[r.weight_sync]
    out.append(f"{b}{ws} (online {str(r.online_before).lower()} -> {str(r.online_after).lower()})")
    for f in r.sync_lost:
        out.append(f"{b}  {e(loc(f.file, f.line))}: {e(f.rule)} [{f.severity.value}] {e(f.message)}")
    if r.weight_sync in ("changed", "broken", "restored") and r.path_before != r.path_after:
        out.append(f"{b}  before: {' -> '.join(map(e, r.path_before)) or '(none)'}")
        out.append(f"{b}  after:  {' -> '.join(map(e, r.path_after)) or '(none)'}")
    if r.verdict_before != r.verdict_after:
        out.append(f"{b}topology: {e(r.verdict_before)} -> {e(r.verdict_after)}")
    sections = [
        ("functions whose side changed", [f"{e(c.qualname)}: {e(c.before)} -> {e(c.after)} ({e(loc(c.file, c.line))})"
                                          for c in r.side_changes]),
        ("boundary modules added", [e(m) for m in r.boundary_added]),
        ("boundary modules removed", [e(m) for m in r.boundary_removed]),
        ("cross-process config keys added", [f"{e(k.name)} ({e(k.cls)}) = {e(str(k.value))} ({e(loc(k.file, k.line))})"
                                             for k in r.keys_added]),
        ("cross-process config keys removed", [f"{e(k.name)} ({e(k.cls)}) = {e(str(k.value))} ({e(loc(k.file, k.line))})"
                                               for k in r.keys_removed]),
        ("cross-process config keys changed", [f"{e(k.name)} ({e(k.cls)}) {e(str(k.before))} -> {e(str(k.after))} "
                                               f"({e(loc(k.file, k.line))})" for k in r.keys_changed]),
        ("new findings", [f"{e(loc(f.file, f.line))}: {e(f.rule)} [{f.severity.value}] {e(f.message)}"
                          for f in r.new_findings]),
    ]
    for title, rows in sections:
        if rows:
            out.append(h(f"{title} ({len(rows)})"))
            out += [f"{b}{x}" for x in rows[:_MAX_ROWS]]
            if len(rows) > _MAX_ROWS:
                out.append(f"{b}... {len(rows) - _MAX_ROWS} more")
    if r.fixed_findings:
        out.append(f"{r.fixed_findings} finding(s) fixed")
    return term_block("\n".join(out))

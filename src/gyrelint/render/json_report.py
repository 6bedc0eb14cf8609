"""The ``gyrelint/1`` JSON report: a contract, so fields are only ever added."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..escape import json_safe
from ..model import COUNTERS

if TYPE_CHECKING:
    from ..analysis import Analysis
    from ..model import KeyEntry

SCHEMA = "gyrelint/1"


def to_report(a: Analysis) -> dict[str, Any]:
    """The report as plain data; every string valid Unicode (see ``escape.json_safe``)."""
    return json_safe(_report(a))


def _module(m: Any, scopes: dict[str, Any]) -> dict[str, Any]:
    out = {"module": m.module, "side": m.side.value, "boundary": m.boundary}
    got = scopes.get(m.module)
    if got is not None:  # only where not product: the field is additive
        out["scope"], out["scope_reason"] = got.scope, got.reason
    return out


def _ignored(a: Analysis) -> dict[str, Any]:
    """What the analysis left out of the answers (indexed for name resolution only)."""
    from ..index.scope import VENDORED, counts, vendored_roots

    index = a.index
    left_out = [s for p, s in index.scopes.items() if index.out_of_scope(p)]
    vendored = {p: s for p, s in index.scopes.items() if s.scope == VENDORED}
    reasons = {s.reason.split(" in ", 1)[1].split("/:", 1)[0]: s.reason for s in vendored.values()}
    return {**counts(left_out), "include_tests": index.include_tests, "vendored_trees": vendored_roots(vendored),
            "vendored_reasons": dict(sorted(reasons.items()))}


def _report(a: Analysis) -> dict[str, Any]:
    h = a.handoff
    modules = a.index.files.modules
    scopes = {modules[p]: s for p, s in a.index.scopes.items() if p in modules}
    t = a.topology
    return {
        "schema": SCHEMA,
        "root": a.given_root,
        "entry_points": [
            {"module": e.module, "file": e.file, "found_by": e.found_by, "source": e.source, "line": e.line,
             "command": e.command, "function": e.function, "exists": e.exists}
            for e in a.entry_points
        ],
        "functions": [
            {
                "qualname": f.qualname,
                "file": f.file,
                "line": f.line,
                "side": f.side.value,
                "handoff_kind": f.handoff_kind.value if f.handoff_kind else None,
                "reached": f.reached,
                "evidence": [{"signal": e.signal, "file": e.file, "line": e.line, "via": e.via} for e in f.evidence],
            }
            for f in sorted(a.functions.values(), key=lambda f: (f.file, f.line, f.qualname))
        ],
        "modules": [_module(m, scopes) for m in a.modules],
        # what "reached" means: from the entry points, or from the package's public API when no
        # entry point reaches the RL loop (a library without a launcher)
        "reach_roots": a.reach_roots,
        "ignored": _ignored(a),
        "boundary_modules": list(a.boundary_modules),
        "handoff": {
            "trajectory": list(h.trajectory),
            "weight_sync": list(h.weight_sync),
            "online": h.online,
            "weight_sync_path": list(h.weight_sync_path),
            "fields": {
                "produced": sorted(h.fields.produced),
                "consumed": sorted(h.fields.consumed),
                "missing": h.fields.missing,
                "missing_locations": {
                    name: [{"file": u.file, "line": u.line, "function": u.function} for u in h.fields.consumed[name]]
                    for name in h.fields.missing
                },
            },
        },
        "topology": {
            "verdict": t.verdict,
            "reasons": list(t.reasons),
            "colocated": t.colocated,
            "config_keys": [
                {"key": k.key, "class": k.cls, "value": k.value, "file": k.file, "line": k.line, "reason": k.reason,
                 "source": k.source}
                for k in t.config_keys
            ],
            "code_evidence": [
                {"signal": c.signal, "file": c.file, "line": c.line, "detail": c.detail} for c in t.code_evidence
            ],
            "trajectory_transport": t.trajectory_transport,
            "weight_transport": t.weight_transport,
            "link_checks": [{"signal": c.signal, "file": c.file, "line": c.line, "detail": c.detail} for c in t.link_checks],
            "keys": [key_entry_json(e) for e in t.keys],
            "folded": dict(sorted(t.folded.items())),
        },
        "findings": [
            {
                "rule": f.rule,
                "severity": f.severity.value,
                "message": f.message,
                "file": f.file,
                "line": f.line,
                "fix": f.fix,
                "evidence": [{"file": e.file, "line": e.line, "note": e.note} for e in f.evidence],
                "fingerprint": f.fingerprint,
            }
            for f in a.findings
        ],
        "counters": {
            **{name: [{"key": u.key, "file": u.file, "line": u.line} for u in a.counters.found.get(name, ())]
               for name in COUNTERS},
            "missing": a.counters.missing,
        },
        "diagnostics": [{"file": d.file, "line": d.line, "message": d.message, "kind": d.kind} for d in a.diagnostics],
        "stats": {
            "files": a.stats.files,
            "parsed": a.stats.parsed,
            "cached": a.stats.cached,
            "functions": a.stats.functions,
            "seconds": a.stats.seconds,
        },
    }


def key_entry_json(e: KeyEntry) -> dict[str, Any]:
    """One config knob of the topology: where it is declared, its class and why, and its uses."""
    return {"name": e.name, "class": e.cls, "value": e.value, "default": e.default, "type": e.type,
            "file": e.file, "line": e.line, "declared_as": e.declared_as, "definition": e.definition,
            "evidence": e.evidence, "why": e.why, "uses": e.uses,
            "where": [{"file": w.file, "line": w.line, "note": w.note} for w in e.where],
            "scope": e.scope, "aliases": list(e.aliases)}

"""Text and JSON (schema ``gyrelint-logcheck/1``) views of a verdict."""

from __future__ import annotations

from typing import Any

from .verdict import Verdict

SCHEMA = "gyrelint-logcheck/1"
MARK = {"ok": "ok", "problem": "PROBLEM", "unknown": "?"}


def to_dict(verdict: Verdict, files: list[str], profile: str) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "files": files,
        "profile": profile,
        "status": verdict.status,
        "headline": verdict.headline,
        "exit_code": verdict.exit_code,
        "threshold": verdict.threshold,
        "counters": verdict.counters,
        "checks": [
            {"id": c.id, "status": c.status, "message": c.message, "hint": c.hint,
             "evidence": [{"file": e.file, "line": e.line, "text": e.text} for e in c.evidence]}
            for c in verdict.checks
        ],
    }


def _n(v: Any) -> str:
    if v is None:
        return "-"
    return str(int(v)) if float(v).is_integer() else f"{v:.3g}"


def counters_line(verdict: Verdict) -> str:
    c = verdict.counters
    parts = []
    for name in ("sampled", "consumed", "step"):
        info = c[name]
        parts.append(f"{name}={_n(info['total']) if info['present'] else 'n/a'}")
    pv = c["policy_version"]
    parts.append(f"policy_version={_n(pv['first'])}->{_n(pv['last'])}" if pv["present"] else "policy_version=n/a")
    return "counters: " + "  ".join(parts)


def to_text(verdict: Verdict) -> str:
    title = {"healthy": "HEALTHY", "problem": "PROBLEM", "inconclusive": "INCONCLUSIVE",
             "no-counters": "NO COUNTERS"}[verdict.status]
    out = [f"logcheck: {title}: {verdict.headline}", counters_line(verdict)]
    for c in verdict.checks:
        out.append(f"  [{MARK[c.status]:>7}] {c.id:<8} {c.message}")
        if c.status == "problem" and c.hint:
            out.append(f"            what to check: {c.hint}")
        elif c.status == "unknown" and c.hint:
            out.append(f"            to check it: {c.hint}")
        for e in c.evidence:
            out.append(f"            {e.file}:{e.line}: {e.text}")
    return "\n".join(out)


def follow_line(verdict: Verdict, elapsed: float) -> str:
    return f"[+{elapsed:6.1f}s] {verdict.status.upper()}: {verdict.headline} | {counters_line(verdict)}"

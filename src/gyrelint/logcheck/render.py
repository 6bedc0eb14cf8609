"""Text, Markdown and JSON (schema ``gyrelint-logcheck/1``) views of a verdict.

Everything that came from a log or a file name is escaped for its sink: ``terminal`` for text
(control characters visible, no line a CI runner reads as a ``::command::``), backslash escapes
and fenced code for Markdown, JSON escapes (ASCII only) for JSON.
"""

from __future__ import annotations

from typing import Any

from .escape import markdown_code, markdown_text, terminal, visible
from .verdict import Verdict

SCHEMA = "gyrelint-logcheck/1"
MARK = {"ok": "ok", "problem": "PROBLEM", "unknown": "?"}
TITLE = {"healthy": "HEALTHY", "problem": "PROBLEM", "inconclusive": "INCONCLUSIVE", "no-counters": "NO COUNTERS"}


def to_dict(verdict: Verdict, files: list[str], profile: str) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "files": [visible(f) for f in files],
        "profile": profile,
        "status": verdict.status,
        "headline": visible(verdict.headline),
        "exit_code": verdict.exit_code,
        "threshold": verdict.threshold,
        "missing": verdict.missing,
        "counters": verdict.counters,
        "checks": [
            {"id": c.id, "status": c.status, "message": visible(c.message), "hint": visible(c.hint),
             "evidence": [{"file": e.file, "line": e.line, "text": e.text} for e in c.evidence]}
            for c in verdict.checks
        ],
        "notes": [visible(n) for n in verdict.notes],
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
    out = [f"logcheck: {TITLE[verdict.status]}: {verdict.headline}", counters_line(verdict)]
    for c in verdict.checks:
        out.append(f"  [{MARK[c.status]:>7}] {c.id:<8} {c.message}")
        if c.status == "problem" and c.hint:
            out.append(f"            what to check: {c.hint}")
        elif c.status == "unknown" and c.hint:
            out.append(f"            to check it: {c.hint}")
        for e in c.evidence:
            out.append(f"            {e.file}:{e.line}: {e.text}")
    out += [f"note: {n}" for n in verdict.notes]
    return terminal("\n".join(out))


def to_markdown(verdict: Verdict, files: list[str]) -> str:
    """A report for a CI job summary or a pull-request comment."""
    out = [f"### logcheck: {TITLE[verdict.status]}", "", markdown_text(verdict.headline), "",
           f"Logs: {', '.join(markdown_text(f) for f in files)}  ", markdown_text(counters_line(verdict)), "",
           "| check | status | finding |", "|---|---|---|"]
    for c in verdict.checks:
        out.append(f"| {c.id} | {MARK[c.status]} | {markdown_text(c.message)} |")
    for c in verdict.checks:
        if not (c.evidence or (c.hint and c.status != "ok")):
            continue
        out += ["", f"**{c.id}**" + (f": {markdown_text(c.hint)}" if c.hint and c.status != "ok" else "")]
        if c.evidence:
            out += ["", markdown_code([f"{e.file}:{e.line}: {e.text}" for e in c.evidence])]
    if verdict.notes:
        out += [""] + [f"- note: {markdown_text(n)}" for n in verdict.notes]
    return terminal("\n".join(out))


def follow_line(verdict: Verdict, elapsed: float) -> str:
    return terminal(f"[+{elapsed:6.1f}s] {verdict.status.upper()}: {verdict.headline} | {counters_line(verdict)}")

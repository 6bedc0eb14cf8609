"""Findings as Markdown, sized for a pull-request comment.

Repo text lands in a PR comment, so it goes through ``escape.md_text`` / ``md_code``: no table
break, link, image, HTML tag or ``@mention`` can come from the analyzed repo."""

from __future__ import annotations

from collections import Counter

from ..escape import md_code, md_message, md_text, url_path
from ..model import Finding
from ..rules import BY_ID
from .paths import REPO_RELATIVE, PathContext, prose

_ICON = {"error": "🔴", "warning": "🟠", "info": "🔵"}
MAX_ROWS = 100


def render_markdown(findings: list[Finding], title: str = "gyrelint", link: str | None = None,
                    paths: PathContext = REPO_RELATIVE) -> str:
    """A heading, a one-line tally, and one table row per finding (what, where, what to do).
    ``link`` is a repository URL, so its targets stay repo-relative; the shown text follows ``paths``."""
    lines = [f"### {md_text(title)}", ""]
    if not findings:
        lines.append("No findings: the sampling chain, training chain and handoff look consistent.")
        return "\n".join(lines) + "\n"
    tally = Counter(f.severity.value for f in findings)
    lines.append(", ".join(f"{_ICON[s]} {tally[s]} {s}" for s in ("error", "warning", "info") if tally[s]))
    lines += ["", "| | Rule | Where | Finding | What to do |", "|---|---|---|---|---|"]
    for f in findings[:MAX_ROWS]:
        rule = BY_ID.get(f.rule)
        rid = f"[{f.rule}]({rule.docs_url()})" if rule else md_text(f.rule)
        where = md_code(paths.loc(f.file, f.line))
        if link:
            where = f"[{md_text(paths.show(f.file))}:{f.line}](<{link.rstrip('/')}/{url_path(f.file)}#L{f.line}>)"
        lines.append(f"| {_ICON[f.severity.value]} | {rid} | {where} | {md_message(prose(paths, f.message))} | {md_message(f.fix)} |")
    if len(findings) > MAX_ROWS:
        lines.append(f"\n…and {len(findings) - MAX_ROWS} more (run `gyrelint check` locally for all).")
    details = [f for f in findings[:MAX_ROWS] if len(f.evidence) > 1]
    if details:
        lines += ["", "<details><summary>Evidence</summary>", ""]
        for f in details:
            lines.append(f"- **{md_text(f.rule)}** {md_code(paths.loc(f.file, f.line))}")
            lines += [f"  - {md_code(paths.loc(e.file, e.line))} {md_message(prose(paths, e.note))}" for e in f.evidence]
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"

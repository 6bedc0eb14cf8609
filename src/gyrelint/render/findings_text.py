"""``gyrelint check``'s terminal output: one finding per line, what to do, the evidence, a tally."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..escape import term, term_block
from .paths import REPO_RELATIVE, PathContext, prose

if TYPE_CHECKING:
    from ..analysis import Analysis
    from ..model import Finding


def render_findings_text(findings: list[Finding], analysis: Analysis, verbose: bool = False,
                         paths: PathContext = REPO_RELATIVE) -> str:
    lines = []
    for f in findings:
        lines.append(f"{term(paths.show(f.file))}:{f.line}: {term(f.rule)} [{f.severity.value}] {term(prose(paths, f.message))}")
        lines.append(f"    what to do: {term(f.fix)}")
        if verbose or len(f.evidence) > 1:
            for e in f.evidence[: None if verbose else 4]:
                lines.append(f"    evidence: {term(paths.loc(e.file, e.line))} {term(prose(paths, e.note))}".rstrip())
    counts = {s: sum(1 for f in findings if f.severity.value == s) for s in ("error", "warning", "info")}
    tally = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n) or "no findings"
    lines.append(f"gyrelint: {tally} ({analysis.stats.files} files)")
    return term_block("\n".join(lines))

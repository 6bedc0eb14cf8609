"""The findings document of ``gyrelint check --format json``: what a CI script consumes.

``analyze --format json`` is the whole analysis (``gyrelint/1``, megabytes on a large
framework); a gate only needs the findings and a tally, so ``check`` prints this smaller
document, versioned by its own ``schema`` and described by ``gyrelint schema findings``.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..escape import json_safe, visible
from ..model import Finding, Severity
from .paths import REPO_RELATIVE, PathContext

if TYPE_CHECKING:
    from ..analysis import Analysis

SCHEMA = "gyrelint-findings/1"
SEVERITIES = ("error", "warning", "info")


def finding_dict(f: Finding, paths: PathContext = REPO_RELATIVE) -> dict[str, Any]:
    """One finding; ``column`` is 1 because every rule points at a whole line.

    ``file`` is relative to the analyzed root whatever the cwd (fingerprints and baselines match
    across folders); ``path`` is the same file as it opens from where gyrelint ran (``sub/demo/x.py``,
    ``../other/x.py`` or absolute; equal to ``file`` under --root-relative).

    The prose fields (message, fix, notes) are for display, and consumers print them as they
    are (``jq -r``, the flake8 plugin), so hidden characters quoted from the repo are shown as
    escapes there; file names stay exact, so a consumer can still match them."""
    return {
        "rule": f.rule,
        "severity": f.severity.value,
        "file": f.file,
        "path": paths.show(f.file),
        "line": f.line,
        "column": 1,
        "message": visible(f.message),
        "fix": visible(f.fix),
        "evidence": [{"file": e.file, "path": paths.show(e.file), "line": e.line, "note": visible(e.note)}
                     for e in f.evidence],
        "fingerprint": f.fingerprint,
    }


def to_findings(findings: list[Finding], analysis: Analysis, fail_on: str = "warning",
                baselined: int = 0, paths: PathContext = REPO_RELATIVE) -> dict[str, Any]:
    """The findings (after the baseline) plus a summary: counts by severity and rule, the gate."""
    threshold = Severity(fail_on).rank
    by_sev = Counter(f.severity.value for f in findings)
    skipped = sum(1 for d in analysis.diagnostics if d.kind in ("parse", "decode", "size"))
    doc = {
        "schema": SCHEMA,
        "tool": {"name": "gyrelint", "version": __version__},
        "root": analysis.given_root,
        "findings": [finding_dict(f, paths) for f in findings],
        "summary": {
            "findings": len(findings),
            "by_severity": {s: by_sev.get(s, 0) for s in SEVERITIES},
            "by_rule": dict(sorted(Counter(f.rule for f in findings).items())),
            "baselined": baselined,
            "fail_on": fail_on,
            "failed": any(f.severity.rank >= threshold for f in findings),
            "files": analysis.stats.files,
            "skipped_files": skipped,
            "seconds": analysis.stats.seconds,
        },
    }
    return json_safe(doc)

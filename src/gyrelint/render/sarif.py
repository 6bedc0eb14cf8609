"""SARIF 2.1.0 for GitHub code scanning and other SARIF consumers.

Messages are plain text, where SARIF reads ``[text](target)`` as an embedded link, so repo
text has its brackets escaped (``escape.sarif_text``). Rule metadata (short/full description, help text and URI, default level) comes from
the rule catalog; each result carries the evidence as related locations and the
line-free fingerprint as a partial fingerprint, so code scanning tracks an alert
across edits that move it.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from .. import __version__
from ..escape import json_safe, sarif_text, url_path
from ..model import Finding, Severity
from ..rules import RULES

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/gyrelint/gyrelint"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _uri(path: str) -> str:
    p = PurePosixPath(path.replace("\\", "/"))
    return url_path(str(p)) if str(p) != "." else "."


def _location(file: str, line: int, note: str = "", ident: int | None = None) -> dict[str, Any]:
    loc: dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": {"uri": _uri(file), "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": max(int(line), 1)},
        }
    }
    if ident is not None:
        loc["id"] = ident
    if note:
        loc["message"] = {"text": sarif_text(note)}
    return loc


def rule_descriptors() -> list[dict[str, Any]]:
    out = []
    for r in RULES:
        good = "\n".join(f"### {p}\n```python\n{src}```" for ex in r.good for p, src in ex.files.items())
        bad = "\n".join(f"### {p}\n```python\n{src}```" for ex in r.bad for p, src in ex.files.items())
        out.append({
            "id": r.id,
            "name": "".join(w.capitalize() for w in r.name.split("-")),
            "shortDescription": {"text": r.summary},
            "fullDescription": {"text": r.rationale},
            "helpUri": r.docs_url(),
            "help": {
                "text": f"{r.rationale}\n\nWhat to do: {r.fix}\n\nDocs: {r.docs_url()}",
                "markdown": f"{r.rationale}\n\n**What to do:** {r.fix}\n\n## Bad\n{bad}\n## Good\n{good}\n\n"
                            f"[Docs]({r.docs_url()})",
            },
            "defaultConfiguration": {"level": _LEVEL[r.severity]},
            "properties": {"tags": ["online-rl", *r.tags], "precision": "medium"},
        })
    return out


def to_sarif(findings: list[Finding], root: str | None = None, prefix: str = "") -> dict[str, Any]:
    """A complete SARIF log with one run; ``root`` (an absolute path) anchors %SRCROOT%.

    ``prefix`` is the analyzed folder's path inside ``root`` (a repository's subfolder), so
    code scanning maps every file to the repository even when only a subfolder was checked.
    """
    index = {r.id: i for i, r in enumerate(RULES)}
    results = []
    if prefix:
        prefix = prefix.strip("/") + "/"
        findings = [Finding(f.rule, f.severity, f.message, prefix + f.file, f.line, f.fix,
                            [type(e)(prefix + e.file, e.line, e.note) for e in f.evidence], f.fingerprint)
                    for f in findings]
    for f in findings:
        res: dict[str, Any] = {
            "ruleId": f.rule,
            "level": _LEVEL[f.severity],
            "message": {"text": sarif_text(f"{f.message}. What to do: {f.fix}" if f.fix else f.message)},
            "locations": [_location(f.file, f.line)],
            "partialFingerprints": {"gyrelint/v1": f.fingerprint},
        }
        if f.rule in index:
            res["ruleIndex"] = index[f.rule]
        related = [_location(e.file, e.line, e.note, i) for i, e in enumerate(f.evidence, start=1)]
        if related:
            res["relatedLocations"] = related
        results.append(res)
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "gyrelint", "version": __version__, "semanticVersion": __version__,
                            "informationUri": INFORMATION_URI, "rules": rule_descriptors()}},
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    if root:
        base = PurePosixPath(root.replace("\\", "/")).as_posix().rstrip("/") + "/"
        if base.startswith("/"):
            run["originalUriBaseIds"] = {"%SRCROOT%": {"uri": "file://" + url_path(base)}}
    return json_safe({"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]})

"""`gyrelint diff`: what a change (a fork, a branch, a release) moved in the online-RL loop.

Both revisions are exported with ``git archive`` into temporary folders and analyzed
there; the user's working tree, index and hooks are never touched.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..gitrev import GitError, export, repo_prefix, resolve
from ..model import Finding, HandoffKind, Side
from .common import EXIT_FINDINGS, EXIT_OK, Progress, analysis_options, fail, input_errors, settings_overrides

if TYPE_CHECKING:  # the analysis stages are imported when the command runs, not for --help
    from ..api import Analysis

CROSS_CLASSES = ("process", "port", "comm")


@dataclass(slots=True)
class SideChange:
    qualname: str
    before: str
    after: str
    file: str
    line: int


@dataclass(slots=True)
class DiffReport:
    base: str
    head: str
    side_changes: list[SideChange] = field(default_factory=list)
    boundary_added: list[str] = field(default_factory=list)
    boundary_removed: list[str] = field(default_factory=list)
    online_before: bool = False
    online_after: bool = False
    weight_sync: str = "unchanged"  # "broken" | "restored" | "changed" | "unchanged"
    path_before: list[str] = field(default_factory=list)
    path_after: list[str] = field(default_factory=list)
    keys_added: list[dict[str, Any]] = field(default_factory=list)
    keys_removed: list[dict[str, Any]] = field(default_factory=list)
    verdict_before: str = "unknown"
    verdict_after: str = "unknown"
    new_findings: list[Finding] = field(default_factory=list)
    fixed_findings: int = 0
    chains_lost: list[str] = field(default_factory=list)
    chains_gained: list[str] = field(default_factory=list)

    @property
    def regressed(self) -> bool:
        return self.weight_sync == "broken" or bool(self.chains_lost)


def _chains(a: Analysis) -> set[str]:
    out = set()
    for side in (Side.SAMPLING, Side.TRAINING):
        if any(f.side == side and f.reached for f in a.functions.values()):
            out.add(side.value)
    return out


def _online(a: Analysis) -> bool:
    """Online, and the weight-sync path (when one is given) still passes through a weight-sync step."""
    if not a.handoff.online:
        return False
    path = a.handoff.weight_sync_path
    return not path or any(q in a.functions and a.functions[q].handoff_kind == HandoffKind.WEIGHT_SYNC
                           for q in path)


def compare(base: Analysis, head: Analysis, base_label: str, head_label: str) -> DiffReport:
    r = DiffReport(base_label, head_label)
    for q, new in sorted(head.functions.items()):
        old = base.functions.get(q)
        if old is not None and old.side != new.side:
            r.side_changes.append(SideChange(q, old.side.value, new.side.value, new.file, new.line))
    bb, hb = set(base.boundary_modules), set(head.boundary_modules)
    r.boundary_added, r.boundary_removed = sorted(hb - bb), sorted(bb - hb)
    r.online_before, r.online_after = _online(base), _online(head)
    r.path_before, r.path_after = list(base.handoff.weight_sync_path), list(head.handoff.weight_sync_path)
    if r.online_before and not r.online_after:
        r.weight_sync = "broken"
    elif r.online_after and not r.online_before:
        r.weight_sync = "restored"
    elif r.path_before != r.path_after:
        r.weight_sync = "changed"

    def keys(a: Analysis) -> dict[tuple[str, str], Any]:
        return {(k.key, k.cls): k for k in a.topology.config_keys if k.cls in CROSS_CLASSES}

    kb, kh = keys(base), keys(head)
    r.keys_added = [{"key": k.key, "class": k.cls, "value": k.value, "file": k.file, "line": k.line}
                    for key, k in sorted(kh.items()) if key not in kb]
    r.keys_removed = [{"key": k.key, "class": k.cls, "value": k.value, "file": k.file, "line": k.line}
                      for key, k in sorted(kb.items()) if key not in kh]
    r.verdict_before, r.verdict_after = base.topology.verdict, head.topology.verdict
    old_fps = {f.fingerprint for f in base.findings}
    new_fps = {f.fingerprint for f in head.findings}
    r.new_findings = [f for f in head.findings if f.fingerprint not in old_fps]
    r.fixed_findings = len(old_fps - new_fps)
    cb, ch = _chains(base), _chains(head)
    r.chains_lost, r.chains_gained = sorted(cb - ch), sorted(ch - cb)
    return r


def to_json(r: DiffReport) -> dict[str, Any]:
    return {
        "schema": "gyrelint-diff/1",
        "base": r.base,
        "head": r.head,
        "regressed": r.regressed,
        "side_changes": [{"qualname": c.qualname, "before": c.before, "after": c.after, "file": c.file,
                          "line": c.line} for c in r.side_changes],
        "boundary_modules": {"added": r.boundary_added, "removed": r.boundary_removed},
        "weight_sync": {"status": r.weight_sync, "online_before": r.online_before, "online_after": r.online_after,
                        "path_before": r.path_before, "path_after": r.path_after},
        "topology": {"verdict_before": r.verdict_before, "verdict_after": r.verdict_after,
                     "keys_added": r.keys_added, "keys_removed": r.keys_removed},
        "chains": {"lost": r.chains_lost, "gained": r.chains_gained},
        "new_findings": [{"rule": f.rule, "severity": f.severity.value, "message": f.message, "file": f.file,
                          "line": f.line, "fix": f.fix, "fingerprint": f.fingerprint} for f in r.new_findings],
        "fixed_findings": r.fixed_findings,
    }


def render_text(r: DiffReport, markdown: bool = False) -> str:
    """The diff for a terminal or, with ``markdown``, a PR comment; repo text escaped for either."""
    from ..escape import md_text, term, term_block

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
    if r.weight_sync in ("changed", "broken", "restored"):
        out.append(f"{b}  before: {' -> '.join(map(e, r.path_before)) or '(none)'}")
        out.append(f"{b}  after:  {' -> '.join(map(e, r.path_after)) or '(none)'}")
    if r.verdict_before != r.verdict_after:
        out.append(f"{b}topology: {e(r.verdict_before)} -> {e(r.verdict_after)}")
    sections = [
        ("functions whose side changed", [f"{e(c.qualname)}: {e(c.before)} -> {e(c.after)} ({e(c.file)}:{c.line})"
                                          for c in r.side_changes]),
        ("boundary modules added", [e(m) for m in r.boundary_added]),
        ("boundary modules removed", [e(m) for m in r.boundary_removed]),
        ("cross-process config keys added", [f"{e(k['key'])} ({e(k['class'])}) = {e(k['value'])} "
                                             f"({e(k['file'])}:{k['line']})" for k in r.keys_added]),
        ("new findings", [f"{e(f.file)}:{f.line}: {e(f.rule)} [{f.severity.value}] {e(f.message)}"
                          for f in r.new_findings]),
    ]
    for title, rows in sections:
        if rows:
            out.append(h(f"{title} ({len(rows)})"))
            out += [f"{b}{x}" for x in rows[:200]]
            if len(rows) > 200:
                out.append(f"{b}... {len(rows) - 200} more")
    if r.fixed_findings:
        out.append(f"{r.fixed_findings} finding(s) fixed")
    return term_block("\n".join(out))


def _analyze(path: Path, jobs: int | None, no_cache: bool, entries: tuple[str, ...] = ()) -> Analysis:
    from ..api import analyze

    progress = Progress()  # stage lines in CI logs (one set per tree)
    try:
        return analyze(path, extra_entries=list(entries), progress=progress, stages=progress,
                       **settings_overrides(jobs, no_cache))
    finally:
        progress.close()


def run_diff(path: str, base: str, head: str | None, jobs: int | None = None, no_cache: bool = False,
             entries: tuple[str, ...] = ()) -> DiffReport:
    """Both revisions analyzed alike: the same flags and the same extra entry points (``--entry``)."""
    top, prefix = repo_prefix(Path(path).resolve())
    base_sha = resolve(top, base)
    head_sha = resolve(top, head) if head else None
    with tempfile.TemporaryDirectory(prefix="gyrelint-diff-") as tmp:
        base_dir = export(top, base_sha, prefix, Path(tmp) / "base")
        base_a = _analyze(base_dir, jobs, no_cache, entries)
        if head_sha:
            head_dir = export(top, head_sha, prefix, Path(tmp) / "head")
            head_a = _analyze(head_dir, jobs, no_cache, entries)
        else:
            head_a = _analyze(Path(path), jobs, no_cache, entries)
    return compare(base_a, head_a, f"{base} ({base_sha[:10]})",
                   f"{head} ({head_sha[:10]})" if head_sha else "working tree")


@click.command()
@click.argument("path", required=False, default=".", type=click.Path())
@click.option("--base", required=True, metavar="REF", help="The revision to compare against (e.g. upstream/main).")
@click.option("--head", default=None, metavar="REF", help="The revision to check (default: the working tree).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@click.option("--fail-on-new", is_flag=True, help="Also exit 1 when the head has findings the base has not.")
@analysis_options
@input_errors
def command(path: str, base: str, head: str | None, fmt: str, fail_on_new: bool, jobs: int | None, no_cache: bool,
            entries: tuple[str, ...]) -> None:
    """Compare the online-RL loop of two git revisions of the repository at PATH.

    Reports functions whose side changed, boundary modules added or removed, the
    weight-sync path broken or restored, cross-process config keys added and new
    findings. Exit 1 when the loop regresses (online -> not online, or a chain lost)."""
    try:
        report = run_diff(path, base, head, jobs, no_cache, entries)
    except GitError as exc:
        from ..escape import term

        fail(term(exc))
    if fmt == "json":
        from ..escape import json_safe

        click.echo(json.dumps(json_safe(to_json(report)), indent=2))
    else:
        click.echo(render_text(report, markdown=fmt == "markdown"))
    failed = report.regressed or (fail_on_new and bool(report.new_findings))
    sys.exit(EXIT_FINDINGS if failed else EXIT_OK)

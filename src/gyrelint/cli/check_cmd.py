"""`gyrelint check`: the rules as a gate — exit 0 clean, 1 findings at or above --fail-on, 2 bad input."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import click

from ..api import Analysis, analyze
from ..baseline import DEFAULT_NAME, Baseline, BaselineError
from ..baseline import read as read_baseline
from ..escape import term, term_block
from ..model import Finding, Severity
from ..rules.registry import unknown_codes
from .common import (
    EXIT_FINDINGS,
    EXIT_OK,
    Progress,
    analysis_options,
    fail,
    input_errors,
    settings_overrides,
    verbose_given,
)

FORMATS = ("text", "json", "sarif", "markdown", "github")


def codes(values: tuple[str, ...]) -> tuple[str, ...]:
    """``--select A,B --select C`` -> (A, B, C), each checked against the catalog."""
    out = tuple(c.strip().upper() for v in values for c in v.split(",") if c.strip())
    bad = unknown_codes(out)
    if bad:
        fail(f"unknown rule code {term(', '.join(bad))}; see `gyrelint check --list-rules`")
    return out


def run_check(path: str, *, select: tuple[str, ...] = (), ignore: tuple[str, ...] = (), jobs: int | None = None,
              no_cache: bool = False, entries: tuple[str, ...] = ()) -> Analysis:
    overrides = settings_overrides(jobs, no_cache)
    if select:
        overrides["select"] = select
    if ignore:
        overrides["ignore"] = ignore
    progress = Progress()
    try:
        return analyze(path, progress=progress, extra_entries=list(entries), stages=progress, **overrides)
    finally:
        progress.close()


@dataclass(frozen=True, slots=True)
class OldFindings:
    """What counts as already there for ``--new-only``, and the words naming it (``in HEAD``)."""

    baseline: Baseline
    where: str


def _read_baseline(path: Path) -> Baseline:
    try:
        return read_baseline(path)
    except BaselineError as exc:
        fail(str(exc))
        raise  # unreachable: fail exits


def repo_baseline(path: str) -> Path | None:
    """``.gyrelint-baseline.json`` at the root of the checked repo, when there is one. The repo
    may have planted it as a symlink out of the tree: such a file is refused, not read."""
    from ..safeio import inside

    root = Path(path)
    candidate = root / DEFAULT_NAME
    if not candidate.is_symlink() and not candidate.exists():
        return None
    if not inside(root, candidate):
        fail(f"{candidate}: a symlink that leaves the repository; replace it with `gyrelint baseline`")
    return candidate


def head_findings(path: str, **run: object) -> OldFindings | None:
    """The findings of the last commit: ``HEAD`` exported with ``git archive`` to a temp folder
    and analyzed there with the same flags (the user's checkout, index and hooks are never
    touched; the whole-run cache, keyed by content, makes it cheap after the first commit).
    None outside a git repository or before the first commit: then everything is new."""
    from ..gitrev import GitError, export, repo_prefix, resolve
    from .common import _is_input_error

    try:
        top, prefix = repo_prefix(Path(path).resolve())
        sha = resolve(top, "HEAD")
    except (GitError, OSError):
        return None
    with tempfile.TemporaryDirectory(prefix="gyrelint-head-") as tmp:
        try:
            head_dir = export(top, sha, prefix, Path(tmp) / "head")
        except GitError as exc:
            fail(f"cannot read HEAD of {top}: {exc}; pass --baseline FILE or --all")
        try:
            analysis = run_check(str(head_dir), **run)  # type: ignore[arg-type]
        except Exception as exc:
            if not _is_input_error(exc):
                raise
            # HEAD's own bad input (a broken config the change fixes) must not sink the check of
            # the tree: every finding counts as new, and the line says why
            reason = str(exc).replace(f"{head_dir}{os.sep}", f"HEAD:{prefix}/" if prefix else "HEAD:")
            click.echo(f"gyrelint: warning: cannot analyze the last commit ({term(reason)}); every finding "
                       "counts as new", err=True)
            return None
    return OldFindings(Baseline(Counter(f.fingerprint for f in analysis.findings)), "in HEAD")


def baseline_file_findings(path: str, baseline_file: str | None) -> OldFindings | None:
    """``--new-only``'s reference when a file gives it: --baseline, else the repo's own baseline
    file (read before the analysis, so a bad one is exit 2 whatever the tree holds)."""
    if baseline_file:
        return OldFindings(_read_baseline(Path(baseline_file)), f"in the baseline {baseline_file}")
    found = repo_baseline(path)
    if found is not None:
        return OldFindings(_read_baseline(found), f"in the baseline {DEFAULT_NAME}")
    return None


def render_text(findings: list[Finding], analysis: Analysis, verbose: bool = False) -> str:
    lines = []
    for f in findings:
        lines.append(f"{term(f.file)}:{f.line}: {term(f.rule)} [{f.severity.value}] {term(f.message)}")
        lines.append(f"    what to do: {term(f.fix)}")
        if verbose or len(f.evidence) > 1:
            for e in f.evidence[: None if verbose else 4]:
                lines.append(f"    evidence: {term(e.file)}:{e.line} {term(e.note)}".rstrip())
    counts = {s: sum(1 for f in findings if f.severity.value == s) for s in ("error", "warning", "info")}
    tally = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n) or "no findings"
    lines.append(f"gyrelint: {tally} ({analysis.stats.files} files)")
    return term_block("\n".join(lines))


def list_rules() -> str:
    from ..rules import RULES

    return "\n".join(f"{r.id}  {r.severity.value:<7}  {r.name}: {r.summary}" for r in RULES)


EXAMPLES = """\b
Examples:
  gyrelint check .                                  # text, exit 1 on a warning or an error
  gyrelint check . --format sarif -o gyrelint.sarif --exit-zero
  gyrelint check --new-only                         # the pre-commit hook: only what the change adds
"""


@click.command(epilog=EXAMPLES)
@click.argument("path", required=False, default=".", type=click.Path())
@click.option("--select", multiple=True, metavar="CODES", help="Only these rules (ids or prefixes, comma-separated).")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these rules (ids or prefixes).")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), default="warning", show_default=True,
              help="Exit 1 when a finding is at or above this severity.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None, help="Write the report to a file.")
@click.option("--baseline", "baseline_file", type=click.Path(dir_okay=False), default=None,
              help=f"Report only findings not in this baseline (written by `gyrelint baseline`, {DEFAULT_NAME}).")
@click.option("--new-only", is_flag=True, help=f"Fail only on findings the change adds: those not in --baseline, "
              f"else {DEFAULT_NAME} at the repo root, else the last commit (HEAD). Old ones are counted on "
              "one stderr line. Used by the pre-commit hook.")
@click.option("--all", "all_findings", is_flag=True, help="Report every finding of the repo (cancels --new-only "
              "and the automatic baseline).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings are reported (report-only CI steps); "
              "bad input still exits 2.")
@click.option("--list-rules", is_flag=True, help="List the rules and exit.")
@click.option("--demo", is_flag=True, help="Check the online-RL example repo bundled with gyrelint.")
@analysis_options
@input_errors
def command(path: str, select: tuple[str, ...], ignore: tuple[str, ...], fail_on: str, fmt: str,
            output: str | None, baseline_file: str | None, new_only: bool, all_findings: bool, exit_zero: bool,
            list_rules: bool, demo: bool, jobs: int | None, no_cache: bool,
            entries: tuple[str, ...]) -> None:
    """Lint the online-RL loop of the repository at PATH (default: the current folder).

    Exit 0 when clean, 1 when a finding is at or above --fail-on, 2 on bad input."""
    if list_rules:
        click.echo(globals()["list_rules"]())
        return
    verbose = verbose_given()  # -v (an analysis option): every evidence step, and the stage lines
    if demo:
        from ..api import demo_root

        path = str(demo_root())
    sel, ign = codes(select), codes(ignore)
    run = {"select": sel, "ignore": ign, "jobs": jobs, "no_cache": no_cache, "entries": entries}
    new_only = new_only and not all_findings
    old = baseline_file_findings(path, baseline_file) if new_only else None
    baseline = None
    if baseline_file and not new_only:
        baseline = _read_baseline(Path(baseline_file))
    analysis = run_check(path, **run)  # type: ignore[arg-type]
    findings = analysis.findings
    if new_only and old is None and findings:  # HEAD is analyzed only when there is something to match
        old = head_findings(path, **run)
    if old is not None:
        baseline = old.baseline
    if baseline is not None:
        findings = baseline.new(findings)
    baselined = len(analysis.findings) - len(findings)
    if old is not None and baselined:
        # one line, so the first commit after installing the hook is not buried under old findings
        click.echo(f"gyrelint: {baselined} finding{'s' if baselined != 1 else ''} already {term(old.where)} "
                   "(not blocking); run gyrelint check --all to see them", err=True)
    text = render(fmt, findings, analysis, verbose, fail_on=fail_on, baselined=baselined)
    if output:
        try:
            from ..safeio import write_output

            write_output(output, text if text.endswith("\n") else text + "\n")
        except OSError as exc:
            fail(f"{term(output)}: cannot write ({exc.strerror}); pass a writable --output path")
    else:
        click.echo(text.rstrip("\n"))
    for d in analysis.diagnostics:
        if d.kind == "config":
            click.echo(f"gyrelint: warning: {term(d)}", err=True)
    # files not read (syntax, encoding, size, FIFOs and links that leave the repo) or only partly
    # indexed (data modules): a finding may be missing because of them, so the linter says so
    unparsed = [d for d in analysis.diagnostics if d.kind in ("parse", "decode", "size", "input", "data-module")]
    for d in unparsed[:5]:
        click.echo(f"gyrelint: warning: {term(d)}", err=True)
    if len(unparsed) > 5:
        click.echo(f"gyrelint: warning: {len(unparsed) - 5} more files skipped or partly indexed "
                   "(see `gyrelint analyze`)", err=True)
    threshold = Severity(fail_on).rank
    sys.exit(EXIT_FINDINGS if not exit_zero and any(f.severity.rank >= threshold for f in findings) else EXIT_OK)


def render(fmt: str, findings: list[Finding], analysis: Analysis, verbose: bool = False, *,
           fail_on: str = "warning", baselined: int = 0) -> str:
    """The findings in one output format; repo text is escaped by each format's renderer."""
    if fmt == "json":
        from ..render.findings_json import to_findings

        return json.dumps(to_findings(findings, analysis, fail_on, baselined), indent=2)
    if fmt == "sarif":
        from ..render.sarif import to_sarif

        root, prefix = str(analysis.root), ""
        try:  # inside a git repository, paths are made relative to its top for code scanning
            from ..gitrev import GitError, repo_prefix

            top, prefix = repo_prefix(analysis.root)
            root = str(top)
        except (GitError, OSError):
            pass
        return json.dumps(to_sarif(findings, root, prefix), indent=2)
    if fmt == "markdown":
        from ..render.markdown import render_markdown

        return render_markdown(findings)
    if fmt == "github":
        from ..render.github import render_github

        return render_github(findings)
    return render_text(findings, analysis, verbose)

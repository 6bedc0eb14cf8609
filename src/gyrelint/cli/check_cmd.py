"""`gyrelint check`: the rules as a gate — exit 0 clean, 1 findings at or above --fail-on, 2 bad input."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..api import Analysis, analyze
from ..baseline import DEFAULT_NAME, Baseline, BaselineError, OldFindings, reference
from ..baseline import read as read_baseline
from ..escape import term
from ..model import Finding, Severity
from ..render.paths import REPO_RELATIVE, PathContext
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


def _read_baseline(path: Path) -> Baseline:
    try:
        return read_baseline(path)
    except BaselineError as exc:
        fail(str(exc))
        raise  # unreachable: fail exits


def _reference(path: str, baseline_file: str | None) -> OldFindings | None:
    """``--new-only``'s reference from a file (read before the analysis, so a bad one is exit 2
    whatever the tree holds)."""
    try:
        return reference(Path(path), baseline_file)
    except BaselineError as exc:
        fail(str(exc))
        raise  # unreachable: fail exits


def _head_findings(path: str, run: dict) -> OldFindings | None:
    from ..api import head_findings

    overrides = settings_overrides(run["jobs"], run["no_cache"])
    for key in ("select", "ignore"):
        if run[key]:
            overrides[key] = run[key]
    progress = Progress()
    try:
        return head_findings(path, progress=progress, extra_entries=list(run["entries"]),
                             warn=lambda line: click.echo(f"gyrelint: warning: {term(line)}", err=True), **overrides)
    finally:
        progress.close()


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
    old = _reference(path, baseline_file) if new_only else None
    baseline = None
    if baseline_file and not new_only:
        baseline = _read_baseline(Path(baseline_file))
    analysis = run_check(path, **run)  # type: ignore[arg-type]
    findings = analysis.findings
    if new_only and old is None and findings:  # HEAD is analyzed only when there is something to match
        old = _head_findings(path, run)
    if old is not None:
        baseline = old.baseline
    if baseline is not None:
        findings = baseline.new(findings)
    baselined = len(analysis.findings) - len(findings)
    if old is not None and baselined:
        # one line, so the first commit after installing the hook is not buried under old findings
        click.echo(f"gyrelint: {baselined} finding{'s' if baselined != 1 else ''} already {term(old.where)} "
                   "(not blocking); run gyrelint check --all to see them", err=True)
    from .common import path_context

    paths = path_context(analysis.root)
    text = render(fmt, findings, analysis, verbose, fail_on=fail_on, baselined=baselined, paths=paths)
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
            click.echo(f"gyrelint: warning: {term(paths.diagnostic(d))}", err=True)
    # files not read (syntax, encoding, size, FIFOs and links that leave the repo) or only partly
    # indexed (data modules): a finding may be missing because of them, so the linter says so
    unparsed = [d for d in analysis.diagnostics if d.kind in ("parse", "decode", "size", "input", "data-module")]
    for d in unparsed[:5]:
        click.echo(f"gyrelint: warning: {term(paths.diagnostic(d))}", err=True)
    if len(unparsed) > 5:
        click.echo(f"gyrelint: warning: {len(unparsed) - 5} more files skipped or partly indexed "
                   "(see `gyrelint analyze`)", err=True)
    threshold = Severity(fail_on).rank
    sys.exit(EXIT_FINDINGS if not exit_zero and any(f.severity.rank >= threshold for f in findings) else EXIT_OK)


def render(fmt: str, findings: list[Finding], analysis: Analysis, verbose: bool = False, *,
           fail_on: str = "warning", baselined: int = 0, paths: PathContext = REPO_RELATIVE) -> str:
    """The findings in one output format; repo text is escaped by each format's renderer, files
    are shown through ``paths`` (SARIF keeps its own %SRCROOT% form)."""
    if fmt == "json":
        from ..render.findings_json import to_findings

        return json.dumps(to_findings(findings, analysis, fail_on, baselined, paths), indent=2)
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

        return render_markdown(findings, paths=paths)
    if fmt == "github":
        from ..render.github import render_github

        return render_github(findings, paths)
    from ..render.findings_text import render_findings_text

    return render_findings_text(findings, analysis, verbose, paths)

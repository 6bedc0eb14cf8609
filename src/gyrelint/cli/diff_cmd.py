"""`gyrelint diff`: what a change (a fork, a branch, a release) moved in the online-RL loop.

Both revisions are exported with ``git archive`` into temporary folders and analyzed
there; the user's working tree, index and hooks are never touched. The comparison is
``gyrelint.compare`` (through the API), the output ``gyrelint.render.diff``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..gitrev import GitError, export, repo_prefix, resolve
from .common import EXIT_FINDINGS, EXIT_OK, Progress, analysis_options, fail, input_errors, settings_overrides

if TYPE_CHECKING:  # the analysis stages are imported when the command runs, not for --help
    from ..api import Analysis, DiffReport


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
    from ..api import compare

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
    weight-sync path broken or restored (a weight-sync call removed), cross-process
    config keys added and new findings. Exit 1 when the loop regresses (online -> not
    online, or a chain lost)."""
    try:
        report = run_diff(path, base, head, jobs, no_cache, entries)
    except GitError as exc:
        from ..escape import term

        fail(term(exc))
    from ..render.diff import render_text, to_json

    if fmt == "json":
        click.echo(json.dumps(to_json(report), indent=2))
    else:
        from .common import path_context

        click.echo(render_text(report, markdown=fmt == "markdown", paths=path_context(Path(path).resolve())))
    failed = report.regressed or (fail_on_new and bool(report.new_findings))
    sys.exit(EXIT_FINDINGS if failed else EXIT_OK)

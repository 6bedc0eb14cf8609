"""`gyrelint entries`: where runs of the repository start, and the commands that point nowhere."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from ..model import EntryPoint
from .common import Progress, analysis_options, fail, input_errors, path_context, settings_overrides

if TYPE_CHECKING:  # the analysis stages are imported when the command runs, not for --help
    from ..entrypoints import EntryScan
    from ..render.paths import PathContext

_SHOWN_PER_TARGET = 3


@click.command()
@click.argument("path", required=False, type=click.Path())
@click.option("--demo", is_flag=True, help="List the entry points of the example repo bundled with gyrelint.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--all", "show_all", is_flag=True, help="Text: list every place a target is started from.")
@analysis_options
@input_errors
def command(path: str | None, demo: bool, fmt: str, show_all: bool, jobs: int | None, no_cache: bool,
            entries: tuple[str, ...]) -> None:
    """List the entry points of the repository at PATH: README commands, launch scripts,
    console scripts, main guards, @hydra.main; commands naming a missing module or file are flagged."""
    from ..api import demo_root, discover_python, load
    from ..entrypoints import scan_entry_points
    from ..escape import json_safe, term
    from ..index import build_index

    if demo:
        path = str(demo_root())
    if path is None:
        fail("missing PATH; pass the root folder of a repository, or --demo")
    root, settings, diags = load(path, **settings_overrides(jobs, no_cache))
    if entries:
        settings = settings.with_overrides(entry_points=tuple(settings.entry_points) + tuple(entries))
    progress = Progress()
    try:
        index = build_index(root, settings, progress, files=discover_python(root, path, settings))
    finally:
        progress.close()
    scan = scan_entry_points(index, settings)
    if fmt == "json":
        click.echo(json.dumps(json_safe(to_json(str(path), scan)), indent=2))
    else:
        click.echo(render(str(path), scan, show_all, path_context(root)))
    for d in diags:
        click.echo(f"gyrelint: {term(path_context(root).diagnostic(d))}", err=True)


def _entry_dict(e: EntryPoint) -> dict[str, Any]:
    return {"module": e.module, "file": e.file, "found_by": e.found_by, "source": e.source, "line": e.line,
            "command": e.command, "function": e.function, "exists": e.exists}


def to_json(root: str, scan: EntryScan) -> dict[str, Any]:
    """Same entry objects as the ``entry_points`` of the gyrelint/1 report, plus counts."""
    return {
        "schema": "gyrelint/1",
        "root": root,
        "entry_points": [_entry_dict(e) for e in scan.entries],
        "missing": [_entry_dict(e) for e in scan.missing],
        "counts": scan.counts(),
        "stats": {"commands": scan.commands, "external": scan.external, "unresolved": scan.unresolved},
        "diagnostics": [{"file": d.file, "line": d.line, "message": d.message, "kind": d.kind}
                        for d in scan.diagnostics],
    }


def render(root: str, scan: EntryScan, show_all: bool = False, paths: PathContext | None = None) -> str:
    """Targets grouped, most-launched first; each with where it is started from and how.
    Repo text (commands, paths, names) is escaped for a terminal or CI log; files are shown
    through ``paths`` (default: repo-relative)."""
    from ..escape import term, term_block
    from ..render.paths import REPO_RELATIVE

    paths = paths or REPO_RELATIVE

    lines: list[str] = []
    found = [e for e in scan.entries if e.exists]
    counts = scan.counts()
    summary = ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"
    targets: dict[str, list[EntryPoint]] = {}
    for e in found:
        targets.setdefault(e.file or e.module or "?", []).append(e)
    lines.append(f"Entry points of {term(root)}: {len(targets)} targets from {len(found)} places ({summary})")
    lines.append(f"  {scan.commands} commands read from READMEs, scripts and CI files; {scan.external} run "
                 f"other programs (not flagged); {scan.unresolved} name their target through an unknown variable")
    from ..entrypoints import FOUND_BY_ORDER

    rank = {k: i for i, k in enumerate(FOUND_BY_ORDER)}

    def order(item: tuple[str, list[EntryPoint]]) -> tuple:
        launched = sum(1 for e in item[1] if e.found_by in ("readme", "script", "pyproject", "setup", "config"))
        return (-launched, min(rank.get(e.found_by, 99) for e in item[1]), item[0])

    for target, group in sorted(targets.items(), key=order):
        head = group[0]
        name = head.module or target
        fn = next((e.function for e in group if e.function), None)
        extra = f"  -> {term(fn)}" if fn else ""
        lines.append("")
        lines.append(f"{term(name)}  ({term(paths.show(target) if head.file else target)}){extra}")
        shown = group if show_all else group[:_SHOWN_PER_TARGET]
        for e in shown:
            where = term(paths.loc(e.source, e.line))
            lines.append(f"    {term(e.found_by):<10} {where}  {_short(e.command)}")
        if len(group) > len(shown):
            lines.append(f"    ... {len(group) - len(shown)} more (--all lists them)")
    missing = scan.missing
    if missing:
        lines.append("")
        lines.append(f"Missing targets ({len(missing)}): commands naming a module or file of this repo that does not exist")
        for e in missing:
            if e.function and e.file:
                what = f"function {term(e.function)}"
            else:
                what = f"module {term(e.module)}" if e.module else f"file {term(e.file)}"
            where = term(paths.loc(e.source, e.line))
            lines.append(f"    {term(e.found_by):<10} {where}  {what}  ({_short(e.command)})")
    return term_block("\n".join(lines))


def _short(command: str, width: int = 100) -> str:
    from ..escape import term

    command = term(command)
    return command if len(command) <= width else command[: width - 1] + "…"

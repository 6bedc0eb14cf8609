"""`gyrelint logcheck LOG...`: check a run's counters (sampled, consumed, steps, policy version)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import click

from ..logcheck import (
    DEFAULT_PROFILE,
    DEFAULT_THRESHOLD,
    PROFILES,
    LogInputError,
    PatternError,
    PatternTimeout,
    build_rules,
    check_logs,
)
from ..logcheck.follow import follow as follow_logs
from ..logcheck.render import follow_line, to_dict, to_markdown, to_text
from ..settings import CounterPattern, default_cache_dir, read_settings
from .common import config_option, fail, input_errors, settings_overrides


def counter_table(patterns: tuple[CounterPattern, ...]) -> dict[str, list[dict[str, str]]]:
    """The checked ``[tool.gyrelint.counters]`` patterns in the table form ``build_rules`` reads."""
    table: dict[str, list[dict[str, str]]] = {}
    for p in patterns:
        table.setdefault(p.counter, []).append({"pattern": p.pattern, **({"mode": p.mode} if p.mode else {})})
    return table


@click.command()
@click.argument("logs", nargs=-1, required=True, metavar="LOG...")
@click.option("--profile", type=click.Choice(sorted(PROFILES)), default=DEFAULT_PROFILE, show_default=True,
              help="Counter names to look for; 'auto' knows all built-in ones. Probe lines are always read.")
@click.option("--pattern", "patterns", multiple=True, metavar="COUNTER=REGEX",
              help="Extra line regex for sampled|consumed|step|policy_version (repeatable). Group 1 is a running "
                   "total; COUNTER+=REGEX makes it an increment; no group counts matching lines. Runs in a child "
                   "process under a time budget.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True,
              help="markdown: a report for a CI job summary ($GITHUB_STEP_SUMMARY) or a pull-request comment.")
@click.option("--threshold", type=click.FloatRange(0.0, 1.0), default=DEFAULT_THRESHOLD, show_default=True,
              help="Largest fraction of sampled trajectories that may go unconsumed before it is flagged.")
@click.option("--follow", is_flag=True, help="Tail the logs (or a FIFO named explicitly) and print the verdict each "
                                            "time it changes.")
@click.option("--max-seconds", type=click.FloatRange(min=0), default=None,
              help="With --follow: stop after this many seconds.")
@click.option("--until", "until", metavar="REGEX", default=None,
              help="With --follow: stop after a line matching REGEX (time-bounded, like --pattern).")
@config_option
@input_errors
def command(logs: tuple[str, ...], profile: str, patterns: tuple[str, ...], fmt: str, threshold: float,
            follow: bool, max_seconds: float | None, until: str | None) -> None:
    """Check a run from its logs: trajectories sampled and consumed, training steps, policy version.

    LOG may be - for standard input. Reads gyrelint.probe lines, JSON lines, key: value / key=value console lines, Python dict
    lines and TensorBoard scalars exported as CSV, plain or gzip-compressed, streamed (lines over 64 KiB are cut).
    Exit 0 healthy or inconclusive, 1 problem, 2 unreadable input or a user pattern that runs over its time budget.
    """
    # [tool.gyrelint.counters] of the current folder (or --config), checked like every setting (a bad
    # one is exit 2); logcheck keeps no cache, so no file's cache-dir is consulted
    config = settings_overrides().get("config")
    settings = read_settings(Path.cwd(), config=config, label="pyproject.toml",
                             cache_dir=default_cache_dir())
    try:  # a counter pattern that runs over its time budget is named with this file
        rules = build_rules(profile, patterns, counter_table(settings.counters),
                            str(config) if config else "pyproject.toml")
        until_rx = re.compile(until) if until else None
    except PatternError as exc:
        source = "pyproject.toml" if "tool.gyrelint" in str(exc) or "pattern" not in str(exc) else "--pattern"
        fail(f"{source}: {exc}")
        return
    except re.error as exc:
        fail(f"--until: invalid regex ({exc})")
        return
    files = list(logs)
    if follow and "-" in files:
        fail("-: --follow needs log files, not standard input")
    try:
        if follow:
            def emit(verdict, elapsed):  # type: ignore[no-untyped-def]
                if fmt == "json":
                    click.echo(json.dumps({**to_dict(verdict, files, profile), "elapsed": round(elapsed, 3)}))
                else:
                    click.echo(follow_line(verdict, elapsed))
                sys.stdout.flush()

            verdict = follow_logs(files, rules, threshold, emit, max_seconds=max_seconds, until=until_rx)
        else:
            verdict = check_logs(files, rules, threshold)
    except (LogInputError, PatternTimeout) as exc:
        fail(str(exc))  # fail() escapes for the terminal and CI logs
        return
    if verdict.status == "no-counters":
        fail(f"{', '.join(files)}: no run counter found (sampled, consumed, step, policy_version); "
             "log them with gyrelint.probe, or pass --pattern COUNTER=REGEX / --profile")
    if fmt == "json":
        if not follow:
            click.echo(json.dumps(to_dict(verdict, files, profile), indent=2))
    elif fmt == "markdown":
        click.echo(to_markdown(verdict, files))
    else:
        click.echo(to_text(verdict))
    sys.exit(verdict.exit_code)

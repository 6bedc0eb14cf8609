"""Shared CLI plumbing: options, progress, and turning input errors into exit code 2."""

from __future__ import annotations

import functools
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # the analysis stages are imported by the commands that run them, not by every command
    from ..api import Analysis

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT = 0, 1, 2


def fail(message: str) -> None:
    """One clear line on stderr and exit code 2."""
    click.echo(f"gyrelint: error: {message}", err=True)
    sys.exit(EXIT_INPUT)


class Terminated(BaseException):
    """SIGTERM, raised in the main thread like Ctrl-C's KeyboardInterrupt, so that the run
    stops its parse workers on the way out instead of leaving them behind."""


def _on_sigterm(signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM during cleanup kills outright
    raise Terminated


def _catch_sigterm() -> Any:
    """Install the SIGTERM handler unless someone else has one; the handler to restore, or None."""
    if threading.current_thread() is not threading.main_thread():
        return None
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return None
    return signal.signal(signal.SIGTERM, _on_sigterm)


def input_errors(fn: Callable) -> Callable:
    """Bad input → one line and exit 2; Ctrl-C → exit 130, SIGTERM → exit 143, one line each."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        previous = _catch_sigterm()
        try:
            return fn(*args, **kwargs)
        except KeyboardInterrupt:
            click.echo("gyrelint: interrupted", err=True)
            sys.exit(130)
        except Terminated:
            click.echo("gyrelint: terminated", err=True)
            sys.exit(143)
        except Exception as exc:
            if not _is_input_error(exc):
                raise
            fail(str(exc))
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)

    return wrapper


def _is_input_error(exc: BaseException) -> bool:
    """``isinstance(exc, api.InputError)`` without importing the analysis stages: an InputError
    can only exist once ``gyrelint.api`` has been imported."""
    api = sys.modules.get("gyrelint.api")
    return api is not None and isinstance(exc, api.InputError)


def analysis_options(fn: Callable) -> Callable:
    """--jobs / --no-cache / --entry, shared by every command that analyzes a repo."""
    fn = click.option("--jobs", "-j", type=click.IntRange(min=0), default=None,
                      help="Worker processes for parsing (default: number of cores).")(fn)
    fn = click.option("--no-cache", is_flag=True, help="Parse every file again; do not read or write the cache.")(fn)
    fn = click.option("--entry", "entries", multiple=True, metavar="FILE",
                      help="Extra entry file or module (repeatable).")(fn)
    return fn


class Progress:
    """A one-line progress meter on stderr, shown only on a terminal after a second."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.tty = sys.stderr.isatty()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self.tty or time.perf_counter() - self.start < 1.0:
            return
        self.shown = True
        sys.stderr.write(f"\rgyrelint: parsed {done}/{total} files")
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 48 + "\r")
            sys.stderr.flush()


def run_analysis(path: str | None, *, demo: bool = False, jobs: int | None = None, no_cache: bool = False,
                 entries: tuple[str, ...] = (), run_rules: bool = True) -> Analysis:
    from ..api import analyze, demo_root

    if demo:
        path = str(demo_root())
    if path is None:
        fail("missing PATH; pass the root folder of a repository, or --demo")
    progress = Progress()
    try:
        overrides: dict[str, Any] = {"jobs": jobs}
        if no_cache:
            overrides["use_cache"] = False
        return analyze(path, progress=progress, run_rules=run_rules, extra_entries=list(entries), **overrides)
    finally:
        progress.close()

"""Shared CLI plumbing: options, progress, and turning input errors into exit code 2."""

from __future__ import annotations

import contextlib
import functools
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # the analysis stages are imported by the commands that run them, not by every command
    from ..api import Analysis
    from ..progress import StageLog
    from ..render.paths import PathContext

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT = 0, 1, 2


def fail(message: str) -> None:
    """One clear line on stderr and exit code 2 (the message often quotes a repo's file name or
    setting: escaped for the terminal and for CI logs)."""
    from ..escape import term

    click.echo(f"gyrelint: error: {term(message)}", err=True)
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
    """``isinstance(exc, api.InputError | settings.SettingsError)`` without importing the analysis
    stages: either can only exist once its module has been imported."""
    api, settings = sys.modules.get("gyrelint.api"), sys.modules.get("gyrelint.settings")
    return (api is not None and isinstance(exc, api.InputError)) or (
        settings is not None and isinstance(exc, settings.SettingsError))


_SOURCES = "gyrelint.settings_sources"  # click context meta: what --config / --cache-dir chose
_WARNINGS = "gyrelint.settings_warnings"  # click context meta: the warning display is set up


@contextlib.contextmanager
def _one_line_settings_warnings() -> Iterator[None]:
    """While a command runs: each ``SettingsWarning`` as one ``gyrelint: warning:`` line on stderr
    (its text is escaped where it is made), every time; other warnings as before."""
    from ..settings import SettingsWarning  # here, not at import: ``--help`` needs no settings

    with warnings.catch_warnings():
        show = warnings.showwarning

        def showwarning(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
            if issubclass(category, SettingsWarning):
                click.echo(f"gyrelint: warning: {message}", err=True)
            else:
                show(message, category, *args, **kwargs)

        warnings.simplefilter("always", SettingsWarning)
        warnings.showwarning = showwarning
        yield


def _remember(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """Keep --config / --cache-dir for ``settings_overrides``. Click calls this for every run of
    the command (given or not), so it also sets up how settings warnings are shown."""
    if _WARNINGS not in ctx.meta:
        ctx.meta[_WARNINGS] = True
        ctx.with_resource(_one_line_settings_warnings())
    if value is not None:
        ctx.meta.setdefault(_SOURCES, {})[param.name] = value


def config_option(fn: Callable) -> Callable:
    """--config FILE, kept in the click context (see ``settings_overrides``) so that the command's
    signature does not change."""
    return click.option("--config", type=click.Path(dir_okay=False), default=None, expose_value=False,
                        callback=_remember, metavar="FILE",
                        help="Read settings from FILE ([tool.gyrelint] or a top-level table) instead of "
                             "the pyproject.toml of the repository.")(fn)


def settings_options(fn: Callable) -> Callable:
    """--config / --cache-dir: where the settings and the cache come from (kept like --config)."""
    fn = click.option("--cache-dir", type=click.Path(file_okay=False), default=None, expose_value=False,
                      callback=_remember, metavar="DIR",
                      help="Cache folder (over GYRELINT_CACHE_DIR and every config file).")(fn)
    return config_option(fn)


def settings_overrides(jobs: int | None = None, no_cache: bool = False) -> dict[str, Any]:
    """Keyword overrides for ``api.analyze``/``api.load`` from the shared options of this command."""
    ctx = click.get_current_context(silent=True)
    chosen = ctx.meta.get(_SOURCES, {}) if ctx is not None else {}
    out: dict[str, Any] = {"jobs": jobs}
    if no_cache:
        out["use_cache"] = False
    if chosen.get("cache_dir"):
        out["cache_dir"] = Path(chosen["cache_dir"]).expanduser().absolute()
    if chosen.get("config"):
        out["config"] = chosen["config"]
    if chosen.get("include_tests"):
        out["include_tests"] = True
    return out


_ROOT_RELATIVE = "gyrelint.root_relative"  # click context meta: --root-relative was given


def _remember_root_relative(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta[_ROOT_RELATIVE] = True


def path_option(fn: Callable) -> Callable:
    """--root-relative, kept in the click context (see ``path_context``) like --config."""
    return click.option("--root-relative", is_flag=True, expose_value=False, callback=_remember_root_relative,
                        help="Print file paths relative to the analyzed repository instead of the current "
                             "folder.")(fn)


def path_context(root: str | Path) -> PathContext:
    """How this command prints the files of the repo at ``root``: from the current folder, or
    repo-relative under --root-relative."""
    from ..render.paths import path_context as make

    ctx = click.get_current_context(silent=True)
    return make(root, root_relative=bool(ctx is not None and ctx.meta.get(_ROOT_RELATIVE)))


def _remember_flag(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """Keep a flag like --config (only when given, so the settings files decide otherwise)."""
    if value:
        ctx.meta.setdefault(_SOURCES, {})[param.name] = True


def analysis_options(fn: Callable) -> Callable:
    """--jobs / --no-cache / --entry / --config / --cache-dir / --root-relative, shared by every
    command that analyzes a repo."""
    fn = path_option(settings_options(fn))
    fn = click.option("--jobs", "-j", type=click.IntRange(min=0), default=None,
                      help="Worker processes for parsing (default: number of cores).")(fn)
    fn = click.option("--no-cache", is_flag=True, help="Parse every file again; do not read or write the cache.")(fn)
    fn = click.option("--entry", "entries", multiple=True, metavar="FILE",
                      help="Extra entry file or module (repeatable).")(fn)
    fn = click.option("--include-tests", is_flag=True, expose_value=False, callback=_remember_flag,
                      help="Analyze test modules like product code (they take sides, are entry points and map "
                           "nodes); docs, benchmarks and vendored libraries stay out. Same as include-tests = true "
                           "in [tool.gyrelint].")(fn)
    fn = click.option("--verbose", "-v", "verbose_progress", is_flag=True, expose_value=False,
                      callback=_remember_verbose,
                      help="One progress line per stage on stderr (also when CI is set); check also prints "
                           "every evidence step.")(fn)
    return fn


_VERBOSE = "gyrelint.verbose"  # click context meta: -v was given


def _remember_verbose(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta[_VERBOSE] = True


def verbose_given() -> bool:
    """Whether ``-v`` was given to the command that runs now."""
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.meta.get(_VERBOSE))


def Progress() -> StageLog:  # noqa: N802 - the name the commands already call
    """The run's progress on stderr: the terminal meter; one line per stage with ``-v`` or ``CI`` set,
    or once a run stays silent for two seconds (a cold first run); nothing for a quick warm run."""
    from ..progress import StageLog, ci_env

    return StageLog(lines=verbose_given() or ci_env())


def run_analysis(path: str | None, *, demo: bool = False, jobs: int | None = None, no_cache: bool = False,
                 entries: tuple[str, ...] = (), run_rules: bool = True) -> Analysis:
    from ..api import analyze, demo_root

    if demo:
        path = str(demo_root())
    if path is None:
        fail("missing PATH; pass the root folder of a repository, or --demo")
    progress = Progress()
    try:
        return analyze(path, progress=progress, run_rules=run_rules, extra_entries=list(entries),
                       stages=progress, **settings_overrides(jobs, no_cache))
    finally:
        progress.close()

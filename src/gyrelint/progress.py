"""Progress of a run: one plain line per stage on stderr, for CI logs and ``-v``.

A CI log has no terminal, so the ``\\r`` meter never shows and a cold run used to print nothing
until the findings. The API reports each finished stage to a sink it is handed (``StageSink``);
it never prints. The CLI hands it a ``StageLog`` that writes ``gyrelint: <stage> <counts> <s> s``
when asked to (``-v``, or ``CI`` set), or on its own once a run has been silent for a while
(a cold first pre-commit run), and nothing at all for a quick warm run.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import Protocol

QUIET_FOR = 2.0  # seconds a run may stay silent before the stage lines start anyway (off a terminal)
PARSE_EVERY = 5.0  # seconds between "index n/N files" lines while a long parse runs


class StageSink(Protocol):
    """What the API reports to: a finished stage, its counts (already numbers) and seconds."""

    def stage(self, name: str, seconds: float, counts: Mapping[str, int | str]) -> None: ...


def ci_env(environ: Mapping[str, str] | None = None) -> bool:
    """``CI`` set to anything but empty, ``0`` or ``false`` (GitHub, GitLab, Buildkite... set ``CI=true``)."""
    value = (os.environ if environ is None else environ).get("CI", "").strip().lower()
    return value not in ("", "0", "false", "no", "off")


def _count(value: int | str) -> str:
    """``4698`` -> ``4,698``; a short word (a verdict) passes through, reduced to plain characters."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    return "".join(c for c in str(value)[:40] if c.isalnum() or c in "-_")


_DETAIL = ("parsed", "cached")  # counts that break down the one before them: ``454 files (12 parsed, 442 cached)``


def _counted(value: int, word: str) -> str:
    if value == 1 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]  # 1 finding, 1 edge
    return f"{_count(value)} {word}"


def stage_line(name: str, seconds: float, counts: Mapping[str, int | str]) -> str:
    """``gyrelint: graphs 4,698 functions 3,104 edges 2.1 s``: counts before their word, in the given order.

    Only numbers and the stage's own words go in, never a path or a name from the repo; a string
    value (a verdict) is reduced to letters, digits and dashes so nothing the repo wrote reaches the log."""
    parts = [name]
    detail: list[str] = []
    for word, value in counts.items():
        if isinstance(value, str):
            parts.append(_count(value))
        elif word in _DETAIL:
            detail.append(f"{_count(value)} {word}")
        else:
            parts.append(_counted(value, word))
    if detail:
        parts[-1] += " (" + ", ".join(detail) + ")"
    parts.append(f"{seconds:.1f} s")
    return "gyrelint: " + " ".join(parts)


class StageLog:
    """The CLI's sink: the index's ``(done, total)`` callback and the stage reporter in one object.

    ``lines`` (``-v`` or CI): every stage line as it finishes, and a parse line every few seconds.
    Otherwise, off a terminal: silent while the run is quick; once it has run ``QUIET_FOR`` seconds,
    the lines held back so far are written and the rest follow as they come. On a terminal the
    one-line ``\\r`` meter shows the parse, as before."""

    def __init__(self, *, lines: bool, tty: bool | None = None, write: Callable[[str], object] | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.start = clock()
        self.tty = sys.stderr.isatty() if tty is None else tty
        self.lines = lines
        self.write = write or self._stderr
        self.held: list[str] = []
        self.speaking = lines
        self.meter_shown = False
        self.last_parse_line = self.start

    @staticmethod
    def _stderr(text: str) -> None:
        sys.stderr.write(text)
        sys.stderr.flush()

    def _emit(self, line: str) -> None:
        if not self.speaking and not self.tty and self.clock() - self.start >= QUIET_FOR:
            self.speaking = True  # a slow (cold) run: say what happened so far, then keep going
            for old in self.held:
                self._out(old)
            self.held.clear()
        if self.speaking:
            self._out(line)
        else:
            self.held.append(line)

    def _out(self, line: str) -> None:
        if self.meter_shown:  # clear the terminal meter before a full line
            self.write("\r" + " " * 48 + "\r")
            self.meter_shown = False
        self.write(line + "\n")

    def __call__(self, done: int, total: int) -> None:
        """The index's parse callback: the terminal meter, or a plain line every few seconds."""
        now = self.clock()
        if self.tty and not self.lines:
            if now - self.start >= 1.0:
                self.meter_shown = True
                self.write(f"\rgyrelint: parsed {done}/{total} files")
            return
        if done < total and now - self.last_parse_line >= PARSE_EVERY:
            self.last_parse_line = now
            self._emit(f"gyrelint: index {done:,}/{total:,} files parsed {now - self.start:.1f} s")

    def stage(self, name: str, seconds: float, counts: Mapping[str, int | str]) -> None:
        if self.tty and not self.lines:
            return  # a terminal has the meter; stage lines are asked for with -v
        self._emit(stage_line(name, seconds, counts))

    def close(self) -> None:
        if self.meter_shown:
            self.write("\r" + " " * 48 + "\r")
            self.meter_shown = False

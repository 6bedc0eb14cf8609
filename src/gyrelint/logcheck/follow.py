"""``--follow``: tail live logs, re-judge after new lines, report each change of verdict."""

from __future__ import annotations

import csv
import os
import re
import stat
import time
from collections.abc import Callable
from pathlib import Path

from .counters import Collector
from .profiles import Rule
from .reader import CsvTable, Record, is_csv, parse_lines
from .source import (
    CHUNK,
    DEFAULT_LIMITS,
    Limits,
    LineSplitter,
    LogInputError,
    ReadStats,
    open_fd,
    sniff_binary,
)
from .usermatch import UserMatcher, UserPattern
from .verdict import Verdict, judge

POLL_BYTES = 1 << 20  # read at most this much of one log per poll: its records stay few (bounded memory)


class Tail:
    """New complete lines of one growing file (or FIFO); a partial last line waits for its newline."""

    def __init__(self, path: Path, display: str, limits: Limits = DEFAULT_LIMITS) -> None:
        self.path, self.display, self.limits = path, display, limits
        self.stats = ReadStats(display)
        self.splitter = LineSplitter(self.stats, limits)
        self.offset = 0
        self.sniffed = False
        self.csv: CsvTable | None = None
        self.csv_name = path.name.lower().endswith(".csv")
        self.fifo_fd: int | None = None
        self.seen_data = False
        self.more = False  # the last poll stopped at POLL_BYTES: poll again before sleeping

    def poll(self) -> tuple[list[Record], list[str]]:
        """Records of the lines completed since the last poll, and those lines' text."""
        self.more = False
        data = self._read_fifo() if self.fifo_fd is not None else self._read_file()
        if not data:
            return [], []
        if not self.sniffed and data.strip():
            sniff_binary(data, self.display)
            self.sniffed = True
        self.seen_data = True
        first = self.splitter.line + 1
        lines = self.splitter.feed(data)
        return self._records(lines, first), lines

    def close(self) -> None:
        if self.fifo_fd is not None:
            os.close(self.fifo_fd)
            self.fifo_fd = None

    def _read_file(self) -> bytes:
        if not os.path.lexists(self.path):
            return b""
        fd, st = open_fd(self.path, self.display, allow_fifo=True)
        if stat.S_ISFIFO(st.st_mode):  # kept open: closing it between polls would break the writer's pipe
            self.fifo_fd = fd
            return self._read_fifo()
        try:
            if st.st_size < self.offset:  # truncated or rotated: start over
                self.offset = 0
                self.splitter = LineSplitter(self.stats, self.limits)
                self.csv = None
            if st.st_size == self.offset:
                return b""
            os.lseek(fd, self.offset, os.SEEK_SET)
            data = _read_some(fd, min(st.st_size - self.offset, POLL_BYTES))
            self.more = st.st_size - self.offset > POLL_BYTES
        except OSError as exc:
            raise LogInputError(f"{self.display}: cannot read ({exc.strerror})") from None
        finally:
            os.close(fd)
        self.offset += len(data)
        return data

    def _read_fifo(self) -> bytes:
        assert self.fifo_fd is not None
        out = []
        size = 0
        while True:
            if size >= POLL_BYTES:
                self.more = True
                break
            try:
                data = os.read(self.fifo_fd, CHUNK)
            except BlockingIOError:
                break
            except OSError as exc:
                raise LogInputError(f"{self.display}: cannot read ({exc.strerror})") from None
            if not data:  # no writer right now; one may come back
                break
            out.append(data)
            size += len(data)
        return b"".join(out)

    def _records(self, lines: list[str], first: int) -> list[Record]:
        if self.csv is None and (self.csv_name or (first == 1 and lines and is_csv(self.path.name, lines[0]))):
            if not lines:
                return []
            self.csv = CsvTable(lines[0], self.display, self.path.name)
            lines, first = lines[1:], first + 1
        if self.csv is not None:
            out = []
            for i, text in enumerate(lines):
                try:
                    row = next(csv.reader([text]), [])
                except csv.Error:
                    continue
                rec = self.csv.record(row, first + i)
                if rec is not None:
                    out.append(rec)
            return out
        return parse_lines(lines, self.display, first)


def _notes(tails: list[Tail]) -> list[str]:
    return [n for n in (t.stats.note(t.limits) for t in tails) if n]


def _read_some(fd: int, n: int) -> bytes:
    parts, left = [], n
    while left > 0:
        data = os.read(fd, min(left, CHUNK))
        if not data:
            break
        parts.append(data)
        left -= len(data)
    return b"".join(parts)


def follow(paths: list[str], rules: list[Rule], threshold: float, emit: Callable[[Verdict, float], None], *,
           max_seconds: float | None = None, until: re.Pattern[str] | None = None, interval: float = 0.2,
           clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> Verdict:
    """Poll the logs until ``max_seconds`` pass or a line matches ``until``; return the last verdict.

    ``emit`` is called with each verdict that differs from the previous one and the seconds elapsed.
    A log that never appeared or stayed empty is an input error at the end.
    """
    tails = [Tail(Path(p), p) for p in paths]
    collector = Collector(rules)
    marker = UserMatcher([UserPattern(until.pattern, until.flags, "until", "--until", number=False)]) \
        if until is not None else None
    start = clock()
    last_key: tuple | None = None
    verdict = judge(collector, threshold)
    stop = False
    try:
        while True:
            for t in tails:
                t.more = True
                while t.more and not stop:
                    first = t.splitter.line + 1
                    records, lines = t.poll()
                    collector.add(records)
                    if marker is not None and lines and marker.match(lines, f"{t.display}:{first}"):
                        stop = True
            if stop:  # lines written to the other logs just before the marker count too
                for t in tails:
                    collector.add(t.poll()[0])
            verdict = judge(collector, threshold, _notes(tails))
            if verdict.key != last_key and (collector.records or stop):
                emit(verdict, clock() - start)
                last_key = verdict.key
            if stop or (max_seconds is not None and clock() - start >= max_seconds):
                break
            sleep(interval)
    except KeyboardInterrupt:
        pass
    finally:
        for t in tails:
            t.close()
        collector.close()
        if marker is not None:
            marker.close()
    for t in tails:
        if not os.path.lexists(t.path):
            raise LogInputError(f"{t.display}: no such file (waited for it while following); check the path")
        if not t.seen_data:
            raise LogInputError(f"{t.display}: empty log; did the run write to this path?")
    return verdict

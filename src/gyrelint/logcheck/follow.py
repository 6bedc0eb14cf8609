"""``--follow``: tail live logs, re-judge after new lines, report each change of verdict."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from .counters import Collector
from .profiles import Rule
from .reader import LogInputError, Record, decode, is_csv, parse_lines, read_csv
from .verdict import Verdict, judge


class Tail:
    """New complete lines of one growing file; a partial last line waits for its newline."""

    def __init__(self, path: Path, display: str) -> None:
        self.path, self.display = path, display
        self.offset = 0
        self.pending = b""
        self.line = 0
        self.sniffed = False
        self.csv = path.name.lower().endswith(".csv")
        self.csv_size = -1

    def poll(self) -> tuple[list[Record], list[str]]:
        """Records of the lines completed since the last poll, and those lines' text."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return [], []
        except OSError as exc:
            raise LogInputError(f"{self.display}: cannot read ({exc.strerror})") from None
        if self.csv:
            return self._poll_csv(size)
        if size < self.offset:  # truncated or rotated: start over
            self.offset, self.pending, self.line = 0, b"", 0
        if size == self.offset:
            return [], []
        with self.path.open("rb") as f:
            f.seek(self.offset)
            chunk = f.read(size - self.offset)
        self.offset += len(chunk)
        if not self.sniffed and chunk.strip():
            decode(chunk, self.display)  # raises on binary data
            self.sniffed = True
        data = self.pending + chunk
        cut = data.rfind(b"\n")
        if cut < 0:
            self.pending = data
            return [], []
        complete, self.pending = data[: cut + 1], data[cut + 1:]
        lines = complete.decode("utf-8", errors="replace").split("\n")[:-1]
        records = parse_lines(lines, self.display, self.line + 1)
        self.line += len(lines)
        return records, lines

    def _poll_csv(self, size: int) -> tuple[list[Record], list[str]]:
        if size == self.csv_size:
            return [], []
        self.csv_size = size
        text = self.path.read_bytes().decode("utf-8", errors="replace")
        if not text.endswith("\n") or not text.strip() or not is_csv(self.path.name, text):
            return [], []
        rows = read_csv(text, self.display, self.path.name)
        new = rows[self.line:]
        self.line = len(rows)
        return new, []


def follow(paths: list[str], rules: list[Rule], threshold: float, emit: Callable[[Verdict, float], None], *,
           max_seconds: float | None = None, until: re.Pattern[str] | None = None, interval: float = 0.2,
           clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> Verdict:
    """Poll the logs until ``max_seconds`` pass or a line matches ``until``; return the last verdict.

    ``emit`` is called with each verdict that differs from the previous one and the seconds elapsed.
    A log that never appeared or stayed empty is an input error at the end.
    """
    tails = [Tail(Path(p), p) for p in paths]
    collector = Collector(rules)
    start = clock()
    last_key: tuple | None = None
    verdict = judge(collector, threshold)
    stop = False
    try:
        while True:
            for t in tails:
                records, lines = t.poll()
                collector.add(records)
                if until is not None and any(until.search(s) for s in lines):
                    stop = True
            if stop:  # lines written to the other logs just before the marker count too
                for t in tails:
                    collector.add(t.poll()[0])
            verdict = judge(collector, threshold)
            if verdict.key != last_key and (collector.records or stop):
                emit(verdict, clock() - start)
                last_key = verdict.key
            if stop or (max_seconds is not None and clock() - start >= max_seconds):
                break
            sleep(interval)
    except KeyboardInterrupt:
        pass
    for t in tails:
        if not t.path.exists():
            raise LogInputError(f"{t.display}: no such file (waited for it while following); check the path")
        if t.offset == 0 and t.csv_size <= 0:
            raise LogInputError(f"{t.display}: empty log; did the run write to this path?")
    return verdict

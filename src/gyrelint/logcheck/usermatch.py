"""User regexes (``--pattern``, ``[tool.gyrelint.counters]``, ``--until``) under a wall-clock budget.

A pattern from a pyproject is as hostile as the log: ``^(a+)+$`` backtracks for ever on one crafted
line, and Python's ``re`` neither times out nor sees signals during a match. So user patterns run in
a child process (``python -I -S``: nothing imported from the working folder) that is killed when it
exceeds its budget: :data:`FLOOR` seconds plus :data:`PER_MB` seconds per MB of text sent, counted
over the whole run and, per batch, never more than the floor plus the batch's own share. Ordinary
patterns run as fast as in-process (lines go over a pipe in batches); a runaway one ends the run
with a one-line error naming the pattern, where it came from and the log lines it was matching.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

FLOOR = 3.0  # seconds any run may spend in user patterns, however small its logs
PER_MB = 2.0  # more seconds per MB of text matched (linear patterns need ~0.01)
_CHILD = Path(__file__).with_name("matcher_child.py")


class PatternTimeout(Exception):
    """A user pattern ran over its budget (catastrophic backtracking): exit code 2."""


@dataclass(frozen=True, slots=True)
class UserPattern:
    pattern: str
    flags: int
    group: str  # one line counts once per group (a counter)
    origin: str  # where it came from, for messages: "--pattern sampled", "pyproject.toml: [...] sampled"
    number: bool = True  # read a number from the match (counters); False: any match counts 1 (--until)


class UserMatcher:
    """Matches batches of lines against user patterns in a child process, within the budget."""

    def __init__(self, patterns: list[UserPattern], floor: float = FLOOR, per_mb: float = PER_MB) -> None:
        self.patterns = patterns
        self.floor, self.per_mb = floor, per_mb
        self.sent = 0  # bytes of text sent so far
        self.spent = 0.0  # seconds spent waiting for matches so far
        self.proc: subprocess.Popen[bytes] | None = None
        self.buf = b""

    def _start(self) -> subprocess.Popen[bytes]:
        source = _CHILD.read_text(encoding="utf-8")
        proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", source], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True)
        assert proc.stdin is not None
        header = json.dumps([[p.pattern, p.flags, p.group, p.number] for p in self.patterns]) + "\n"
        proc.stdin.write(header.encode("utf-8", "surrogatepass"))
        proc.stdin.flush()
        os.set_blocking(proc.stdin.fileno(), False)
        return proc

    def match(self, texts: list[str], where: str) -> list[tuple[int, int, float]]:
        """``(index in texts, pattern index, value)`` for each line a pattern matched (first of its group)."""
        if not texts:
            return []
        if self.proc is None:
            try:
                self.proc = self._start()
            except OSError as exc:
                raise PatternTimeout(f"{self.patterns[0].origin}: cannot start the process that runs user patterns "
                                     f"({exc.strerror or exc.__class__.__name__}); run without --pattern") from None
        payload = "\n".join(texts)
        if payload.count("\n") != len(texts) - 1:  # a CSV field may hold a newline: keep one line per text
            payload = "\n".join(t.replace("\n", " ") for t in texts)
        data = payload.encode("utf-8", "replace")
        self.sent += len(data)
        batch_budget = self.floor + self.per_mb * len(data) / 1e6
        remaining = self.floor + self.per_mb * self.sent / 1e6 - self.spent
        budget = max(0.05, min(batch_budget, remaining))
        start = time.monotonic()
        deadline = start + budget
        rule = 0
        try:
            self._send(f"{len(data)} {budget:.3f}\n".encode() + data, deadline)
            while True:
                line = self._read_line(deadline)
                if line.startswith(b"r"):
                    rule = int(line[1:])
                    continue
                if not line.startswith(b"d"):
                    raise RuntimeError(f"unexpected reply {line[:40]!r}")
                body = self._read_exact(int(line[1:]), deadline)
                break
        except TimeoutError:
            self.close(kill=True)
            p = self.patterns[rule] if rule < len(self.patterns) else self.patterns[0]
            raise PatternTimeout(
                f"{p.origin}: pattern {p.pattern!r} ran over its time budget ({budget:.1f} s) on {where}: it "
                "backtracks on these lines (nested or adjacent unbounded quantifiers such as (a+)+ or .*.*); "
                "rewrite it") from None
        except (OSError, ValueError, RuntimeError) as exc:
            code = self.proc.poll() if self.proc is not None else None
            self.close(kill=True)
            raise PatternTimeout(f"{self.patterns[rule].origin}: the user-pattern matcher stopped "
                                 f"(exit {code}, {exc.__class__.__name__}) on {where}") from None
        self.spent += time.monotonic() - start
        out = []
        for row in body.decode("ascii", "replace").splitlines():
            i, r, v = row.split(" ")
            out.append((int(i), int(r), float(v)))
        return out

    def _send(self, data: bytes, deadline: float) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        fd = self.proc.stdin.fileno()
        view = memoryview(data)
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            _, ready, _ = select.select([], [fd], [], left)
            if ready:
                try:
                    n = os.write(fd, view[: 1 << 16])
                except BlockingIOError:
                    continue
                view = view[n:]

    def _fill(self, deadline: float) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            raise TimeoutError
        data = os.read(fd, 1 << 16)
        if not data:
            raise RuntimeError("the matcher exited")
        self.buf += data

    def _read_line(self, deadline: float) -> bytes:
        while b"\n" not in self.buf:
            if len(self.buf) > 64:
                raise RuntimeError("reply line too long")
            self._fill(deadline)
        line, _, self.buf = self.buf.partition(b"\n")
        return line

    def _read_exact(self, n: int, deadline: float) -> bytes:
        while len(self.buf) < n:
            self._fill(deadline)
        body, self.buf = self.buf[:n], self.buf[n:]
        return body

    def close(self, kill: bool = False) -> None:
        proc, self.proc = self.proc, None
        self.buf = b""
        if proc is None:
            return
        if kill:
            proc.kill()
        else:
            try:
                if proc.stdin is not None:
                    os.set_blocking(proc.stdin.fileno(), True)
                    proc.stdin.close()
            except OSError:
                proc.kill()
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for f in (proc.stdin, proc.stdout):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass

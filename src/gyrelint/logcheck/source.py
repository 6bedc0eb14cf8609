"""Open a log safely and stream its lines with bounded memory, whatever the log holds.

A log is hostile input: it may be a FIFO that never ends, a device, a gzip bomb that inflates
to gigabytes, or one endless line. So a log is read in chunks, line by line, keeping at most
``Limits.line_bytes`` of any line (the rest is skipped and counted), and decompressed output
is capped per line and in total. Only regular files are opened by path; standard input
(``-``) and, with ``--follow``, a FIFO are read only because the user named them explicitly.
"""

from __future__ import annotations

import os
import stat
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..safeio import file_kind

CHUNK = 1 << 20
BINARY_SNIFF = 8192


class LogInputError(Exception):
    """A log that cannot be read (missing, binary, empty, truncated, a bomb): exit code 2."""


@dataclass(frozen=True, slots=True)
class Limits:
    """How much of a log is kept or read; every figure bounds memory or time per log."""

    line_bytes: int = 64 * 1024  # kept of one line; the rest is skipped and counted
    line_skip_bytes: int = 16 << 20  # a single line longer than this ends the read: not a text log
    inflate_floor: int = 64 << 20  # decompressed bytes always allowed ...
    inflate_ratio: int = 250  # ... beyond that, at most this many times the compressed size (a bomb: ~1000)


DEFAULT_LIMITS = Limits()


@dataclass(slots=True)
class ReadStats:
    """What the reader had to cut, for a one-time note in the report."""

    display: str
    lines: int = 0
    cut_lines: int = 0  # lines longer than Limits.line_bytes, cut to that length
    first_cut: int = 0  # line number of the first cut line

    def note(self, limits: Limits) -> str | None:
        if not self.cut_lines:
            return None
        return (f"{self.display}: {self.cut_lines} line(s) longer than {_size(limits.line_bytes)} were cut to "
                f"that length (first at line {self.first_cut}); counters past the cut were not read")


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.3g} {unit}"
    return f"{n} bytes"


def _kind(mode: int) -> str:
    return "a directory; pass a log file (or a glob of them)" if stat.S_ISDIR(mode) else file_kind(mode)


def open_fd(path: Path, display: str, *, allow_fifo: bool = False) -> tuple[int, os.stat_result]:
    """A descriptor on the log, checked on the descriptor itself: a regular file (or a FIFO when allowed).

    Opened non-blocking, so a FIFO without a writer or a device cannot hang the open.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise LogInputError(f"{display}: no such file; pass the path of a training log") from None
    except IsADirectoryError:
        raise LogInputError(f"{display}: is a directory; pass a log file (or a glob of them)") from None
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc.__class__.__name__
        raise LogInputError(f"{display}: cannot read ({reason})") from None
    st = os.fstat(fd)
    if stat.S_ISREG(st.st_mode) or (allow_fifo and stat.S_ISFIFO(st.st_mode)):
        return fd, st
    os.close(fd)
    hint = "; read a pipe with --follow, or as standard input: cat PIPE | gyrelint logcheck -" \
        if stat.S_ISFIFO(st.st_mode) else ""
    kind = _kind(st.st_mode)
    if kind.startswith("a directory"):
        raise LogInputError(f"{display}: is {kind}")
    raise LogInputError(f"{display}: {kind}, not a regular file; not read{hint}")


def open_log(path: Path, display: str) -> BinaryIO:
    """The log's bytes as a stream: ``-`` is standard input, anything else must be a regular file."""
    if str(path) == "-":
        return sys.stdin.buffer
    fd, _ = open_fd(path, display)
    try:
        os.set_blocking(fd, True)
    except OSError:
        pass
    return os.fdopen(fd, "rb", buffering=0)


class Inflater:
    """Streamed gzip decompression (several members allowed) with a cap on the output.

    The cap is ``Limits.inflate_floor`` bytes or ``inflate_ratio`` times the compressed bytes read
    so far, whichever is larger: a real log compresses 5-50 times, a bomb 1000 times. The cap
    bounds time too: every decompressed line is parsed.
    """

    def __init__(self, raw: _Prepend, display: str, limits: Limits) -> None:
        self.raw, self.display, self.limits = raw, display, limits
        self.z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self.buf = b""  # compressed bytes not fed yet
        self.started = False  # the current member has begun
        self.compressed = 0
        self.out = 0

    def read(self) -> bytes:
        """The next piece of decompressed data (at most CHUNK bytes); ``b""`` at the end."""
        while True:
            if not self.buf:
                self.buf = self.raw.read(CHUNK // 4)
                self.compressed += len(self.buf)
                if not self.buf:
                    if self.started and not self.z.eof:
                        raise LogInputError(f"{self.display}: truncated or corrupt gzip file; pass a complete log")
                    return b""
            if self.z.eof:  # another member follows (concatenated .gz files), or zero padding
                self.z, self.started = zlib.decompressobj(16 + zlib.MAX_WBITS), False
                if not self.buf.strip(b"\x00"):
                    self.buf = b""
                    continue
            self.started = True
            try:
                out = self.z.decompress(self.buf, CHUNK)
            except zlib.error:
                raise LogInputError(f"{self.display}: truncated or corrupt gzip file; pass a complete log") from None
            self.buf = self.z.unused_data if self.z.eof else self.z.unconsumed_tail
            if out:
                return self._count(out)

    def _count(self, out: bytes) -> bytes:
        self.out += len(out)
        cap = max(self.limits.inflate_floor, self.limits.inflate_ratio * self.compressed)
        if self.out > cap:
            raise LogInputError(
                f"{self.display}: decompresses to more than {_size(cap)} ({self.limits.inflate_ratio} times the "
                "compressed bytes read): a gzip bomb, not a log; stopped reading; decompress it yourself and pass "
                "the part that matters")
        return out


def chunks(stream: BinaryIO, display: str, limits: Limits) -> Iterator[bytes]:
    """Raw chunks of a log, gzip undone (detected by its magic bytes, not by the name)."""
    first = stream.read(CHUNK)
    if first[:2] == b"\x1f\x8b":
        inflater = Inflater(_Prepend(first, stream), display, limits)
        while True:
            out = inflater.read()
            if not out:
                return
            yield out
    if first:
        yield first
    while True:
        data = stream.read(CHUNK)
        if not data:
            return
        yield data


class _Prepend:
    """A stream with some already-read bytes put back in front."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self.head, self.rest = head, rest

    def read(self, n: int) -> bytes:
        if self.head:
            out, self.head = self.head[:n], self.head[n:]
            return out
        return self.rest.read(n)


def sniff_binary(head: bytes, display: str) -> None:
    """A log's first bytes: NUL bytes or mostly undecodable data is a binary file, not a log."""
    head = head[:BINARY_SNIFF]
    if not head:
        return
    bad = head.decode("utf-8", errors="replace").count("\ufffd")
    if b"\x00" in head or bad > max(8, len(head) // 10):
        hint = "export the scalars to CSV (TensorBoard: 'Download CSV') and pass that" \
            if "tfevents" in display else "pass a text, JSON-lines or CSV log"
        raise LogInputError(f"{display}: binary file, not a text log; {hint}")


class LineSplitter:
    """Cut a byte stream into lines of at most ``limits.line_bytes``; the rest of a line is skipped.

    Memory is one chunk plus one partial line (capped). A line longer than
    ``limits.line_skip_bytes`` ends the read with an input error: no text log has one.
    """

    def __init__(self, stats: ReadStats, limits: Limits) -> None:
        self.stats, self.limits = stats, limits
        self.pending = b""  # the start of the current line (at most line_bytes)
        self.skipped = 0  # bytes of the current line dropped past the cap
        self.line = 0  # number of the last complete line

    def feed(self, data: bytes) -> list[str]:
        """The complete lines ``data`` ends (decoded, undecodable bytes replaced), cut to the cap."""
        cap = self.limits.line_bytes
        out: list[str] = []
        if self.skipped:  # inside an over-long line: drop bytes up to its newline
            nl = data.find(b"\n")
            self._skip(len(data) if nl < 0 else nl)
            if nl < 0:
                return out
            self.line += 1
            out.append(self.pending.decode("utf-8", errors="replace"))
            self.pending, self.skipped, data = b"", 0, data[nl + 1:]
        parts = (self.pending + data).split(b"\n") if self.pending else data.split(b"\n")
        tail = parts.pop()
        for raw in parts:
            self.line += 1
            if len(raw) > cap:
                self._count_cut(self.line)
                raw = raw[:cap]
            out.append(raw.decode("utf-8", errors="replace"))
        if len(tail) > cap:  # an over-long line that goes on in the next chunk
            self._count_cut(self.line + 1)
            self.pending = tail[:cap]
            self._skip(len(tail) - cap)
        else:
            self.pending = tail
        return out

    def finish(self) -> str | None:
        """The last line when it had no newline, else None."""
        if not self.pending and not self.skipped:
            return None
        self.line += 1
        text = self.pending.decode("utf-8", errors="replace")
        self.pending, self.skipped = b"", 0
        return text

    def _skip(self, n: int) -> None:
        self.skipped += n
        if self.skipped > self.limits.line_skip_bytes:
            raise LogInputError(
                f"{self.stats.display}: line {self.line + 1} is longer than {_size(self.limits.line_skip_bytes)} "
                "(no newline): not a text log (a gzip bomb?); stopped reading; pass the log the run wrote")

    def _count_cut(self, line: int) -> None:
        self.stats.cut_lines += 1
        if not self.stats.first_cut:
            self.stats.first_cut = line


def iter_text_lines(stream: BinaryIO, stats: ReadStats, limits: Limits) -> Iterator[tuple[int, str, bool]]:
    """``(line number, text, ended with a newline)`` for every line of ``stream``, in bounded memory.

    The first bytes are checked for binary data before any line is returned.
    """
    splitter = LineSplitter(stats, limits)
    sniffed = False
    for data in chunks(stream, stats.display, limits):
        if not sniffed:
            sniff_binary(data, stats.display)
            sniffed = True
        first = splitter.line + 1
        for i, text in enumerate(splitter.feed(data)):
            yield first + i, text, True
    last = splitter.finish()
    if last is not None:
        yield splitter.line, last, False
    stats.lines = splitter.line

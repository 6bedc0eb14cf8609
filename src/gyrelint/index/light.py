"""The light path: a skeleton of a file too big to parse in full.

A file that costs more than :data:`.precheck.MAX_COST` once its bulk literals are elided
(hundreds of thousands of statements, generated or planted) is not given to libcst
whole. Its *skeleton* is: the module-level imports (those inside a top-level
``if``/``try`` too), the headers of top-level ``def``/``class`` statements (with their
decorators, the body replaced by ``...``), the targets of top-level assignments (the value
replaced by ``...``, except small ones and ``__all__``) and the ``__main__`` guard, one
after the other, with a :class:`.precheck.LineMap` back to their lines. The skeleton is
parsed and summarised as usual, so later stages see the same kind of
:class:`.summary.FileSummary`; what it lacks are function bodies (calls, flows), methods,
and nested definitions. Its size is capped (:data:`SKELETON_BYTES` for imports and
definitions, :data:`ASSIGN_BYTES` for assignments), so that its parse stays within about
100k tokens whatever the file holds.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from .precheck import (
    _CLOSE,
    _COMMENT,
    _NAME,
    _NL,
    _OPEN,
    _OTHER,
    _QUOTES,
    _STR,
    _TOKEN,
    Bulk,
    LineMap,
    _breaks,
)
from .summary import FileSummary

SKELETON_BYTES = 256 * 1024  # imports, headers and decorators kept at most; later ones are left out
ASSIGN_BYTES = 64 * 1024  # top-level assignments kept at most (a bomb of them must not use it all)
STATEMENT_BYTES = 64 * 1024  # one kept statement at most
_SMALL_VALUE = 200  # an assignment this short (bytes) keeps its value
_HEADS = frozenset((b"import", b"from", b"@", b"def", b"async", b"class", b"if"))  # kept whatever the size of the rest
_MAIN_GUARD = re.compile(rb"if\s+__name__\s*==\s*['\"]__main__['\"]\s*:")
_ALL_BEFORE = re.compile(rb"(?:^|[\r\n])__all__[ \t]*(?::[^=\r\n]*)?\+?=[ \t]*[\[(]$")
_IDENT_STRING = re.compile(rb"""['"]([A-Za-z_][A-Za-z0-9_]*)['"]""")


def skeleton(content: bytes) -> tuple[bytes, LineMap, bool]:
    """The skeleton of ``content``, where its lines come from, and whether a cap cut it short.

    Kept statements follow each other in the skeleton (a file of a million blank lines
    must not give a skeleton of a million lines); the map gives their lines back.
    """
    out: list[bytes] = []
    starts: list[int] = []
    origins: list[int] = []
    size = assigned = 0
    out_line = 1
    region = b""  # first keyword of the current top-level compound statement
    pending_decorators = False
    cut = False
    for start, end, line, indent, words in _statements(content):
        text = content[start:end]
        head = words[0] if words else b""
        kept: bytes | None = None
        if indent == 0:
            region = head if head in (b"def", b"async", b"class") else b"other"
        if head in (b"import", b"from"):
            if indent == 0 or region == b"other":
                kept = text
        elif indent == 0 and (assigned <= ASSIGN_BYTES or head in _HEADS):
            kept = _top_level(text, head, words)
        elif indent == 0:
            cut = True  # an assignment past the cap: not even looked at
        if kept is None:
            continue
        if len(kept) > STATEMENT_BYTES:  # one import of a million names, a header with a huge default
            cut = True
            continue
        if head not in _HEADS:
            if assigned > ASSIGN_BYTES:
                cut = True
                continue
            assigned += len(kept)
        elif size > SKELETON_BYTES and not pending_decorators:
            cut = True
            break
        pending_decorators = head == b"@"
        starts.append(out_line)
        origins.append(line)
        out.append(kept)
        out.append(b"\n")
        out_line += _breaks(kept) + 1
        size += len(kept)
    return b"".join(out), LineMap(tuple(starts) or (1,), tuple(origins) or (1,)), cut


def _top_level(text: bytes, head: bytes, words: tuple[bytes, ...]) -> bytes | None:
    """What the skeleton keeps of one top-level statement, or None."""
    if head == b"@":
        return text
    if head in (b"def", b"class") or (head == b"async" and words[1:2] == (b"def",)):
        colon = _header_end(text)
        return None if colon < 0 else text[: colon + 1] + b" ..."
    if head == b"if":
        m = _MAIN_GUARD.match(text)
        return m.group(0) + b" ..." if m else None
    eq = _assign_end(text)
    if eq < 0:
        return None
    if len(text) <= _SMALL_VALUE or text.startswith(b"__all__"):
        return text
    target = text[:eq].rstrip().rstrip(b"+-*/%&|^@<>").rstrip()  # ``x += big`` -> ``x = ...``
    return target + b" = ..."


def _header_end(text: bytes) -> int:
    """Offset of the colon that ends a ``def``/``class`` header (the first at bracket depth 0)."""
    depth = 0
    for m in _TOKEN.finditer(text):
        kind = m.lastindex
        if kind == _OPEN:
            depth += 1
        elif kind == _CLOSE:
            depth -= 1
        elif depth == 0 and m.group() == b":":
            return m.start()
    return -1


def _assign_end(text: bytes) -> int:
    """Offset of the first ``=`` at bracket depth 0 that assigns (not ``==``, ``<=``...), or -1."""
    depth = 0
    prev = b""
    for m in _TOKEN.finditer(text):
        kind = m.lastindex
        tok = m.group()
        if kind == _OPEN:
            depth += 1
        elif kind == _CLOSE:
            depth -= 1
        elif depth == 0 and tok == b"=":
            nxt = text[m.end():m.end() + 1]
            if nxt != b"=" and prev not in (b"=", b"!", b"<", b">"):
                return m.start()
        elif depth == 0 and kind == _NAME and tok in (b"lambda", b"if", b"for", b"while", b"with", b"return",
                                                      b"del", b"assert", b"raise", b"yield", b"global"):
            return -1
        if kind != 2:
            prev = tok
    return -1


def _statements(content: bytes):
    """Logical lines: (start offset, end offset, first line, indent, first two words).

    ``indent`` is the byte width of the first line's leading blanks (0 = top level).
    """
    depth = 0
    line = 1
    line_start = 0  # offset where the current physical line begins
    start = -1
    first_line = indent = 0
    last_end = 0
    words: list[bytes] = []
    for m in _TOKEN.finditer(content):
        kind = m.lastindex
        if kind == _NL:
            if depth == 0 and start >= 0:
                yield start, last_end, first_line, indent, tuple(words)
                start = -1
            text = m.group()
            line += _breaks(text)
            line_start = m.start() + max(text.rfind(b"\n"), text.rfind(b"\r")) + 1  # the indent is not ours
            continue
        if kind == 2:  # blanks, continuation
            if content[m.end() - 1] in b"\r\n" and m.end() - m.start() > 1:
                line += 1
                line_start = m.end()
            continue
        if kind == _COMMENT:
            continue
        if kind == _OTHER and m.group() in _QUOTES:
            break  # an unterminated string: the rest does not tokenize (see precheck.scan)
        if start < 0:
            start, first_line, indent, words = m.start(), line, m.start() - line_start, []
        if len(words) < 2:
            words.append(m.group() if kind != _STR else b"<str>")
        if kind == _STR:
            n = _breaks(m.group())
            if n:
                line += n
                tail = max(m.group().rfind(b"\n"), m.group().rfind(b"\r"))
                line_start = m.start() + tail + 1
        elif kind == _OPEN:
            depth += 1
        elif kind == _CLOSE and depth:
            depth -= 1
        last_end = m.end()
    if start >= 0:
        yield start, last_end, first_line, indent, tuple(words)


def exported_names(content: bytes, bulks: tuple[Bulk, ...]) -> tuple[str, ...] | None:
    """``__all__`` when its list was elided as a bulk: the identifiers quoted inside it."""
    for b in bulks:
        before = content[max(0, b.start - 300):b.start]
        if _ALL_BEFORE.search(before):
            names = _IDENT_STRING.findall(content, b.start, b.end)
            return tuple(n.decode("ascii") for n in names)
    return None


_LINE_FIELDS = ("line", "end_line")


def relocate(summary: FileSummary, where: Callable[[int], int]) -> None:
    """Move every line a summary of a reduced text records (definitions, calls, flows,
    parameters, arguments, suppressions...) to where it is in the file."""
    for f in dataclasses.fields(summary):
        value = getattr(summary, f.name)
        if type(value) is list:
            setattr(summary, f.name, [_moved(r, where) for r in value])
    if summary.main_guard_line is not None:
        summary.main_guard_line = where(summary.main_guard_line)
    summary.suppressions = {where(k): v for k, v in summary.suppressions.items()}


def _moved(obj: object, where: Callable[[int], int]) -> object:
    """``obj`` with its line fields moved, nested records too; the same object when nothing moves."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if f.name in _LINE_FIELDS and type(value) is int:
                new = where(value)
            else:
                new = _moved(value, where)
            if new is not value:
                changes[f.name] = new
        return dataclasses.replace(obj, **changes) if changes else obj
    if type(obj) is tuple:
        items = tuple(_moved(x, where) for x in obj)
        return items if any(a is not b for a, b in zip(items, obj, strict=True)) else obj
    return obj

"""A cheap look at a file's bytes before the full parse: is it mostly big literals?

libcst builds one node per token, about 2 KB each, and the extractor then walks them: a
generated 3.9 MB list literal (a vocabulary table, a dict of prompts, a hostile plant)
costs 30 s and 1.6 GB that way, while nothing in it can be a function, a call or an
import. This module finds such literals in linear time and small memory, without
building any tree: a regular-expression tokenizer (strings, comments, names, numbers,
brackets) and a stack of open brackets.

A bracketed group is *pure literal* when every token inside is a number, a plain string
(no f-string), ``True``/``False``/``None``, a comma, a colon, a sign or another pure
group. A pure group of at least :data:`MIN_GROUP` tokens is a *bulk literal*: the index
replaces its inside by ``...`` and parses what is left as usual; a :class:`LineMap` puts
the lines of what it finds back where they are in the file.

:data:`MAX_COST` bounds the rest. libcst's cost grows with tokens and with lines (a
statement, a blank or comment line each bring a few nodes): the *cost* of a file is its
tokens plus :data:`LINE_WEIGHT` per line break, outside bulk literals. A file over
:data:`MAX_COST` (hundreds of thousands of statements, millions of blank lines) is not
parsed in full; the index keeps its imports and top-level names only (see :mod:`.light`).

Both thresholds come from the 3,273 modules of verl, OpenRLHF, TRL, AReaL and
transformers (``bench/literal_bounds.py --corpus`` prints the figures): their largest pure
literal group holds 2,738 tokens (a mapping table of transformers' auto classes) and their
costliest file is transformers' ``trainer.py``, so no ordinary module comes near either
threshold (both are about 7 times the largest). libcst takes about 1.5-2 KB per unit of
cost: 300,000 is about 600 MB.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

MIN_GROUP = 20_000  # tokens in one pure literal group before it is elided
MAX_COST = 300_000  # cost (tokens + LINE_WEIGHT per line) left after eliding before the full parse is refused
LINE_WEIGHT = 3
MAX_DEPTH = 10_000  # open brackets tracked one by one; deeper ones fold into the top one

# a pure literal group of n tokens holds about n/3 of these bytes at least (numbers and
# names need a comma or colon between them; a string brings two quotes, a group two
# brackets), so a file with fewer cannot hold a bulk literal and is not scanned (a long
# chain of unary signs aside: CPython's screen rejects that one in the full parse)
_HINT = b",:'\"[({"
_HINT_DROP = bytes(b for b in range(256) if b not in _HINT)

_STRING = (
    rb"[rRbBuUfF]{0,2}(?:"
    rb"'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
    rb'|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    rb"|'[^'\\\r\n]*(?:\\.[^'\\\r\n]*)*'"
    rb'|"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*"'
    rb")"
)
# one alternative per token kind; the group number is the kind
_TOKEN = re.compile(
    # 1 a line break with the blank and comment lines after it (one token for a million of
    # them: sre runs a character-class repeat in C, an alternation repeat per character)
    rb"([\r\n][\r\n \t\f]*(?:#[^\r\n]*[\r\n][\r\n \t\f]*)*)"
    rb"|([ \t\f]+|\\\r?\n|\\\r)"  # 2 blanks, a continuation
    rb"|(#[^\r\n]*)"  # 3 comment
    rb"|(" + _STRING + rb")"  # 4 string
    rb"|([A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*)"  # 5 name or keyword
    rb"|(\.?[0-9][0-9A-Za-z_.]*)"  # 6 number
    rb"|([\[({])"  # 7 open
    rb"|([\])}])"  # 8 close
    rb"|([,:+\-~])"  # 9 punctuation a literal may hold
    rb"|(.)",  # 10 anything else
    re.DOTALL,
)
_NL, _BLANK, _COMMENT, _STR, _NAME, _NUM, _OPEN, _CLOSE, _PUNCT, _OTHER = range(1, 11)
_QUOTES = (b"'", b'"')
# a run of simple items each followed by a comma or colon, as data modules hold them by the
# hundred thousand; strings without escapes or line breaks only, so that a run holds no
# line break but in its blanks
_ITEM_SPACE = rb"[ \t\f\r\n]*"
_RUN = re.compile(
    rb"(?:" + _ITEM_SPACE + rb"(?:-?[0-9][0-9A-Za-z_.]*|'[^'\\\r\n]*'|\"[^\"\\\r\n]*\"|True|False|None)"
    + _ITEM_SPACE + rb"[,:]){1,4096}"  # bounded: sre keeps a backtracking record per repetition
)
_QUOTED = re.compile(rb"'[^'\\\r\n]*'|\"[^\"\\\r\n]*\"")
_CONSTANTS = frozenset((b"True", b"False", b"None"))


@dataclass(frozen=True, slots=True)
class Bulk:
    """One elided literal: byte offsets of its inside (brackets excluded), its tokens and lines."""

    start: int
    end: int
    tokens: int
    line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class Precheck:
    """What the scan found; ``bulks`` empty and ``tokens`` small for an ordinary module."""

    tokens: int  # every token of the file (blanks, newlines and comments excluded)
    lines: int = 0  # line breaks
    bulks: tuple[Bulk, ...] = ()
    largest_group: int = 0  # tokens of the largest pure literal group, elided or not
    complete: bool = True  # False: the scan stopped once the cost outside bulks passed MAX_COST
    broken: bool = False  # the scan stopped at an unterminated string (a syntax error)

    @property
    def elided_tokens(self) -> int:
        return sum(b.tokens for b in self.bulks)

    @property
    def elided_bytes(self) -> int:
        return sum(b.end - b.start for b in self.bulks)

    @property
    def remaining_tokens(self) -> int:
        return self.tokens - self.elided_tokens

    @property
    def remaining_lines(self) -> int:
        return self.lines - sum(b.end_line - b.line for b in self.bulks)

    @property
    def cost(self) -> int:
        """What a full parse of the file with its bulks elided costs (see the module docstring)."""
        return self.remaining_tokens + LINE_WEIGHT * self.remaining_lines


def may_hold_bulk(content: bytes, min_group: int = MIN_GROUP, max_cost: int = MAX_COST) -> bool:
    """Whether ``content`` could hold a bulk literal or cost too much; one pass in C.

    A token or a line break takes a byte at least, so a file costs at most
    ``LINE_WEIGHT`` per byte.
    """
    return (LINE_WEIGHT * len(content) > max_cost
            or 3 * len(content.translate(None, _HINT_DROP)) >= min_group)


def scan(content: bytes, min_group: int = MIN_GROUP, max_cost: int = MAX_COST) -> Precheck:
    """Tokenize ``content`` once and find its bulk literals (see the module docstring).

    Linear in the size of the file; memory is the list of bulks plus at most
    :data:`MAX_DEPTH` open brackets. A run of simple items inside a pure group (``1, 'a',
    -2,``) is taken in one regular-expression match; the scan stops early, with
    ``complete`` false, once the cost outside bulks passes ``max_cost``.
    """
    tokens = elided = 0  # elided: cost of the bulks found so far
    line = 1
    largest = 0
    # open groups: [inside start offset, token count at opening, pure, line]
    stack: list[list] = []
    folded = 0  # open brackets beyond MAX_DEPTH, merged into stack[-1]
    bulks: list[Bulk] = []
    match, run = _TOKEN.match, _RUN.match
    pos, size = 0, len(content)
    while pos < size:
        m = match(content, pos)
        pos = m.end()  # type: ignore[union-attr]  # the last alternative matches any byte
        kind = m.lastindex  # type: ignore[union-attr]
        if kind == _NL:
            line += _breaks(m.group())  # type: ignore[union-attr]
            if not stack and tokens + LINE_WEIGHT * (line - 1) - elided > max_cost:
                return Precheck(tokens, line - 1, tuple(bulks), largest, complete=False)
            continue
        if kind == _BLANK:
            if pos - m.start() > 1 and content[pos - 1] in b"\r\n":  # type: ignore[union-attr]
                line += 1
            continue
        if kind == _COMMENT:
            continue
        tokens += 1
        if kind == _STR:
            text = m.group(4)  # type: ignore[union-attr]
            line += _breaks(text)
            if stack and stack[-1][2]:
                prefix = text[:len(text) - len(text.lstrip(b"rRbBuUfF"))]
                if b"f" in prefix or b"F" in prefix:
                    stack[-1][2] = False  # an f-string runs code
            continue
        if kind == _OPEN:
            if len(stack) < MAX_DEPTH:
                stack.append([pos, tokens, True, line])
            else:
                folded += 1
        elif kind == _CLOSE:
            if folded:
                folded -= 1
                continue
            if not stack:
                continue  # unbalanced: the parser reports it
            start, first, pure, start_line = stack.pop()
            inside = tokens - first - 1
            if pure:
                if inside > largest:
                    largest = inside
                if inside >= min_group:
                    while bulks and bulks[-1].start >= start:
                        inner = bulks.pop()  # a bulk inside this one
                        elided -= inner.tokens + LINE_WEIGHT * (inner.end_line - inner.line)
                    bulks.append(Bulk(start, m.start(), inside, start_line, line))  # type: ignore[union-attr]
                    elided += inside + LINE_WEIGHT * (line - start_line)
            elif stack:
                stack[-1][2] = False
            continue
        elif kind == _OTHER and m.group() in _QUOTES:  # type: ignore[union-attr]
            # a quote that opens no string: the file does not tokenize (CPython and libcst
            # reject it at this point); scanning on would retry every later quote to the end
            return Precheck(tokens, line - 1, tuple(bulks), largest, broken=True)
        elif not stack or not stack[-1][2]:
            continue
        elif not (kind == _NUM or kind == _PUNCT or (kind == _NAME and m.group(5) in _CONSTANTS)):  # type: ignore[union-attr]
            stack[-1][2] = False
            continue
        if kind != _NUM and kind != _NAME:  # after an opening bracket, a comma or a colon
            r = run(content, pos)
            if r is not None:
                seg = r.group()
                bare = _QUOTED.sub(b"", seg)
                tokens += 2 * (bare.count(b",") + bare.count(b":")) + bare.count(b"-")
                line += _breaks(bare)
                pos = r.end()
    return Precheck(tokens, line - 1, tuple(bulks), largest)


def _breaks(text: bytes) -> int:
    """Line breaks in ``text``, counted as the parser does (``\\r\\n``, ``\\n`` or ``\\r``)."""
    return text.count(b"\n") + text.count(b"\r") - text.count(b"\r\n")


def elide(content: bytes, bulks: tuple[Bulk, ...]) -> tuple[bytes, LineMap]:
    """``content`` with the inside of each bulk replaced by ``...``, and where its lines come from.

    ``...`` is valid wherever the bulk stood (a list, tuple, set or dict display, call
    arguments, a subscript). The bulk's line breaks go too (a literal can span millions of
    lines): what follows a bulk moves up, and the map moves it back.
    """
    out: list[bytes] = []
    at = gone = 0
    starts, origins = [1], [1]
    for b in bulks:
        out.append(content[at:b.start])
        out.append(b"...")
        at = b.end
        if b.end_line > b.line:
            starts.append(b.line - gone + 1)
            origins.append(b.end_line + 1)
            gone += b.end_line - b.line
    out.append(content[at:])
    return b"".join(out), LineMap(tuple(starts), tuple(origins))


@dataclass(frozen=True, slots=True)
class LineMap:
    """Lines of a reduced text back to the file's: segment ``i`` starts at reduced line
    ``starts[i]``, which was line ``origins[i]``, and goes on one for one."""

    starts: tuple[int, ...] = (1,)
    origins: tuple[int, ...] = (1,)

    def __call__(self, line: int) -> int:
        if line <= 0:
            return line  # 0: no line
        i = bisect_right(self.starts, line) - 1
        return self.origins[i] + line - self.starts[i] if i >= 0 else line

"""Make bytes from a log safe for where they land: a terminal, a CI log, JSON, Markdown.

A log line (or a key, or a file name) may carry ANSI escapes that rewrite the terminal, a
carriage return that hides what precedes it, bidi controls that reorder text, or start with
``::`` and become a GitHub Actions workflow command (``::error::``, ``::add-mask::``...) once it
reaches a CI log: the runner trims leading spaces before looking, so indentation is no guard.
"""

from __future__ import annotations

import re
import unicodedata

# Shown as escapes: controls (C0, DEL, C1), format characters (bidi embeddings, overrides and isolates,
# zero-width joiners, BOM...), surrogates, line and paragraph separators. The same rule as
# gyrelint.render.escape, which logcheck may not import (it stands alone from the analysis stages).
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")  # never starts a line: # + - stay


def _escape_char(ch: str) -> str:
    cp = ord(ch)
    if 0xDC80 <= cp <= 0xDCFF:  # a byte of a non-UTF-8 file name, surrogate-escaped by os.fsdecode
        return f"\\x{cp - 0xDC00:02x}"
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"


def visible(text: str) -> str:
    """``text`` with control, format, surrogate and separator characters written as ``\\xNN`` / ``\\uNNNN``."""
    if text.isprintable():  # the common case, checked in C
        return text
    return "".join(ch if ch.isprintable() or unicodedata.category(ch) not in _HIDDEN else _escape_char(ch)
                   for ch in text)


def workflow_safe(line: str) -> str:
    """A line that a CI runner cannot read as a workflow command: ``::name::`` at its start (after any
    blanks, which the runner trims) or the legacy ``##[name]`` anywhere."""
    if "##[" in line:
        line = line.replace("##[", "##\\x5b")
    stripped = line.lstrip()
    if stripped.startswith("::"):
        cut = len(line) - len(stripped)
        return line[:cut] + "\\x3a" + stripped[1:]
    return line


def terminal(text: str) -> str:
    """Text for a terminal or a CI log: every line made visible and workflow-safe."""
    return "\n".join(workflow_safe(visible(line)) for line in text.split("\n"))


def markdown_text(text: str) -> str:
    """Inline Markdown text: control characters visible, Markdown and HTML punctuation backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", visible(text))


def markdown_code(lines: list[str]) -> str:
    """A fenced code block holding ``lines`` as they are (made visible); the fence outruns any backticks inside."""
    body = [visible(x) for x in lines]
    longest = max((len(m) for x in body for m in re.findall(r"`+|~+", x)), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([fence + "text", *body, fence])

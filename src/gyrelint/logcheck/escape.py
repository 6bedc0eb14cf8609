"""Make bytes from a log safe for where they land: a terminal, a CI log, JSON, Markdown.

A log line (or a key, or a file name) may carry ANSI escapes that rewrite the terminal, a
carriage return that hides what precedes it, bidi controls that reorder text, or start with
``::`` and become a GitHub Actions workflow command (``::error::``, ``::add-mask::``...) once it
reaches a CI log: the runner trims leading spaces before looking, so indentation is no guard.
"""

from __future__ import annotations

import re

_CONTROL = [*range(0x00, 0x09), *range(0x0A, 0x20), 0x7F, *range(0x80, 0xA0),
            0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029, 0xFEFF]
_TABLE = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _CONTROL}
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")  # never starts a line: # + - stay


def visible(text: str) -> str:
    """``text`` with control, line-separator and bidi characters written as ``\\xNN`` / ``\\uNNNN``."""
    return text.translate(_TABLE)


def workflow_safe(line: str) -> str:
    """A line that a CI runner cannot read as a workflow command (``::name::``): its first ``:`` escaped."""
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

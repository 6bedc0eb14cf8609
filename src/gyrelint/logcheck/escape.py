"""Make bytes from a log safe for where they land: a terminal, a CI log, JSON, Markdown.

A log line (or a key, or a file name) may carry ANSI escapes that rewrite the terminal, a
carriage return that hides what precedes it, bidi controls that reorder text, or start with
``::`` and become a GitHub Actions workflow command (``::error::``, ``::add-mask::``...) once it
reaches a CI log: the runner trims leading spaces before looking, so indentation is no guard.
"""

from __future__ import annotations

import re

from ..escape import term_block, visible

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")  # never starts a line: # + - stay


def terminal(text: str) -> str:
    """Text for a terminal or a CI log: every line made visible and workflow-safe (the shared
    rule of ``gyrelint.escape``, tabs shown too: a log's tab is data, not layout)."""
    return term_block(visible(text, keep="\n"))


def markdown_text(text: str) -> str:
    """Inline Markdown text: control characters visible, Markdown and HTML punctuation backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", visible(text))


def markdown_code(lines: list[str]) -> str:
    """A fenced code block holding ``lines`` as they are (made visible); the fence outruns any backticks inside."""
    body = [visible(x) for x in lines]
    longest = max((len(m) for x in body for m in re.findall(r"`+|~+", x)), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([fence + "text", *body, fence])

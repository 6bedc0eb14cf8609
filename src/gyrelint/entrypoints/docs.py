"""Shell code blocks of Markdown and reStructuredText files, with their line numbers.

A README's commands are how users start the code, so they count as entry points
(and as claims that can go stale: a command naming a module that was moved).
"""

from __future__ import annotations

import re

SHELL_LANGS = {"", "bash", "sh", "shell", "zsh", "console", "shell-session", "shellsession", "terminal", "ksh",
               "bash-session", "shell-script", "cmd", "batch", "text", "none", "plain", "plaintext"}
PROMPT_LANGS = {"console", "shell-session", "shellsession", "terminal", "bash-session"}
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*\{?\.?([A-Za-z0-9_+-]*)\}?\s*([A-Za-z0-9_+-]*)")
_RST_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+(code-block|code|sourcecode|prompt)::\s*([A-Za-z0-9_+-]*)")
_PROMPT = re.compile(r"^\s*(?:\([\w.-]+\)\s*)?(?:[\w.-]+@[\w.-]+(?::[^$\s]*)?)?[$%]\s+")

Block = list[tuple[int, str]]


def markdown_blocks(text: str) -> list[Block]:
    """Fenced blocks whose language is a shell (or unlabeled); prompt-only lines for sessions."""
    blocks: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence = m.group(2)
        lang = m.group(3).lower()
        if lang in ("code-block", "code", "sourcecode"):  # MyST: ```{code-block} bash
            lang = m.group(4).lower()
        indent = len(m.group(1))
        body: Block = []
        i += 1
        while i < len(lines):
            stripped = lines[i].strip()
            if stripped.startswith(fence[0] * len(fence)) and stripped.strip(fence[0]) == "":
                break
            line = lines[i]
            body.append((i + 1, line[indent:] if line[:indent].strip() == "" else line))
            i += 1
        i += 1
        if lang in SHELL_LANGS:
            blocks.append(_prompts(body, lang in PROMPT_LANGS))
    return blocks


def rst_blocks(text: str) -> list[Block]:
    """``.. code-block:: bash`` (and ``code``, ``sourcecode``, ``prompt``) bodies, dedented."""
    blocks: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _RST_DIRECTIVE.match(lines[i])
        if not m or m.group(3).lower() not in SHELL_LANGS:
            i += 1
            continue
        base = len(m.group(1))
        lang = m.group(3).lower()
        prompt_directive = m.group(2) == "prompt"
        i += 1
        body: Block = []
        while i < len(lines):
            line = lines[i]
            if line.strip() and len(line) - len(line.lstrip()) <= base:
                break
            if not body and line.strip().startswith(":"):
                i += 1  # directive options
                continue
            body.append((i + 1, line))
            i += 1
        nonblank = [len(t) - len(t.lstrip()) for _, t in body if t.strip()]
        cut = min(nonblank) if nonblank else 0
        body = [(n, t[cut:]) for n, t in body]
        blocks.append(body if prompt_directive else _prompts(body, lang in PROMPT_LANGS))
    return blocks


def _prompts(body: Block, session: bool = False) -> Block:
    """Keep only ``$ cmd`` lines (and their continuations) when the block shows prompts."""
    has_prompt = any(_PROMPT.match(t) for _, t in body)
    if not has_prompt:
        return body  # a session block without prompts is still commands more often than output
    out: Block = []
    cont = False
    for n, t in body:
        m = _PROMPT.match(t)
        if m:
            out.append((n, t[m.end():]))
        elif cont:
            out.append((n, t))
        else:
            continue
        cont = t.rstrip().endswith("\\")
    return out

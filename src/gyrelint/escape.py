"""One escaper per output sink, for every byte that comes from the analyzed repo or a log.

Whoever reads gyrelint's output is the victim a hostile repository aims at: a README line or
a YAML key can carry ANSI/OSC sequences (clear the screen, plant a hyperlink), bidi overrides
that reorder what a reviewer sees, a ``::add-mask::`` workflow command for the CI runner, a
``|`` that breaks a Markdown table, an ``@mention`` that pings a stranger from a PR comment,
a ``</script>`` for the HTML report, a ``"]`` for a DOT or Mermaid label, or a non-UTF-8 file
name that crashes the output encoding. Renderers pass repo text through the function of the
sink it lands in; nothing here is specific to one framework.

Invisible characters are shown, not dropped, so a reader sees that something was there:
``\\x1b`` for ESC, ``\\u202e`` for RIGHT-TO-LEFT OVERRIDE, ``\\xff`` for the byte of a
non-UTF-8 file name (Python carries it as the lone surrogate U+DCFF).
"""

from __future__ import annotations

import html as _html
import re
import unicodedata
from typing import Any
from urllib.parse import quote

# Categories shown as escapes: controls (C0, DEL, C1), format characters (bidi embeddings,
# overrides and isolates, zero-width joiners, BOM...), surrogates, line/paragraph separators.
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
# Workflow commands of the GitHub Actions runner: ``::cmd::`` at the start of a line after any
# Unicode blanks (the runner trims them, NBSP included), and the legacy ``##[cmd]`` anywhere.
_LEGACY_COMMAND = "##["
_LINE_COMMAND = re.compile(r"^([^\S\n]*):(?=:)", re.MULTILINE)


def _escape_char(ch: str) -> str:
    cp = ord(ch)
    if 0xDC80 <= cp <= 0xDCFF:  # a byte of a non-UTF-8 name, surrogate-escaped by os.fsdecode
        return f"\\x{cp - 0xDC00:02x}"
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"


def visible(text: object, keep: str = "") -> str:
    """``text`` with every control, format, surrogate and separator character written as an escape.

    ``keep`` lists characters left as they are (``"\\n"`` where a line break is wanted)."""
    s = str(text)
    if s.isprintable():  # the common case, checked in C
        return s
    out = []
    for ch in s:
        if ch in keep or ch.isprintable() or unicodedata.category(ch) not in _HIDDEN:
            out.append(ch)
        else:
            out.append(_escape_char(ch))
    return "".join(out)


def term(text: object) -> str:
    """A value for one line of terminal or CI-log text: no escape sequence, no line break,
    no bidi override, and no workflow command (``##[`` is broken; ``::`` at the value's start
    too, in case the value starts a line)."""
    s = visible(text)
    if _LEGACY_COMMAND in s:
        s = s.replace(_LEGACY_COMMAND, "##\\x5b")
    if s.lstrip().startswith("::"):
        s = _LINE_COMMAND.sub(r"\1\\x3a", s, count=1)
    return s


def term_block(text: str) -> str:
    """Whole terminal/CI output made safe line by line: the last guard before ``echo``.

    Line breaks stay; any other hidden character is escaped, and no line can be read as a
    workflow command by the CI runner (``::`` opening a line becomes ``\\x3a:``)."""
    s = visible(text, keep="\n\t")
    if _LEGACY_COMMAND in s:
        s = s.replace(_LEGACY_COMMAND, "##\\x5b")
    if "::" in s:
        s = _LINE_COMMAND.sub(r"\1\\x3a", s)
    return s


# --------------------------------------------------------------------------------------- GitHub


def github_data(text: object) -> str:
    """The message part of a GitHub workflow command (after ``::``): one line, visible."""
    s = visible(text, keep="\n\r").replace(_LEGACY_COMMAND, "##\\x5b")
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: object) -> str:
    """A property value of a workflow command (``file=``, ``title=``): also no ``:`` or ``,``."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


# ------------------------------------------------------------------------------------- Markdown

_MD_PUNCT = re.compile(r"([\\`*_{}\[\]()<>#!|~&])")
_MENTION = re.compile(r"(?<![\w`])@([A-Za-z0-9][A-Za-z0-9_./-]*)")


def md_text(text: object) -> str:
    """Repo text inside Markdown prose or a table cell (GitHub-flavoured, e.g. a PR comment).

    Markup characters are backslash-escaped (no link, image, HTML tag, emphasis or cell
    break), line breaks become spaces, and an ``@name`` is put in a code span so that
    GitHub does not notify that user."""
    s = visible(str(text).replace("\r\n", " ").replace("\n", " ").replace("\r", " "))
    s = _MD_PUNCT.sub(r"\\\1", s)
    return _MENTION.sub(r"`@\1`", s)


def md_message(text: object) -> str:
    """A finding's message in Markdown: its backtick-quoted parts as code spans, the rest as
    text. Both go through the escapers, so a backtick inside a repo value can at worst shift
    which part is shown as code, never open markup."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0 or len(parts) == 1:  # no quotes, or unbalanced: all text
        return md_text(text)
    return "".join(md_code(p) if i % 2 else md_text(p) for i, p in enumerate(parts))


def md_code(text: object) -> str:
    """Repo text as an inline code span that also sits safely in a table cell."""
    s = visible(str(text).replace("\n", " ").replace("\r", " ")).replace("|", "\\|")
    runs = [len(m) for m in re.findall(r"`+", s)]
    fence = "`" * (max(runs) + 1 if runs else 1)
    pad = " " if s.startswith("`") or s.endswith("`") or not s.strip() else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def url_path(text: object) -> str:
    """A repo-relative path inside a URL: percent-encoded from its bytes (non-UTF-8 names too)."""
    s = str(text)
    return quote(s.encode("utf-8", "surrogateescape"), safe="/")


# ----------------------------------------------------------------------------------------- HTML


def html(text: object) -> str:
    """Repo text in HTML markup or a quoted attribute; hidden characters shown as escapes."""
    return _html.escape(visible(text, keep="\n\t"), quote=True)


# ------------------------------------------------------------------------------ DOT and Mermaid


def dot_string(text: object, line_breaks: bool = True) -> str:
    """A double-quoted DOT string. Backslashes are doubled so dot's own escapes (``\\N``, ``\\G``,
    ``\\l``) cannot be triggered; with ``line_breaks`` a newline becomes dot's ``\\n``."""
    s = visible(text, keep="\n" if line_breaks else "")
    s = s.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + s.replace("\n", "\\n") + '"'


# Inside a double-quoted label, brackets and arrows are text; what still acts is the closing
# quote, the entity syntax (``#name;``), HTML (labels are rendered as HTML), a backtick (a
# markdown string, or the end of a ```mermaid fence), the edge-label delimiter ``|``, and
# ``%%{...}%%``: Mermaid looks for that directive (which can change the security level)
# anywhere in the text, labels and comments included.
_MERMAID = {"#": "#35;", '"': "#quot;", "&": "#amp;", "<": "#lt;", ">": "#gt;", "`": "#96;", "|": "#124;",
            "%": "#37;"}


def mermaid_text(text: object) -> str:
    """Text inside a double-quoted Mermaid label: its metacharacters as Mermaid entities, newlines
    as ``<br/>`` (added after escaping, so they are the only markup)."""
    s = visible(text, keep="\n")
    s = "".join(_MERMAID.get(ch, ch) for ch in s)
    return s.replace("\n", "<br/>")


def mermaid_comment(text: object) -> str:
    """Text of a ``%%`` comment line: one line, no directive, no fence end."""
    s = visible(str(text).replace("\n", " ").replace("\r", " "))
    return s.replace("%", "#37;").replace("`", "#96;")


# ---------------------------------------------------------------------------------- JSON, SARIF


_BEFORE_BRACKET = re.compile(r"(\\+)(?=[\[\]])")


def sarif_text(text: object) -> str:
    """A SARIF ``message.text``: plain text where ``[text](target)`` would be an embedded link,
    so brackets are escaped as SARIF asks (``\\[``), and hidden characters are shown."""
    s = _BEFORE_BRACKET.sub(lambda m: m.group(1) * 2, visible(text, keep="\n\t"))
    return s.replace("[", "\\[").replace("]", "\\]")


def json_safe(value: Any) -> Any:
    """``value`` with every string valid Unicode: a lone surrogate (the byte of a non-UTF-8
    file name) becomes ``\\xNN`` text, so any strict JSON parser reads the document."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return "".join(_escape_char(c) if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value

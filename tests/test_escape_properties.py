"""Properties of the escapers over arbitrary text (hypothesis): whatever a repo writes, the
sink receives no hidden character, no line break where one line is expected, no markup."""

from __future__ import annotations

import json
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gyrelint import escape

HIDDEN = ("Cc", "Cf", "Cs", "Zl", "Zp")
# Text weighted towards what sinks act on, plus any code point (lone surrogates included).
_SPECIAL = list(" \x00\x07\x1b\x9b\r\n\t|`[]()<>!@#&\"'\\:%;{}*_~") + [
    "\u202e", "\u2066", "\u200b", "\u2028", "\ufeff", "\udcff", "::", "##[", "</script>", "<!--", "-->",
    "javascript:", "@octocat", "```"]
TEXT = st.lists(st.one_of(st.sampled_from(_SPECIAL), st.characters()), max_size=40).map("".join)
# Text that often opens with blanks and a workflow command, as a line of a CI log would.
LINE = st.tuples(st.sampled_from(["", " ", " \t", "\n ", "\u00a0"]), st.sampled_from(["", ":", "::", "##["]),
                 TEXT).map("".join)


def _hidden(s: str, allowed: str = "") -> list[str]:
    return [c for c in s if c not in allowed and unicodedata.category(c) in HIDDEN]


@given(LINE)
@settings(max_examples=400, deadline=None, database=None)
def test_term_is_one_visible_line_that_is_no_workflow_command(text):
    out = escape.term(text)
    assert _hidden(out) == [] and "\n" not in out
    assert not out.lstrip().startswith("::") and "##[" not in out
    out.encode("utf-8")


@given(st.lists(LINE, max_size=5).map("\n".join))
@settings(max_examples=300, deadline=None, database=None)
def test_term_block_keeps_lines_but_no_command_line(text):
    out = escape.term_block(text)
    assert _hidden(out, "\n\t") == []
    assert all(not line.lstrip().startswith("::") and "##[" not in line for line in out.split("\n"))


@given(TEXT)
@settings(max_examples=300, deadline=None, database=None)
def test_github_data_cannot_end_its_line(text):
    for out in (escape.github_data(text), escape.github_property(text)):
        assert _hidden(out) == [] and "\n" not in out and "\r" not in out
    assert ":" not in escape.github_property(text) and "," not in escape.github_property(text)


@given(TEXT)
@settings(max_examples=300, deadline=None, database=None)
def test_markdown_text_and_code_render_to_text_only(text):
    markdown_it = pytest.importorskip("markdown_it")
    md = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table")
    md.validateLink = lambda url: True
    cell_a, cell_b = escape.md_message(text), escape.md_code(text)
    html = md.render(f"| a | b |\n|---|---|\n| {cell_a} | {cell_b} |\n")
    tags = set(re.findall(r"</?([A-Za-z][A-Za-z0-9]*)", html))
    assert tags <= {"table", "thead", "tbody", "tr", "th", "td", "code", "em", "strong"}, html
    assert html.count("<td") == 2, html
    assert _hidden(cell_a) == [] and _hidden(cell_b) == []


@given(TEXT)
@settings(max_examples=300, deadline=None, database=None)
def test_html_escape_leaves_no_markup(text):
    out = escape.html(text)
    assert "<" not in out and ">" not in out and '"' not in out and _hidden(out, "\n\t") == []


@given(TEXT)
@settings(max_examples=300, deadline=None, database=None)
def test_dot_string_is_one_quoted_token(text):
    out = escape.dot_string(text)
    assert out[0] == out[-1] == '"' and "\n" not in out and _hidden(out) == []
    body, i = out[1:-1], 0
    while i < len(body):  # every quote and backslash inside is escaped
        assert body[i] != '"'
        i += 2 if body[i] == "\\" else 1


@given(TEXT)
@settings(max_examples=300, deadline=None, database=None)
def test_mermaid_label_cannot_close_its_quotes(text):
    out = escape.mermaid_text(text)
    assert not set(out.replace("<br/>", "")) & set('"`|<>%') and _hidden(out) == []
    comment = escape.mermaid_comment(text)
    assert not set(comment) & set("`%\n") and _hidden(comment) == []


@given(TEXT)
@settings(max_examples=300, deadline=None, database=None)
def test_sarif_text_has_no_unescaped_bracket(text):
    out = escape.sarif_text(text)
    i = 0
    while i < len(out):
        assert out[i] not in "[]"
        i += 2 if out[i] == "\\" else 1


@given(st.recursive(TEXT | st.integers() | st.none(), lambda c: st.lists(c, max_size=3)
                    | st.dictionaries(TEXT, c, max_size=3), max_leaves=8))
@settings(max_examples=200, deadline=None, database=None)
def test_json_safe_is_strict_utf8(value):
    json.dumps(escape.json_safe(value), ensure_ascii=False).encode("utf-8")

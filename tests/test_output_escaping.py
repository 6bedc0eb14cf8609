"""Whoever reads the output is the victim: repo text is escaped for every sink it lands in.

A hostile repo is built at test time (a copy of the ``map_loop`` fixture plus a README
command, a launcher line, a YAML config key and value, and file/folder names that carry
ANSI/OSC sequences, bidi overrides, ``::`` workflow commands, ``</script>``, ``"]``, ``|``,
backticks, Markdown links and ``@mentions``). Every command and format runs on it, and each
output is checked for what its sink must never hold raw; each check also asserts that the
hostile text did reach the output (escaped), so a check cannot pass by seeing nothing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from gyrelint import escape
from gyrelint.cli import main
from gyrelint.model import Diagnostic, Finding, Location, Severity
from gyrelint.render.schemas import findings_schema, report_schema

FIXTURES = Path(__file__).parent / "fixtures"
# One line of everything a sink could act on: a javascript: link, an image, an HTML tag, a
# PR-comment mention, an OSC 8 hyperlink, clear-screen, RLO and an isolate, U+2028, a legacy
# workflow command, a Mermaid comment/click directive, an 8-bit CSI, a Markdown table break,
# a backtick, a script end, a comment start and a DOT/Mermaid label end.
HOSTILE = ("[x](javascript:alert(1)) ![i](https://evil.example/x.png) <img src=x onerror=alert(1)> @octocat"
           " \x1b]8;;https://evil.example/\x07click\x1b]8;;\x07\x1b[2J\u202eevil\u2066 \u2028"
           " ##[set-output name=a]b %% click n1 call alert() \x9b31m |`</script><!--\"]")
HIDDEN = ("Cc", "Cf", "Cs", "Zl", "Zp")


def build_hostile(root: Path) -> Path:
    shutil.copytree(FIXTURES / "map_loop", root)
    (root / "README.md").write_text(
        "# hostile\n\n```bash\n"
        f"python -m looprl.missing_mod --name '{HOSTILE}'\n"
        f"python -m looprl.main --tag '{HOSTILE}'\n```\n", encoding="utf-8")
    (root / "scripts").mkdir()
    (root / "scripts" / "launch.sh").write_text(
        f"#!/bin/sh\ntorchrun --nproc_per_node 8 looprl/nothere.py --x '{HOSTILE}'\n"
        "python looprl/gone.py '\x1b]8;;https://evil.example/\x07\u202e::add-mask::x'\n", encoding="utf-8")
    config = {"trainer": {"nnodes": "2\n::add-mask::secret " + HOSTILE, "master_port" + HOSTILE: 29500},
              "rollout": {"port\n::stop-commands::tok": "8000 " + HOSTILE}}
    (root / "conf.yaml").write_text(json.dumps(config), encoding="utf-8")
    # the run loads it (a config file nothing loads is not listed by `topology`)
    (root / "looprl" / "settings.py").write_text("import yaml\n\nCFG = yaml.safe_load(open('conf.yaml'))\n")
    (root / "looprl" / "evil\x1b[2J|`\u202e::x.py").write_text("def broken(:\n", encoding="utf-8")
    weird = root / "weird\n::add-mask::x"
    weird.mkdir()
    (weird / "mod.py").write_text("def broken(:\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    # the folder name lands in titles (map, report): a Mermaid directive and a fence end
    return build_hostile(tmp_path_factory.mktemp("hostile") / "repo %%{init: {'securityLevel': 'loose'}}%% ```")


def gyrelint(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, [*args], catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def out(hostile: Path, tmp_path_factory) -> dict[str, tuple[int, str, str]]:
    """Every command and format on the hostile repo: name -> (exit code, stdout, stderr)."""
    repo = str(hostile)
    runs = {
        "analyze": ["analyze", repo], "analyze-json": ["analyze", repo, "--format", "json"],
        "check": ["check", repo, "-v"], "check-json": ["check", repo, "--format", "json"],
        "check-sarif": ["check", repo, "--format", "sarif"], "check-markdown": ["check", repo, "--format", "markdown"],
        "check-github": ["check", repo, "--format", "github"],
        "entries": ["entries", repo, "--all"], "entries-json": ["entries", repo, "--format", "json"],
        "topology": ["topology", repo], "topology-json": ["topology", repo, "--format", "json"],
        "map-dot": ["map", repo], "map-mermaid": ["map", repo, "--format", "mermaid"],
        "graph-dot": ["graph", repo, "--format", "dot"], "graph-json": ["graph", repo],
    }
    results = {name: gyrelint(*args, "--no-cache") for name, args in runs.items()}
    report = tmp_path_factory.mktemp("report")
    code, stdout, stderr = gyrelint("report", repo, "-o", str(report), "--no-cache")
    results["report"] = (code, (report / "index.html").read_text(encoding="utf-8"), stderr)
    return results


def hidden(text: str, allowed: str = "\n") -> list[str]:
    return sorted({c for c in text if c not in allowed and unicodedata.category(c) in HIDDEN})


def assert_terminal_safe(text: str) -> None:
    """Nothing a terminal or a CI runner would act on: no hidden character but line breaks,
    no line the GitHub runner reads as a workflow command."""
    assert hidden(text, "\n\t") == []
    for line in text.splitlines():
        assert not line.lstrip().startswith("::"), line
        assert "##[" not in line, line


@pytest.mark.parametrize("name", ["analyze", "check", "entries", "topology"])
def test_terminal_text_holds_no_escape_sequence_nor_workflow_command(out, name):
    code, stdout, stderr = out[name]
    assert code in (0, 1), stderr
    assert_terminal_safe(stdout)
    assert_terminal_safe(stderr)
    # the hostile text got through, shown visibly
    assert "\\x1b]8;;https://evil.example/" in stdout + stderr and "\\u202e" in stdout + stderr


def test_stderr_diagnostics_show_hostile_file_names_escaped(out):
    _, _, stderr = out["check"]
    assert "looprl/evil\\x1b[2J|`\\u202e::x.py" in stderr
    assert "weird\\x0a::add-mask::x/mod.py" in stderr  # a newline in a folder name cannot start a line


def test_config_keys_with_line_breaks_stay_on_their_line(out):
    _, stdout, _ = out["topology"]
    assert "port\\x0a::stop-commands::tok" in stdout or "nnodes" in stdout
    assert_terminal_safe(stdout)


def test_github_annotations_are_one_command_per_finding(out):
    _, stdout, _ = out["check-github"]
    findings = json.loads(out["check-json"][1])["findings"]
    lines = stdout.splitlines()
    assert len(lines) == len(findings) > 0
    for line in lines:
        assert re.match(r"^::(error|warning|notice) file=[^:,\n]*,line=\d+,title=GYR\d{3}::", line), line
        assert hidden(line) == [] and "##[" not in line
    assert any("%0A" in line or "\\x1b" in line for line in lines)


class _Rendered(HTMLParser):
    """Tags, link targets, table cells and the text outside code spans of rendered Markdown."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.hrefs: list[str] = []
        self.rows: list[int] = []
        self.text_outside_code: list[str] = []
        self._code = 0

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.hrefs += [v or "" for k, v in attrs if k in ("href", "src")]
        if tag == "tr":
            self.rows.append(0)
        elif tag in ("td", "th"):
            self.rows[-1] += 1
        elif tag == "code":
            self._code += 1

    def handle_endtag(self, tag):
        if tag == "code":
            self._code -= 1

    def handle_data(self, data):
        if not self._code:
            self.text_outside_code.append(data)


def render_gfm(text: str) -> _Rendered:
    """Markdown as GitHub renders it (tables, raw HTML allowed); every link target is kept, so a
    ``javascript:`` link would show up instead of being dropped by the parser's own filter."""
    markdown_it = pytest.importorskip("markdown_it")
    md = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table")
    md.validateLink = lambda url: True
    parsed = _Rendered()
    parsed.feed(md.render(text))
    return parsed


def assert_markdown_safe(text: str, ours: set[str] = frozenset()) -> _Rendered:
    assert hidden(text) == []
    r = render_gfm(text)
    assert set(r.tags) <= {"h3", "h4", "p", "table", "thead", "tbody", "tr", "th", "td", "code", "a", "ul", "li",
                           "strong", "em", *ours}, set(r.tags)
    assert all(h.startswith("https://github.com/gyrelint/") for h in r.hrefs), r.hrefs
    assert "@octocat" not in "".join(r.text_outside_code)  # a mention only inside a code span
    return r


def test_markdown_has_no_link_tag_mention_or_cell_break_from_the_repo(out):
    _, md, _ = out["check-markdown"]
    r = assert_markdown_safe(md, ours={"details", "summary"})
    findings = json.loads(out["check-json"][1])["findings"]
    assert r.rows.count(5) == len(findings) + 1 and set(r.rows) == {5}  # header + one row per finding
    assert "[x](javascript:alert(1))" in "".join(r.text_outside_code)  # shown as text, not a link


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.comments = 0

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_comment(self, data):
        self.comments += 1


def test_html_report_cannot_gain_markup_or_script(out):
    _, page, _ = out["report"]
    assert hidden(page, "\n\t") == []
    parsed = _Tags()
    parsed.feed(page)
    names = [t for t, _ in parsed.tags]
    assert "img" not in names and parsed.comments == 0
    assert not [a for _, attrs in parsed.tags for a in attrs if a.startswith("on")]
    scripts = [attrs.get("type") for t, attrs in parsed.tags if t == "script"]
    assert set(scripts) <= {"application/json", "text/x-gyrelint-rows", None} and scripts.count(None) == 1
    data = re.search(r'<script type="application/json" id="gyre-data">(.*?)</script>', page, re.S).group(1)
    json.loads(data)  # the embedded data is one intact JSON value
    assert "&lt;/script&gt;" in page and "\\u202e" in page  # hostile text shown, escaped


def test_dot_map_parses_to_the_same_graph(out):
    pydot = pytest.importorskip("pydot")
    for name in ("map-dot", "graph-dot"):
        _, dot_text, _ = out[name]
        assert hidden(dot_text) == []
        [graph] = pydot.graph_from_dot_data(dot_text)
        declared = re.findall(r'^\s+("(?:[^"\\]|\\.)*"|n[0-9a-f]{10}) \[', dot_text, re.M)
        nodes = [n.get_name() for n in graph.get_nodes()] + [
            n.get_name() for s in graph.get_subgraphs() for n in s.get_nodes()]
        assert len([n for n in nodes if n not in ("node", "edge", "graph")]) >= len(declared)
        if shutil.which("dot"):
            proc = subprocess.run(["dot", "-Tsvg"], input=dot_text.encode(), capture_output=True, timeout=60)
            assert proc.returncode == 0, proc.stderr
            assert b"<script" not in proc.stdout


def test_mermaid_labels_stay_inside_their_quotes(out):
    _, text, _ = out["map-mermaid"]
    assert hidden(text) == [] and "%%{" not in text and "```" not in text
    assert "securityLevel" in text.splitlines()[1]  # the title comment holds the folder name, defused
    for line in text.splitlines()[1:]:
        s = line.strip()
        if s.startswith("%%"):
            continue
        assert not s.startswith("click"), line
        assert re.fullmatch(r'(n[0-9a-f]{10}(\("[^"]*"\)|>"[^"]*"\]|\[\["[^"]*"\]\])'
                            r'|n[0-9a-f]{10} (==>|-\.->|-->)(\|"[^"]*"\|)? n[0-9a-f]{10}'
                            r'|subgraph cluster_\w+\["[^"]*"\]|end|classDef .*|class [\w,]+ \w+|linkStyle .*)', s), line
        assert not re.search(r"<(?!br/>)", s), line


def test_json_documents_are_strict_utf8_and_match_their_schemas(out):
    for name in ("analyze-json", "check-json", "check-sarif", "entries-json", "topology-json", "graph-json"):
        _, text, _ = out[name]
        doc = json.loads(text)
        json.dumps(doc, ensure_ascii=False).encode("utf-8")  # no lone surrogate anywhere
    jsonschema.validate(json.loads(out["check-json"][1]), findings_schema())
    jsonschema.validate(json.loads(out["analyze-json"][1]), report_schema())


def test_sarif_messages_cannot_embed_links(out):
    sarif = json.loads(out["check-sarif"][1])
    texts = [r["message"]["text"] for r in sarif["runs"][0]["results"]]
    texts += [loc["message"]["text"] for r in sarif["runs"][0]["results"]
              for loc in r.get("relatedLocations", []) if "message" in loc]
    assert any("javascript" in t for t in texts)
    for t in texts:
        assert not re.search(r"(?<!\\)[\[\]]", t), t
        assert hidden(t, "\n\t") == []


# --- names that are not UTF-8 -------------------------------------------------------------------

BAD = "looprl/bad\udcff\udcfe.py"  # os.fsdecode(b"looprl/bad\xff\xfe.py")


@pytest.fixture(scope="module")
def with_bad_name(hostile: Path):
    """The hostile analysis plus a finding and a diagnostic on a non-UTF-8 file name."""
    from gyrelint.api import analyze

    a = analyze(str(hostile), use_cache=False)
    a.findings.append(Finding("GYR009", Severity.ERROR, f"command points at {BAD}", BAD, 3, "fix it",
                              [Location(BAD, 3, f"note {BAD}")], "f" * 20))
    a.diagnostics.append(Diagnostic(BAD, 1, "syntax error", "parse"))
    return a


def test_non_utf8_names_never_break_an_output(with_bad_name, tmp_path):
    from gyrelint.cli.check_cmd import render
    from gyrelint.render.html import render_html
    from gyrelint.render.json_report import to_report
    from gyrelint.render.text import render_text

    a = with_bad_name
    texts = {fmt: render(fmt, a.findings, a) for fmt in ("text", "json", "sarif", "markdown", "github")}
    texts["analyze"] = render_text(a)
    texts["report"] = json.dumps(to_report(a))
    texts["html"] = render_html(a)
    for fmt, text in texts.items():
        text.encode("utf-8")  # strict: a lone surrogate would raise here
        if fmt in ("json", "sarif", "report"):
            text = json.dumps(json.loads(text), ensure_ascii=False)
        assert "\\xff\\xfe" in text.replace("\\\\", "\\") or "%FF%FE" in text, fmt
    assert "looprl/bad%FF%FE.py" in texts["sarif"]  # the URI keeps the real bytes


def test_click_usage_errors_show_what_was_typed_escaped():
    code, stdout, stderr = gyrelint("rule", "\x1b[2J\u202e")
    assert code == 2 and hidden(stdout + stderr) == [] and "\\x1b[2J\\u202e" in stderr
    code, _, stderr = gyrelint("check", "--select", "\x1b]8;;x\x07", ".")
    assert code == 2 and hidden(stderr) == [] and "\\x1b]8;;X\\x07" in stderr  # codes are upper-cased
    code, _, stderr = gyrelint("map", "--format", "\x1b[31mred")
    assert code == 2 and hidden(stderr) == []


# --- the escapers themselves ---------------------------------------------------------------------


def test_term_escapes_and_breaks_workflow_commands():
    assert escape.term("\x1b[2J\u202e\x85\udcff") == "\\x1b[2J\\u202e\\x85\\xff"
    assert escape.term("::add-mask::x") == "\\x3a:add-mask::x"
    assert escape.term("a ##[group]b") == "a ##\\x5bgroup]b"
    assert escape.term("std::vector") == "std::vector"  # only a value that starts with '::'
    assert escape.term_block("ok\n  ::set-output name=a::b") == "ok\n  \\x3a:set-output name=a::b"


def test_markdown_escapers():
    assert escape.md_text("a|b\nc <b>x</b> [l](javascript:1) @someone") == \
        "a\\|b c \\<b\\>x\\</b\\> \\[l\\]\\(javascript:1\\) `@someone`"
    assert escape.md_code("x`y|z") == "``x`y\\|z``"
    assert escape.url_path("a b/c\udcff.py") == "a%20b/c%FF.py"


def test_dot_mermaid_sarif_json_escapers():
    assert escape.dot_string('a"\\N\x1b') == '"a\\"\\\\N\\\\x1b"'
    assert escape.mermaid_text('"]) --> |x| `y` #quot; <b>\nz %%{init: {}}%%') == \
        '#quot;]) --#gt; #124;x#124; #96;y#96; #35;quot; #lt;b#gt;<br/>z #37;#37;{init: {}}#37;#37;'
    assert escape.mermaid_comment("root ```\n%%{init: {}}%%") == "root #96;#96;#96; #37;#37;{init: {}}#37;#37;"
    assert escape.sarif_text("see [x](https://e) \\]") == "see \\[x\\](https://e) \\\\\\]"
    assert escape.json_safe({"k\udcff": ["v\udcfe", 1]}) == {"k\\xff": ["v\\xfe", 1]}


def test_diff_text_and_markdown_escape_repo_text():
    from gyrelint.compare import DiffReport, KeyChange
    from gyrelint.model import KeyEntry
    from gyrelint.render.diff import render_text

    key = KeyEntry("port\n::add-mask::x " + HOSTILE, "port", HOSTILE, None, "c\x1b.yaml", 2, "yaml", HOSTILE)
    flip = KeyChange("colocate\n::warning::" + HOSTILE, "layout", HOSTILE, "true\x1b[2J", "d\x1b.yaml", 3)
    lost = Finding("GYR003", Severity.ERROR, "lost " + HOSTILE, "t\x1b.py", 3, "fix", [], "1" * 20)
    r = DiffReport("upstream/main", "HEAD", keys_added=(key,), keys_removed=(key,), keys_changed=(flip,),
                   weight_sync="broken", sync_lost=(lost,), new_findings=(
        Finding("GYR009", Severity.ERROR, "command " + HOSTILE, "README\u202e.md", 4, "fix", [], "0" * 20),))
    text = render_text(r)
    assert_terminal_safe(text)
    assert "\\x1b]8;;https://evil.example/" in text
    assert_markdown_safe(render_text(r, markdown=True))


def test_outputs_replace_a_planted_symlink_instead_of_writing_through_it(hostile: Path, tmp_path: Path):
    """A repo that ships ``report/index.html -> ~/.bashrc`` must not get that file overwritten."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    work = tmp_path / "work"
    (work / "report").mkdir(parents=True)
    for name in ("report/index.html", "map.dot", "findings.sarif"):
        (work / name).symlink_to(victim)
    assert gyrelint("report", str(hostile), "-o", str(work / "report"), "--no-cache")[0] == 0
    assert gyrelint("map", str(hostile), "-o", str(work / "map.dot"))[0] == 0
    assert gyrelint("check", str(hostile), "--format", "sarif", "-o", str(work / "findings.sarif"))[0] == 1
    assert victim.read_text() == "precious\n"
    for name in ("report/index.html", "map.dot", "findings.sarif"):
        assert not (work / name).is_symlink() and (work / name).stat().st_size > 100
    assert sorted(p.name for p in work.rglob("*.tmp")) == []  # no temporary file left behind


def test_findings_document_prose_is_printable_as_is(out):
    """Consumers print message/fix/note raw (``jq -r``, the flake8 plugin): no hidden character there."""
    doc = json.loads(out["check-json"][1])
    prose = [f["message"] for f in doc["findings"]] + [f["fix"] for f in doc["findings"]]
    prose += [e["note"] for f in doc["findings"] for e in f["evidence"]]
    assert any("\\x1b" in p for p in prose)
    assert all(hidden(p) == [] for p in prose)


def test_md_message_keeps_code_spans_of_the_rules_own_quotes():
    assert escape.md_message("`requests.post(...)` sets `timeout=None`") == \
        "`requests.post(...)` sets `timeout=None`"
    assert escape.md_message("a `x|y` b") == "a `x\\|y` b"
    # an odd backtick from the repo: everything is text, escaped
    assert escape.md_message("cmd `a`b` <i>") == "cmd \\`a\\`b\\` \\<i\\>"
    # a mention quoted from the repo inside a code span does not notify; outside it is wrapped
    assert escape.md_message("`@x` and @y") == "`@x` and `@y`"


def test_report_refuses_a_folder_that_is_a_symlink(hostile: Path, tmp_path: Path):
    elsewhere = tmp_path / "served"
    elsewhere.mkdir()
    (elsewhere / "index.html").write_text("theirs")
    (tmp_path / "report").symlink_to(elsewhere)
    for args in (["report", str(hostile), "-o", str(tmp_path / "report")],
                 ["analyze", str(hostile), "--html", str(tmp_path / "report")]):
        code, _, stderr = gyrelint(*args)
        assert code == 2 and "is a symlink" in stderr and stderr.count("\n") == 1, stderr
    assert (elsewhere / "index.html").read_text() == "theirs"

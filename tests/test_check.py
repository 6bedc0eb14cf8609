"""`gyrelint check`: exit codes, selection, formats, suppression, on a fixture and on hand-built analyses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gyrelint.cli import check_cmd, main
from gyrelint.model import Handoff, Side
from gyrelint.render.github import render_github
from gyrelint.render.markdown import render_markdown
from gyrelint.rules.testing import fn, make_analysis

FIXTURE = Path(__file__).parent / "fixtures" / "rules_timeout"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    dst = tmp_path / "repo"
    shutil.copytree(FIXTURE, dst)
    return dst


def run(*args: str):
    return CliRunner().invoke(main, ["check", *args], catch_exceptions=False)


def test_seeded_timeout_fails_and_the_fix_passes(repo: Path, tmp_path: Path):
    r = run(str(repo), "--select", "GYR008", "--no-cache")
    assert r.exit_code == 1, r.output
    assert "pkg/sync.py:9: GYR008 [warning]" in r.output
    assert "line=19" not in r.output and "sync.py:19" not in r.output  # suppressed inline
    src = repo / "pkg" / "sync.py"
    src.write_text(src.read_text().replace("timeout=36000,", "timeout=60,"))
    r = run(str(repo), "--select", "GYR008", "--no-cache")
    assert r.exit_code == 0, r.output
    assert "no findings" in r.output


def test_fail_on_and_ignore(repo: Path):
    assert run(str(repo), "--select", "GYR008", "--fail-on", "error").exit_code == 0
    r = run(str(repo), "--select", "GYR0", "--ignore", "GYR008")
    assert "GYR008" not in r.output


def test_per_rule_severity_and_off_from_pyproject(repo: Path):
    (repo / "pyproject.toml").write_text('[tool.gyrelint]\nselect = ["GYR008"]\n[tool.gyrelint.rules]\nGYR008 = "error"\n')
    r = run(str(repo), "--fail-on", "error")
    assert r.exit_code == 1 and "[error]" in r.output
    (repo / "pyproject.toml").write_text('[tool.gyrelint.rules]\nGYR008 = "off"\n')
    assert "GYR008" not in run(str(repo)).output


def test_formats_on_the_fixture(repo: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(repo.parent)  # paths are shown from the cwd: repo/pkg/sync.py
    data = json.loads(run("repo", "--select", "GYR008", "--format", "json").output)
    assert data["schema"] == "gyrelint-findings/1"  # the findings document, not the whole analysis
    assert "functions" not in data and data["summary"]["by_severity"]["warning"] == 1
    [f] = data["findings"]
    assert f["rule"] == "GYR008" and f["line"] == 9 and f["column"] == 1
    assert f["fingerprint"] and f["fix"] and f["evidence"]
    assert f["file"] == "pkg/sync.py" and f["path"] == "repo/pkg/sync.py"  # file: the stable key
    sarif = json.loads(run("repo", "--select", "GYR008", "--format", "sarif").output)
    assert sarif["runs"][0]["results"][0]["ruleId"] == "GYR008"
    gh = run("repo", "--select", "GYR008", "--format", "github").output
    assert gh.startswith("::warning file=repo/pkg/sync.py,line=9,title=GYR008::")
    md = run("repo", "--select", "GYR008", "--format", "markdown").output
    assert "| 🟠 | [GYR008](" in md and "`repo/pkg/sync.py:9`" in md


def test_output_file(repo: Path, tmp_path: Path):
    out = tmp_path / "r.sarif"
    r = run(str(repo), "--select", "GYR008", "--format", "sarif", "-o", str(out))
    assert r.exit_code == 1 and json.loads(out.read_text())["version"] == "2.1.0"


@pytest.mark.parametrize("args,needle", [
    (["--select", "GYR999"], "unknown rule code GYR999"),
    (["--baseline", "/nonexistent/b.json"], "no such baseline"),
])
def test_bad_input_exits_2_with_one_line(repo: Path, args, needle):
    r = CliRunner().invoke(main, ["check", str(repo), *args])
    assert r.exit_code == 2 and needle in r.output and "Traceback" not in r.output


def test_missing_path_exits_2():
    r = CliRunner().invoke(main, ["check", "/nonexistent/repo"])
    assert r.exit_code == 2 and "no such file" in r.output


def test_exit_codes_follow_the_worst_severity(monkeypatch):
    analysis = make_analysis([fn("p.m.rollout", Side.SAMPLING), fn("p.m.train", Side.TRAINING)],
                             handoff=Handoff(online=False))
    from gyrelint.rules import run_rules

    def fake(path, **kw):
        from gyrelint.settings import Settings

        s = Settings().with_overrides(select=kw.get("select"), ignore=kw.get("ignore"))
        analysis.findings = run_rules(analysis, s)
        return analysis

    monkeypatch.setattr(check_cmd, "analyze", fake)
    r = run(".")
    assert r.exit_code == 1 and "GYR003 [error]" in r.output
    assert run(".", "--select", "GYR006", "--fail-on", "error").exit_code == 0
    assert run(".", "--select", "GYR006", "--fail-on", "warning").exit_code == 1


def test_github_annotations_escape_properties_and_data():
    a = make_analysis([fn("p.m.rollout", Side.SAMPLING), fn("p.m.train", Side.TRAINING)])
    from gyrelint.model import Finding, Severity

    f = Finding("GYR004", Severity.ERROR, "50% of a, b\nsecond line", "dir,x/a:b.py", 3, fix="do it")
    out = render_github([f])
    assert out == "::error file=dir%2Cx/a%3Ab.py,line=3,title=GYR004::50%25 of a, b%0Asecond line. What to do: do it\n"
    assert render_github([]) == ""
    info = Finding("GYR006", Severity.INFO, "m", "a.py", 0)
    assert render_github([info]).startswith("::notice file=a.py,line=1,")
    assert a.findings == []


def test_markdown_escapes_pipes_and_says_clean():
    from gyrelint.model import Finding, Severity

    assert "No findings" in render_markdown([])
    md = render_markdown([Finding("GYR008", Severity.WARNING, "a | b", "x.py", 2, fix="f")])
    assert "a \\| b" in md and "1 warning" in md


def test_a_broken_file_is_named_and_the_rest_is_still_checked(repo: Path):
    (repo / "pkg" / "broken.py").write_text("def f(:\n")
    r = CliRunner().invoke(main, ["check", str(repo), "--select", "GYR008", "--no-cache"])
    assert r.exit_code == 1 and "pkg/sync.py:9: GYR008" in r.output
    assert "pkg/broken.py" in r.output and "syntax error" in r.output


def test_check_warns_about_skipped_and_partly_indexed_files(tmp_path: Path):
    """A finding can hide in a file the index skipped (a FIFO) or only partly read (a data module):
    the linter says so on stderr, one escaped line each."""
    import os
    import subprocess
    import sys

    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    (repo / "pkg" / "vocab.py").write_text("TABLE = [" + ", ".join(str(i) for i in range(12_000)) + "]\n")
    os.mkfifo(repo / "pkg" / "pipe.py")
    proc = subprocess.run([sys.executable, "-m", "gyrelint", "check", str(repo)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "GYRELINT_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode in (0, 1), proc.stderr
    warnings = [x for x in proc.stderr.splitlines() if x.startswith("gyrelint: warning:")]
    assert any("pkg/vocab.py" in x and "literal data left out" in x for x in warnings), proc.stderr
    assert any("pkg/pipe.py" in x and "FIFO" in x for x in warnings), proc.stderr

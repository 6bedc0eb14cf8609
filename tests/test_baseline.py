"""Baselines: `gyrelint baseline` then `check --baseline` reports only new findings; moved lines stay matched."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from gyrelint.baseline import Baseline, BaselineError, read, write
from gyrelint.cli import main
from gyrelint.model import Finding, Severity

FIXTURE = Path(__file__).parent / "fixtures" / "rules_timeout"


def f(fp: str, line: int = 1) -> Finding:
    return Finding("GYR008", Severity.WARNING, "m", "a.py", line, fingerprint=fp)


def test_multiset_matching(tmp_path: Path):
    path = tmp_path / "b.json"
    write(path, [f("x"), f("x"), f("y")])
    b = read(path)
    assert isinstance(b, Baseline)
    new = b.new([f("x", 5), f("x", 6), f("x", 7), f("z")])
    assert [(n.fingerprint, n.line) for n in new] == [("x", 7), ("z", 1)]


def test_bad_baselines_name_the_file(tmp_path: Path):
    for text, needle in [("{", "not valid JSON"), ('{"schema": "other"}', "not a gyrelint baseline")]:
        p = tmp_path / "b.json"
        p.write_text(text)
        try:
            read(p)
        except BaselineError as exc:
            assert str(p) in str(exc) and needle in str(exc)
        else:
            raise AssertionError("no error")


def test_cli_baseline_then_check_reports_only_new(tmp_path: Path):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    (repo / "pyproject.toml").write_text('[tool.gyrelint]\nselect = ["GYR008"]\n')
    runner = CliRunner()
    r = runner.invoke(main, ["baseline", str(repo), "--no-cache"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    base = repo / ".gyrelint-baseline.json"
    data = json.loads(base.read_text())
    assert data["schema"] == "gyrelint-baseline/1" and len(data["findings"]) == 1
    # an unrelated edit moves the old finding down; it stays matched
    src = repo / "pkg" / "sync.py"
    src.write_text("\n\n# moved\n" + src.read_text())
    r = runner.invoke(main, ["check", str(repo), "--baseline", str(base), "--no-cache"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    # a new fault is reported
    (repo / "pkg" / "more.py").write_text(
        "import requests\n\ndef push(url):\n    return requests.post(url, timeout=86400)\n")
    r = runner.invoke(main, ["check", str(repo), "--baseline", str(base), "--no-cache"], catch_exceptions=False)
    assert r.exit_code == 1
    assert "pkg/more.py:4" in r.output and "pkg/sync.py" not in r.output


def test_baseline_write_never_follows_a_planted_symlink(tmp_path: Path):
    """A repo that plants its baseline (or the old fixed temporary name) as a symlink to a file of
    the user's must not get that file overwritten by `gyrelint baseline`."""
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".gyrelint-baseline.json.tmp").symlink_to(victim)
    (repo / ".gyrelint-baseline.json").symlink_to(victim)
    finding = Finding("GYR007", Severity.WARNING, "drops data", "pkg/train.py", 3)
    write(repo / ".gyrelint-baseline.json", [finding])
    assert victim.read_text() == "precious\n"
    assert not (repo / ".gyrelint-baseline.json").is_symlink()
    assert read(repo / ".gyrelint-baseline.json").new([finding]) == []


def test_a_fifo_baseline_is_refused_not_read(tmp_path: Path):
    import os

    fifo = tmp_path / "base.json"
    os.mkfifo(fifo)
    try:
        read(fifo)
    except BaselineError as exc:
        assert "FIFO" in str(exc)
    else:
        raise AssertionError("a FIFO was accepted as a baseline")

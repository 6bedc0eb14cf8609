"""The flake8 plugin, run through the real flake8: repository findings reported in the file they sit in."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gyrelint.flake8_plugin import GyrelintChecker, find_root, findings_for, signature

FIXTURE = Path(__file__).parent / "fixtures" / "rules_timeout"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    shutil.copytree(FIXTURE, r)
    (r / "pyproject.toml").write_text('[tool.gyrelint]\nselect = ["GYR008"]\n')
    return r


def flake8(repo: Path, *files: str, cache: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("flake8")
    if not exe.exists():
        pytest.skip("flake8 is not installed (dev extra)")
    env = {**os.environ, "GYRELINT_CACHE_DIR": str(cache)}
    return subprocess.run([str(exe), "--select", "GYR", "--isolated", *files], cwd=repo, capture_output=True,
                          text=True, env=env, timeout=300)


def test_real_flake8_reports_the_finding_in_its_file_only(repo: Path, tmp_path: Path):
    out = flake8(repo, "pkg/sync.py", "pkg/__init__.py", cache=tmp_path / "cache")
    assert out.returncode == 1, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("pkg/sync.py:9:1: GYR008 ")
    # warm: answered from the findings cache
    assert [p for p in (tmp_path / "cache" / "findings").glob("*/*") if p.is_file()]
    again = flake8(repo, "pkg/sync.py", cache=tmp_path / "cache")
    assert again.stdout == out.stdout


def test_fixing_the_fault_clears_it(repo: Path, tmp_path: Path):
    sync = repo / "pkg" / "sync.py"
    sync.write_text(sync.read_text().replace("timeout=36000,", "timeout=60,"))
    out = flake8(repo, "pkg/sync.py", cache=tmp_path / "cache")
    assert out.returncode == 0 and out.stdout == ""


def test_signature_changes_with_content_and_root_discovery(repo: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("GYRELINT_CACHE_DIR", str(tmp_path / "c2"))
    (repo / ".git").mkdir()
    assert find_root(repo / "pkg" / "sync.py") == repo.resolve()
    before = signature(repo)
    (repo / "pkg" / "new.py").write_text("x = 1\n")
    assert signature(repo) != before
    rows = findings_for(repo / "pkg" / "sync.py")
    assert [(line, rule) for line, rule, _ in rows] == [(9, "GYR008")]
    checker = GyrelintChecker(None, str(repo / "pkg" / "sync.py"))
    assert [r[:2] for r in checker.run()] == [(9, 0)]
    assert list(GyrelintChecker(None, "stdin").run()) == []


def test_a_gyrelint_package_planted_in_the_repo_is_never_run(repo: Path, tmp_path: Path):
    """flake8 --jobs=2 lints in daemonic workers, where the plugin analyzes in a child
    interpreter: that child once ran ``python -m gyrelint`` from the repository, which
    imported the repository's own ``gyrelint/`` (code execution, and a fake empty report
    that hid the real findings)."""
    marker = tmp_path / "planted-code-ran"
    planted = repo / "gyrelint"
    planted.mkdir()
    payload = (f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
               "print('{\"findings\": []}')\nraise SystemExit(0)\n")
    (planted / "__init__.py").write_text(payload)
    (planted / "__main__.py").write_text(payload)
    (planted / "cli.py").write_text(payload)
    out = flake8(repo, "--jobs=2", "pkg/sync.py", "pkg/__init__.py", cache=tmp_path / "cache")
    assert not marker.exists(), "the repository's gyrelint package was imported"
    assert out.returncode == 1, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pkg/sync.py:9:1: GYR008 "), out.stdout

"""`check --new-only` (the pre-commit hook): only findings a change adds fail the run; the old
ones come from --baseline, else the repo's own baseline file, else the last commit."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from gyrelint.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "rules_timeout"
ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.com"}
NEW_FAULT = "import requests\n\n\ndef push(url):\n    return requests.post(url, timeout=86400)\n"


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=ENV, capture_output=True, text=True, check=True,
                          timeout=120).stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The timeout fixture (one GYR008 finding, pkg/sync.py:9) with only that rule selected."""
    monkeypatch.setenv("GYRELINT_CACHE_DIR", str(tmp_path / "cache"))
    dst = tmp_path / "repo"
    shutil.copytree(FIXTURE, dst)
    (dst / "pyproject.toml").write_text('[tool.gyrelint]\nselect = ["GYR008"]\n')
    return dst


@pytest.fixture
def committed(repo: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    git("init", "-q", "-b", "main", cwd=repo)
    git("add", ".", cwd=repo)
    git("commit", "-q", "-m", "old finding", cwd=repo)
    return repo


def check(*args: str):
    return CliRunner().invoke(main, ["check", *args], catch_exceptions=False)


def test_old_finding_in_head_does_not_block_and_is_one_line(committed: Path):
    r = check(str(committed), "--new-only")
    assert r.exit_code == 0, r.output
    assert "pkg/sync.py:9" not in r.output
    assert r.stderr.count("\n") == 1
    assert "1 finding already in HEAD (not blocking); run gyrelint check --all" in r.stderr
    # --all restores whole-repo linting
    r = check(str(committed), "--new-only", "--all")
    assert r.exit_code == 1 and "pkg/sync.py:9" in r.output


def test_staged_change_adding_no_finding_passes_one_adding_a_finding_fails(committed: Path):
    (committed / "pkg" / "util.py").write_text("def step(batch):\n    return len(batch)\n")
    git("add", "-A", cwd=committed)
    assert check(str(committed), "--new-only").exit_code == 0
    (committed / "pkg" / "more.py").write_text(NEW_FAULT)
    git("add", "-A", cwd=committed)
    r = check(str(committed), "--new-only")
    assert r.exit_code == 1, r.output
    assert "pkg/more.py:5: GYR008" in r.stdout and "pkg/sync.py" not in r.stdout
    assert "1 finding already in HEAD" in r.stderr
    # the user's checkout is untouched: the staged change is still staged, nothing else appeared
    assert git("status", "--porcelain", cwd=committed).split() == ["A", "pkg/more.py", "A", "pkg/util.py"]


def test_new_only_in_a_subfolder_compares_the_same_subfolder_of_head(committed: Path):
    (committed / "pkg" / "more.py").write_text(NEW_FAULT)
    r = check(str(committed / "pkg"), "--new-only")
    assert r.exit_code == 1
    assert "more.py:5: GYR008" in r.stdout and "sync.py:9: GYR008" not in r.stdout


def test_repo_baseline_file_is_found_without_git(repo: Path):
    r = check(str(repo), "--new-only")  # no git, no baseline: a plain check
    assert r.exit_code == 1 and "pkg/sync.py:9" in r.output
    assert CliRunner().invoke(main, ["baseline", str(repo)], catch_exceptions=False).exit_code == 0
    r = check(str(repo), "--new-only")
    assert r.exit_code == 0, r.output
    assert "1 finding already in the baseline .gyrelint-baseline.json" in r.stderr
    (repo / "pkg" / "more.py").write_text(NEW_FAULT)
    r = check(str(repo), "--new-only")
    assert r.exit_code == 1 and "pkg/more.py:5" in r.stdout and "pkg/sync.py" not in r.stdout


def test_repo_baseline_wins_over_head(committed: Path):
    """A baseline committed with the repo is the team's choice: HEAD is not consulted."""
    (committed / "pkg" / "more.py").write_text(NEW_FAULT)
    assert CliRunner().invoke(main, ["baseline", str(committed)], catch_exceptions=False).exit_code == 0
    r = check(str(committed), "--new-only")
    assert r.exit_code == 0, r.output
    assert "2 findings already in the baseline" in r.stderr


def test_planted_baseline_symlink_out_of_the_repo_is_refused(repo: Path, tmp_path: Path):
    outside = tmp_path / "elsewhere.json"
    outside.write_text('{"schema": "gyrelint-baseline/1", "findings": []}')
    (repo / ".gyrelint-baseline.json").symlink_to(outside)
    r = check(str(repo), "--new-only")
    assert r.exit_code == 2
    assert "symlink that leaves the repository" in r.stderr and "Traceback" not in r.output


def test_bad_repo_baseline_is_one_line_exit_2(repo: Path):
    (repo / ".gyrelint-baseline.json").write_text("{")
    r = check(str(repo), "--new-only")
    assert r.exit_code == 2
    assert "not valid JSON" in r.stderr and r.stderr.count("\n") == 1


def test_bad_config_in_head_does_not_sink_the_check_of_the_tree(committed: Path):
    """HEAD's broken pyproject.toml (the staged change fixes it): a warning naming HEAD's file,
    then every finding counts as new; not exit 2 with a temporary folder in the message."""
    good = (committed / "pyproject.toml").read_text()
    (committed / "pyproject.toml").write_text("[tool.gyrelint\n")
    git("commit", "-q", "-am", "broken config", cwd=committed)
    (committed / "pyproject.toml").write_text(good)
    r = check(str(committed), "--new-only")
    assert r.exit_code == 1, r.output
    assert "pkg/sync.py:9: GYR008" in r.stdout
    assert "cannot analyze the last commit (HEAD:pyproject.toml: invalid TOML" in r.stderr
    assert "gyrelint-head-" not in r.stderr


def test_explicit_baseline_wins_over_head(committed: Path, tmp_path: Path):
    empty = tmp_path / "empty.json"
    empty.write_text('{"schema": "gyrelint-baseline/1", "findings": []}')
    r = check(str(committed), "--new-only", "--baseline", str(empty))
    assert r.exit_code == 1 and "pkg/sync.py:9: GYR008" in r.stdout
    assert "already" not in r.stderr

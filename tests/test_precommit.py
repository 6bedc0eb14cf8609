"""The pre-commit hook, run for real with `pre-commit try-repo` against a fixture repo."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).parent / "fixtures" / "rules_timeout"
ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.com"}


def sh(*args: str, cwd: Path, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, env=env or ENV, check=check,
                          timeout=900)


def test_hooks_file_declares_a_whole_repo_hook():
    import yaml

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    [hook] = [h for h in hooks if h["id"] == "gyrelint"]
    assert hook["entry"].split()[:2] == ["gyrelint", "check"]
    assert hook["language"] == "python" and hook["pass_filenames"] is False


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> Path:
    """A clean git copy of this project (the working tree as it is), for try-repo to install from."""
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    dst = tmp_path_factory.mktemp("hookrepo") / "gyrelint"
    ignore = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", "tests", "bench", "docs", "build",
                                    "node_modules", ".ruff_cache", ".pytest_cache")
    shutil.copytree(ROOT, dst, ignore=ignore)
    sh("git", "init", "-q", "-b", "main", cwd=dst)
    sh("git", "add", ".", cwd=dst)
    sh("git", "commit", "-q", "-m", "snapshot", cwd=dst)
    return dst


def test_try_repo_fails_on_seeded_fault_then_passes(hook_repo: Path, tmp_path: Path):
    pre_commit = Path(sys.executable).with_name("pre-commit")
    if not pre_commit.exists():
        pytest.skip("pre-commit is not installed (dev extra)")
    work = tmp_path / "user"
    shutil.copytree(FIXTURE, work)
    # a project that gates on the timeout rule only, so the test does not depend on other stages
    (work / "pyproject.toml").write_text('[tool.gyrelint]\nselect = ["GYR008"]\n')
    sh("git", "init", "-q", "-b", "main", cwd=work)
    sh("git", "add", ".", cwd=work)
    sh("git", "commit", "-q", "-m", "seeded fault", cwd=work)
    env = {**ENV, "PRE_COMMIT_HOME": str(tmp_path / "pc-home"), "GYRELINT_CACHE_DIR": str(tmp_path / "cache"),
           "PIP_NO_INPUT": "1"}
    bad = sh(str(pre_commit), "try-repo", str(hook_repo), "gyrelint", "--all-files", cwd=work, env=env, check=False)
    out = bad.stdout + bad.stderr
    assert bad.returncode == 1, out
    assert "GYR008" in out and "pkg/sync.py:9" in out
    sync = work / "pkg" / "sync.py"
    sync.write_text(sync.read_text().replace("timeout=36000,", "timeout=60,"))
    sh("git", "commit", "-q", "-am", "fix", cwd=work)
    good = sh(str(pre_commit), "try-repo", str(hook_repo), "gyrelint", "--all-files", cwd=work, env=env, check=False)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout

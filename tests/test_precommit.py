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
    assert hook["entry"].split() == ["gyrelint", "check", "--new-only"]
    assert hook["language"] == "python" and hook["pass_filenames"] is False and hook["require_serial"] is True


def test_readme_snippets_name_no_missing_tag():
    """The documented snippets work when followed literally: no made-up ``rev``, and a local form."""
    for doc in (ROOT / "README.md", ROOT / "docs" / "ci.md", ROOT / ".pre-commit-hooks.yaml"):
        text = doc.read_text()
        assert "v0.1.0" not in text, doc
        assert "repo: local" in text and "gyrelint check --new-only" in text, doc


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


def test_try_repo_blocks_only_what_the_staged_change_adds(hook_repo: Path, tmp_path: Path):
    """A repo with an old finding committed: the hook passes (one summary line), a staged change
    that adds no finding passes, one that adds a finding fails and shows it (and only it)."""
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

    def hook(*extra: str) -> subprocess.CompletedProcess:
        return sh(str(pre_commit), "try-repo", str(hook_repo), "gyrelint", "--verbose", *extra, cwd=work, env=env,
                  check=False)

    (work / "pkg" / "util.py").write_text("def batch_size(batch):\n    return len(batch)\n")
    sh("git", "add", "-A", cwd=work)
    clean = hook()
    out = clean.stdout + clean.stderr
    assert clean.returncode == 0, out
    assert "Passed" in clean.stdout
    assert "1 finding already in HEAD (not blocking)" in out and "pkg/sync.py:9" not in out
    sh("git", "commit", "-q", "-m", "no new finding", cwd=work)
    (work / "pkg" / "push.py").write_text(
        "import requests\n\n\ndef push(url):\n    return requests.post(url, timeout=86400)\n")
    sh("git", "add", "-A", cwd=work)
    bad = hook()
    out = bad.stdout + bad.stderr
    assert bad.returncode == 1, out
    assert "pkg/push.py:5: GYR008" in out and "pkg/sync.py:9" not in out
    # the user's staged change is left as it was
    assert sh("git", "status", "--porcelain", cwd=work).stdout.split() == ["A", "pkg/push.py"]


def readme_local_config() -> str:
    """The README's `repo: local` snippet, verbatim."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### pre-commit"):]
    blocks = section.split("```yaml\n")[1:]
    return next(b.split("```")[0] for b in blocks if "repo: local" in b)


def test_readme_local_snippet_works_as_written(tmp_path: Path):
    """Copied into a repo as is, the local hook runs this gyrelint: an old finding passes, a new one fails."""
    pre_commit = Path(sys.executable).with_name("pre-commit")
    if not pre_commit.exists() or shutil.which("git") is None:
        pytest.skip("pre-commit or git is not installed")
    work = tmp_path / "user"
    shutil.copytree(FIXTURE, work)
    (work / "pyproject.toml").write_text('[tool.gyrelint]\nselect = ["GYR008"]\n')
    (work / ".pre-commit-config.yaml").write_text(readme_local_config())
    sh("git", "init", "-q", "-b", "main", cwd=work)
    sh("git", "add", ".", cwd=work)
    sh("git", "commit", "-q", "-m", "seeded fault", cwd=work)
    # `language: system` finds gyrelint on PATH: this venv's, importing this checkout's source
    env = {**ENV, "PRE_COMMIT_HOME": str(tmp_path / "pc-home"), "GYRELINT_CACHE_DIR": str(tmp_path / "cache"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT / "src"), os.environ.get("PYTHONPATH")) if p)}
    old = sh(str(pre_commit), "run", "--all-files", "--verbose", cwd=work, env=env, check=False)
    assert old.returncode == 0, old.stdout + old.stderr
    assert "1 finding already in HEAD" in old.stdout + old.stderr
    (work / "pkg" / "push.py").write_text(
        "import requests\n\n\ndef push(url):\n    return requests.post(url, timeout=86400)\n")
    sh("git", "add", "-A", cwd=work)
    new = sh(str(pre_commit), "run", cwd=work, env=env, check=False)
    assert new.returncode == 1, new.stdout + new.stderr
    assert "pkg/push.py:5: GYR008" in new.stdout + new.stderr

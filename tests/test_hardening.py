"""Hostile and broken repos: gyrelint reads, never runs, never crashes, never writes there."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from gyrelint.cli import main
from gyrelint.index import build_index
from gyrelint.index.cache import MAGIC, SummaryCache
from gyrelint.settings import Settings

MARKER_CODE = """
import pathlib
pathlib.Path({marker!r}).write_text("executed")
"""


@pytest.fixture()
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def _settings(cache_dir: Path, **kw) -> Settings:
    return Settings(cache_dir=cache_dir, jobs=2, **kw)


def _snapshot(root: Path) -> dict[str, tuple[int, bytes]]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink() and ".git" not in p.relative_to(root).parts:
            out[str(p.relative_to(root))] = (p.stat().st_mtime_ns, p.read_bytes())
    return out


def _git_history(repo: Path) -> None:
    """Two commits, so ``diff --base HEAD~1`` reads a real older revision."""
    import subprocess

    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    run = lambda *a: subprocess.run(["git", *a], cwd=repo, env=env, check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    run("add", "-A")
    run("commit", "-qm", "one")
    (repo / "evil" / "extra.py").write_text("def helper():\n    return 1\n")
    run("add", "-A")
    run("commit", "-qm", "two")


def _hostile_repo(root: Path, marker: Path) -> None:
    pkg = root / "evil"
    pkg.mkdir(parents=True)
    code = MARKER_CODE.format(marker=str(marker))
    (pkg / "__init__.py").write_text(code)
    (pkg / "main.py").write_text(code + "\nif __name__ == '__main__':\n    print('hi')\n")
    (root / "setup.py").write_text(code + "\nfrom setuptools import setup\nsetup(name='evil', entry_points={'console_scripts': ['evil=evil.main:run']})\n")
    (root / "conftest.py").write_text(code)
    (root / "README.md").write_text("```bash\npython -m evil.main\n```\n")
    (root / "run.sh").write_text(f"#!/bin/sh\ntouch {marker}\npython -m evil.main\n")
    (root / "pyproject.toml").write_text("[project]\nname='evil'\n[project.scripts]\nevil='evil.main:run'\n")


@pytest.mark.parametrize(
    "args",
    [["analyze"], ["analyze", "--format", "json"], ["graph"], ["entries"], ["topology"], ["check"],
     ["map", "-o", "{out}/map.svg"], ["report", "-o", "{out}/report"], ["baseline", "-o", "{out}/b.json"],
     ["diff", "--base", "HEAD~1"]],
)
def test_analysis_never_executes_repo_code(tmp_path: Path, cache_dir: Path, args: list[str], monkeypatch) -> None:
    marker = tmp_path / "MARKER"
    repo = tmp_path / "repo"
    _hostile_repo(repo, marker)
    if "diff" in args:
        _git_history(repo)
    before = _snapshot(repo)
    monkeypatch.setenv("GYRELINT_CACHE_DIR", str(cache_dir))
    out = tmp_path / "out"
    out.mkdir()
    args = [a.replace("{out}", str(out)) for a in args]
    result = CliRunner().invoke(main, [*args, str(repo)])
    assert result.exit_code in (0, 1), result.output
    assert not marker.exists(), f"{args} executed code from the analyzed repo"
    assert _snapshot(repo) == before, "the analyzed repo was modified"


def test_broken_files_are_diagnostics_and_the_rest_is_analyzed(tmp_path: Path, cache_dir: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "nest.py").write_text("x = " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    (repo / "bigsum.py").write_text("x = " + " + ".join(["1"] * 50000) + "\n")
    (repo / "nul.py").write_bytes(b"x = 1\x00\n")
    (repo / "bom.py").write_bytes(b"\xef\xbb\xbfimport os\nos.getcwd()\n")
    (repo / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\ns = 'caf\xe9'\n")
    (repo / "badutf.py").write_bytes(b"s = 'caf\xe9'\n")
    (repo / "syntax.py").write_text("def f(:\n    pass\n")
    (repo / "good.py").write_text("def train(opt):\n    opt.step()\n")
    index = build_index(repo, _settings(cache_dir))
    assert set(index.summaries) == {"bom.py", "latin.py", "good.py"}
    by_file = {d.file: d for d in index.diagnostics}
    assert set(by_file) == {"nest.py", "bigsum.py", "nul.py", "badutf.py", "syntax.py"}
    assert by_file["syntax.py"].line == 1
    assert "NUL" in by_file["nul.py"].message
    assert "UTF-8" in by_file["badutf.py"].message
    for d in index.diagnostics:
        assert "\n" not in str(d)
    assert [f.name for f in index.summaries["good.py"].functions] == ["train"]


def test_file_size_limit(tmp_path: Path, cache_dir: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "big.py").write_text("x = 1\n" * 20000)
    (repo / "small.py").write_text("y = 2\n")
    index = build_index(repo, _settings(cache_dir, max_file_size=10_000))
    assert list(index.summaries) == ["small.py"]
    assert index.diagnostics[0].file == "big.py" and "max-file-size" in index.diagnostics[0].message


def test_symlinks_outside_and_loops_are_not_followed(tmp_path: Path, cache_dir: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("TOKEN = 'x'\n")
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "a.py").write_text("def f():\n    pass\n")
    os.symlink(outside, repo / "pkg" / "out_dir")
    os.symlink(outside / "secret.py", repo / "pkg" / "secret.py")
    os.symlink(repo / "pkg", repo / "pkg" / "loop")
    index = build_index(repo, _settings(cache_dir))
    assert list(index.summaries) == ["pkg/a.py"]
    assert any("outside the repository" in d.message for d in index.diagnostics)


def test_corrupt_truncated_and_foreign_cache_entries_are_rebuilt(tmp_path: Path, cache_dir: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def a():\n    return 1\n")
    (repo / "b.py").write_text("def b():\n    return 2\n")
    first = build_index(repo, _settings(cache_dir))
    assert first.stats.parsed == 2
    entries = sorted(p for p in cache_dir.rglob("*") if p.is_file() and p.name != "CACHEDIR.TAG")
    assert len(entries) == 2
    # truncate one entry, swap the other for a foreign one (valid format, wrong key)
    data_a, data_b = entries[0].read_bytes(), entries[1].read_bytes()
    entries[0].write_bytes(data_a[: len(data_a) // 2])
    entries[1].write_bytes(data_a)
    second = build_index(repo, _settings(cache_dir))
    assert second.stats.parsed == 2 and second.stats.cached == 0
    assert {f.name for s in second.summaries.values() for f in s.functions} == {"a", "b"}
    # garbage with the right magic is refused too
    entries = sorted(p for p in cache_dir.rglob("*") if p.is_file() and p.name != "CACHEDIR.TAG")
    entries[0].write_bytes(MAGIC + os.urandom(64))
    third = build_index(repo, _settings(cache_dir))
    assert third.stats.parsed == 1 and third.stats.cached == 1
    assert data_b  # both entries existed


def test_cache_hits_and_changed_file_is_reparsed(tmp_path: Path, cache_dir: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for i in range(5):
        (repo / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    assert build_index(repo, _settings(cache_dir)).stats.parsed == 5
    warm = build_index(repo, _settings(cache_dir))
    assert (warm.stats.parsed, warm.stats.cached) == (0, 5)
    (repo / "m3.py").write_text("def g3():\n    return 3\n")
    touched = build_index(repo, _settings(cache_dir))
    assert (touched.stats.parsed, touched.stats.cached) == (1, 4)
    assert [f.name for f in touched.summaries["m3.py"].functions] == ["g3"]
    nocache = build_index(repo, _settings(cache_dir, use_cache=False))
    assert (nocache.stats.parsed, nocache.stats.cached) == (5, 0)


def test_concurrent_runs_share_the_cache_safely(tmp_path: Path, cache_dir: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for i in range(30):
        (repo / f"m{i}.py").write_text(f"import os\n\ndef f{i}(x):\n    return os.path.join(x, '{i}')\n")
    errors: list[BaseException] = []

    def run() -> None:
        try:
            idx = build_index(repo, _settings(cache_dir))
            assert len(idx.summaries) == 30
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    cache = SummaryCache(cache_dir, "x")
    assert cache is not None
    leftovers = [p for p in cache_dir.rglob(".tmp-*")]
    assert not leftovers
    warm = build_index(repo, _settings(cache_dir))
    assert warm.stats.cached == 30


def test_cache_does_not_land_in_the_repo(tmp_path: Path, monkeypatch) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("x = 1\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("GYRELINT_CACHE_DIR", raising=False)
    from gyrelint.settings import default_cache_dir

    build_index(repo, Settings(cache_dir=default_cache_dir()))
    assert sorted(p.name for p in repo.iterdir()) == ["a.py"]
    assert any((tmp_path / "xdg" / "gyrelint").rglob("*"))


def test_unknown_path_and_empty_repo_exit_2(tmp_path: Path) -> None:
    runner = CliRunner()
    r = runner.invoke(main, ["analyze", str(tmp_path / "nope")])
    assert r.exit_code == 2 and "no such file" in r.output and r.output.count("\n") == 1
    (tmp_path / "f.txt").write_text("x")
    r = runner.invoke(main, ["analyze", str(tmp_path / "f.txt")])
    assert r.exit_code == 2 and "not a directory" in r.output
    empty = tmp_path / "empty"
    empty.mkdir()
    r = runner.invoke(main, ["analyze", str(empty)])
    assert r.exit_code == 2 and "no Python files" in r.output


@pytest.mark.parametrize(
    "data",
    [
        # found by bench/fuzz.py: a carriage return inside a CSV row made the csv module raise
        b"Wall time,Step,Value\n1700000010.5,1,128\n1700000020.5,2,256\n17\r0000030.5,3,384\n",
        b"Wall time,Step,Value\n1,1,128\n\"a\rb\",2,256\n",
        b"Wall time,Step,Value\n1700000010.5,1,128\n1700000020.5,2,256\n17yieldyield\r\r",
        # found by bench/fuzz.py: a lone group separator is whitespace to str.strip()
        b"\x1d",
        b"\x1c\x1e\x1f\n\x1d",
    ],
)
def test_fuzz_regressions_log_reader(tmp_path: Path, data: bytes) -> None:
    from gyrelint.logcheck import build_rules, check_logs
    from gyrelint.logcheck.reader import LogInputError

    path = tmp_path / ("run.csv" if data.startswith(b"Wall") else "run.log")
    path.write_bytes(data)
    try:
        verdict = check_logs([path], build_rules())
    except LogInputError as exc:
        assert path.name in str(exc) and "\n" not in str(exc)
    else:
        assert verdict.status in ("healthy", "problem", "inconclusive", "no-counters")


@pytest.mark.parametrize(
    ("source", "screened"),
    [
        ("x = (1\n" + "+ 1\n" * 8000 + ")\n", True),  # one expression over 8,000 lines
        ("x = " + " + ".join(["1"] * 8000) + "\n", True),  # one very long line
        ("x = " + "(\n" * 5000 + "1" + ")" * 5000 + "\n", True),  # deep nesting over many lines
        ("x = 1 + \\\n" * 600 + "1\n", True),  # continuation chains
        ("def f(a):\n    return (a, [a, {a: (a)}])\n" * 200, False),  # ordinary code is not screened
    ],
)
def test_files_that_stall_libcst_are_screened_first(tmp_path: Path, cache_dir: Path, source: str,
                                                    screened: bool) -> None:
    from gyrelint.index import needs_screen

    assert needs_screen(source.encode()) is screened
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "m.py").write_text(source)
    (repo / "ok.py").write_text("def g():\n    return 1\n")
    index = build_index(repo, _settings(cache_dir))
    assert "ok.py" in index.summaries
    assert all("\n" not in str(d) for d in index.diagnostics)


def test_odd_but_valid_code_prints_no_python_warning(tmp_path: Path) -> None:
    """A file screened by CPython's parser (deep nesting) that also holds code CPython warns
    about (``1if x else 2``) is summarised without a warning reaching the user's terminal."""
    import warnings

    from gyrelint.index import parse_source

    src = "y = 1if True else 2\n" + "z = " + "(" * 70 + "1" + ")" * 70 + "\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        summary, diag = parse_source("odd.py", "odd", src.encode())
    assert diag is None and summary is not None

"""Speed of ``gyrelint graph`` on a real code base, as ratios to baselines timed in the same run.

Usage::

    python bench/speed.py [--repo DIR] [--tools-python PY] [--jobs N]

``--repo`` defaults to the verl 0.9.1 wheel unpacked by ``scripts/fetch_corpora.sh``
(``~/.cache/gyrelint-corpora/src/verl``); it is copied to a temporary folder first, so the
"one file touched" step never modifies it. Baseline: a single-process loop of bare
``libcst.parse_module`` over the same files. Measured: cold run (empty cache), warm run
(nothing changed), one file touched (a comment appended: the file summarises as before),
one function added to that file (its summary changes: the whole pipeline runs), peak RSS; then
``gyrelint analyze`` cold and warm on its own cache (the whole-analysis cache's warm path);
pyan3 and code2flow on the same files when
``--tools-python`` names a Python that has them (``pip install pyan3 code2flow``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import libcst as cst

from gyrelint.repo import discover
from gyrelint.settings import Settings

DEFAULT_REPO = Path.home() / ".cache/gyrelint-corpora/src/verl"


def bare_parse(root: Path, files: list[str]) -> float:
    start = time.perf_counter()
    for f in files:
        try:
            cst.parse_module((root / f).read_bytes())
        except Exception:  # noqa: BLE001 - a file libcst rejects costs what it cost
            pass
    return time.perf_counter() - start


def copy_corpus(repo: Path, tmp: str) -> tuple[Path, list[str]]:
    """A copy of the corpus inside ``tmp`` (the runs touch files) and its Python files."""
    root = Path(tmp) / repo.name
    shutil.copytree(repo, root, symlinks=True)
    return root, discover(root, Settings()).python


def timed(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[float, int, int]:
    """Wall seconds, peak RSS (KiB, the largest process of the run) and exit code."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        err = proc.stderr.read().decode(errors="replace")[-400:] if proc.stderr else ""
        print(f"  ! {' '.join(cmd[:3])}... exited {proc.returncode}: {err}", file=sys.stderr)
    return seconds, usage.ru_maxrss, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, default=DEFAULT_REPO)
    ap.add_argument("--tools-python", help="python with pyan3 and code2flow installed")
    ap.add_argument("--jobs", type=int, default=0, help="gyrelint --jobs (default: cores)")
    args = ap.parse_args()
    if not args.repo.is_dir():
        print(f"{args.repo}: not a directory; run scripts/fetch_corpora.sh or pass --repo", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="gyrelint-speed-") as tmp:
        root, files = copy_corpus(args.repo, tmp)
        print(f"{args.repo}: {len(files)} Python files, {os.cpu_count()} cores")
        env = dict(os.environ, GYRELINT_CACHE_DIR=str(Path(tmp) / "cache"))
        cmd = [sys.executable, "-m", "gyrelint", "graph", str(root), "--format", "json"]
        if args.jobs:
            cmd += ["--jobs", str(args.jobs)]
        parse = bare_parse(root, files)
        print(f"bare libcst.parse_module loop (1 process): {parse:.2f} s")
        cold, cold_rss, _ = timed(cmd, env)
        warm, warm_rss, _ = timed(cmd, env)
        touched_file = root / files[len(files) // 2]
        with touched_file.open("a", encoding="utf-8") as fh:
            fh.write("\n# touched by bench/speed.py\n")
        touched, touched_rss, _ = timed(cmd, env)
        # a code change: the file's summary changes, so nothing downstream can be reused as is
        with touched_file.open("a", encoding="utf-8") as fh:
            fh.write("\n\ndef _edited_by_bench_speed(xs):\n    return sorted(xs)\n")
        edited, edited_rss, _ = timed(cmd, env)
        rows = [("gyrelint graph, cold", cold, cold_rss), ("gyrelint graph, warm", warm, warm_rss),
                ("gyrelint graph, 1 file touched", touched, touched_rss),
                ("gyrelint graph, 1 function added", edited, edited_rss)]
        # analyze stores (and loads) the whole analysis: rules, findings, semantics included
        env_a = dict(os.environ, GYRELINT_CACHE_DIR=str(Path(tmp) / "cache-analyze"))
        cmd_a = [sys.executable, "-m", "gyrelint", "analyze", str(root), "--format", "json"]
        if args.jobs:
            cmd_a += ["--jobs", str(args.jobs)]
        a_cold, a_cold_rss, _ = timed(cmd_a, env_a)
        a_warm, a_warm_rss, _ = timed(cmd_a, env_a)
        rows += [("gyrelint analyze, cold", a_cold, a_cold_rss), ("gyrelint analyze, warm", a_warm, a_warm_rss)]
        if args.tools_python:
            bindir = Path(args.tools_python).parent
            pyan = [str(bindir / "pyan3"), *files, "--uses", "--no-defines", "--dot"]
            rows.append(("pyan3 (--uses --dot)", *timed(pyan, cwd=root)[:2]))
            c2f = [str(bindir / "code2flow"), str(root), "--language", "py", "-o", str(Path(tmp) / "c2f.json"),
                   "--quiet"]
            rows.append(("code2flow (json)", *timed(c2f)[:2]))
        print(f"{'run':<34}{'seconds':>9}{'x parse':>9}{'x cold':>8}{'peak RSS MiB':>14}")
        for name, sec, rss in rows:
            print(f"{name:<34}{sec:>9.2f}{sec / parse:>9.2f}{sec / cold:>8.2f}{rss / 1024:>14.0f}")
        print(f"targets: cold <= 1.5 x parse ({cold / parse:.2f}), warm <= 0.1 x cold ({warm / cold:.2f}), "
              f"touched <= 0.2 x cold ({touched / cold:.2f}), peak RSS <= 300 MiB "
              f"({max(cold_rss, warm_rss, touched_rss, edited_rss) / 1024:.0f}); "
              f"not a target: function added {edited / cold:.2f} x cold; "
              f"analyze warm {a_warm / a_cold:.3f} x its cold (issue 18: <= 0.03)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The edit loop of ``gyrelint analyze`` on a real code base: each step as a ratio to cold, in one run.

Usage::

    python bench/edit_loop.py [--repo DIR] [--jobs N] [--module PATH] [--no-bytecode]

``--repo`` defaults to the verl wheel unpacked by ``scripts/fetch_corpora.sh``; it is copied
to a temporary folder first (the steps edit files). One cache folder for the whole run.
Steps, in this order, each timed as one ``gyrelint analyze --format json -v`` process:

1. cold (empty cache);
2. warm (nothing changed);
3. comment edit: a comment appended to a mid-graph module (its summary does not change);
4. body edit: one statement (a call) inserted at the top of a function of that module;
5. one function added at the end of that module.

The mid-graph module (unless ``--module`` names one) is the product module with the most
repo modules both calling into it and called from it (``min(callers, callees)``, then path),
read from the warm run's call graph. Each row gives wall and CPU seconds (user + system of
the process and its parse workers), both as × cold, peak RSS, and the seconds of every
stage the run printed (``-v``), so the share of each stage after an edit is visible.

Bytecode: gyrelint is compiled into a ``PYTHONPYCACHEPREFIX`` of the run's own before the cold
step, as an installed package is (pip compiles at install). With ``PYTHONDONTWRITEBYTECODE``
set and no bytecode, each run compiles ~70 modules first (0.2 CPU-s, a third of a warm run);
``--no-bytecode`` keeps the environment as it is, to measure that.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from speed import DEFAULT_REPO, copy_corpus
from warm_ab import child_env

_STAGE = re.compile(r"^gyrelint: (\w+) .*?([0-9.]+) s$")
_PATH = re.compile(r"^gyrelint: graphs .* (cached|uncached|reuse|cone|full) ([0-9,]+) replayed ")  # graphs/incremental.py


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int, dict[str, float]]:
    """Wall seconds, CPU seconds (the process and its parse workers), peak RSS KiB, seconds per
    stage (and, under ``path``, the resolution's path and the items it replayed)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    assert proc.stderr is not None
    err = proc.stderr.read()  # a few lines: the pipe never fills before the end
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"gyrelint exited {proc.returncode}: {err.decode(errors='replace')[-400:]}")
    stages: dict[str, float] = {}
    path = ""
    for line in err.decode(errors="replace").splitlines():
        m = _STAGE.match(line)
        if m and "files parsed" not in line:
            stages[m.group(1)] = float(m.group(2))
        p = _PATH.match(line)
        if p:
            path = f"{p.group(1)} ({p.group(2)})" if p.group(1) == "cone" else p.group(1)
    stages["path"] = path  # type: ignore[assignment]
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, stages


def mid_graph_module(root: Path, cache: Path) -> str:
    """The product module with the most repo modules on both sides of it in the call graph."""
    os.environ["GYRELINT_CACHE_DIR"] = str(cache)
    from gyrelint.api import analyze

    a = analyze(root)
    g = a.graphs.calls
    module_of = {n: d.get("file") for n, d in g.nodes(data=True) if d.get("file")}
    callers: dict[str, set[str]] = {}
    callees: dict[str, set[str]] = {}
    for u, v in g.edges():
        fu, fv = module_of.get(u), module_of.get(v)
        if fu and fv and fu != fv:
            callees.setdefault(fu, set()).add(fv)
            callers.setdefault(fv, set()).add(fu)
    outside = {p for p, s in a.index.scopes.items() if s.scope != "product"}
    ranked = sorted((-min(len(callers.get(f, ())), len(callees.get(f, ()))), f)
                    for f in set(callers) & set(callees) if f not in outside)
    return ranked[0][1]


def body_edit(path: Path) -> str:
    """One call inserted as the first statement of the module's largest function."""
    text = path.read_text()
    tree = ast.parse(text)
    fns = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.body]
    f = max(fns, key=lambda n: ((n.end_lineno or 0) - n.lineno, -n.lineno))
    first = f.body[0]
    lines = text.splitlines(keepends=True)
    lines.insert(first.lineno - 1, " " * first.col_offset + "_bench_edit = print(\"edited by bench/edit_loop.py\")\n")
    path.write_text("".join(lines))
    return f.name


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, default=DEFAULT_REPO)
    ap.add_argument("--jobs", type=int, default=0, help="gyrelint --jobs (default: cores)")
    ap.add_argument("--module", help="the file to edit, relative to the repo (default: a mid-graph module)")
    ap.add_argument("--no-bytecode", action="store_true", help="keep PYTHONDONTWRITEBYTECODE as it is set")
    args = ap.parse_args()
    if not args.repo.is_dir():
        print(f"{args.repo}: not a directory; run scripts/fetch_corpora.sh or pass --repo", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="gyrelint-edit-loop-") as tmp:
        root, files = copy_corpus(args.repo, tmp)
        cache = Path(tmp) / "cache"
        src = Path(__import__("gyrelint").__file__).resolve().parent.parent
        env = child_env(src, cache, None if args.no_bytecode else Path(tmp) / "pyc")
        cmd = [sys.executable, "-m", "gyrelint", "analyze", str(root), "--format", "json", "-v"]
        if args.jobs:
            cmd += ["--jobs", str(args.jobs)]
        load = os.getloadavg()[0]
        print(f"{args.repo}: {len(files)} Python files, {os.cpu_count()} cores, load {load:.1f}, "
              f"bytecode {'as set' if args.no_bytecode else 'compiled first'}")
        rows = [("cold", run(cmd, env)), ("warm, nothing changed", run(cmd, env))]
        target = args.module or mid_graph_module(root, cache)
        path = root / target
        print(f"edited module: {target}")
        with path.open("a", encoding="utf-8") as fh:
            fh.write("\n# a comment added by bench/edit_loop.py\n")
        rows.append(("comment edit", run(cmd, env)))
        fn = body_edit(path)
        rows.append((f"body edit (a call at the top of {fn})", run(cmd, env)))
        with path.open("a", encoding="utf-8") as fh:
            fh.write("\n\ndef _added_by_bench_edit_loop(xs):\n    return sorted(xs)\n")
        rows.append(("one function added", run(cmd, env)))
        cold_wall, cold_cpu = rows[0][1][0], rows[0][1][1]
        names = ["index", "graphs", "semantics", "topology", "rules", "cache"]
        print(f"{'step':<44}{'wall s':>8}{'x cold':>8}{'CPU s':>8}{'x cold':>8}{'RSS MiB':>9}  "
              f"{'resolution':<12}stages (s)")
        for name, (wall, cpu, rss, stages) in rows:
            st = " ".join(f"{n} {stages[n]:.2f}" for n in names if n in stages)
            print(f"{name:<44}{wall:>8.2f}{wall / cold_wall:>8.3f}{cpu:>8.2f}{cpu / cold_cpu:>8.3f}"
                  f"{rss / 1024:>9.0f}  {stages.get('path') or '-':<12}{st}")
        print(f"load at the end {os.getloadavg()[0]:.1f}; targets (issue 18): warm <= 0.03, comment edit <= 0.05, "
              "code edit in a mid-graph module <= 0.15 x cold")
    return 0


if __name__ == "__main__":
    sys.exit(main())

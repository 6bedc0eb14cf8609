"""Start-up cost of the ``gyrelint`` command: import time and wall time of small runs.

Usage::

    python bench/startup.py [--fixture DIR] [--runs 5] [--base REV] [--tree NAME=SRC]...

Times (best of ``--runs``, wall clock, one fresh process each) ``python -c pass`` and
``python -c "import click"`` as the floor, then ``gyrelint --help``, ``gyrelint graph --help``
and a warm ``gyrelint graph FIXTURE`` (one untimed run first fills a private cache). Also
sums ``python -X importtime`` (best of ``--runs``) for the three gyrelint commands and says
whether libcst, networkx and PyYAML were imported.

With ``--base REV`` the same is measured, interleaved, on that git revision's ``src/``
(exported with ``git archive`` into a temporary folder, put first on ``PYTHONPATH``) and
every figure is also printed as a ratio to it. ``--tree NAME=SRC`` times a source folder
(e.g. a patched copy of ``src/``) or a git revision instead of the working tree
(repeatable); pin revisions when others are editing the checkout, since an edit in the
middle of the run changes gyrelint's code digest and turns a warm run cold.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FIXTURE = REPO / "tests" / "fixtures" / "graphs_ray"
HEAVY = ("libcst", "networkx", "yaml")
_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def run_once(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=REPO)
    seconds = time.perf_counter() - start
    if proc.returncode:
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-400:]}")
    return seconds


def import_profile(env: dict[str, str], args: list[str]) -> tuple[float, int, list[str]]:
    """Total import milliseconds, module count and heavy packages for ``gyrelint ARGS`` (one run)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "gyrelint", *args], env=env, cwd=REPO,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    total, names = 0, []
    for line in proc.stderr.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        names.append(m.group(4))
        if len(m.group(3)) == 1:  # top level: its cumulative time covers its children
            total += int(m.group(2))
    heavy = [h for h in HEAVY if h in names]
    return total / 1000.0, len(names), heavy


def env_for(src: Path, cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["GYRELINT_CACHE_DIR"] = str(cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fixture", type=Path, default=DEFAULT_FIXTURE)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--base", metavar="REV", help="git revision to compare with (e.g. HEAD~1)")
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=SRC",
                    help="a src/ folder or git revision to time instead of the working tree (repeatable)")
    ns = ap.parse_args()
    if not ns.fixture.is_dir():
        sys.exit(f"{ns.fixture}: not a folder; pass --fixture with a small repository")

    with tempfile.TemporaryDirectory(prefix="gyrelint-startup-") as tmp:
        def export(rev: str, name: str) -> Path:
            dest = Path(tmp) / name
            dest.mkdir()
            archive = subprocess.run(["git", "archive", rev, "src"], cwd=REPO, capture_output=True)
            if archive.returncode:
                sys.exit(f"{rev}: not a git revision of {REPO} ({archive.stderr.decode(errors='replace').strip()})")
            subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
            return dest / "src"

        trees: dict[str, Path] = {}
        if ns.base:
            trees["base"] = export(ns.base, "base")
        for spec in ns.tree:
            name, _, src = spec.partition("=")
            if not name or name == "base" or not src:
                sys.exit(f"--tree {spec}: expected NAME=SRC (a src/ folder or a git revision), NAME not 'base'")
            if (Path(src) / "gyrelint" / "__init__.py").is_file():
                trees[name] = Path(src).resolve()
            else:
                trees[name] = export(src, f"tree-{len(trees)}")
        if not ns.tree:
            trees["now"] = REPO / "src"
        envs = {k: env_for(src, Path(tmp) / f"cache-{k}") for k, src in trees.items()}
        py = [sys.executable]
        gl = [*py, "-m", "gyrelint"]
        cases = {
            "python -c pass": [*py, "-c", "pass"],
            "python -c 'import click'": [*py, "-c", "import click"],
            "gyrelint --help": [*gl, "--help"],
            "gyrelint graph --help": [*gl, "graph", "--help"],
            f"gyrelint graph {ns.fixture.name} (warm)": [*gl, "graph", str(ns.fixture)],
        }
        for env in envs.values():  # compile bytecode and fill the caches; not timed
            for cmd in cases.values():
                run_once(cmd, env)
        best: dict[tuple[str, str], float] = {}
        for _ in range(ns.runs):
            for label, cmd in cases.items():
                for tree, env in envs.items():
                    t = run_once(cmd, env)
                    best[tree, label] = min(best.get((tree, label), t), t)
        probes = {"gyrelint --help": ["--help"], "gyrelint graph --help": ["graph", "--help"],
                  f"gyrelint graph {ns.fixture.name} (warm)": ["graph", str(ns.fixture)]}
        profiles = {(tree, label): min(import_profile(env, args) for _ in range(ns.runs))
                    for label, args in probes.items() for tree, env in envs.items()}

    base = "base" in trees
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, best of {ns.runs}"
          + (f", base = {ns.base}" if base else ""))
    print()
    others = [t for t in trees if t != "base"]
    cols = [f"{t} (s)" for t in trees] + ([f"{t} / base" for t in others] if base else [])
    print("| command | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for label in cases:
        cells = [f"{best[t, label]:.3f}" for t in trees]
        if base:
            cells += [f"{best[t, label] / best['base', label]:.2f}" for t in others]
        print(f"| `{label}` | " + " | ".join(cells) + " |")
    print()
    print("| `python -X importtime -m ...` | tree | import ms | modules | heavy imported |")
    print("|---|---|---|---|---|")
    for (tree, label), (ms, count, heavy) in profiles.items():
        print(f"| `{label}` | {tree} | {ms:.0f} | {count} | {', '.join(heavy) or 'none'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

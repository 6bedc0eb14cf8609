"""Warm-path speed of two gyrelint source trees on the same corpus, measured in one run.

Usage::

    python bench/warm_ab.py --before /path/to/old/src [--after src] [--repo DIR] [--rounds 5]

The warm path (nothing changed since the last run) is what pre-commit, flake8 and CI
re-runs pay; it is short, so a busy machine moves it a lot. Both trees get their own
cache, filled by one cold run each; then warm ``analyze`` and ``graph`` runs alternate
between the trees (A, B, A, B...), so drift in the machine's load hits both alike, and
the minimum over the rounds is reported with its ratio to the tree's own cold run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from speed import DEFAULT_REPO, copy_corpus


def run(src: Path, cache: Path, command: str, root: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(src), GYRELINT_CACHE_DIR=str(cache))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "gyrelint", command, str(root), "--format", "json"], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{src}: gyrelint {command} exited {proc.returncode}: {proc.stderr.decode()[-400:]}")
    return seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, required=True, help="the src folder of the old tree")
    ap.add_argument("--after", type=Path, default=Path(__file__).resolve().parent.parent / "src")
    ap.add_argument("--repo", type=Path, default=DEFAULT_REPO)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    with tempfile.TemporaryDirectory(prefix="gyrelint-warm-ab-") as tmp:
        root, files = copy_corpus(args.repo, tmp)
        print(f"{args.repo}: {len(files)} Python files, {os.cpu_count()} cores, {args.rounds} rounds")
        rows = []
        for command in ("analyze", "graph"):
            cold = {name: run(src, Path(tmp) / f"{name}-{command}", command, root) for name, src in trees.items()}
            warm: dict[str, list[float]] = {name: [] for name in trees}
            for _ in range(args.rounds):
                for name, src in trees.items():
                    warm[name].append(run(src, Path(tmp) / f"{name}-{command}", command, root))
            for name in trees:
                best = min(warm[name])
                rows.append((f"{command} {name}", cold[name], best, best / cold[name]))
        print(f"{'run':<18}{'cold s':>9}{'warm s (min)':>14}{'warm/cold':>11}")
        for name, cold_s, warm_s, ratio in rows:
            print(f"{name:<18}{cold_s:>9.2f}{warm_s:>14.3f}{ratio:>11.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

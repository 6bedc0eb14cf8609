"""What a shared warm cache saves the second job of a CI matrix of forks, measured in one run.

Usage::

    python bench/ci_matrix.py [--repo DIR] [--rounds 2]

A matrix runs one ``gyrelint diff --base upstream --head fork`` per fork. The corpus is
copied into a temporary git repository with an ``upstream`` commit and two forks that each
add a function to a different module. Job A runs with an empty cache; job B runs once with
an empty cache of its own and once with a copy of the cache job A left (what
``actions/cache`` restores for the second job). CPU seconds (user + system of the process
tree) are the figure to read on a shared machine; wall seconds are printed beside them.
The two runs of job B must print the same report, which the script checks.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from speed import DEFAULT_REPO

GIT = ["git", "-c", "user.email=bench@gyrelint", "-c", "user.name=bench", "-c", "commit.gpgsign=false"]


def _git(repo: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=repo, check=True, stdout=subprocess.DEVNULL)


def make_forks(corpus: Path, tmp: Path) -> Path:
    """``upstream`` (the corpus) plus ``forkA`` and ``forkB``, each adding one function elsewhere."""
    repo = tmp / "repo"
    shutil.copytree(corpus, repo, symlinks=True, ignore=shutil.ignore_patterns("*.dist-info"))
    _git(repo, "init", "-q", "-b", "upstream")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "upstream")
    modules = sorted(p for p in repo.rglob("*.py") if p.stat().st_size > 2000)
    for branch, module in (("forkA", modules[len(modules) // 3]), ("forkB", modules[2 * len(modules) // 3])):
        _git(repo, "checkout", "-q", "-b", branch, "upstream")
        with module.open("a", encoding="utf-8") as fh:
            fh.write(f"\n\ndef {branch.lower()}_helper(x):\n    return x + 1\n")
        _git(repo, "commit", "-qam", branch)
    _git(repo, "checkout", "-q", "upstream")
    return repo


def job(repo: Path, cache: Path, head: str) -> tuple[float, float, bytes]:
    """Wall and CPU seconds of one matrix job, and the report it printed."""
    env = dict(os.environ, GYRELINT_CACHE_DIR=str(cache))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "gyrelint", "diff", "--base", "upstream", "--head", head, "."],
                          cwd=repo, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"gyrelint diff exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, default=DEFAULT_REPO)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gyrelint-ci-matrix-") as name:
        tmp = Path(name)
        repo = make_forks(args.repo, tmp)
        print(f"{args.repo.name}: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, {args.rounds} rounds")
        rows: dict[str, list[tuple[float, float]]] = {"job A, empty cache": [], "job B, empty cache": [],
                                                      "job B, job A's cache": []}
        for r in range(args.rounds):
            cache_a, cache_b, shared = tmp / f"a{r}", tmp / f"b{r}", tmp / f"ab{r}"
            wall, cpu, _ = job(repo, cache_a, "forkA")
            rows["job A, empty cache"].append((wall, cpu))
            shutil.copytree(cache_a, shared, symlinks=True)
            wall, cpu, cold_out = job(repo, cache_b, "forkB")
            rows["job B, empty cache"].append((wall, cpu))
            wall, cpu, shared_out = job(repo, shared, "forkB")
            rows["job B, job A's cache"].append((wall, cpu))
            if cold_out != shared_out:
                raise SystemExit("job B printed a different report with job A's cache: the cache is not sound")
        base = min(c for _, c in rows["job B, empty cache"])
        print(f"{'job':<24}{'wall s (min)':>13}{'CPU s (min)':>13}{'CPU / job B cold':>18}")
        for label, runs in rows.items():
            cpu = min(c for _, c in runs)
            print(f"{label:<24}{min(w for w, _ in runs):>13.1f}{cpu:>13.1f}{cpu / base:>18.2f}")
        print("job B's report is the same with and without job A's cache")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

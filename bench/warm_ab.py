"""Warm-path speed of two gyrelint source trees on the same corpus, measured in one run.

Usage::

    python bench/warm_ab.py --before /path/to/old/src [--after src] [--repo DIR] [--rounds 5]
                            [--comment PATH] [--no-bytecode]

The warm path (nothing changed since the last run) is what pre-commit, flake8 and CI
re-runs pay; it is short, so a busy machine moves it a lot. Both trees get their own
cache, filled by one cold run each; then warm ``analyze`` and ``graph`` runs alternate
between the trees (A, B, A, B...), so drift in the machine's load hits both alike, and
the minimum and median over the rounds are reported, in wall and CPU seconds (the process
and its parse workers, from ``wait4``), with their ratio to the tree's own cold run.

``--comment PATH`` (a file of the repo) adds the comment-edit step: each round appends a
new comment line to that file, then runs both trees (the early cutoff: the file is parsed
again and summarises as before).

Bytecode: an installed gyrelint has its modules compiled (pip does it at install), so a
warm run reads ``.pyc`` files. With ``PYTHONDONTWRITEBYTECODE`` set (some shells and CI
images set it), every run compiles about 70 modules first, 0.2 CPU-s, a third of a warm
run. The runs here get a ``PYTHONPYCACHEPREFIX`` of their own, where each tree is compiled
before its cold run; ``--no-bytecode`` measures the compiling runs instead.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from speed import DEFAULT_REPO, copy_corpus


def child_env(src: Path, cache: Path, pycache: Path | None) -> dict[str, str]:
    """The environment of a timed run: this tree first on the path, its own cache, and
    (``pycache`` given) the tree's bytecode compiled there first, as pip does at install."""
    env = dict(os.environ, PYTHONPATH=str(src), GYRELINT_CACHE_DIR=str(cache))
    env.pop("CI", None)  # progress lines would be timed too
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(src / "gyrelint")], env=env,
                       stdout=subprocess.DEVNULL, check=True)
    return env


def run(env: dict[str, str], command: str, root: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (the process and its parse workers), peak RSS KiB."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "gyrelint", command, str(root), "--format", "json"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"gyrelint {command} exited {code}: {err.decode(errors='replace')[-400:]}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, required=True, help="the src folder of the old tree")
    ap.add_argument("--after", type=Path, default=Path(__file__).resolve().parent.parent / "src")
    ap.add_argument("--repo", type=Path, default=DEFAULT_REPO)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--comment", help="a file of the repo (relative path) to append comments to, one per round")
    ap.add_argument("--commands", default="analyze,graph", help="comma-separated gyrelint commands to time")
    ap.add_argument("--no-bytecode", action="store_true", help="keep PYTHONDONTWRITEBYTECODE as it is set")
    args = ap.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    with tempfile.TemporaryDirectory(prefix="gyrelint-warm-ab-") as tmp:
        root, files = copy_corpus(args.repo, tmp)
        print(f"{args.repo}: {len(files)} Python files, {os.cpu_count()} cores, {args.rounds} rounds, "
              f"load {os.getloadavg()[0]:.1f}, bytecode {'as set' if args.no_bytecode else 'cached'}")
        rows = []
        for command in args.commands.split(","):
            envs = {name: child_env(src, Path(tmp) / f"{name}-{command}",
                                    None if args.no_bytecode else Path(tmp) / f"pyc-{name}")
                    for name, src in trees.items()}
            cold = {name: run(env, command, root) for name, env in envs.items()}
            steps: list[tuple[str, dict[str, list[tuple[float, float, int]]]]] = [("warm", {n: [] for n in trees})]
            for _ in range(args.rounds):
                for name, env in envs.items():
                    steps[0][1][name].append(run(env, command, root))
            if args.comment:
                steps.append(("comment", {n: [] for n in trees}))
                path = root / args.comment
                for i in range(args.rounds):
                    with path.open("a", encoding="utf-8") as fh:
                        fh.write(f"\n# bench/warm_ab.py round {i}\n")
                    for name, env in envs.items():
                        steps[-1][1][name].append(run(env, command, root))
            for step, got in steps:
                for name in trees:
                    wall = [w for w, _, _ in got[name]]
                    cpu = [c for _, c, _ in got[name]]
                    rss = max(r for _, _, r in got[name])
                    rows.append((f"{command} {step} {name}", cold[name], min(wall), min(cpu),
                                 statistics.median(cpu), rss))
        print(f"{'run':<24}{'cold CPU s':>11}{'wall min':>10}{'CPU min':>9}{'CPU med':>9}{'CPU/cold':>10}{'RSS MiB':>9}")
        for name, (_, cold_cpu, _), wall, cpu, med, rss in rows:
            print(f"{name:<24}{cold_cpu:>11.2f}{wall:>10.3f}{cpu:>9.3f}{med:>9.3f}{med / cold_cpu:>10.3f}"
                  f"{rss / 1024:>9.0f}")
        print(f"load at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

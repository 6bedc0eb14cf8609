"""Time and peak memory of ``gyrelint logcheck`` on a generated multi-million-line log.

Usage::

    python bench/logcheck_scale.py [--lines 5000000] [--lines 1000000] [--base REV] [--pattern] [--gzip]

Writes a log into a temporary folder (never into the repository): a mix of the line styles the
readers understand (``step:N - key:value`` console lines, JSON lines with nested counters,
``gyrelint-probe`` lines, Python dict lines, ``key=value`` lines and plain noise), then runs
``python -m gyrelint logcheck LOG --format json`` in a fresh process per run and reports its wall
time, CPU time (user + system, children included: the user-pattern matcher) and peak RSS
(``wait4``). The baseline, timed in the same run on the same file, is a bare Python loop over the
file's lines (``for line in open(path, "rb")``): the CPU ratio to it is the figure to compare
across machines (wall time on a shared machine mostly measures the other jobs). Several ``--lines`` show whether time is linear in size.

``--audit`` instead times the built-in parsing on crafted lines (long words, runs of spaces after
``global step``, repeated ``rollout``, deep JSON...) at 16 KiB and 64 KiB: a linear pattern takes
about 4 times longer on the 4 times longer line, a quadratic one 16 times.

``--base REV`` also times that git revision's ``src/`` (exported with ``git archive``) on the
same logs (``--base-only``: only it); ``--pattern`` also times each run with a user ``--pattern``
(matched in the time-bounded child process); ``--gzip`` checks a gzip-compressed copy too.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def write_log(path: Path, lines: int, seed: int = 7) -> None:
    """A log of ``lines`` lines mixing every style the readers understand (deterministic)."""
    rng = random.Random(seed)
    step = sampled = consumed = version = 0
    with path.open("w") as f:
        buf: list[str] = []
        for i in range(lines):
            kind = i % 10
            if kind == 0:
                step += 1
                sampled += 256
                buf.append(f"(TaskRunner pid=4242) step:{step} - actor/pg_loss:{rng.uniform(-1, 1):.4f} - "
                           f"actor/entropy:{rng.random():.4f} - training/global_step:{step} - "
                           f"fully_async/count/total_generated_samples:{sampled} - "
                           f"fully_async/count/current_param_version:{version} - timing_s/step:{rng.random() * 20:.2f}")
            elif kind == 1:
                consumed += 256
                buf.append(json.dumps({"step": step, "counters": {"num_consumed": consumed},
                                       "loss": round(rng.random(), 5), "lr": 1e-6}))
            elif kind == 2:
                buf.append(f"gyrelint-probe sampled=+8 total={8 * (i // 10 + 1)} pid={100 + i % 4} t={1.7e9 + i:.6f}")
            elif kind == 3:
                buf.append(f"{{'loss': {rng.random():.4f}, 'grad_norm': {rng.random() * 3:.3f}, "
                           f"'learning_rate': 1e-06, 'epoch': {i / lines:.4f}}}")
            elif kind == 4:
                version += 1 if i % 50 == 4 else 0
                buf.append(f"INFO 12-03 10:00:00 worker.py:120] loss = {rng.random():.4f} kl={rng.random() / 10:.5f}")
            else:
                buf.append(f"INFO 12-03 10:00:{i % 60:02d} engine.py:88] Avg prompt throughput: {rng.random() * 900:.1f} "
                           "tokens/s, Running: 12 reqs, Pending: 0 reqs")
            if len(buf) >= 10_000:
                f.write("\n".join(buf) + "\n")
                buf.clear()
        if buf:
            f.write("\n".join(buf) + "\n")


def measure(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, int, str]:
    """Wall seconds, CPU seconds (user + system, its children included), peak RSS in MiB, exit code and
    the start of stderr of one run of ``cmd``."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=REPO)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read(400).decode(errors="replace")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode, tail


def bare_read(path: Path) -> tuple[float, float, float]:
    code = "import sys\nn = 0\nfor line in open(sys.argv[1], 'rb'):\n    n += 1\n"
    seconds, cpu, rss, rc, err = measure([sys.executable, "-c", code, str(path)], dict(os.environ))
    if rc:
        sys.exit(f"bare read failed: {err}")
    return seconds, cpu, rss


def export_tree(rev: str, into: Path) -> Path:
    """``src/`` of git revision ``rev`` in a temporary folder."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "src"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def crafted_lines(n: int) -> dict[str, str]:
    """Lines of about ``n`` characters built to make a backtracking regex scan them again and again."""
    return {
        "one long word": "a" * n, "dotted word": "a." * (n // 2), "long number": "a:" + "1" * (n - 3) + "x",
        "global step + spaces": "global step" + " " * n + "x", "train step + spaces": "train step" + " " * n + "x",
        "rollout repeated": "rollout " * (n // 8) + " accepted", "open ANSI": "\x1b[" + "1" * n, "quotes": "'" * n,
        "quoted keys": "'aaaa' " * (n // 7), "tensor( repeated": "tensor(1, " * (n // 10), "braces": "{" * n + "}",
        "deep JSON": '{"a":' * (n // 5) + "1" + "}" * (n // 5), "deep dict": "{'a':" * (n // 5) + "1" + "}" * (n // 5),
        "key=value pairs": "a=1 " * (n // 4), "table cells": "|" + "a|1|" * (n // 4),
        "ordinary console": ("step:3 - actor/pg_loss:-0.01 - training/global_step:3 - " * (n // 55 + 1))[:n],
    }


def audit() -> None:
    """Time of parse_line + the collector (every built-in rule) on crafted lines at two lengths."""
    sys.path.insert(0, str(REPO / "src"))
    from gyrelint.logcheck import build_rules
    from gyrelint.logcheck.counters import Collector
    from gyrelint.logcheck.reader import parse_line

    rules = build_rules()

    def cost(text: str) -> float:
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            rec = parse_line(text, "f", 1)
            Collector(rules).add([rec] if rec else [])
            best = min(best, time.process_time() - start)
        return best

    small, big = crafted_lines(16 * 1024), crafted_lines(64 * 1024)
    base = cost(big["ordinary console"])
    print(f"{'line':<22} {'16 KiB ms':>10} {'64 KiB ms':>10} {'64/16':>6} {'x ordinary 64 KiB':>18}")
    for name in big:
        a, b = cost(small[name]), cost(big[name])
        print(f"{name:<22} {a * 1e3:>10.2f} {b * 1e3:>10.2f} {b / max(a, 1e-6):>6.1f} {b / base:>18.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, action="append", help="log size in lines (repeatable; default 5,000,000)")
    ap.add_argument("--base", help="also time this git revision's src/ (or this src/ folder)")
    ap.add_argument("--pattern", action="store_true", help="add a user --pattern (time-bounded matcher)")
    ap.add_argument("--gzip", action="store_true", help="also check a gzip-compressed copy")
    ap.add_argument("--base-only", action="store_true", help="time only the --base revision")
    ap.add_argument("--audit", action="store_true", help="time the built-in parsing on crafted lines instead")
    args = ap.parse_args()
    if args.audit:
        audit()
        return
    sizes = args.lines or [5_000_000]
    tmp = Path(tempfile.mkdtemp(prefix="gyrelint-logbench-"))
    try:
        trees = {} if args.base_only and args.base else {"work tree": REPO / "src"}
        if args.base:
            base_dir = tmp / "base"
            base_dir.mkdir()
            given = Path(args.base)
            trees[f"base {given.parent.name if given.is_dir() else args.base}"] = \
                given if given.is_dir() else export_tree(args.base, base_dir)
        variants = {"": []}
        if args.pattern:
            variants["+pattern"] = ["--pattern", r"consumed=num_consumed.: (\d+)"]
        print(f"{'lines':>10} {'MB':>7} {'tree':<22} {'input':<6} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9} "
              f"{'CPU x bare':>10} {'CPU s/M lines':>13}")
        for n in sizes:
            log = tmp / f"run-{n}.log"
            write_log(log, n)
            inputs = {"plain": log}
            if args.gzip:
                gz = tmp / f"run-{n}.log.gz"
                with log.open("rb") as src, gzip.open(gz, "wb", compresslevel=1) as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
                inputs["gzip"] = gz
            bare_s, bare_cpu, bare_rss = bare_read(log)
            mb = log.stat().st_size / 1e6
            print(f"{n:>10} {mb:>7.0f} {'bare line loop':<22} {'plain':<6} {bare_s:>8.2f} {bare_cpu:>8.2f} "
                  f"{bare_rss:>9.0f} {1.0:>10.2f} {bare_cpu / n * 1e6:>13.2f}")
            for name, src in trees.items():
                env = {**os.environ, "PYTHONPATH": str(src), "GYRELINT_CACHE_DIR": str(tmp / "cache")}
                for (kind, path), (variant, extra) in itertools.product(inputs.items(), variants.items()):
                    cmd = [sys.executable, "-m", "gyrelint", "logcheck", str(path), "--format", "json", *extra]
                    seconds, cpu, rss, rc, err = measure(cmd, env)
                    note = f"  exit {rc}" + (f": {err.strip()[:120]}" if rc not in (0, 1) else "")
                    print(f"{n:>10} {mb:>7.0f} {name + variant:<22} {kind:<6} {seconds:>8.2f} {cpu:>8.2f} {rss:>9.0f} "
                          f"{cpu / bare_cpu:>10.1f} {cpu / n * 1e6:>13.2f}{note}", flush=True)
            for p in inputs.values():
                p.unlink()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

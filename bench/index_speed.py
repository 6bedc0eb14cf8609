"""Speed of stage 1 (``build_index``) on a real code base: cold, warm, one file touched.

Usage::

    python bench/index_speed.py [--repo DIR] [--jobs N] [--runs N] [--no-parse-baseline]

The repo (default: the verl 0.9.1 wheel unpacked by ``scripts/fetch_corpora.sh``) is copied
to a temporary folder, and the summary cache lives in another one, so nothing of the user's
is touched. Each figure is the best of ``--runs`` runs, in seconds of wall time, with the
main process's CPU time and the workers' beside it; ratios are against a single-process
loop of bare ``libcst.parse_module`` over the same files, timed in the same run. ``gc after`` is the first full collection once the index is built: the
cost of the new objects that later stages pay. Run it with ``PYTHONPATH=<other src>`` to
time another version of gyrelint against the same baseline.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import gyrelint
from gyrelint.index import build_index
from gyrelint.index import cache as C
from gyrelint.settings import Settings

sys.path.insert(0, str(Path(__file__).parent))
from speed import bare_parse, copy_corpus  # noqa: E402 - the same baseline and copy as bench/speed.py

DEFAULT_REPO = Path.home() / ".cache/gyrelint-corpora/src/verl"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_index(root: Path, settings: Settings) -> tuple[float, float, float, float, str]:
    """Wall, main-process and worker CPU seconds of one build_index, then the seconds of
    the next full collection."""
    gc.collect()
    wall, cpu, workers = time.perf_counter(), time.process_time(), _children_cpu()
    index = build_index(root, settings)
    wall, cpu, workers = time.perf_counter() - wall, time.process_time() - cpu, _children_cpu() - workers
    after = time.perf_counter()
    gc.collect()
    after = time.perf_counter() - after
    stats = f"parsed {index.stats.parsed}, cached {index.stats.cached}"
    del index
    gc.collect()
    return wall, cpu, workers, after, stats


def codec(index_summaries: dict) -> str:
    """CPU seconds to encode every summary, then to decode them one by one and in bulk
    (with the collector paused and the records promoted, as build_index does), best of 3."""
    items = list(index_summaries.items())
    paused = getattr(C, "gc_paused", None)

    def best(fn) -> float:  # noqa: ANN001
        times = []
        for _ in range(3):
            gc.collect()
            start = time.process_time()
            out = fn()
            times.append(time.process_time() - start)
            del out
        return min(times)

    def bulk() -> list:
        with paused(promote=True) if paused else contextlib.nullcontext():
            return [C.decode(p, d) for (p, _), d in zip(items, entries, strict=True)]

    entries = [C.encode(p, s) for p, s in items]
    enc = best(lambda: [C.encode(p, s) for p, s in items])
    one = best(lambda: [C.decode(p, d) for (p, _), d in zip(items, entries, strict=True)])
    return (f"codec: {len(items)} summaries, {sum(map(len, entries)) / 2**20:.1f} MiB; encode {enc:.2f} s, "
            f"decode one by one {one:.2f} s, in bulk {best(bulk):.2f} s (CPU)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, default=DEFAULT_REPO)
    ap.add_argument("--jobs", type=int, default=0, help="worker processes (default: cores)")
    ap.add_argument("--runs", type=int, default=1, help="runs per figure; the best is kept")
    ap.add_argument("--no-parse-baseline", action="store_true", help="skip the bare parse loop")
    args = ap.parse_args()
    if not args.repo.is_dir():
        print(f"{args.repo}: not a directory; run scripts/fetch_corpora.sh or pass --repo", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="gyrelint-index-speed-") as tmp:
        root, files = copy_corpus(args.repo, tmp)
        print(f"gyrelint from {Path(gyrelint.__file__).parent}")
        print(f"{args.repo}: {len(files)} Python files, {os.cpu_count()} cores, jobs={args.jobs or 'cores'}")
        parse = None if args.no_parse_baseline else bare_parse(root, files)
        if parse:
            print(f"bare libcst.parse_module loop (1 process): {parse:.2f} s")
        rows: dict[str, list[tuple[float, float, float, float, str]]] = {
            "cold": [], "warm": [], "one file touched": []}
        touched = root / files[len(files) // 2]
        original = touched.read_bytes()
        for run in range(args.runs):
            settings = Settings(cache_dir=Path(tmp) / f"cache{run}", jobs=args.jobs)
            touched.write_bytes(original)
            rows["cold"].append(timed_index(root, settings))
            rows["warm"].append(timed_index(root, settings))
            touched.write_bytes(original + f"\n# touched {run}\n".encode())
            rows["one file touched"].append(timed_index(root, settings))
        cold = min(r[0] for r in rows["cold"])
        print(f"{'':18} {'wall s':>7} {'main cpu s':>10} {'workers cpu s':>13} {'gc after s':>10} "
              f"{'/parse':>7} {'/cold':>6}")
        for name, runs in rows.items():
            wall, cpu, workers, after, stats = min(runs)
            ratio = f"{wall / parse:7.2f}" if parse else f"{'-':>7}"
            print(f"{name:18} {wall:7.2f} {cpu:10.2f} {workers:13.2f} {after:10.3f} {ratio} {wall / cold:6.2f}"
                  f"   ({stats})")
        print(codec(build_index(root, Settings(cache_dir=Path(tmp) / "cache0", jobs=args.jobs)).summaries))
    return 0


if __name__ == "__main__":
    sys.exit(main())

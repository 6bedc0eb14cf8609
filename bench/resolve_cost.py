"""Where the resolver's time goes on a warm index: the fixed point and the read-out, timed apart,
with the counts that say how much of the work is re-evaluation and dependency bookkeeping.

Usage::

    python bench/resolve_cost.py [--repo DIR ...] [--cache-dir DIR] [--profile OUT]

Per repo (default: verl and transformers from ``scripts/fetch_corpora.sh``): the index is read
from ``--cache-dir`` (built there on the first run, so later runs time the resolver alone), the
collector is paused as ``build_graphs`` pauses it, then ``Resolver.run`` and the read-out
(``build._resolution_of``) are timed in CPU seconds. The row also gives the items (flows and
call sites), their runs (runs / items: how often the worklist re-evaluated an item), the
batches, the dependency entries (item, key it read) the worklist keeps, the store's keys and
the peak RSS. ``--profile`` writes a cProfile of the run of the last repo: its per-call
overhead inflates the many small lookups (``class_attr``, ``_get``), so confirm any lead with
the unprofiled timing (a memo of ``class_attr`` that cProfile put at 28 % saved nothing).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import resource
import sys
import time
from pathlib import Path

from gyrelint.graphs.build import _resolution_of
from gyrelint.graphs.resolve import Resolver
from gyrelint.graphs.symbols import symbols_of
from gyrelint.index import build_index
from gyrelint.repo import discover
from gyrelint.settings import Settings

CORPORA = Path.home() / ".cache/gyrelint-corpora/src"


def measure(repo: Path, cache_dir: Path, profile: str | None) -> None:
    """Print one row for ``repo``."""
    settings = Settings().with_overrides(cache_dir=cache_dir / repo.name)
    index = build_index(repo, settings, None, files=discover(repo, settings))
    symbols = symbols_of(index)
    sums = list(index.summaries.values())
    prof = cProfile.Profile() if profile else None
    gc.disable()  # as graphs.build.gc_paused: the resolver makes many small acyclic records
    try:
        start = time.process_time()
        r = Resolver(sums, symbols)
        if prof is not None:
            prof.enable()
        runs = r.run()
        if prof is not None:
            prof.disable()
            prof.dump_stats(profile)
        ran = time.process_time()
        _resolution_of(r, sums)
        read = time.process_time()
    finally:
        gc.enable()
    n = len(r.items)
    dep_entries = sum(len(a) for a in r.deps.values())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{repo.name:<14}{ran - start:>8.1f}{read - ran:>9.1f}{n:>9,}{runs:>10,}{runs / n:>7.2f}"
          f"{r.round_count:>8}{dep_entries:>12,}{len(r.store):>9,}{peak:>9.0f}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, action="append", help="repeatable; default: verl, transformers")
    ap.add_argument("--cache-dir", type=Path, default=Path("/tmp/gyrelint-resolve-cost"),
                    help="index cache, one folder per repo (reused across runs)")
    ap.add_argument("--profile", help="cProfile of the last repo's fixed point")
    args = ap.parse_args()
    repos = args.repo or [CORPORA / "verl", CORPORA / "transformers"]
    for repo in repos:
        if not repo.is_dir():
            print(f"{repo}: not a directory; run scripts/fetch_corpora.sh or pass --repo", file=sys.stderr)
            return 2
    print(f"{'repo':<14}{'run s':>8}{'read s':>9}{'items':>9}{'runs':>10}{'x':>7}{'batches':>8}"
          f"{'dep entries':>12}{'keys':>9}{'RSS MiB':>9}")
    for i, repo in enumerate(repos):
        measure(repo, args.cache_dir, args.profile if i == len(repos) - 1 else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How much the call resolution depends on the order its items run in (issue 18 item 1).

Usage::

    python bench/resolve_order.py [--repo DIR ...] [--seeds 1,2,3] [--show N]

For each repo (default: the verl wheel unpacked by ``scripts/fetch_corpora.sh``) the
resolver's fixed point is computed once in its own order, then once per seed with its flows
and modules shuffled (so the flows of each rank, and the call sites, run in another order).
Each run is reduced to the facts the graphs stage reads (every call site's targets, the
implicit calls, the dotted-path strings, the learned attribute types, every class's MRO);
a row gives the item runs, the resolver's CPU seconds, the keys holding
``_MAX_VALUES`` values, and how many facts the shuffled run lost and gained against the
first one. A resolver whose answer is a function of its inputs only prints ``-0 +0`` on
every row; incremental resolution (re-running only the items of the edited modules from the
previous fixed point) needs that.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

from gyrelint.graphs import resolve as R
from gyrelint.graphs.strings import string_edges
from gyrelint.graphs.symbols import symbols_of
from gyrelint.index import build_index
from gyrelint.index.summary import FileSummary
from gyrelint.settings import Settings

DEFAULT_REPO = Path.home() / ".cache" / "gyrelint-corpora" / "src" / "verl"
Fact = tuple


def solve(sums: list[FileSummary], symbols, seed: int | None) -> tuple[R.Resolver, int, float]:
    """The resolver run to its fixed point; with ``seed``, flows and modules shuffled first."""
    r = R.Resolver(sums, symbols)
    if seed is not None:
        rnd = random.Random(seed)
        rnd.shuffle(r.flows)
        modules = list(r.sums)
        rnd.shuffle(modules)
        r.sums = {m: r.sums[m] for m in modules}
    start = time.process_time()
    runs = r.run()
    return r, runs, time.process_time() - start


def facts(r: R.Resolver, sums: list[FileSummary]) -> set[Fact]:
    """What the graphs stage reads of a fixed point, as comparable tuples."""
    out: set[Fact] = set()
    for mod in sorted(r.sums):
        for i, site in enumerate(r.sums[mod].calls):
            out.update(("site", mod, i, e.target, e.kind, e.via) for e in r.site_targets(mod, site))
    out.update(("implicit", *k, t) for k, v in r.implicit.items() for t in v)
    out.update(("string", *k, t) for k, (ts, _) in string_edges(sums, r).items() for t in ts)
    out.update(("attr", c, a, t) for c, d in r.attr_types().items() for a, t in d.items())
    out.update(("mro", c, tuple(r.mro(c))) for c in sorted(r.classes))
    return out


def measure(root: Path, seeds: list[int], show: int, cache: Path) -> None:
    settings = Settings(cache_dir=str(cache), jobs=2)
    index = build_index(root, settings)
    sums = list(index.summaries.values())
    symbols = symbols_of(index)
    base = None
    for seed in [None, *seeds]:
        r, runs, cpu = solve(sums, symbols, seed)
        got = facts(r, sums)
        capped = sum(1 for v in r.store.values() if len(v) >= R._MAX_VALUES)
        row = f"{root.name:<10} seed {seed!s:>4}  batches {getattr(r, 'round_count', 0):>4}  runs {runs:>8,}  cpu {cpu:6.2f} s  capped keys {capped:>5,}  facts {len(got):>7,}"
        if base is None:
            base = got
            print(row, flush=True)
            continue
        print(f"{row}  -{len(base - got)} +{len(got - base)}", flush=True)
        for f in sorted(base ^ got, key=repr)[:show]:
            print("    ", "-" if f in base else "+", f)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, action="append")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--show", type=int, default=0, help="print that many differing facts per seed")
    ap.add_argument("--cache-dir", type=Path, help="summary cache (default: a temporary folder)")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",") if s]
    with tempfile.TemporaryDirectory() as tmp:
        for repo in args.repo or [DEFAULT_REPO]:
            if not repo.is_dir():
                sys.exit(f"resolve_order: {repo} is not a folder (run scripts/fetch_corpora.sh)")
            measure(repo, seeds, args.show, args.cache_dir or Path(tmp))


if __name__ == "__main__":
    main()

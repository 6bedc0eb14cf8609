"""Topology stage on the real corpora: verdict, transports, keys per class, a seeded sample for hand-checking,
and the stage's CPU time as a ratio of the (warm-cache) index stage measured in the same run.

    .venv/bin/python bench/topology_bench.py [--sample 30] [--seed 4] [CORPUS_DIR ...]

Default corpora: ~/.cache/gyrelint-corpora/src/{verl,openrlhf,trl,areal} (scripts/fetch_corpora.sh).
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from pathlib import Path

from gyrelint.api import load
from gyrelint.entrypoints import find_entry_points
from gyrelint.graphs import build_graphs
from gyrelint.index import build_index
from gyrelint.topology import analyze_topology

DEFAULT = [Path.home() / ".cache" / "gyrelint-corpora" / "src" / n for n in ("verl", "openrlhf", "trl", "areal")]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpora", nargs="*", type=Path, default=DEFAULT)
    ap.add_argument("--sample", type=int, default=30)
    ap.add_argument("--seed", type=int, default=4)
    args = ap.parse_args()
    for root in args.corpora:
        if not root.is_dir():
            print(f"{root}: missing (run scripts/fetch_corpora.sh)")
            continue
        _root, settings, _ = load(root)
        build_index(root, settings)  # warm the cache so the index time below is the warm one
        t0 = time.process_time()
        index = build_index(root, settings)
        t_index = time.process_time() - t0
        graphs = build_graphs(index, find_entry_points(index, settings)[0])
        t0 = time.process_time()
        topo, diags = analyze_topology(index, graphs, settings)
        t_topo = time.process_time() - t0
        counts = Counter(k.cls for k in topo.config_keys)
        print(f"## {root.name}")
        print(f"verdict: {topo.verdict}; colocated: {topo.colocated}")
        print(f"trajectory transport: {topo.trajectory_transport}")
        print(f"weight transport: {topo.weight_transport}")
        print(f"keys: process {counts['process']}, port {counts['port']}, comm {counts['comm']} "
              f"(sources: {dict(Counter(k.source for k in topo.config_keys))})")
        print(f"link checks: {len(topo.link_checks)} ({dict(Counter(c.signal for c in topo.link_checks))})")
        print(f"diagnostics: {len(diags)}")
        print(f"cpu: topology {t_topo:.2f}s, warm index {t_index:.2f}s, ratio {t_topo / max(t_index, 1e-6):.2f}")
        for r in topo.reasons[:5]:
            print(f"  reason: {r[:160]}")
        rng = random.Random(args.seed)
        sample = rng.sample(topo.config_keys, min(args.sample, len(topo.config_keys)))
        print(f"sample of {len(sample)} keys (seed {args.seed}):")
        for k in sample:
            print(f"  {k.cls:7} {k.key[:64]:64} = {str(k.value)[:24]:24} {k.reason} [{k.source}] "
                  f"{k.file.rsplit('/', 1)[-1]}:{k.line}")
        print()


if __name__ == "__main__":
    main()

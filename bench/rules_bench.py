"""Rule findings on real corpora: count per rule, a seeded sample to hand-check, warm-run time.

    python bench/rules_bench.py [--sample 20] [--out /tmp/gyrelint-rules-findings.json]

Corpora come from scripts/fetch_corpora.sh (~/.cache/gyrelint-corpora/src/*); never committed.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from pathlib import Path

from gyrelint.api import analyze
from gyrelint.rules import RULES

BASE = Path.home() / ".cache" / "gyrelint-corpora" / "src"
CORPORA = {
    "verl": BASE / "verl",
    "openrlhf": BASE / "openrlhf" / "openrlhf-0.11.2.data" / "purelib",
    "trl": BASE / "trl",
    "areal": BASE / "areal",
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, default=20)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out", default="/tmp/gyrelint-rules-findings.json")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--extra", nargs="*", default=[], metavar="NAME=PATH",
                    help="more checkouts to include (e.g. fetched full repositories)")
    args = ap.parse_args()
    corpora = dict(CORPORA)
    for item in args.extra:
        name, _, path = item.partition("=")
        corpora[name] = Path(path)
    rows, table = [], []
    for name, path in corpora.items():
        if args.only and name not in args.only:
            continue
        if not path.is_dir():
            print(f"{name}: missing ({path}); run scripts/fetch_corpora.sh")
            continue
        t0 = time.perf_counter()
        a = analyze(path)
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        a = analyze(path)
        warm = time.perf_counter() - t0
        counts = Counter(f.rule for f in a.findings)
        table.append((name, counts, first, warm, a.stats.files))
        for f in a.findings:
            rows.append({"corpus": name, "rule": f.rule, "severity": f.severity.value, "file": f.file,
                         "line": f.line, "message": f.message, "fix": f.fix, "fingerprint": f.fingerprint,
                         "evidence": [f"{e.file}:{e.line} {e.note}" for e in f.evidence]})
    ids = [r.id for r in RULES]
    print("| corpus | files | " + " | ".join(ids) + " | total | first run s | warm run s |")
    print("|---|---|" + "---|" * len(ids) + "---|---|---|")
    for name, counts, first, warm, files in table:
        cells = " | ".join(str(counts.get(i, 0)) for i in ids)
        print(f"| {name} | {files} | {cells} | {sum(counts.values())} | {first:.1f} | {warm:.1f} |")
    Path(args.out).write_text(json.dumps(rows, indent=1))
    rnd = random.Random(args.seed)
    sample = rnd.sample(rows, min(args.sample, len(rows)))
    print(f"\nsample of {len(sample)} (seed {args.seed}) of {len(rows)} findings:")
    for i, r in enumerate(sample, 1):
        print(f"{i:2d}. [{r['corpus']}] {r['rule']} {r['file']}:{r['line']} {r['message']}")


if __name__ == "__main__":
    main()

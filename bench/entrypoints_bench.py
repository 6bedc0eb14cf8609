"""Entry-point finder on real repositories: counts per source, missing targets, timing.

    .venv/bin/python bench/entrypoints_bench.py ~/.cache/gyrelint-corpora/src/* /tmp/repos/*

Prints one Markdown table row per repo (the index is built with the cache on; the
entry-point CPU time excludes parsing; CPU, not wall, because the machine is shared). ``--missing`` also lists the missing targets.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from gyrelint.api import index_repo
from gyrelint.entrypoints import FOUND_BY_ORDER, scan_entry_points
from gyrelint.settings import load_settings


def main(argv: list[str]) -> int:
    show_missing = "--missing" in argv
    paths = [a for a in argv if not a.startswith("--")]
    cols = list(FOUND_BY_ORDER)
    print("| repo | py files | " + " | ".join(cols) + " | commands | external | unresolved var | missing | cpu ms |")
    print("|" + "---|" * (len(cols) + 7))
    for p in paths:
        root = Path(p).expanduser()
        settings, _ = load_settings(root)
        index = index_repo(root, settings)
        t0 = time.process_time()
        scan = scan_entry_points(index, settings)
        ms = (time.process_time() - t0) * 1000
        counts = scan.counts()
        print(f"| {root.name} | {len(index.files.python)} | " + " | ".join(str(counts.get(c, 0)) for c in cols)
              + f" | {scan.commands} | {scan.external} | {scan.unresolved} | {len(scan.missing)} | {ms:.0f} |")
        if show_missing:
            for d in scan.diagnostics:
                if d.kind == "entry":
                    print(f"    {d}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

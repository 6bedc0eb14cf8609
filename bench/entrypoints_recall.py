"""Launcher recall, checked against a plain grep that shares no code with the finder.

    .venv/bin/python bench/entrypoints_recall.py /tmp/repos/verl /tmp/repos/slime ...

For every non-comment line of every ``*.sh`` of a repo, the grep takes ``-m mod`` /
``--module mod`` after ``python``/``torchrun``/``deepspeed`` (when ``mod``'s top-level
name is a folder or top-level ``.py`` of the repo) and ``python x.py``; then it checks
that ``gyrelint entries`` reports an entry from that script for that target (found or
flagged missing). Misses are printed so they can be judged one by one.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from gyrelint.api import index_repo
from gyrelint.entrypoints import scan_entry_points
from gyrelint.settings import load_settings

_MOD = re.compile(r"(?:python[\d.]*\s+(?:-u\s+)?-m|--module|torchrun.*\s-m)\s+([A-Za-z_][\w.]*)")
_FILE = re.compile(r"python[\d.]*\s+(?:-u\s+)?([\w./-]+\.py)\b")


def check(root: Path) -> tuple[int, int, int, int]:
    settings, _ = load_settings(root)
    scan = scan_entry_points(index_repo(root, settings), settings)
    got = {(e.source, e.module or "") for e in scan.entries} | {(e.source, e.file or "") for e in scan.entries}
    tops = {p.name for p in root.iterdir() if p.is_dir()} | {p.stem for p in root.glob("*.py")}
    want_mod: set[tuple[str, str]] = set()
    want_file: set[tuple[str, str]] = set()
    for sh in sorted(root.rglob("*.sh")):
        rel = sh.relative_to(root).as_posix()
        if any(part in {".git", "build", "dist", "node_modules"} for part in sh.parts):
            continue
        for line in sh.read_text(errors="replace").splitlines():
            if line.lstrip().startswith("#"):
                continue
            want_mod |= {(rel, m.group(1)) for m in _MOD.finditer(line) if m.group(1).split(".")[0] in tops}
            want_file |= {(rel, m.group(1)) for m in _FILE.finditer(line)}
    hit_mod = {w for w in want_mod if any(s == w[0] and (t == w[1] or t.startswith(w[1] + ".")) for s, t in got)}
    hit_file = {w for w in want_file if any(
        s == w[0] and t and (w[1].lstrip("./").endswith(t) or t.endswith(w[1].lstrip("./"))) for s, t in got)}
    for w in sorted(want_mod - hit_mod) + sorted(want_file - hit_file):
        print(f"   not reported: {w[0]}: {w[1]}")
    return len(want_mod), len(hit_mod), len(want_file), len(hit_file)


def main(argv: list[str]) -> int:
    print("| repo | `-m` launches in .sh (grep) | reported | `python x.py` in .sh (grep) | reported |")
    print("|---|---|---|---|---|")
    for p in argv:
        root = Path(p).expanduser().resolve()
        wm, hm, wf, hf = check(root)
        print(f"| {root.name} | {wm} | {hm} | {wf} | {hf} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

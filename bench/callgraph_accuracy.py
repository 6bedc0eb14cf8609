"""Call-graph accuracy on PyCG's micro-benchmark, next to PyCG 0.0.8 in the same run.

Usage::

    python bench/callgraph_accuracy.py [--bench DIR] [--pycg PYTHON] [--show-misses]

``--bench`` defaults to ``~/.cache/gyrelint-corpora/pycg/pycg-0.0.8/micro-benchmark``
(``pip download --no-deps --no-binary :all: pycg==0.0.8``). ``--pycg`` is a Python with
PyCG 0.0.8 installed (its wheel installs ``PyCG``; add a ``pycg`` symlink beside it in
site-packages); without it only gyrelint is scored. Each case is analysed with the case
folder as root (PyCG: ``--package`` the folder, ``main.py`` as entry); edges are compared
with the case's ``callgraph.json``: precision = correct / reported, recall = correct / expected.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from gyrelint.entrypoints import find_entry_points
from gyrelint.graphs import build_graphs
from gyrelint.index import build_index
from gyrelint.render.pycg import pycg_adjacency
from gyrelint.settings import Settings

DEFAULT_BENCH = Path.home() / ".cache/gyrelint-corpora/pycg/pycg-0.0.8/micro-benchmark"


def edges(adj: dict[str, list[str]]) -> set[tuple[str, str]]:
    return {(a, b) for a, bs in adj.items() for b in bs}


def gyrelint_adjacency(case: Path, cache: Path) -> dict[str, list[str]]:
    settings = Settings(use_cache=False, jobs=1, cache_dir=cache)
    index = build_index(case, settings)
    eps, _ = find_entry_points(index, settings)
    return pycg_adjacency(build_graphs(index, eps).calls)


def pycg_adjacency_of(python: str, case: Path, out: Path) -> dict[str, list[str]] | None:
    try:
        subprocess.run([python, "-m", "pycg", "--package", ".", "main.py", "-o", str(out)], cwd=case,
                       check=True, capture_output=True, timeout=120)
        return json.loads(out.read_text())
    except (subprocess.SubprocessError, OSError, ValueError):
        return None


class Score:
    def __init__(self) -> None:
        self.tp = self.fp = self.fn = 0
        self.cases = self.failed = 0

    def add(self, got: set, want: set) -> None:
        self.cases += 1
        self.tp += len(got & want)
        self.fp += len(got - want)
        self.fn += len(want - got)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", type=Path, default=DEFAULT_BENCH)
    ap.add_argument("--pycg", help="python executable with PyCG 0.0.8 installed")
    ap.add_argument("--show-misses", action="store_true")
    args = ap.parse_args()
    snippets = args.bench / "snippets"
    cases = sorted(p.parent for p in snippets.glob("*/*/callgraph.json"))
    if not cases:
        print(f"no cases under {snippets}; see the module docstring", file=sys.stderr)
        return 2
    tools = {"gyrelint": defaultdict(Score)}
    if args.pycg:
        tools["pycg"] = defaultdict(Score)
    seconds = defaultdict(float)
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            cat = case.parent.name
            want = edges(json.loads((case / "callgraph.json").read_text()))
            t = time.perf_counter()
            got = edges(gyrelint_adjacency(case, Path(tmp)))
            seconds["gyrelint"] += time.perf_counter() - t
            for key in (cat, "ALL"):
                tools["gyrelint"][key].add(got, want)
            if args.show_misses and got != want:
                print(f"# {cat}/{case.name}: missing {sorted(want - got)} extra {sorted(got - want)}")
            if args.pycg:
                t = time.perf_counter()
                adj = pycg_adjacency_of(args.pycg, case, Path(tmp) / "pycg.json")
                seconds["pycg"] += time.perf_counter() - t
                for key in (cat, "ALL"):
                    if adj is None:
                        tools["pycg"][key].failed += 1
                    tools["pycg"][key].add(edges(adj or {}), want)
    cats = sorted(k for k in tools["gyrelint"] if k != "ALL") + ["ALL"]
    head = f"{'category':<14}{'cases':>6}" + "".join(f"{name + ' P':>14}{name + ' R':>13}" for name in tools)
    print(head)
    for c in cats:
        row = f"{c:<14}{tools['gyrelint'][c].cases:>6}"
        for name in tools:
            sc = tools[name][c]
            row += f"{sc.precision:>14.3f}{sc.recall:>13.3f}"
        print(row)
    for name in tools:
        sc = tools[name]["ALL"]
        print(f"{name}: precision {sc.precision:.1%} recall {sc.recall:.1%} "
              f"(tp {sc.tp}, fp {sc.fp}, fn {sc.fn}; {sc.cases} cases, {sc.failed} failed; {seconds[name]:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

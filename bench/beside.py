"""The topology stage beside semantics (issue 18 item 2): ``api.analyze`` after the parse, with
the forked topology child off and on, alternating, in one run.

Usage::

    python bench/beside.py [--repo DIR ...] [--rounds N] [--parse]

Per repo: the summaries are parsed once into a private cache (the index is then warm, so each
round times the stages after the parse: symbols, entry points, graphs, semantics, topology,
rules), every other cache entry is deleted before each round, and ``analyze`` runs with the
child off (``MIN_CALLS`` out of reach) and on, in alternating order. Each row gives wall
seconds and CPU seconds (this process and its reaped children: the topology child is one), and
this process's CPU alone is the critical path once both cores are free (the child's runs beside
it). ``--parse`` adds a bare single-process libcst parse of the same files as the ratios' base. The
JSON reports of both are compared (``stats.seconds`` aside): the bench fails if they differ.
Nothing is asserted about time: a shared machine is noisy, compare within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from gyrelint import api, topology_beside
from gyrelint.render.json_report import to_report

CORPORA = Path.home() / ".cache/gyrelint-corpora/src"


def cpu_split() -> tuple[float, float]:
    """CPU seconds of this process, and of its reaped children (the topology child)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def cpu_seconds() -> float:
    return sum(cpu_split())


def keep_summaries(cache: Path) -> None:
    """Delete every cache entry but the parsed summaries (this bench's own folder)."""
    for p in cache.iterdir():
        if p.is_dir() and not p.name.startswith("summaries-"):
            shutil.rmtree(p)


class Stages:
    """The API's stage sink: seconds per stage of one run."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def stage(self, name: str, seconds: float, counts: object) -> None:
        self.seconds[name] = seconds


def one(repo: Path, cache: Path, on: bool) -> tuple[float, float, float, str, bool, Stages]:
    keep_summaries(cache)
    topology_beside.MIN_CALLS = 0 if on else 1 << 62
    answered: list[bool] = []
    finish = topology_beside.TopologyBeside.finish

    def spy(self, online, reached):
        got = finish(self, online, reached)
        answered.append(got is not None)
        return got

    topology_beside.TopologyBeside.finish = spy  # type: ignore[method-assign]
    try:
        start, (own, kids) = time.perf_counter(), cpu_split()
        stages = Stages()
        a = api.analyze(repo, cache_dir=cache, stages=stages)
        own2, kids2 = cpu_split()
        wall, used, child = time.perf_counter() - start, own2 - own, kids2 - kids
    finally:
        topology_beside.TopologyBeside.finish = finish  # type: ignore[method-assign]
    report = to_report(a)
    report["stats"].pop("seconds", None)
    report["stats"].pop("parsed", None)
    report["stats"].pop("cached", None)
    return wall, used, child, json.dumps(report, sort_keys=True), bool(answered and answered[0]), stages


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, action="append")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--parse", action="store_true", help="time a bare single-process parse as the base")
    ap.add_argument("--cache-dir", type=Path, help="a folder of this bench's own (default: temporary)")
    args = ap.parse_args()
    repos = args.repo or [CORPORA / "verl"]
    tmp = tempfile.mkdtemp(prefix="gyrelint-beside-")
    status = 0
    try:
        for repo in repos:
            cache = (args.cache_dir or Path(tmp)) / repo.name
            cache.mkdir(parents=True, exist_ok=True)
            print(f"{repo}: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; warming the index", flush=True)
            api.index_repo(repo, cache_dir=cache)
            base = cpu_base = float("nan")
            if args.parse:
                from speed import bare_parse

                from gyrelint.repo import discover
                from gyrelint.settings import Settings

                files = discover(repo, Settings())
                cpu = cpu_seconds()
                base = bare_parse(repo, files.python)
                cpu_base = cpu_seconds() - cpu
                print(f"  bare parse: {base:.2f} s, {cpu_base:.2f} CPU-s", flush=True)
            reports: dict[bool, str] = {}
            for r in range(args.rounds):
                for on in ((False, True) if r % 2 == 0 else (True, False)):
                    wall, own, child, rep, answered, stages = one(repo, cache, on)
                    cpu = own + child
                    reports.setdefault(on, rep)
                    if rep != reports[on] or (False in reports and True in reports and reports[False] != reports[True]):
                        print("  REPORTS DIFFER", flush=True)
                        status = 1
                    print(f"  round {r} child {'on ' if on else 'off'} (answered {answered}): {wall:7.2f} s "
                          f"({wall / base:.2f} x parse)  {cpu:7.2f} CPU-s ({cpu / cpu_base:.2f} x parse; this process "
                          f"{own:.2f} = {own / cpu_base:.2f} x, child {child:.2f})  "
                          f"load {os.getloadavg()[0]:.1f}", flush=True)
                    print("    " + "  ".join(f"{k} {v:.2f}" for k, v in stages.seconds.items()), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())

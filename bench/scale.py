"""How each stage after the parse grows with the repo: seconds and peak RSS per stage, as ratios
to a bare single-process libcst parse of the same files timed in the same run.

Usage::

    python bench/scale.py [--repo DIR ...] [--skip-parse] [--profile OUT.prof] [--cache-dir DIR]

Per repo: a bare ``libcst.parse_module`` loop (the floor), then ``build_index`` into a private
cache (cold unless ``--cache-dir`` already holds it), then the post-parse stages of
``api.analyze`` one by one on the warm index (symbols, entry points, graphs, semantics,
topology, counters, rules), all with the cache off, so each pays its whole cost. Peak RSS per stage is the process high-water mark
after resetting it (``/proc/self/clear_refs``), so each figure is what that stage reached.
``--profile`` writes a cProfile of the post-parse stages (read it with ``pstats``).
"CPU s" (and its ratio to the bare parse's CPU, the figure a loaded machine distorts least)
adds the parse workers' CPU (reaped children) to this process's: with the cores in
use, wall seconds fall below CPU seconds. The last row is cold ``analyze`` end to end (the
index, parsed unless ``--cache-dir`` holds it, plus every stage after it).
Nothing is asserted: timings on a shared machine are noisy; compare runs of the same session.
The stages run here one after the other: ``api.analyze`` runs topology in a forked child beside
semantics on repos of 20 k call sites or more (``bench/beside.py`` measures that).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from speed import bare_parse  # the same floor bench/speed.py measures

from gyrelint.repo import discover
from gyrelint.settings import Settings

CORPORA = Path.home() / ".cache/gyrelint-corpora/src"
DEFAULT_REPOS = [CORPORA / "openrlhf", CORPORA / "verl", CORPORA / "transformers"]


def peak_mib() -> float:
    """The process's RSS high-water mark since the last reset (VmHWM), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak() -> None:
    """Reset VmHWM to the current RSS (Linux); elsewhere the figure is the run's peak so far."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def cpu_seconds() -> float:
    """CPU seconds of this process and of its reaped children (the parse workers)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def count_lines(root: Path, files: list[str]) -> int:
    return sum((root / f).read_bytes().count(b"\n") for f in files)


def stages(root: Path, settings: Settings) -> list[tuple[str, Callable[[dict], object]]]:
    """The stages of ``api.analyze`` after the index, in order; each reads and fills ``state``."""
    from gyrelint.analysis import Analysis
    from gyrelint.entrypoints import find_entry_points
    from gyrelint.graphs import build_graphs
    from gyrelint.graphs.symbols import symbols_of
    from gyrelint.rules import run_rules
    from gyrelint.semantics import tag
    from gyrelint.semantics.counters import logged_counters
    from gyrelint.topology import analyze_topology

    def entries(s: dict) -> None:
        s["entries"] = find_entry_points(s["index"], settings, s["symbols"])[0]

    def graphs(s: dict) -> None:
        s["graphs"] = build_graphs(s["index"], s["entries"], cache_dir=None, symbols=s["symbols"])

    def topology(s: dict) -> None:
        s["topology"] = analyze_topology(s["index"], s["graphs"], settings, online=s["sem"].handoff.online_evidence)[0]

    def rules(s: dict) -> None:
        sem = s["sem"]
        result = Analysis(root=root, given_root=str(root), settings=settings, index=s["index"],
                          entry_points=s["entries"], graphs=s["graphs"], functions=sem.functions,
                          modules=sem.modules, boundary_modules=sem.boundary_modules, handoff=sem.handoff,
                          topology=s["topology"], diagnostics=[], stats=s["index"].stats, counters=s["counters"])
        s["findings"] = run_rules(result, settings)

    return [
        ("symbols", lambda s: s.__setitem__("symbols", symbols_of(s["index"]))),
        ("entries", entries),
        ("graphs", graphs),
        ("semantics", lambda s: s.__setitem__("sem", tag(s["index"], s["graphs"], settings))),
        ("topology", topology),
        ("counters", lambda s: s.__setitem__("counters", logged_counters(s["index"]))),
        ("rules", rules),
    ]


def measure(repo: Path, cache_dir: Path, skip_parse: bool, profile: str | None) -> list[tuple[str, float, float, float]]:
    """Rows of (stage, wall seconds, CPU seconds, peak RSS MiB), printed as a table."""
    from gyrelint.index import build_index

    settings = Settings().with_overrides(cache_dir=cache_dir)
    cold = settings.with_overrides(use_cache=False)  # the stages after the index never read a cache
    files = discover(repo, settings)
    n = len(files.python)
    print(f"{repo}: {n} Python files, {count_lines(repo, files.python):,} lines, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}", flush=True)
    rows: list[tuple[str, float, float, float]] = []
    import libcst  # noqa: F401 - imported before the clock starts, as the index's workers inherit it

    cpu = cpu_seconds()
    parse = float("nan") if skip_parse else bare_parse(repo, files.python)
    rows.append(("bare parse (1 process)", parse, cpu_seconds() - cpu, peak_mib()))
    reset_peak()
    start, cpu = time.perf_counter(), cpu_seconds()
    index = build_index(repo, settings, None, files=files)
    rows.append((f"index ({index.stats.parsed} parsed, {index.stats.cached} cached)", time.perf_counter() - start,
                 cpu_seconds() - cpu, peak_mib()))
    state: dict = {"index": index}
    prof = cProfile.Profile() if profile else None
    for name, run in stages(repo, cold):
        reset_peak()
        start, cpu = time.perf_counter(), cpu_seconds()
        if prof is not None:
            prof.enable()
        run(state)
        if prof is not None:
            prof.disable()
        rows.append((name, time.perf_counter() - start, cpu_seconds() - cpu, peak_mib()))
        print(f"  {name}: {rows[-1][1]:.2f} s", file=sys.stderr, flush=True)
    if prof is not None:
        prof.dump_stats(profile)
    post = rows[2:]
    rows.append(("after the parse, total", sum(r[1] for r in post), sum(r[2] for r in post), max(r[3] for r in post)))
    rows.append(("index + after (cold analyze)", rows[1][1] + rows[-1][1], rows[1][2] + rows[-1][2],
                 max(rows[1][3], rows[-1][3])))
    parse_cpu = float("nan") if skip_parse else rows[0][2]
    print(f"{'stage':<34}{'seconds':>9}{'x parse':>9}{'CPU s':>9}{'x parse':>9}{'peak RSS MiB':>14}")
    for name, sec, cpu_s, mib in rows:
        print(f"{name:<34}{sec:>9.2f}{sec / parse:>9.2f}{cpu_s:>9.2f}{cpu_s / parse_cpu:>9.2f}"
              f"{mib:>14.0f}")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, action="append", help="repeatable; default: OpenRLHF, verl, transformers")
    ap.add_argument("--skip-parse", action="store_true", help="no bare-parse baseline (ratios print nan)")
    ap.add_argument("--profile", help="cProfile output of the post-parse stages (last repo only)")
    ap.add_argument("--cache-dir", type=Path, help="index cache to reuse (default: a fresh temporary folder)")
    args = ap.parse_args()
    repos = args.repo or DEFAULT_REPOS
    for repo in repos:
        if not repo.is_dir():
            print(f"{repo}: not a directory; run scripts/fetch_corpora.sh or pass --repo", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="gyrelint-scale-") as tmp:
        for i, repo in enumerate(repos):
            cache = args.cache_dir or Path(tmp) / repo.name
            measure(repo, cache, args.skip_parse, args.profile if i == len(repos) - 1 else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Time the map and the HTML report on real repos, against a baseline measured in the same run.

Usage: python bench/map_render.py [REPO ...] [--demo] [--out DIR]
Default repos: the corpora under ~/.cache/gyrelint-corpora/src (scripts/fetch_corpora.sh) and the demo.
For each repo: analysis time (warm cache, not the map's cost), build_map + to_dot time, `dot -Tsvg`
time and size of the default map (<= 60 nodes), the HTML report's write time and size; and the
baseline: `dot -Tsvg` of the same map with no collapsing (every tagged function one box), stopped
after --baseline-timeout seconds; and, when Debian's chromium and playwright are installed, the
time until the report page is ready in headless Chromium (DOMContentLoaded, scripts run).
Prints a Markdown table. Analysis time is the pipeline's (warm cache when run before), not the map's.

With --widths: the page size GraphViz lays each map out to (``dot -Tjson`` bounding box, pt) for
the default map, ``--level module`` and ``--focus`` on a sampling function (the reached one with
the most evidence), next to the row estimate the test asserts (render.dot.estimated_width) and
the bound (render.dot.MAX_WIDTH, issue 19 item 4).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gyrelint.api import analyze, demo_root
from gyrelint.model import Side
from gyrelint.render.dot import MAX_WIDTH, build_map, dot_program, estimated_width, to_dot
from gyrelint.render.html import write_report

CORPORA = Path.home() / ".cache" / "gyrelint-corpora" / "src"


def _dot(text: str, timeout: float) -> tuple[float | None, int]:
    start = time.perf_counter()
    try:
        proc = subprocess.run([dot_program() or "dot", "-Tsvg"], input=text.encode(), capture_output=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return None, 0
    return time.perf_counter() - start, len(proc.stdout)


def _load(page: Path) -> str:
    """Seconds until the report is ready in headless Chromium, or '-' without a browser."""
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "-"
    if not chromium:
        return "-"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=flags)
        tab = browser.new_page(viewport={"width": 1440, "height": 900})
        tab.goto(page.as_uri())
        tab.wait_for_selector("body[data-ready='1']")
        ms = tab.evaluate("performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")
        browser.close()
    return f"{ms / 1000:.2f}"


def _size(text: str) -> tuple[float, float]:
    """Width and height (pt) of GraphViz's layout of ``text``."""
    proc = subprocess.run([dot_program() or "dot", "-Tjson"], input=text.encode(), capture_output=True,
                          timeout=600, check=True)
    x0, y0, x1, y1 = (float(v) for v in json.loads(proc.stdout)["bb"].split(","))
    return x1 - x0, y1 - y0


def focus_name(a) -> str | None:  # type: ignore[no-untyped-def]
    """The sampling function a user would ask about first: reached, most evidence, then by name."""
    fns = [f for f in a.functions.values() if f.side == Side.SAMPLING]
    best = min(fns, key=lambda f: (not f.reached, -len(f.evidence), f.qualname), default=None)
    return best.qualname if best else None


def widths(repos: list[Path], out: Path) -> None:
    print(f"| repo | tagged functions | default: boxes, width x height pt | --level module | --focus (sampling) "
          f"| widest row estimate pt | <= {MAX_WIDTH:.0f} pt |")
    print("|---|---|---|---|---|---|---|")
    for repo in repos:
        a = analyze(repo)
        tagged = sum(1 for f in a.functions.values() if f.side.value != "neutral" or f.handoff_kind)
        cells, worst, est = [], 0.0, 0.0
        focus = focus_name(a)
        for name, kw in (("default", {}), ("module", {"level": "module"}), ("focus", {"focus": focus})):
            if name == "focus" and focus is None:
                cells.append("-")
                continue
            g = build_map(a, **kw)
            text = to_dot(g)
            (out / f"{repo.name}-{name}.dot").write_text(text)
            w, h = _size(text)
            worst, est = max(worst, w), max(est, estimated_width(g))
            cells.append(f"{len(g.nodes)}, {w:.0f} x {h:.0f}")
        print(f"| {repo.name} | {tagged} | {' | '.join(cells)} | {est:.0f} | {'yes' if worst <= MAX_WIDTH else 'NO'} |",
              flush=True)
    print(f"\nfocus: the sampling function with the most evidence; maps in {out}", file=sys.stderr)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("repos", nargs="*")
    ap.add_argument("--baseline-timeout", type=float, default=120.0)
    ap.add_argument("--out", default=None, help="keep the maps and reports here")
    ap.add_argument("--widths", action="store_true", help="only the page sizes of the three kinds of map")
    args = ap.parse_args()
    repos = [Path(r) for r in args.repos] or [demo_root()] + sorted(p for p in CORPORA.glob("*") if p.is_dir())
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="gyrelint-map-bench-"))
    out.mkdir(parents=True, exist_ok=True)
    if args.widths:
        widths(repos, out)
        return 0
    print("| repo | functions (tagged) | analysis s | map nodes (collapsed) | build+DOT s | dot -Tsvg s | SVG KB "
          "| HTML s | HTML KB | page ready in Chromium s | baseline: all tagged, nodes | baseline dot s | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for repo in repos:
        name = repo.name
        t0 = time.perf_counter()
        a = analyze(repo)
        t_an = time.perf_counter() - t0
        tagged = sum(1 for f in a.functions.values() if f.side.value != "neutral" or f.handoff_kind)
        t0 = time.perf_counter()
        g = build_map(a)
        text = to_dot(g)
        t_build = time.perf_counter() - t0
        t_dot, svg_size = _dot(text, 600)
        (out / f"{name}.dot").write_text(text)
        t0 = time.perf_counter()
        page = write_report(a, out / f"{name}-report")
        t_html = time.perf_counter() - t0
        full = build_map(a, max_nodes=10**6)
        t_full, _ = _dot(to_dot(full), args.baseline_timeout)
        base = f"{t_full:.2f}" if t_full is not None else f"> {args.baseline_timeout:.0f} (stopped)"
        ratio = f"{t_full / max(t_dot or 1e-9, 1e-3):.0f}x" if t_full is not None and t_dot else \
            f"> {args.baseline_timeout / max(t_dot or 1e-9, 1e-3):.0f}x"
        print(f"| {name} | {len(a.functions)} ({tagged}) | {t_an:.1f} | {len(g.nodes)} ({sum(g.collapsed.values())}) "
              f"| {t_build:.2f} | {t_dot:.2f} | {svg_size // 1024} | {t_html:.2f} | {page.stat().st_size // 1024} | {_load(page)} "
              f"| {len(full.nodes)} | {base} | {ratio} |", flush=True)
    print(f"\nmaps and reports in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

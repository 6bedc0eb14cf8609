"""Time the map and the HTML report on real repos, against a baseline measured in the same run.

Usage: python bench/map_render.py [REPO ...] [--demo] [--out DIR]
Default repos: the corpora under ~/.cache/gyrelint-corpora/src (scripts/fetch_corpora.sh) and the demo.
For each repo: analysis time (warm cache, not the map's cost), build_map + to_dot time, `dot -Tsvg`
time and size of the default map (<= 60 nodes), the HTML report's write time and size; and the
baseline: `dot -Tsvg` of the same map with no collapsing (every tagged function one box), stopped
after --baseline-timeout seconds; and, when Debian's chromium and playwright are installed, the
time until the report page is ready in headless Chromium (DOMContentLoaded, scripts run).
Prints a Markdown table. Analysis time is the pipeline's (warm cache when run before), not the map's.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gyrelint.api import analyze, demo_root
from gyrelint.render.dot import build_map, dot_program, to_dot
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


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("repos", nargs="*")
    ap.add_argument("--baseline-timeout", type=float, default=120.0)
    ap.add_argument("--out", default=None, help="keep the maps and reports here")
    args = ap.parse_args()
    repos = [Path(r) for r in args.repos] or [demo_root()] + sorted(p for p in CORPORA.glob("*") if p.is_dir())
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="gyrelint-map-bench-"))
    out.mkdir(parents=True, exist_ok=True)
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

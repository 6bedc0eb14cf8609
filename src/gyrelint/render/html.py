"""The HTML report: one self-contained page to browse an analysis, offline, from ``file://``.

Everything a repo supplies (names, strings, config values, source lines) reaches the page
either through ``html.escape`` in server-rendered markup or as JSON inside a
``<script type="application/json">`` block that the page script only ever puts into the DOM
with ``textContent``; so a repo's text can never become markup. CSS and JS are read from
``render/assets`` and inlined: no network, no CDN.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..escape import html as esc
from ..escape import visible
from ..model import Side
from ..safeio import read_input, write_output
from .dot import DEFAULT_MAX_NODES, GraphvizMissing, MapGraph, build_map, map_side, svg_for
from .paths import REPO_RELATIVE, PathContext
from .text import API_ROOTS, from_public_api

if TYPE_CHECKING:
    from ..analysis import Analysis

ASSETS = Path(__file__).parent / "assets"
SNIPPET_CONTEXT = 3  # lines either side of an evidence line
_MAX_EVIDENCE_SNIPPETS = 6  # per function
_MAX_SNIPPET_LINES = 60000  # whole report
_MAX_NEIGHBOURS = 25
_MAX_FILE_BYTES = 2_000_000
_OPEN_ROWS = 400  # longer tables start folded (one click opens them) so big repos load fast
SIDES = ("sampling", "handoff", "training", "driver", "neutral")


def write_report(analysis: Analysis, out_dir: str | Path, max_nodes: int = DEFAULT_MAX_NODES,
                 paths: PathContext = REPO_RELATIVE) -> Path:
    """Write ``index.html`` into ``out_dir`` (created if missing) and return its path.

    A folder that is a symlink is refused: inside an analyzed repo it may have been planted to
    point at a folder whose ``index.html`` someone serves or trusts."""
    out = Path(out_dir)
    if out.is_symlink():
        raise IsADirectoryError(40, "is a symlink; pass the real folder", str(out))
    out.mkdir(parents=True, exist_ok=True)
    page = out / "index.html"
    return write_output(page, render_html(analysis, max_nodes=max_nodes, paths=paths))


def render_html(a: Analysis, max_nodes: int = DEFAULT_MAX_NODES, paths: PathContext = REPO_RELATIVE) -> str:
    graph = build_map(a, max_nodes=max_nodes)
    try:
        svg, map_note = _clean_svg(svg_for(graph, paths)), ""
    except GraphvizMissing as exc:
        svg, map_note = "", str(exc)
    except (RuntimeError, OSError) as exc:
        svg, map_note = "", f"the map could not be drawn: {exc}"
    data = {**_data(a, graph), "prefix": paths.prefix}  # the page shows files as from the cwd too
    css = (ASSETS / "report.css").read_text(encoding="utf-8")
    js = (ASSETS / "report.js").read_text(encoding="utf-8")
    title = f"gyrelint report: {a.given_root}"
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:\">",
        f"<title>{esc(title)}</title>",
        f"<style>{css}</style></head><body>",
        _header(a),
        _summary(a),
        _filters(a, data),
        '<main id="explore">',
        '<section id="map-wrap" aria-label="map">',
        '<div class="map-tools"><button type="button" data-zoom="in" title="zoom in">+</button>'
        '<button type="button" data-zoom="out" title="zoom out">−</button>'
        '<button type="button" data-zoom="fit" title="fit to width">fit</button>'
        f'<span class="map-caption">{esc(graph.title)}</span></div>',
        f'<div id="map">{svg}</div>' if svg else _map_fallback(graph, map_note),
        "</section>",
        '<aside id="panel" aria-live="polite"><div class="panel-empty">Click a box of the map, or a function '
        "in the tables, to see its evidence: signals, callers and callees with their sides, and the source "
        "around each evidence line.</div></aside>",
        "</main>",
        _tables(a, paths),
        f'<footer>gyrelint {esc(__version__)} · schema gyrelint/1 · {a.stats.files} files, '
        f"{len(a.functions)} functions, analysis {a.stats.seconds:.2f}s</footer>",
        '<script type="application/json" id="gyre-data">' + _json_for_script(data) + "</script>",
        f"<script>{js}</script>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _json_for_script(data: Any) -> str:
    """JSON that cannot close its ``<script>`` element nor open a comment, whatever the strings hold.

    Strings get the same ``visible`` treatment as the markup (``esc``), so a file name read from
    a ``data-file`` attribute is the key of its snippets here, and the page script never puts
    a bidi override or a lone surrogate into the DOM."""
    text = json.dumps(_visible_tree(data), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _visible_tree(value: Any) -> Any:
    if isinstance(value, str):
        return visible(value, keep="\t")
    if isinstance(value, dict):
        return {_visible_tree(k): _visible_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_visible_tree(v) for v in value]
    return value


def _clean_svg(svg: str) -> str:
    """The ``dot`` SVG without comments, ready to inline (dot already XML-escapes every label)."""
    out = []
    i = 0
    while True:
        j = svg.find("<!--", i)
        if j < 0:
            out.append(svg[i:])
            break
        out.append(svg[i:j])
        k = svg.find("-->", j)
        if k < 0:
            break
        i = k + 3
    return "".join(out).strip()


# ---------------------------------------------------------------------------------------------
# Sections


def _header(a: Analysis) -> str:
    return (f'<header><h1>gyrelint <span class="root">{esc(a.given_root)}</span></h1>'
            '<p class="sub">Where the sampling chain and the training chain are, the handoff both ways, '
            "one process or many, and whether the loop is online.</p></header>")


def _short(q: str) -> str:
    parts = q.split(".")
    return ".".join(parts[-2:]) if len(parts) > 2 else q


def _summary(a: Analysis) -> str:
    h, t = a.handoff, a.topology
    counts = Counter(map_side(f.side, f.handoff_kind) for f in a.functions.values())
    kinds = Counter(f.handoff_kind.value for f in a.functions.values() if f.handoff_kind)
    sev = Counter(f.severity.value for f in a.findings)
    path = " → ".join(_short(q) for q in h.weight_sync_path)
    online = (f'<div class="card {"ok" if h.online else "bad"}" id="card-online"><h2>Loop online</h2>'
              f'<p class="big">{"yes" if h.online else "no"}</p>'
              + (f'<p class="path" title="{esc(" → ".join(h.weight_sync_path))}">weight-sync path: {esc(path)}</p>'
                 if path else '<p class="path">no path from the parameter update back into the sampler was found</p>')
              + "</div>")
    procs = (f'<div class="card" id="card-topology"><h2>Processes</h2><p class="big">{esc(t.verdict)}'
             f'{" (colocated)" if t.colocated else ""}</p>'
             f"<p>trajectories: <b>{esc(t.trajectory_transport)}</b> · weights: <b>{esc(t.weight_transport)}</b></p>"
             + "".join(f'<p class="reason">{esc(r)}</p>' for r in t.reasons[:2]) + "</div>")
    side_rows = "".join(
        f'<li><span class="sw side-{s}"></span>{s} <b>{counts.get(s, 0)}</b>'
        + (f' <small>({kinds.get("trajectory", 0)} trajectory, {kinds.get("weight_sync", 0)} weight sync)</small>'
           if s == "handoff" else "") + "</li>"
        for s in SIDES)
    roots = f'<p class="reason" id="reach-roots">{esc(API_ROOTS)}</p>' if from_public_api(a) else ""
    sides = f'<div class="card" id="card-sides"><h2>Functions per side</h2><ul class="counts">{side_rows}</ul>{roots}</div>'
    sev_rows = "".join(f'<li><span class="sev sev-{s}">{s}</span> <b>{sev.get(s, 0)}</b></li>'
                       for s in ("error", "warning", "info"))
    findings = f'<div class="card" id="card-findings"><h2>Findings</h2><ul class="counts">{sev_rows}</ul></div>'
    return f'<section id="summary" class="strip">{online}{procs}{sides}{findings}</section>'


def _filters(a: Analysis, data: dict[str, Any]) -> str:
    boxes = "".join(
        f'<label class="chip side-{s}"><input type="checkbox" name="side" value="{s}" checked> {s}</label>'
        for s in ("entry", *SIDES))
    rules = sorted({f.rule for f in a.findings})
    options = '<option value="">all rules</option>' + "".join(
        f'<option value="{esc(r)}">{esc(r)}</option>' for r in rules)
    return ('<section id="filters" aria-label="filters"><span class="flabel">side</span>' + boxes
            + '<span class="flabel">module</span><input type="search" id="f-module" placeholder="filter by module or name…">'
            + f'<span class="flabel">rule</span><select id="f-rule">{options}</select>'
            + '<span id="f-status"></span></section>')


def _map_fallback(g: MapGraph, note: str) -> str:
    chips = []
    for side in ("entry", "driver", "sampling", "handoff", "training"):
        nodes = [n for n in g.nodes if n.side == side]
        if nodes:
            chips.append(f'<div class="fb-row"><span class="flabel">{side}</span>' + "".join(
                f'<button type="button" class="gnode side-{side} fb" id="{n.id}">{esc(n.label)}</button>'
                for n in nodes) + "</div>")
    return (f'<div id="map" class="fallback"><p class="note">{esc(note)}. The boxes of the map are listed '
            "below instead.</p>" + "".join(chips) + "</div>")


def _tables(a: Analysis, paths: PathContext) -> str:
    return ('<section id="tables">'
            + _functions_table(a, paths) + _findings_table(a, paths) + _contract_table(a, paths)
            + _config_table(a, paths) + _boundary_table(a, paths) + _entries_table(a, paths) + _diagnostics_table(a, paths)
            + "</section>")


def _table(tid: str, title: str, head: list[str], rows: list[str], note: str = "", empty: str = "") -> str:
    """A folding table; ``note`` is shown above its rows, ``empty`` (or the note) only when it has none."""
    if not rows:
        return (f'<details class="tbl" id="{tid}"><summary><h2>{esc(title)} <small>(none)</small></h2></summary>'
                f'<p class="note">{esc(empty or note) or "Nothing found."}</p></details>')
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join(rows)
    if len(rows) <= _OPEN_ROWS:
        opened, lazy, tbody = " open", "", body
    else:  # long tables: the rows wait, unparsed, in a text block until the table is opened
        opened, tbody = "", ""
        parked = body.replace("</", "<\\/")  # undone by the page script; repo text is escaped already
        lazy = f'<script type="text/x-gyrelint-rows" id="rows-{tid}">{parked}</script>'
    return (f'<details class="tbl" id="{tid}"{opened}><summary><h2>{esc(title)} <small>({len(rows)})</small></h2></summary>'
            + (f'<p class="note">{esc(note)}</p>' if note else "")
            + f'<div class="scroll"><table><thead><tr>{th}</tr></thead><tbody>{tbody}</tbody></table></div>{lazy}</details>')


def _srcref(file: str, line: int, paths: PathContext) -> str:
    """A link that opens the snippet panel; ``data-file`` stays the repo-relative key of the
    snippets, the text is the file as it opens from the cwd."""
    return f'<a class="src" href="#" data-file="{esc(file)}" data-line="{line}">{esc(paths.loc(file, line))}</a>'


def _functions_table(a: Analysis, paths: PathContext) -> str:
    order = {s: i for i, s in enumerate(SIDES)}
    fns = [f for f in a.functions.values() if f.side != Side.NEUTRAL or f.handoff_kind]
    fns.sort(key=lambda f: (order.get(map_side(f.side, f.handoff_kind), 9), not f.reached, f.qualname))
    rows = []
    for f in fns:
        side = map_side(f.side, f.handoff_kind)
        ev = "".join(f'<li><code>{esc(e.signal)}</code> {_srcref(e.file, e.line, paths)}'
                     + (f' <small>via {esc(e.via)}</small>' if e.via != "own" else "") + "</li>" for e in f.evidence[:8])
        if len(f.evidence) > 8:
            ev += f"<li><small>… {len(f.evidence) - 8} more</small></li>"
        kind = f' <small class="hk">{esc(f.handoff_kind.value)}</small>' if f.handoff_kind else ""
        rows.append(f'<tr data-side="{side}" data-mod="{esc(f.qualname)}" data-file="{esc(f.file)}">'
                    f'<td><span class="sw side-{side}"></span>{side}{kind}</td>'
                    f'<td><a href="#" class="fn" data-q="{esc(f.qualname)}">{esc(f.qualname)}</a></td>'
                    f"<td>{_srcref(f.file, f.line, paths)}</td><td><ul class=\"ev\">{ev}</ul></td>"
                    f'<td>{"yes" if f.reached else "no"}</td></tr>')
    neutral = sum(1 for f in a.functions.values() if f.side == Side.NEUTRAL and not f.handoff_kind)
    roots = f" Reached: {API_ROOTS}." if from_public_api(a) else ""
    return _table("t-functions", "Functions by side", ["side", "function", "defined at", "evidence", "reached"], rows,
                  f"{neutral} neutral functions are not listed (the JSON report lists every function).{roots}")


def _findings_table(a: Analysis, paths: PathContext) -> str:
    rank = {"error": 0, "warning": 1, "info": 2}
    rows = []
    for f in sorted(a.findings, key=lambda f: (rank.get(f.severity.value, 3), f.rule, f.file, f.line)):
        rows.append(f'<tr data-rule="{esc(f.rule)}" data-mod="{esc(f.file)}" data-file="{esc(f.file)}" data-side="">'
                    f'<td><span class="sev sev-{esc(f.severity.value)}">{esc(f.severity.value)}</span></td>'
                    f"<td><code>{esc(f.rule)}</code></td><td>{esc(f.message)}</td><td>{_srcref(f.file, f.line, paths)}</td>"
                    f'<td class="fix">{esc(f.fix)}</td></tr>')
    return _table("t-findings", "Findings", ["severity", "rule", "message", "where", "what to do"], rows,
                  empty="No rule fired.")


def _contract_table(a: Analysis, paths: PathContext) -> str:
    fc = a.handoff.fields
    names = sorted(set(fc.produced) | set(fc.consumed))
    rows = []
    for name in names:
        prod, cons = fc.produced.get(name, []), fc.consumed.get(name, [])
        status = "ok" if prod and cons else ("missing" if cons else "unused")
        where = lambda uses: "<br>".join(f"{_srcref(u.file, u.line, paths)} <small>{esc(u.function)}</small>"  # noqa: E731
                                         for u in uses[:5]) + (f"<br><small>… {len(uses) - 5} more</small>" if len(uses) > 5 else "")
        rows.append(f'<tr data-mod="{esc(name)}" data-side="handoff" class="st-{status}"><td><code>{esc(name)}</code></td>'
                    f'<td><span class="status st-{status}">{status}</span></td><td>{where(prod)}</td><td>{where(cons)}</td></tr>')
    return _table("t-contract", "Trajectory field contract (produced by the sampler / consumed by the trainer)",
                  ["field", "status", "produced at", "consumed at"], rows,
                  "missing = read by the training side, written by no sampling-side code; unused = written, never read.")


def _config_table(a: Analysis, paths: PathContext) -> str:
    order = {"process": 0, "port": 1, "comm": 2}
    rows = []
    for k in sorted(a.topology.config_keys, key=lambda k: (order.get(k.cls, 3), k.key, k.file, k.line)):
        rows.append(f'<tr data-mod="{esc(k.key)}" data-file="{esc(k.file)}" data-side=""><td>{esc(k.cls)}</td>'
                    f"<td><code>{esc(k.key)}</code></td><td><code>{esc(k.value if k.value is not None else '')}</code></td>"
                    f"<td>{_srcref(k.file, k.line, paths)}</td><td>{esc(k.reason)}</td></tr>")
    ev_rows = [f'<tr data-mod="{esc(c.signal)}" data-file="{esc(c.file)}" data-side=""><td>code</td>'
               f"<td><code>{esc(c.signal)}</code></td><td>{esc(c.detail)}</td><td>{_srcref(c.file, c.line, paths)}</td><td></td></tr>"
               for c in sorted(a.topology.code_evidence, key=lambda c: (c.signal, c.file, c.line))]
    return _table("t-config", "Topology: config keys by class, and code evidence", ["class", "key / signal", "value",
                  "where", "why"], rows + ev_rows, empty="No process, port or transport settings found.")


def _boundary_table(a: Analysis, paths: PathContext) -> str:
    sides = {m.module: m.side.value for m in a.modules}
    files = {s.module: s.path for s in a.index.summaries.values()} if a.index is not None else {}
    rows = [f'<tr data-mod="{esc(m)}" data-side="handoff"><td><code>{esc(m)}</code></td><td>{esc(sides.get(m, ""))}</td>'
            f"<td>{_srcref(files.get(m, ''), 0, paths) if files.get(m) else ''}</td></tr>" for m in a.boundary_modules]
    return _table("t-boundary", "Boundary modules (used by both chains)", ["module", "side", "file"], rows)


def _entries_table(a: Analysis, paths: PathContext) -> str:
    rows = [f'<tr data-mod="{esc(e.module or "")}" data-side="entry"><td>{esc(e.found_by)}</td><td><code>{esc(e.module or "")}</code></td>'
            f"<td><code>{esc(e.command)}</code></td><td>{_srcref(e.source or e.file or '', e.line, paths)}</td></tr>"
            for e in a.entry_points]
    return _table("t-entries", "Entry points", ["found by", "module", "command", "where"], rows)


def _diagnostics_table(a: Analysis, paths: PathContext) -> str:
    rows = [f'<tr data-mod="{esc(d.file)}" data-side=""><td>{esc(d.kind)}</td><td>{_srcref(d.file, d.line, paths)}</td>'
            f"<td>{esc(d.message)}</td></tr>" for d in a.diagnostics[:500]]
    return _table("t-diagnostics", "Input diagnostics", ["kind", "where", "message"], rows)


# ---------------------------------------------------------------------------------------------
# Data for the page script: map nodes, function details, source snippets


def _data(a: Analysis, g: MapGraph) -> dict[str, Any]:
    calls = a.graphs.calls
    side_of = {q: map_side(f.side, f.handoff_kind) for q, f in a.functions.items()}
    # which rules fire inside which function (by file and line range)
    ranges: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for q, info in a.graphs.functions.items():
        ranges[info.file].append((info.definition.line, info.definition.end_line, q))
    rules_of: dict[str, set[str]] = defaultdict(set)
    for f in a.findings:
        inside = [(s, e, q) for s, e, q in ranges.get(f.file, []) if s <= f.line <= e]
        if inside:
            rules_of[max(inside)[2]].add(f.rule)
    wanted: set[str] = {q for q, s in side_of.items() if s != "neutral"}
    for n in g.nodes:
        wanted |= {m for m in n.members if m in a.functions}
    wanted |= set(rules_of)
    functions: dict[str, Any] = {}
    need: dict[str, set[int]] = defaultdict(set)
    for q in sorted(wanted):
        f = a.functions[q]

        def neighbours(it) -> list[list[str]]:
            out = sorted({n for n in it if n in a.functions})
            return [[n, side_of.get(n, "neutral")] for n in out[:_MAX_NEIGHBOURS]] + (
                [[f"… {len(out) - _MAX_NEIGHBOURS} more", ""]] if len(out) > _MAX_NEIGHBOURS else [])

        callers = neighbours(calls.predecessors(q)) if q in calls else []
        callees = neighbours(calls.successors(q)) if q in calls else []
        functions[q] = {"file": f.file, "line": f.line, "side": side_of[q],
                        "hk": f.handoff_kind.value if f.handoff_kind else None, "reached": f.reached,
                        "ev": [[e.signal, e.file, e.line, e.via] for e in f.evidence],
                        "callers": callers, "callees": callees, "rules": sorted(rules_of.get(q, ()))}
        need[f.file].add(f.line)
        for e in f.evidence[:_MAX_EVIDENCE_SNIPPETS]:
            need[e.file].add(e.line)
    for fd in a.findings:
        need[fd.file].add(fd.line)
    for k in a.topology.config_keys:
        need[k.file].add(k.line)
    for c in a.topology.code_evidence:
        need[c.file].add(c.line)
    for uses in (*a.handoff.fields.produced.values(), *a.handoff.fields.consumed.values()):
        for u in uses[:5]:
            need[u.file].add(u.line)
    nodes = {}
    for n in g.nodes:
        rules = sorted({r for m in n.members for r in rules_of.get(m, ())})
        nodes[n.id] = {"label": n.label, "side": n.side, "kind": n.kind, "hk": n.handoff_kind,
                       "members": n.members[:200], "more": max(0, len(n.members) - 200), "file": n.file,
                       "line": n.line, "ev": [[e.signal, e.file, e.line, e.via] for e in n.evidence[:20]],
                       "rules": rules}
    return {"nodes": nodes, "functions": functions, "snippets": _snippets(a, need),
            "edges": [[e.src, e.dst, e.kind] for e in g.edges],
            "unreached": "not reached from the public API" if from_public_api(a) else "not reached from an entry point"}


def _snippets(a: Analysis, need: dict[str, set[int]]) -> dict[str, dict[str, str]]:
    """Source lines around every evidence line, read now from the analyzed tree (never outside it)."""
    root = a.root.resolve()
    out: dict[str, dict[str, str]] = {}
    budget = _MAX_SNIPPET_LINES
    for rel in sorted(need):
        if not rel or budget <= 0:
            continue
        try:  # a regular file inside the root only: no FIFO, no symlink out of the repo
            data = read_input(root / rel, _MAX_FILE_BYTES, root=root)
        except (OSError, ValueError):
            continue
        lines = data.decode("utf-8", errors="replace").splitlines()
        keep: dict[str, str] = {}
        for ln in sorted(need[rel]):
            lo, hi = max(1, ln - SNIPPET_CONTEXT), min(len(lines), max(ln, 1) + SNIPPET_CONTEXT)
            for i in range(lo, hi + 1):
                keep.setdefault(str(i), lines[i - 1][:400])
        budget -= len(keep)
        out[rel] = keep
    return out

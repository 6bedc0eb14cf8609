"""`gyrelint topology`: one process or many, the transports, and the config keys that say so."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

import click

from ..escape import term, term_block
from ..model import Topology
from ..render.json_report import SCHEMA, to_report
from ..render.paths import REPO_RELATIVE, PathContext
from .common import analysis_options, input_errors, path_context, run_analysis

_CLASSES = ("process", "port", "comm")


@click.command()
@click.argument("path", required=False, type=click.Path())
@click.option("--demo", is_flag=True, help="Analyze the online-RL example repo bundled with gyrelint.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--class", "classes", type=click.Choice(_CLASSES), multiple=True,
              help="Only list keys of this class in the key table (repeatable).")
@analysis_options
@input_errors
def command(path: str | None, demo: bool, fmt: str, classes: tuple[str, ...], jobs: int | None, no_cache: bool,
            entries: tuple[str, ...]) -> None:
    """Do the sampling and training chains of the repository at PATH run in one process or
    many? Prints the verdict with its reasons ranked, the trajectory and weight transports,
    the link checks, the code evidence and the config keys by class (file:line and value)."""
    analysis = run_analysis(path, demo=demo, jobs=jobs, no_cache=no_cache, entries=entries, run_rules=False)
    topo = analysis.topology
    if classes:
        topo = replace(topo, config_keys=[k for k in topo.config_keys if k.cls in classes])
        analysis.topology = topo
    if fmt == "json":
        report = to_report(analysis)
        out = {"schema": SCHEMA, "root": report["root"], "topology": report["topology"],
               "diagnostics": [d for d in report["diagnostics"] if d["kind"] in ("config", "parse", "decode", "size")]}
        click.echo(json.dumps(out, indent=2))
        return
    paths = path_context(analysis.root)
    click.echo(render_topology(topo, analysis.given_root, paths))
    for d in analysis.diagnostics:
        if d.kind in ("config",) or (d.kind in ("parse", "decode", "size") and not d.file.endswith(".py")):
            click.echo(f"gyrelint: {term(paths.diagnostic(d))}", err=True)


def render_topology(t: Topology, root: str = "", paths: PathContext = REPO_RELATIVE) -> str:
    """The topology as plain text: verdict, reasons, transports, link checks, evidence, keys;
    files shown through ``paths``."""
    lines: list[str] = []
    head = f"topology of {term(root)}: " if root else "topology: "
    lines.append(head + term(t.verdict) + (" (colocated: sampler and trainer share devices)" if t.colocated else ""))
    lines.append(f"  trajectory transport: {term(t.trajectory_transport)}")
    lines.append(f"  weight transport:     {term(t.weight_transport)}")
    lines.append("")
    lines.append("reasons (strongest first):")
    for i, r in enumerate(t.reasons, 1):
        lines.append(f"  {i:2}. {term(r)}")
    if not t.reasons:
        lines.append("  (none)")
    lines.append("")
    if t.link_checks:
        lines.append(f"link checks ({len(t.link_checks)}):")
        for c in t.link_checks[:12]:
            lines.append(f"  {term(c.signal):20} {term(paths.loc(c.file, c.line))}  {term(c.detail)}")
        if len(t.link_checks) > 12:
            lines.append(f"  ... and {len(t.link_checks) - 12} more")
    else:
        lines.append("link checks: none (no health check, ready wait or logged connection retry found)")
    lines.append("")
    counts = Counter(e.signal for e in t.code_evidence)
    lines.append("code evidence:")
    for signal, n in counts.most_common():
        first = next(e for e in t.code_evidence if e.signal == signal)
        lines.append(f"  {term(signal):20} {n:5}  first at {term(paths.loc(first.file, first.line))}  {term(first.detail)}")
    if not counts:
        lines.append("  (none)")
    lines.append("")
    by_class = Counter(k.cls for k in t.config_keys)
    lines.append("config keys: " + ", ".join(f"{c} {by_class.get(c, 0)}" for c in _CLASSES))
    for cls in _CLASSES:
        keys = [k for k in t.config_keys if k.cls == cls]
        if not keys:
            continue
        lines.append(f"  [{cls}]")
        width = min(max(len(term(k.key)) for k in keys), 56)
        for k in keys:
            value = "-" if k.value is None else term(k.value)
            lines.append(f"    {term(k.key):{width}} = {value[:40]:16} {term(paths.loc(k.file, k.line))}  "
                         f"({term(k.reason)}; {term(k.source)})")
    return term_block("\n".join(lines))

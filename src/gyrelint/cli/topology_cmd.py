"""`gyrelint topology`: one process or many, the transports, and the config keys that decide it."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

import click

from ..escape import term, term_block
from ..model import KeyEntry, Topology
from ..render.json_report import SCHEMA, to_report
from ..render.paths import REPO_RELATIVE, PathContext, prose
from .common import analysis_options, input_errors, path_context, run_analysis

_CLASSES = ("process", "port", "comm", "layout")
_TITLES = {"process": "process: how many processes, GPUs and nodes, and how a model is split over them",
           "port": "port/address: where processes listen and connect",
           "comm": "transport: how processes hand data and weights to each other",
           "layout": "layout mode: what shares a device, what runs ahead, which engine or class a role runs"}
_SHORT = {"process": "process", "port": "port/address", "comm": "transport", "layout": "layout mode"}
_MAX_KEYS = 25  # per class in the default listing; --all lists every key
_BEST_REASONS = 3


@click.command()
@click.argument("path", required=False, type=click.Path())
@click.option("--demo", is_flag=True, help="Analyze the online-RL example repo bundled with gyrelint.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--class", "classes", type=click.Choice(_CLASSES), multiple=True,
              help="Only list keys of this class (repeatable; comm = transport, layout = layout mode).")
@click.option("--all", "show_all", is_flag=True,
              help="Also list the keys set aside by default (tests, docs, CI, containers, vendored code, interconnect "
                   "tuning env, config files nothing loads) with their reason, every key of a class, all reasons.")
@analysis_options
@input_errors
def command(path: str | None, demo: bool, fmt: str, classes: tuple[str, ...], show_all: bool, jobs: int | None,
            no_cache: bool, entries: tuple[str, ...]) -> None:
    """Do the sampling and training chains of the repository at PATH run in one process or
    many? Prints the verdict with its best evidence and the trajectory and weight transports,
    then one entry per config key that decides the layout, grouped by class: where it is
    declared, its value, why it matters, and how many other places set or read it."""
    analysis = run_analysis(path, demo=demo, jobs=jobs, no_cache=no_cache, entries=entries, run_rules=False)
    topo = analysis.topology
    if classes:
        topo = replace(topo, config_keys=[k for k in topo.config_keys if k.cls in classes],
                       keys=[k for k in topo.keys if k.cls in classes])
        analysis.topology = topo
    if fmt == "json":
        report = to_report(analysis)
        out = {"schema": SCHEMA, "root": report["root"], "topology": report["topology"],
               "diagnostics": [d for d in report["diagnostics"] if d["kind"] in ("config", "parse", "decode", "size")]}
        click.echo(json.dumps(out, indent=2))
        return
    click.echo(render_topology(topo, analysis.given_root, show_all=show_all, paths=path_context(analysis.root)))
    for d in analysis.diagnostics:
        if d.kind in ("config",) or (d.kind in ("parse", "decode", "size") and not d.file.endswith(".py")):
            click.echo(f"gyrelint: {term(d)}", err=True)


def render_topology(t: Topology, root: str = "", show_all: bool = False, paths: PathContext = REPO_RELATIVE) -> str:
    """The topology as plain text: the verdict and its best evidence, transports, then the keys by class;
    files shown through ``paths``."""
    lines: list[str] = []
    head = f"topology of {term(root)}: " if root else "topology: "
    lines.append(head + term(t.verdict) + (" (colocated: sampler and trainer share devices)" if t.colocated else ""))
    reasons = t.reasons if show_all else t.reasons[:_BEST_REASONS]
    for i, r in enumerate(reasons, 1):
        lines.append(f"  {i}. {term(prose(paths, r))}")
    if len(t.reasons) > len(reasons):
        lines.append(f"     ({len(t.reasons) - len(reasons)} more reasons: --all)")
    lines.append(f"  trajectory transport: {term(t.trajectory_transport)}")
    lines.append(f"  weight transport:     {term(t.weight_transport)}")
    lines.append("")
    lines.extend(_key_lines(t, show_all, paths))
    lines.append("")
    lines.extend(_evidence_lines(t, paths))
    return term_block("\n".join(lines))


def _key_lines(t: Topology, show_all: bool, paths: PathContext) -> list[str]:
    listed = [k for k in t.keys if not k.scope]
    hidden = [k for k in t.keys if k.scope]
    by_class = Counter(k.cls for k in listed)
    out = [f"config keys: {len(listed)} listed (" + ", ".join(f"{_SHORT[c]} {by_class.get(c, 0)}" for c in _CLASSES)
           + ")"]
    folded = t.folded.get("repeats", 0)
    scopes = {k: v for k, v in sorted(t.folded.items()) if k != "repeats"}
    note = f"  folded away: {folded} repeat{'s' if folded != 1 else ''} (other places that set or read a listed key)"
    if scopes:
        note += "; set aside: " + ", ".join(f"{v} {term(k)}" for k, v in scopes.items())
        note += "" if show_all else " (--all lists them)"
    out.append(note)
    if not t.keys:
        out.append("  (no config key decides processes, ports, transports or the layout)")
    for cls in _CLASSES:
        keys = [k for k in listed if k.cls == cls]
        if not keys:
            continue
        out.append("")
        out.append(f"[{cls}] {_TITLES[cls]}")
        shown = keys if show_all else keys[:_MAX_KEYS]
        out.extend(line for k in shown for line in _entry_lines(k, paths))
        if len(keys) > len(shown):
            out.append(f"  ... and {len(keys) - len(shown)} more {_SHORT[cls]} keys (--all)")
    if show_all and hidden:
        out.append("")
        out.append("[set aside] not listed by default; the reason is in brackets")
        out.extend(line for k in hidden for line in _entry_lines(k, paths))
    return out


def _entry_lines(k: KeyEntry, paths: PathContext) -> list[str]:
    value = "" if k.value is None else f" = {term(k.value)[:48]}"
    extra = [f"default {term(k.default)[:32]}" if k.default is not None and k.default != k.value else "",
             term(k.type)[:24] if k.type else ""]
    detail = ", ".join(x for x in extra if x)
    scope = f" [{term(k.scope)}]" if k.scope else ""
    kind = term(k.declared_as) if k.definition else f"{term(k.declared_as)}, no declaration found"
    first = f"  {term(k.name)}{value}{f' ({detail})' if detail else ''}  {term(paths.loc(k.file, k.line))} {kind}{scope}"
    why = f"      {_why_line(k.why, k.evidence)}"
    out = [first, why]
    if k.uses:
        where = ", ".join(f"{term(paths.loc(w.file, w.line))}{f' ({term(w.note)})' if w.note else ''}" for w in k.where)
        more = k.uses - len(k.where)
        out.append(f"      {k.uses} more place{'s' if k.uses != 1 else ''}: {where}{f' +{more}' if more > 0 else ''}")
    return out


def _why_line(why: str, evidence: str) -> str:
    """``why — evidence``, but once when the why line is the evidence's own first words (a key
    classed by where it is read says "read where Ray actors are created" in both)."""
    if not why or evidence.startswith(why):
        return term(evidence)
    return f"{term(why)} — {term(evidence)}" if evidence else term(why)


def _evidence_lines(t: Topology, paths: PathContext) -> list[str]:
    out: list[str] = []
    if t.link_checks:
        out.append(f"link checks ({len(t.link_checks)}):")
        for c in t.link_checks[:6]:
            out.append(f"  {term(c.signal):20} {term(paths.loc(c.file, c.line))}  {term(c.detail)}")
        if len(t.link_checks) > 6:
            out.append(f"  ... and {len(t.link_checks) - 6} more")
    else:
        out.append("link checks: none (no health check, ready wait or logged connection retry found)")
    counts = Counter(e.signal for e in t.code_evidence)
    out.append("code evidence:")
    for signal, n in counts.most_common():
        first = next(e for e in t.code_evidence if e.signal == signal)
        out.append(f"  {term(signal):20} {n:5}  first at {term(paths.loc(first.file, first.line))}  {term(first.detail)}")
    if not counts:
        out.append("  (none)")
    return out

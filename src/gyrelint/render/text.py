"""The human report of ``gyrelint analyze``."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ..model import Side

if TYPE_CHECKING:
    from ..api import Analysis

_MAX_LIST = 8


def _loc(file: str, line: int) -> str:
    return f"{file}:{line}" if line else file


def render_text(a: Analysis) -> str:
    out: list[str] = []
    w = out.append
    counts = Counter(f.side for f in a.functions.values())
    reached = Counter(f.side for f in a.functions.values() if f.reached)
    w(f"gyrelint — {a.given_root}")
    w(f"{a.stats.files} files ({a.stats.parsed} parsed, {a.stats.cached} from cache), "
      f"{a.stats.functions} functions, {len(a.entry_points)} entry points, {a.stats.seconds:.2f}s")
    w("")
    for side, title in ((Side.SAMPLING, "1. Sampling chain"), (Side.TRAINING, "2. Training chain")):
        fns = sorted((f for f in a.functions.values() if f.side == side), key=lambda f: (not f.reached, -len(f.evidence), f.qualname))
        w(f"{title}: {counts.get(side, 0)} functions ({reached.get(side, 0)} reached from an entry point)")
        for f in fns[:_MAX_LIST]:
            ev = f.evidence[0] if f.evidence else None
            why = f"  [{ev.signal} {_loc(ev.file, ev.line)}{'' if ev.via == 'own' else ' via ' + ev.via}]" if ev else ""
            w(f"   {f.qualname}  {_loc(f.file, f.line)}{why}")
        if len(fns) > _MAX_LIST:
            w(f"   … {len(fns) - _MAX_LIST} more (--format json lists all)")
    h = a.handoff
    w("3. Handoff")
    w(f"   trajectory (sampler → trainer): {', '.join(h.trajectory[:_MAX_LIST]) or 'not found'}")
    w(f"   weight sync (trainer → sampler): {', '.join(h.weight_sync[:_MAX_LIST]) or 'not found'}")
    if h.fields.produced or h.fields.consumed:
        w(f"   fields: {len(h.fields.produced)} produced, {len(h.fields.consumed)} consumed, "
          f"missing: {', '.join(h.fields.missing) or 'none'}")
    if a.boundary_modules:
        w(f"   boundary modules: {', '.join(a.boundary_modules[:_MAX_LIST])}")
    t = a.topology
    w(f"4. Processes: {t.verdict}{' (colocated)' if t.colocated else ''}")
    for r in t.reasons[:5]:
        w(f"   - {r}")
    w(f"   trajectory transport: {t.trajectory_transport}; weight transport: {t.weight_transport}")
    w(f"5. Loop online: {'yes' if h.online else 'no'}")
    if h.weight_sync_path:
        w("   path: " + " → ".join(h.weight_sync_path))
    if a.findings:
        w("")
        w(f"Findings ({len(a.findings)}):")
        for f in a.findings:
            w(f"   {_loc(f.file, f.line)}: {f.rule} [{f.severity.value}] {f.message}")
            if f.fix:
                w(f"      what to do: {f.fix}")
    if a.diagnostics:
        w("")
        w(f"Input problems ({len(a.diagnostics)}):")
        for d in a.diagnostics[:20]:
            w(f"   {d}")
        if len(a.diagnostics) > 20:
            w(f"   … {len(a.diagnostics) - 20} more")
    return "\n".join(out)

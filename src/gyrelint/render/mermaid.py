"""The map as a Mermaid flowchart, which GitHub renders inside Markdown (PR comments, READMEs).

Same ``MapGraph`` as the DOT map: one subgraph per side, the trajectory edge thick, the weight
sync dashed, both labelled with their transport.
"""

from __future__ import annotations

from ..escape import mermaid_comment, mermaid_text
from .dot import CLUSTER_STYLE, ENTRY, SIDE_STYLE, TRAJECTORY_COLOR, WEIGHT_COLOR, MapGraph

_ORDER = (ENTRY, "driver", "sampling", "handoff", "training", "neutral")


def _text(s: str) -> str:
    """A label Mermaid shows literally: every metacharacter becomes a Mermaid entity."""
    return mermaid_text(s)


def to_mermaid(g: MapGraph, fenced: bool = False) -> str:
    lines = ["flowchart TB"]
    lines.append(f"  %% {mermaid_comment(g.title)}")
    by_side: dict[str, list] = {}
    for n in g.nodes:
        by_side.setdefault(n.side, []).append(n)
    for side in _ORDER:
        nodes = by_side.get(side, [])
        if not nodes:
            continue
        indent = "  "
        if side in CLUSTER_STYLE:
            lines.append(f'  subgraph cluster_{side}["{_text(CLUSTER_STYLE[side][2])}"]')
            indent = "    "
        for n in nodes:
            label = _text(n.label)
            if n.kind == "group":
                lines.append(f'{indent}{n.id}[["{label}"]]')
            elif side == ENTRY:
                lines.append(f'{indent}{n.id}>"{label}"]')
            else:
                lines.append(f'{indent}{n.id}("{label}")')
        if side in CLUSTER_STYLE:
            lines.append("  end")
    special = 0
    link_styles = []
    for e in g.edges:
        label = f'|"{_text(e.label)}"|' if e.label else ""
        if e.kind == "trajectory":
            lines.append(f"  {e.src} ==>{label} {e.dst}")
            link_styles.append((special, TRAJECTORY_COLOR, ""))
        elif e.kind == "weight_sync":
            lines.append(f"  {e.src} -.->{label} {e.dst}")
            link_styles.append((special, WEIGHT_COLOR, ",stroke-dasharray:6 4"))
        elif e.weak:
            lines.append(f"  {e.src} -.-> {e.dst}")
        else:
            lines.append(f"  {e.src} --> {e.dst}")
        special += 1
    for side, (fill, border) in SIDE_STYLE.items():
        lines.append(f"  classDef {side} fill:{fill},stroke:{border},color:#222")
    for side in _ORDER:
        ids = [n.id for n in by_side.get(side, [])]
        if ids and side in SIDE_STYLE:
            lines.append(f"  class {','.join(ids)} {side}")
    for i, color, extra in link_styles:
        lines.append(f"  linkStyle {i} stroke:{color},stroke-width:3px{extra}")
    text = "\n".join(lines) + "\n"
    return f"```mermaid\n{text}```\n" if fenced else text

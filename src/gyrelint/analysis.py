"""The result of one run: what every stage found, in one plain record.

It lives below the stages that read it (rules, renderers, the whole-run cache) and above the
ones that fill it (index, graphs), so ``api`` composes the stages and nothing imports ``api``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .graphs.model import Graphs
from .index import Index
from .model import (
    Counters,
    Diagnostic,
    EntryPoint,
    Finding,
    FunctionReport,
    Handoff,
    ModuleReport,
    Stats,
    Topology,
)
from .settings import Settings


@dataclass(slots=True)
class Analysis:
    root: Path
    given_root: str
    settings: Settings
    index: Index
    entry_points: list[EntryPoint]
    graphs: Graphs
    functions: dict[str, FunctionReport]
    modules: list[ModuleReport]
    boundary_modules: list[str]
    handoff: Handoff
    topology: Topology
    findings: list[Finding] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    stats: Stats = field(default_factory=Stats)
    counters: Counters = field(default_factory=Counters)  # where the code logs sampled/consumed/step/version
    # where ``FunctionReport.reached`` came from: "entry-points", or "public-api" when no entry point
    # reaches the loop and the package's public functions were taken as roots (``graphs.reach.loop_reach``)
    reach_roots: str = "entry-points"

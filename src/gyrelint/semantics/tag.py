"""Placeholder wiring; the signal catalog and side propagation replace this."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..graphs import Graphs
from ..index import Index
from ..model import FunctionReport, Handoff, ModuleReport
from ..settings import Settings


@dataclass(slots=True)
class Semantics:
    functions: dict[str, FunctionReport] = field(default_factory=dict)
    modules: list[ModuleReport] = field(default_factory=list)
    boundary_modules: list[str] = field(default_factory=list)
    handoff: Handoff = field(default_factory=Handoff)


def tag(index: Index, graphs: Graphs, settings: Settings) -> Semantics:
    sem = Semantics()
    for q, info in graphs.functions.items():
        sem.functions[q] = FunctionReport(q, info.file, info.definition.line, reached=q in graphs.reached)
    return sem

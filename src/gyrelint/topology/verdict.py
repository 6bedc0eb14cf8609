"""Placeholder wiring; the topology stage replaces this."""

from __future__ import annotations

from ..graphs import Graphs
from ..index import Index
from ..model import Diagnostic, Topology
from ..settings import Settings


def analyze_topology(index: Index, graphs: Graphs, settings: Settings) -> tuple[Topology, list[Diagnostic]]:
    return Topology(), []

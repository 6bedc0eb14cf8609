"""Stage 4b: one process or many — config keys, code evidence, transports, verdict."""

from .verdict import analyze_topology

__all__ = ["analyze_topology"]

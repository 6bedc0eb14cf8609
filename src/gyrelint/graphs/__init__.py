"""Stage 3: the import graph and the call graph (networkx), with reachability."""

from .build import build_graphs
from .model import EXACT, WEAK, ClassInfo, FunctionInfo, Graphs, ResolvedCall

__all__ = ["build_graphs", "Graphs", "FunctionInfo", "ClassInfo", "ResolvedCall", "EXACT", "WEAK"]

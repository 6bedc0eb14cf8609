"""Stage 3: the import graph and the call graph (networkx), with reachability."""

from typing import TYPE_CHECKING

from .model import EXACT, WEAK, ClassInfo, FunctionInfo, Graphs, ResolvedCall

if TYPE_CHECKING:
    from .build import build_graphs


def __getattr__(name: str):  # noqa: ANN202 - PEP 562
    """``build_graphs`` (and the resolver it pulls in) is imported when first used: loading
    finished graphs from the cache needs only the model."""
    if name == "build_graphs":
        from .build import build_graphs

        return build_graphs
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["build_graphs", "Graphs", "FunctionInfo", "ClassInfo", "ResolvedCall", "EXACT", "WEAK"]

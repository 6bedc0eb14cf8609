"""What the graphs stage hands to semantics, topology, rules and renderers."""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from ..index.summary import CallSite, ClassDef, FunctionDef

EXACT = "exact"
WEAK = "weak"


@dataclass(frozen=True, slots=True)
class FunctionInfo:
    qualname: str  # module.Class.method
    module: str
    file: str
    definition: FunctionDef


@dataclass(frozen=True, slots=True)
class ClassInfo:
    qualname: str
    module: str
    file: str
    definition: ClassDef
    bases: tuple[str, ...] = ()  # resolved base qualnames (internal or external dotted)


@dataclass(frozen=True, slots=True)
class ResolvedCall:
    """One call site with what it calls.

    ``targets`` are repo qualnames (``pkg.mod.Cls.method``) or external dotted names
    (``torch.optim.AdamW.step``, ``vllm.LLM.generate``, ``<builtin>.print``); an
    external name carries the receiver's learned type where one is known, which is
    what lets semantics tell ``optimizer.step()`` from ``env.step()``.
    """

    caller: str  # function qualname, or module name for module-level code
    file: str
    site: CallSite
    targets: tuple[str, ...]
    kind: str = EXACT  # "exact" | "weak"
    via: str = "call"  # call | ctor | ray | partial | decorator | getattr | string | weak


@dataclass(slots=True)
class Graphs:
    imports: nx.DiGraph = field(default_factory=nx.DiGraph)  # module -> module
    calls: nx.DiGraph = field(default_factory=nx.DiGraph)  # qualname -> qualname; edge attrs kind, via, lines
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    resolved: dict[str, list[ResolvedCall]] = field(default_factory=dict)  # caller -> its calls
    attr_types: dict[str, dict[str, str]] = field(default_factory=dict)  # class qualname -> attr -> type
    reached: set[str] = field(default_factory=set)  # nodes reachable from the entry points
    roots: list[str] = field(default_factory=list)  # the entry nodes reachability started from

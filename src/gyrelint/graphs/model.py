"""What the graphs stage hands to semantics, topology, rules and renderers.

Node and target naming (the contract semantics reads through ``Graphs.resolved``):

- repo code: full dotted qualname, ``pkg.mod.Cls.method``, ``pkg.mod.func.inner``;
  lambdas ``pkg.mod.func.<lambda1>`` (numbered per scope); a module node
  (``pkg.mod``) stands for its module-level code, class bodies and the main guard
  included.
- constructors: ``Cls()`` targets ``pkg.mod.Cls.__init__`` (looked up through the
  MRO); a class without any ``__init__`` is targeted by its own qualname; an
  ``__init__`` inherited from an external base is ``extpkg.Base.__init__``.
- external libraries: canonical dotted names with aliases resolved through imports:
  ``import torch.distributed as dist; dist.broadcast(t)`` -> ``torch.distributed.broadcast``;
  a call on an instance of an external class names the class it was built from or
  annotated with: ``self.opt = torch.optim.AdamW(...); self.opt.step()`` ->
  ``torch.optim.AdamW.step``, ``opt: torch.optim.Optimizer`` -> ``torch.optim.Optimizer.step``,
  ``LLM(...).generate`` -> ``vllm.LLM.generate``; building it targets the class name
  (``vllm.LLM``). Results of external *functions* (lower-case names) have no known type.
- builtins: ``<builtin>.print``; methods of literals/containers ``<builtin>.str.join``,
  ``<builtin>.dict.items``.

``ResolvedCall.kind`` is ``exact`` (the receiver's value is known) or ``weak`` (the
receiver is unknown and the targets are every repo method of that name, or a string
names a method of some class). A call nothing resolves is still listed, with no targets
and ``via="unresolved"``, so ``site.func`` stays readable. ``via`` says how: call, ctor,
ray (``.remote``), decorator, iter (``for`` over an object with ``__iter__``), getattr,
string (a literal method name passed to a dispatcher), ``string:<text>`` (a dotted-path
string naming repo code), load (a plugin loader turning a dotted-path string into what it
names), callback (a repo function handed to a library that calls it), forward (a method
handing its own name to a dispatcher: the same-named method of the worker class in its
module), weak, unresolved.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from ..index.summary import CallSite, ClassDef, FunctionDef
from .symbols import SymbolTable

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
    bases: tuple[str, ...] = ()  # the MRO after the class: repo qualnames or external dotted names


@dataclass(frozen=True, slots=True)
class ResolvedCall:
    """One call site with what it calls.

    ``targets`` are repo qualnames (``pkg.mod.Cls.method``) or external dotted names
    (``torch.optim.AdamW.step``, ``vllm.LLM.generate``, ``<builtin>.print``); an
    external name carries the receiver's learned type where one is known, which is
    what lets semantics tell ``optimizer.step()`` from ``env.step()``. One site may
    give several records (e.g. exact targets and weak string-dispatch targets).
    """

    caller: str  # function qualname, or module name for module-level code
    file: str
    site: CallSite
    targets: tuple[str, ...]
    kind: str = EXACT  # "exact" | "weak"
    via: str = "call"  # call | ctor | ray | decorator | iter | getattr | string | string:<text> | weak | unresolved


@dataclass(slots=True)
class Graphs:
    imports: nx.DiGraph = field(default_factory=nx.DiGraph)  # module -> module; edge attr lines
    # qualname -> qualname; node attrs kind (module|function|lambda|class|external|builtin), file, line;
    # edge attrs kind (exact wins over weak), via, lines
    calls: nx.DiGraph = field(default_factory=nx.DiGraph)
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    resolved: dict[str, list[ResolvedCall]] = field(default_factory=dict)  # caller -> its calls
    attr_types: dict[str, dict[str, str]] = field(default_factory=dict)  # class qualname -> attr -> type
    reached: set[str] = field(default_factory=set)  # nodes reachable from the entry points
    roots: list[str] = field(default_factory=list)  # the entry nodes reachability started from
    # what every name of the repo means (see ``symbols.py``); derived from the index, so never
    # stored with a cached analysis: None on one loaded from the cache
    symbols: SymbolTable | None = None

"""Per-file summaries: the only view of source code the later stages get.

Every stage downstream of the index reads these plain, picklable records and never
re-parses a file, so what a stage needs from source must be recorded here.

Expressions are kept as *dotted text*: ``self.actor.update_policy``,
``torch.optim.AdamW``, ``Cls.options().remote`` (``()`` marks a call in a chain).
Anything that is not a name/attribute/call chain becomes ``"<expr>"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MODULE_SCOPE = "<module>"

# A literal argument value: str/int/float/bool/None, or a tuple/list of those.
Literal = object


@dataclass(frozen=True, slots=True)
class Arg:
    """One call argument: a literal value, a dotted name/call chain, or other."""

    kind: str  # "lit" | "name" | "call" | "lambda" | "other"
    value: object = None  # literal value, dotted text, or None
    line: int = 0


@dataclass(frozen=True, slots=True)
class CallSite:
    scope: str  # "Class.method", "func", "func.<locals>.inner" style → we use "func.inner"; MODULE_SCOPE
    func: str  # dotted text of the callee expression
    line: int
    args: tuple[Arg, ...] = ()
    kwargs: tuple[tuple[str, Arg], ...] = ()
    star_args: bool = False  # *args / **kwargs present
    awaited: bool = False
    expr: object = None  # the call as an expression tree (see ``Flow``), for value-flow resolution

    @property
    def attr(self) -> str:
        """Last name in the callee (``update_policy`` of ``self.actor.update_policy``)."""
        return self.func.rsplit(".", 1)[-1]

    @property
    def receiver(self) -> str | None:
        """Everything before the last dot, or None for a plain name call."""
        return self.func.rsplit(".", 1)[0] if "." in self.func else None

    def kwarg(self, name: str) -> Arg | None:
        for k, v in self.kwargs:
            if k == name:
                return v
        return None


@dataclass(frozen=True, slots=True)
class Import:
    scope: str
    module: str  # imported module (relative part without dots for from-imports)
    name: str | None  # imported name for ``from m import name``; None for ``import m``
    asname: str | None
    level: int  # relative level (0 = absolute)
    line: int

    @property
    def bound(self) -> str:
        """The local name this import binds."""
        if self.asname:
            return self.asname
        if self.name is not None:
            return self.name
        return self.module.split(".", 1)[0]


@dataclass(frozen=True, slots=True)
class Assignment:
    """``target = value`` where the target is a name or attribute chain.

    ``value`` is the dotted text of the right-hand side; ``value_kind`` says whether
    it is a call (``torch.optim.AdamW`` called → kind "call"), a name, a literal, etc.
    ``annotation`` holds an annotation's dotted text when the target is annotated.
    """

    scope: str
    target: str
    value_kind: str  # "call" | "name" | "lit" | "lambda" | "other" | "none"
    value: object
    line: int
    annotation: str | None = None
    augmented: bool = False
    call_args: tuple[Arg, ...] = ()  # positional args when value is a call


@dataclass(frozen=True, slots=True)
class Subscript:
    """A string key read or written on a container: ``batch["advantages"] = ...``."""

    scope: str
    receiver: str
    key: str
    mode: str  # "read" | "write"
    line: int


@dataclass(frozen=True, slots=True)
class AttrAccess:
    """An attribute read or written on a non-self local (``batch.action_mask``)."""

    scope: str
    receiver: str
    attr: str
    mode: str  # "read" | "write"
    line: int


@dataclass(frozen=True, slots=True)
class ChainRead:
    """The whole of a chain of attributes, string keys and ``.get("k")`` calls on a plain name:
    ``cfg.trainer.ppo.enable``, ``cfg["model"]["tp"]``, ``self.cfg.model.get("port", 5000)``.

    Config frameworks read their knobs this way (OmegaConf, Hydra, dict configs); the topology
    stage turns the chains of values it proves to be configs into keys. A chain that ends in a
    method call keeps only its receiver (``cfg.model.items()`` → ``cfg.model``).
    """

    scope: str
    root: str  # the plain name the chain starts from, ``self`` included
    path: tuple[str, ...]  # ``("trainer", "ppo", "enable")``
    line: int
    mode: str = "read"  # "read" | "write"
    default: object = None  # literal default of a trailing ``.get("k", default)``


@dataclass(frozen=True, slots=True)
class StringConst:
    scope: str
    value: str
    line: int


@dataclass(frozen=True, slots=True)
class Skip:
    """An ``if cond: continue|return|break`` whose branch neither logs nor counts.

    The silent-drop rule reads these: a whole batch can vanish at such a branch.
    """

    scope: str
    kind: str  # "continue" | "return" | "break"
    condition: str
    line: int
    logs: bool  # the branch calls something (a logger, a counter) before leaving


@dataclass(frozen=True, slots=True)
class Flow:
    """One value-flow fact the call-graph resolver propagates (flow-insensitively).

    Expressions are nested tuples of plain values (stored as they are by the cache codec):
    ``("n", name)``, ``("a", base, attr)``, ``("c", func, args, kwargs)`` (an arg may be
    ``("*", e)``; a kwarg ``(name, e)`` or ``("**", e)``), ``("s", base, key)``,
    ``("k", literal)``, ``("fn", qualname)`` (a def or lambda of this file),
    ``("cls", qualname)``, ``("d", alloc_id, ((k, v), ...))`` dict literal,
    ``("l", alloc_id, items)`` list/tuple/set literal or comprehension,
    ``("u", alternatives)`` (``a if c else b``, ``a or b``), ``("?",)`` unknown.

    ops: ``=`` (target <- value), ``for`` (target <- items of value), ``with``,
    ``ann`` (target has the annotated type ``value``), ``ret``/``yield``/``yieldfrom``
    (the scope returns/yields value), ``rann`` (return annotation), ``def`` (target
    name <- ``("dec", ("fn"|"cls", q), decorators)``), ``base`` (target = class
    qualname, value = base expressions), ``param`` (target = (function, param)
    default value, evaluated in ``scope``), ``global``/``nonlocal`` (target = name),
    ``enter``/``aenter`` (a ``with`` / ``async with`` item: the statement calls the value's
    ``__enter__``/``__exit__`` or ``__aenter__``/``__aexit__``; target: an ``async with``'s
    ``as`` name, else None).
    """

    scope: str
    op: str
    target: object
    value: object
    line: int


@dataclass(frozen=True, slots=True)
class Loop:
    """The lines a ``for`` statement or a comprehension spans: a call inside runs once per item, so a
    count the loop ranges over is how many times it runs (``for _ in range(n): Process(...)``)."""

    scope: str
    line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    annotation: str | None = None
    default: Arg | None = None
    kind: str = "pos"  # "pos" | "kwonly" | "vararg" | "kwarg" | "field" (an annotated class attribute)
    line: int = 0  # fields: the line of ``name: type``
    default_kw: Arg | None = None  # fields: the literal ``default=`` of a call default (``field(default=8)``)


@dataclass(frozen=True, slots=True)
class FunctionDef:
    qualname: str  # relative to the module: "Class.method", "outer.inner"
    name: str
    line: int
    end_line: int
    params: tuple[Param, ...] = ()
    decorators: tuple[str, ...] = ()  # dotted text; calls keep "()" e.g. "ray.remote()"
    returns: str | None = None  # return annotation dotted text
    is_async: bool = False
    class_name: str | None = None  # owning class qualname (relative) for methods
    returned: tuple[str, ...] = ()  # dotted text of names/calls returned (for value flow)
    yields: bool = False


@dataclass(frozen=True, slots=True)
class ClassDef:
    qualname: str
    name: str
    line: int
    end_line: int
    bases: tuple[str, ...] = ()
    decorators: tuple[str, ...] = ()
    # class-level annotated names (dataclass / pydantic / config fields)
    fields: tuple[Param, ...] = ()
    keywords: tuple[tuple[str, str], ...] = ()  # metaclass=..., etc.
    # fields whose annotation names classes ``annotation`` does not keep (``A | B``, ``list[A]``,
    # ``Annotated[A | None, ...]``): field name -> every class name the annotation holds; sparse
    field_types: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(slots=True)
class FileSummary:
    path: str  # relative to the repo root, POSIX separators
    module: str  # dotted module name
    is_package: bool = False  # an __init__.py
    functions: list[FunctionDef] = field(default_factory=list)
    classes: list[ClassDef] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    calls: list[CallSite] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)
    subscripts: list[Subscript] = field(default_factory=list)
    attrs: list[AttrAccess] = field(default_factory=list)
    strings: list[StringConst] = field(default_factory=list)
    skips: list[Skip] = field(default_factory=list)
    main_guard_line: int | None = None  # line of ``if __name__ == "__main__":``
    all_exports: tuple[str, ...] | None = None  # ``__all__`` when literal
    suppressions: dict[int, tuple[str, ...]] = field(default_factory=dict)  # line -> rule ids
    lines: int = 0
    sha: str = ""
    flows: list[Flow] = field(default_factory=list)  # value-flow facts for call resolution
    lambdas: list[FunctionDef] = field(default_factory=list)  # lambdas, named "<lambdaN>" per scope
    # why the file was indexed only in part (bulk literals elided, or a skeleton), "" when
    # it was not; the index reports it as a ``data-module`` diagnostic, from the cache too
    light: str = ""
    light_line: int = 0
    chains: list[ChainRead] = field(default_factory=list)  # attribute/key chains on plain names (config reads)
    loops: list[Loop] = field(default_factory=list)  # for statements and comprehensions, by extent


def absolute_module(s: FileSummary, module: str, level: int) -> str:
    """The absolute dotted name a (possibly relative) import names, seen from ``s``."""
    if level == 0:
        return module
    parts = s.module.split(".")
    if not s.is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: max(0, len(parts) - (level - 1))]
    base = ".".join(parts)
    if module:
        return f"{base}.{module}" if base else module
    return base

"""Patches that install a LoRA loader into an inference engine: the receiving end of the weight sync.

An in-process engine that takes the trainer's adapter as tensors (not a path on disk) needs its
LoRA machinery patched: the worker's adapter loader replaced by one that builds the adapter from
in-memory tensors (``setattr(WorkerLoRAManager, "_load_adapter", load_from_tensors)``), the
request type given the ``lora_tensors`` field the trainer fills, a wrapping runner given its inner
runner's ``add_lora``/``remove_lora``. No call in such a body pushes anything, so the catalog's
weight-update calls miss it; what it writes says what it is: an attribute of an engine library's
LoRA class, or a LoRA-loading attribute of an engine library's object.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..index.summary import Arg, FileSummary
from .facts import STRONG, Facts, FnFacts, canon_in

# inference-engine libraries whose adapter loading a repo patches in place
_ENGINE_ROOTS = ("vllm.", "sglang.")
# attributes through which an engine loads, swaps or holds an adapter's weights
_LORA_LOADERS = frozenset({"add_lora", "remove_lora", "pin_lora", "set_active_loras", "list_loras", "load_lora",
                           "_load_adapter", "load_adapter", "lora_tensors", "lora_embeddings"})


def engine_lora_patch(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """Lines that write an engine library's LoRA class attribute, or a LoRA loader onto an engine object."""
    out: list[tuple[int, float]] = []
    s = facts.summaries.get(fn.module)
    scope = fn.definition.qualname
    for fl in s.flows if s is not None else ():
        t = fl.target
        if fl.scope != scope or fl.op != "=" or not (isinstance(t, tuple) and t[:1] == ("a",)):
            continue
        base = t[1]
        if isinstance(base, tuple) and base[:1] == ("n",) and _patched(fn, base[1], t[2], facts):
            out.append((fl.line, STRONG))
    for c in fn.calls:
        if _installs(c.site.args, fn, facts) and c.site.func == "setattr":
            out.append((c.site.line, STRONG))
    if s is not None and not out and _installed(fn, s, facts):
        out.append((fn.line, STRONG))  # the loader itself: the engine runs it on each adapter push
    return out


def _installs(args: tuple[Arg, ...], fn: FnFacts, facts: Facts) -> bool:
    """``setattr(EngineLoRAClass, "attr", value)`` arguments, seen from ``fn``."""
    if len(args) < 2 or args[0].kind != "name" or args[1].kind != "lit":
        return False
    return isinstance(args[0].value, str) and isinstance(args[1].value, str) \
        and _patched(fn, args[0].value, args[1].value, facts)


def _installed(fn: FnFacts, s: FileSummary, facts: Facts) -> bool:
    """A function of the same module hands ``fn`` itself to a patch of the engine's LoRA machinery
    (``setattr(Manager, "_load_adapter", fn)``, ``Request.loader = fn``)."""
    name = fn.definition.name
    for c in s.calls:
        args = c.args
        if c.func != "setattr" or len(args) < 3 or args[2].kind != "name" or args[2].value != name:
            continue
        owner = facts.functions.get(f"{fn.module}.{c.scope}")
        if owner is not None and owner is not fn and _installs(args, owner, facts):
            return True
    return False


def _patched(fn: FnFacts, name: str, attr: str, facts: Facts) -> bool:
    typ = _type_of(fn, name, facts)
    if not typ or not typ.startswith(_ENGINE_ROOTS):
        return False
    return ".lora." in typ or attr in _LORA_LOADERS


def _type_of(fn: FnFacts, name: str, facts: Facts) -> str | None:
    """The library class a name in ``fn`` is (an imported class) or holds (an annotated parameter)."""
    for p in fn.definition.params:
        if p.name == name:
            return canon_in(fn, p.annotation, facts) if p.annotation else None
    typ = fn.local_types.get(name)
    return typ or canon_in(fn, name, facts)

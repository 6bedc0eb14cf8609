"""A LoRA (adapter) key decides the layout by its use, never by its name alone.

``lora_rank`` is a matrix rank by name, so the process vocabulary vetoes it. Two uses make it a layout
knob all the same:

- the weight push: its value (read straight into the call, or through the ``self.<attr>`` it is stored
  in) becomes an inference engine's adapter option (``max_lora_rank``, ``enable_lora``: the engine
  APIs' own option names), so the engine takes adapter tensors and the trainer pushes LoRA weights
  instead of its full state dict (a transport setting);
- the role layout: it is read on the line that sets a role-merging switch (``ref_in_actor =
  cfg.lora_rank > 0``), or stored in a local right above one, so with LoRA on the reference policy is
  the adapter-free actor and no workers of its own start.

A LoRA key only read by model building (``LoraConfig(r=cfg.lora_rank)``) stays out.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..index import Index
from .classify import _ROLE_SECTIONS, _ROLE_SWITCH, switched_role, tokenize
from .sources import RawKey

_ADAPTER = {"lora", "adapter", "adapters", "dora", "peft"}
# an inference engine's options that size or switch on adapter loading (vLLM / SGLang engine arguments)
_ENGINE_ADAPTER_OPTIONS = {"max_lora_rank", "enable_lora", "max_loras", "max_loaded_loras", "lora_target_modules"}
_MERGE_WORDS = {"in", "inside", "within", "share", "shared", "shares", "merge", "merged", "colocate", "colocated"}
_ROLES = {t for r in _ROLE_SWITCH for t in r.split("_")} | _ROLE_SECTIONS
_BELOW = 2  # lines between a local the key is stored in and the switch that reads it


def adapter_hits(index: Index, raws: Iterable[RawKey]) -> dict[str, tuple[str, str]]:
    """Key name → (class, why) for adapter keys whose use says they decide the layout."""
    raws = list(raws)
    at: dict[tuple[str, int], list[str]] = {}
    for r in raws:
        if r.file.endswith(".py") and _adapter_key(r.key):
            at.setdefault((r.file, r.line), []).append(r.key)
    # a typed config read stored in an attribute (``self.rank = self.config.actor.lora.rank``) names the key
    # its chain is the dotted tail of
    tails: dict[str, set[str]] = {}
    for r in raws:
        if _adapter_key(r.key):
            parts = r.key.split(".")
            for i in range(len(parts) - 1):
                tails.setdefault(".".join(parts[i:]), set()).add(r.key)
    for path, s in index.summaries.items():
        for a in s.assignments:
            if a.value_kind == "name" and isinstance(a.value, str) and a.value.count(".") >= 2 and _adapter_key(a.value):
                key = _tail_key(a.value, tails)
                if key is not None and key not in at.get((path, a.line), ()):
                    at.setdefault((path, a.line), []).append(key)
    out: dict[str, tuple[str, str]] = {}
    for (path, line), keys in sorted(at.items()):
        s = index.summaries.get(path)
        if s is None:
            continue
        assigned = [a for a in s.assignments if a.line == line]
        carriers = {a.target for a in assigned}
        hit = _engine_option(s, line, carriers) or _role_switch(s, line, assigned)
        if hit is not None:
            for k in keys:
                out.setdefault(k, hit)
    return out


def _adapter_key(key: str) -> bool:
    """``lora_rank`` / ``lora.rank``: an adapter word in the last two segments."""
    return bool({t for seg in key.lstrip("-").split(".")[-2:] for t in tokenize(seg)} & _ADAPTER)


def _tail_key(chain: str, tails: dict[str, set[str]]) -> str | None:
    """The one key the chain (minus its root) ends like, longest tail first."""
    parts = chain.split(".")[1:]
    for i in range(len(parts) - 1):
        got = tails.get(".".join(parts[i:]))
        if got:
            return next(iter(got)) if len(got) == 1 else None
    return None


def _engine_option(s, line: int, carriers: set[str]) -> tuple[str, str] | None:
    """The value reaches an engine's adapter option: a keyword argument or a dict entry of that name."""
    selfs = {c[5:] for c in carriers if c.startswith("self.") and c.count(".") == 1}
    for c in s.calls:
        for k, v in c.kwargs:
            if k in _ENGINE_ADAPTER_OPTIONS and (c.line == line or (isinstance(v.value, str) and v.value[5:] in selfs
                                                                   and v.value.startswith("self."))):
                return "comm", _WHY_PUSH.format(k, s.path, c.line)
    if not selfs:
        return None
    for f in s.flows:
        found = _dict_option(f.value, selfs)
        if found:
            return "comm", _WHY_PUSH.format(found, s.path, f.line)
    return None


_WHY_PUSH = ("given to the inference engine as its adapter option '{}' ({}:{}): the weight push sends LoRA "
             "tensors instead of the full state dict")


def _dict_option(expr: object, selfs: set[str], depth: int = 0) -> str | None:
    """``{"max_lora_rank": self.x}`` somewhere inside a flow expression, ``x`` in ``selfs``."""
    if not isinstance(expr, tuple) or depth > 12 or not expr:
        return None
    if expr[0] == "d" and len(expr) == 3 and isinstance(expr[2], tuple):
        for item in expr[2]:
            if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], tuple) and item[0][:1] == ("k",) \
                    and item[0][1] in _ENGINE_ADAPTER_OPTIONS and _self_attr(item[1]) in selfs:
                return str(item[0][1])
    for part in expr[1:] if isinstance(expr[0], str) else expr:  # a tagged node, or a tuple of nodes
        found = _dict_option(part, selfs, depth + 1)
        if found:
            return found
    return None


def _self_attr(expr: object) -> str | None:
    if isinstance(expr, tuple) and len(expr) == 3 and expr[0] == "a" and expr[1] == ("n", "self") \
            and isinstance(expr[2], str):
        return expr[2]
    return None


def _role_switch(s, line: int, assigned: list) -> tuple[str, str] | None:
    """The read sets a role-merging switch on its own line, or a local read by one just below."""
    locals_ = {a.target for a in assigned if "." not in a.target}
    for a in s.assignments:
        if not (a.line == line or (locals_ and line < a.line <= line + _BELOW and a.scope == assigned[0].scope)):
            continue
        toks = tokenize(a.target.rsplit(".", 1)[-1])
        role = switched_role(toks)
        merged = set(toks) & _MERGE_WORDS and len(set(toks) & _ROLES) >= 2
        if role is not None or merged:
            name = a.target.rsplit(".", 1)[-1]
            return "layout", (f"read where the role switch '{name}' is set ({s.path}:{a.line}): with adapters on, "
                              "a role rides in another role's workers instead of starting its own")
    return None

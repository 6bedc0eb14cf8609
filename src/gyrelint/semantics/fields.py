"""The trajectory field contract: what the sampling side writes, what the training side reads.

Only containers that cross the handoff are considered, to keep noise low:

- produced: keys and fields written by sampling, trajectory-handoff and driver code
  (subscript writes, dict-literal keys, constructor kwargs of trajectory container
  classes, attribute writes on locals);
- consumed: keys read by training code from its *inputs* (subscript reads on the
  function's parameters, or locals derived from them; attribute reads on parameters
  typed as a trajectory container class);
- missing: consumed keys written, declared or mentioned nowhere in the repository
  (keys that tokenizers and models produce are known and not reported).
"""

from __future__ import annotations

from ..index import Index
from ..model import FieldContract, FieldUse, HandoffKind, Side
from .facts import Facts, FnFacts
from .sides import SideResult

# keys that libraries (tokenizers, HF models, collators) produce without repo code writing them
LIBRARY_KEYS = frozenset({
    "input_ids", "attention_mask", "token_type_ids", "position_ids", "labels", "logits", "loss", "past_key_values",
    "hidden_states", "attentions", "pixel_values", "image_grid_thw", "offset_mapping", "special_tokens_mask",
    "overflowing_tokens", "length", "inputs_embeds", "cache_position",
})
_CONFIG_PARAMS = frozenset({"config", "cfg", "args", "kwargs", "options", "hparams", "conf", "settings", "opts",
                            "self", "cls", "env_vars", "environ", "headers", "request", "response", "resp",
                            "json_data", "params", "meta_info", "metadata", "info"})


def _is_configish(name: str) -> bool:
    low = name.lower()
    return low in _CONFIG_PARAMS or low.endswith(("_config", "_cfg", "_args", "_kwargs", "_conf", "_options"))


def _producer(r: SideResult | None) -> bool:
    if r is None:
        return False
    return r.side in (Side.SAMPLING, Side.DRIVER) or (r.side == Side.HANDOFF and r.kind == HandoffKind.TRAJECTORY)


def _constructed(fn: FnFacts, facts: Facts) -> list[tuple[str, int, list[str]]]:
    """Repo classes this function builds: (class qualname, line, kwargs)."""
    out = []
    for c in fn.calls:
        cls = None
        if c.repo and c.repo in facts.classes:
            cls = c.repo
        elif c.repo:
            owner, _, meth = c.repo.rpartition(".")
            if owner in facts.classes and (meth.startswith(("from_", "make", "create")) or meth == "__init__"):
                cls = owner
        if cls is None:
            for t in c.targets:
                if t.endswith(".__init__") and t[:-9] in facts.classes:
                    cls = t[:-9]
                    break
        if cls is not None:
            out.append((cls, c.site.line, [k for k, _ in c.site.kwargs]))
    return out


def trajectory_containers(facts: Facts, sides: dict[str, SideResult]) -> set[str]:
    """Repo classes built on the producing side and taken as input on the training side."""
    built: set[str] = set()
    for q, fn in facts.functions.items():
        if _producer(sides.get(q)):
            for cls, _, _ in _constructed(fn, facts):
                built.add(cls)
            if fn.definition.returns:
                for t in fn.local_types.values():
                    if t in facts.classes:
                        built.add(t)
    if not built:
        return set()
    used: set[str] = set()
    for q, fn in facts.functions.items():
        r = sides.get(q)
        if r is None or r.side not in (Side.TRAINING, Side.HANDOFF):
            continue
        for p in fn.definition.params:
            t = fn.local_types.get(p.name)
            if t in built:
                used.add(t)
    # a class with declared fields built by the sampler is a container even if the trainer's params are untyped
    for c in built:
        info = facts.classes.get(c)
        if info is not None and info.is_dataclass and info.fields:
            used.add(c)
    return used


def field_contract(index: Index, facts: Facts, sides: dict[str, SideResult], containers: set[str]) -> FieldContract:
    fc = FieldContract()
    container_fields: set[str] = set()
    for c in containers:
        info = facts.classes.get(c)
        if info is not None:
            container_fields.update(info.fields)
    # ---- produced on the sampling side
    for q, fn in facts.functions.items():
        if not _producer(sides.get(q)):
            continue
        for s in fn.subs:
            if s.mode == "write":
                fc.produced.setdefault(s.key, []).append(FieldUse(s.key, fn.file, s.line, q))
        for cls, line, kws in _constructed(fn, facts):
            if cls in containers:
                for k in kws:
                    fc.produced.setdefault(k, []).append(FieldUse(k, fn.file, line, q))
        for a in fn.attrs:
            if a.mode == "write":
                fc.produced.setdefault(a.attr, []).append(FieldUse(a.attr, fn.file, a.line, q))
    # ---- consumed on the training side
    for q, fn in facts.functions.items():
        r = sides.get(q)
        if r is None or r.side != Side.TRAINING:
            continue
        inputs = {p.name for p in fn.definition.params if p.kind in ("pos", "kwonly") and not _is_configish(p.name)}
        if not inputs:
            continue
        derived = set(inputs)
        for a in fn.assigns:
            if isinstance(a.value, str) and a.value_kind in ("name", "other") and "." not in a.target:
                root = a.value.split(".", 1)[0].split("[", 1)[0]
                if root in derived and not _is_configish(a.target):
                    derived.add(a.target)
        called = {(c.site.line, c.site.func) for c in fn.calls}
        for s in fn.subs:
            if s.mode != "read":
                continue
            root = s.receiver.split(".", 1)[0].split("[", 1)[0]
            if root in derived:
                fc.consumed.setdefault(s.key, []).append(FieldUse(s.key, fn.file, s.line, q))
        typed = {p for p in inputs if fn.local_types.get(p) in containers}
        for a in fn.attrs:
            if a.mode != "read" or (a.line, f"{a.receiver}.{a.attr}") in called:
                continue
            if a.receiver in typed or (a.receiver in inputs and a.attr in container_fields):
                fc.consumed.setdefault(a.attr, []).append(FieldUse(a.attr, fn.file, a.line, q))
    if not fc.consumed:
        return fc
    # ---- consumed keys produced elsewhere (the trainer's own additions, declared fields, mentions)
    wanted = set(fc.consumed) - set(fc.produced)
    if not wanted:
        return fc
    found: dict[str, FieldUse] = {}

    def note(key: str, file: str, line: int, where: str) -> None:
        if key in wanted and key not in found:
            found[key] = FieldUse(key, file, line, where)

    for k in wanted & LIBRARY_KEYS:
        found[k] = FieldUse(k, "", 0, "<library>")
    for info in facts.classes.values():
        for f in info.fields:
            note(f, info.file, info.line, info.qualname)
    for s in index.summaries.values():
        reads = {(x.line, x.key) for x in s.subscripts if x.mode == "read"}
        for x in s.subscripts:
            if x.mode == "write":
                note(x.key, s.path, x.line, f"{s.module}.{x.scope}")
        for a in s.attrs:
            if a.mode == "write":
                note(a.attr, s.path, a.line, f"{s.module}.{a.scope}")
        for c in s.calls:
            for k, _ in c.kwargs:
                note(k, s.path, c.line, f"{s.module}.{c.scope}")
        for a in s.assignments:
            if a.target.startswith("self."):
                note(a.target[5:], s.path, a.line, f"{s.module}.{a.scope}")
        for st in s.strings:
            if (st.line, st.value) not in reads:
                note(st.value, s.path, st.line, f"{s.module}.{st.scope}")
    for k, use in found.items():
        fc.produced.setdefault(k, []).append(use)
    return fc

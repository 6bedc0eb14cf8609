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

import re

from ..index import Index
from ..model import FieldContract, FieldUse, HandoffKind, Side
from .facts import Facts, FnFacts, canon_in
from .field_sinks import flows_by_scope, settings_name, unmoved_keys
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


_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _is_configish(name: str) -> bool:
    low = name.lower()
    return low in _CONFIG_PARAMS or low.endswith(("_config", "_cfg", "_args", "_kwargs", "_conf", "_options"))


_CONFIG_CLASS = ("config", "cfg", "args", "arguments", "options", "settings", "hparams")


def _config_class(cls: str) -> bool:
    """A class of settings (``GRPOConfig``, ``TrainArgs``): trainers take one in, it carries no trajectory."""
    return cls.rsplit(".", 1)[-1].lower().endswith(_CONFIG_CLASS)


def _producer(r: SideResult | None) -> bool:
    if r is None:
        return False
    return r.side in (Side.SAMPLING, Side.DRIVER) or (r.side == Side.HANDOFF and r.kind == HandoffKind.TRAJECTORY)


def _constructed(fn: FnFacts, facts: Facts) -> list[tuple[str, int, list[str]]]:
    """Repo classes this function builds: (class qualname, line, kwargs)."""
    out = []
    for c in fn.calls:
        cls = None
        if c.instance:
            continue  # ``net(ids)`` on an object of the class runs it: nothing is built
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


def container_ops(fn: FnFacts, facts: Facts) -> list[tuple[int, str]]:
    """Where ``fn`` builds, returns or stores trajectory containers: (line, how)."""
    cont = facts.containers
    if not cont:
        return []
    if not any(not _is_configish(p) for p in fn.params):
        return []  # nothing comes in: a test, a default or a fixture builds the record, it moves none
    out: list[tuple[int, str]] = []
    for cls, line, _ in _constructed(fn, facts):
        if cls in cont:
            out.append((line, "builds"))
            break
    ret = fn.definition.returns
    if ret and canon_in(fn, ret, facts) in cont:
        out.append((fn.line, "returns"))
    typed = [p.name for p in fn.definition.params if fn.local_types.get(p.name) in cont]
    if typed and not out:
        # the batch record taken apart into records of another repo type holding the same fields
        # (per-sample items): a split; a summary record of other fields (stats) is no such thing
        held = {f for p in typed for f in facts.classes[fn.local_types[p]].fields}
        for cls, line, _ in _constructed(fn, facts):
            if cls not in cont and not _config_class(cls) and len(held & set(facts.classes[cls].fields)) >= 2:
                out.append((line, "splits"))
                break
    if typed:
        for c in fn.calls:
            rec = c.site.receiver or ""
            if c.method in ("append", "extend", "put", "put_nowait", "appendleft", "insert", "add") \
                    and rec.startswith("self."):
                out.append((c.site.line, "stores"))
                break
    return out


def trajectory_containers(facts: Facts, sides: dict[str, SideResult],
                          edges: dict[str, dict[str, float]] | None = None) -> set[str]:
    """Repo classes the producing side builds (itself or through helpers) and the trainer takes in.

    Built: constructed or returned (annotation) by sampling/driver/trajectory code or by
    the helpers it calls (two hops). Taken in: a training or handoff function has a
    parameter of that type, or training code reads two or more of its declared fields.
    """
    producers = [q for q in facts.functions if _producer(sides.get(q))]
    built: set[str] = set()
    for q in producers:
        fn = facts.functions[q]
        for cls, _, _ in _constructed(fn, facts):
            built.add(cls)
        if fn.definition.returns:
            t = canon_in(fn, fn.definition.returns, facts)
            if t in facts.classes:
                built.add(t)
        # a neutral helper the producer calls to build the record (``_to_experience(resp)``)
        for v in (edges or {}).get(q, {}):
            h = facts.functions.get(v)
            r = sides.get(v)
            if h is None or (r is not None and r.side != Side.NEUTRAL) or not h.definition.returns:
                continue
            t = canon_in(h, h.definition.returns, facts)
            if t in facts.classes:
                built.add(t)
    built = {c for c in built if not _config_class(c)}
    if not built:
        return set()
    used: set[str] = set()
    field_reads: dict[str, set[str]] = {}
    fields_of = {c: set(facts.classes[c].fields) for c in built if facts.classes[c].fields}
    for q, fn in facts.functions.items():
        r = sides.get(q)
        if r is None or r.side != Side.TRAINING:
            continue
        params = {p.name for p in fn.definition.params}
        for p in sorted(params):
            if _is_configish(p):
                continue  # ``args: TrainConfig`` is the settings object, not the batch
            t = fn.local_types.get(p)
            if t in built:
                used.add(t)
        if r.side == Side.TRAINING and fields_of:
            read = {a.attr for a in fn.attrs if a.mode == "read" and a.receiver in params}
            for c, fs in fields_of.items():
                hit = read & fs
                if hit:
                    field_reads.setdefault(c, set()).update(hit)
    used.update(c for c, fs in field_reads.items() if len(fs) >= 2)
    return used


_ITEM_WRAPPERS = frozenset({"enumerate", "zip", "reversed", "sorted", "list", "tuple", "iter", "islice"})


def _loop_flows(index: Index) -> dict[tuple[str, str], list[tuple[object, object]]]:
    """``for`` targets and what they iterate, by (file, scope): loops and comprehensions alike."""
    out: dict[tuple[str, str], list[tuple[object, object]]] = {}
    for path, s in index.summaries.items():
        for f in s.flows:
            if f.op == "for":
                out.setdefault((path, f.scope), []).append((f.target, f.value))
    return out


def _iter_roots(value: object) -> list[tuple[str, bool]]:
    """Names a loop iterates, and whether an ``enumerate`` puts an index before each item."""
    if type(value) is not tuple or not value:
        return []
    if value[0] == "n":
        return [(value[1], False)]
    if value[0] == "s":  # ``batch[i:j]``, ``groups[k]``: items of a slice or of a nested batch
        return [(r, False) for r, _ in _iter_roots(value[1])]
    if value[0] == "c" and type(value[1]) is tuple and value[1][:1] == ("n",) and value[1][1] in _ITEM_WRAPPERS:
        indexed = value[1][1] == "enumerate"
        return [(r, indexed) for a in value[2] for r, _ in _iter_roots(a)]
    return []


def _target_names(target: object, skip_index: bool) -> list[str]:
    if type(target) is not tuple or not target:
        return []
    if target[0] == "n":
        return [target[1]]
    if target[0] == "l" and len(target) == 3:
        items = target[2][1:] if skip_index else target[2]
        return [n for t in items for n in _target_names(t, False)]
    return []


def _batch_items(loops: object, derived: set[str]) -> dict[str, str]:
    """Names bound to the items of a batch the function takes in (``for t in batch``,
    ``[t.x for t in trajs]``, ``for i, t in enumerate(batch)``), each with the batch it comes
    from: a field read on an item is a field read on the batch."""
    items: dict[str, str] = {}
    for _ in range(3):  # nested loops: items of items
        grew = False
        for target, value in loops:  # type: ignore[attr-defined]
            roots = [r for r in _iter_roots(value) if r[0] in derived or r[0] in items]
            if not roots:
                continue
            batch = items.get(roots[0][0], roots[0][0])
            for n in _target_names(target, any(ix for _, ix in _iter_roots(value))):
                if n not in items and n not in derived and not _is_configish(n):
                    items[n] = batch
                    grew = True
        if not grew:
            break
    return items


def _readers(index: Index, facts: Facts, sides: dict[str, SideResult]) -> dict[str, tuple[set[str], set[str], dict[str, str]]]:
    """Training functions that take a batch in: their inputs, the locals derived from them, and
    the names bound to the batch's items (with the batch each comes from)."""
    flows = _loop_flows(index)
    out: dict[str, tuple[set[str], set[str], dict[str, str]]] = {}
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
        items = _batch_items(flows.get((fn.file, q[len(fn.module) + 1:]), ()), derived)
        out[q] = (inputs, derived, items)
    return out


def _item_containers(facts: Facts, sides: dict[str, SideResult],
                     readers: dict[str, tuple[set[str], set[str], dict[str, str]]]) -> set[str]:
    """Record classes the sampling side builds whose declared fields training reads (two or
    more) on the items of a batch (``[e.reward for e in episodes]``)."""
    built = {cls for q, fn in facts.functions.items() if _producer(sides.get(q))
             for cls, _, _ in _constructed(fn, facts) if not _config_class(cls) and facts.classes[cls].fields}
    if not built:
        return set()
    read: set[str] = set()
    for q, (_, _, items) in readers.items():
        read.update(a.attr for a in facts.functions[q].attrs if a.mode == "read" and a.receiver in items)
    return {c for c in built if len(read & set(facts.classes[c].fields)) >= 2}


def field_contract(index: Index, facts: Facts, sides: dict[str, SideResult], containers: set[str]) -> FieldContract:
    fc = FieldContract()
    readers = _readers(index, facts, sides)
    containers = containers | _item_containers(facts, sides, readers)
    container_fields: set[str] = set()
    for c in containers:
        info = facts.classes.get(c)
        if info is not None:
            container_fields.update(info.fields)
    # ---- produced on the sampling side
    scoped = flows_by_scope(index)
    for q, fn in facts.functions.items():
        r = sides.get(q)
        if not _producer(r):
            continue
        driver = r is not None and r.side == Side.DRIVER
        unmoved = unmoved_keys(fn, scoped.get((fn.file, q[len(fn.module) + 1:]), []))
        for s in fn.subs:
            if s.mode != "write" or not _KEY.match(s.key):
                continue  # a metric's name (``timing/gen``) is no field a trainer reads
            if s.receiver == "<dict>":
                if driver or s.key in unmoved:  # a driver's dict literals are metrics; settings stay behind
                    continue
            elif settings_name(s.receiver.rsplit(".", 1)[-1].split("[", 1)[0]):
                continue  # ``os.environ[...]``, ``kwargs[...]``: settings, not the record
            fc.produced.setdefault(s.key, []).append(FieldUse(s.key, fn.file, s.line, q))
        for cls, line, kws in _constructed(fn, facts):
            if cls in containers:
                for k in kws:
                    fc.produced.setdefault(k, []).append(FieldUse(k, fn.file, line, q))
        for a in fn.attrs:
            if a.mode == "write":
                fc.produced.setdefault(a.attr, []).append(FieldUse(a.attr, fn.file, a.line, q))
    # ---- consumed on the training side
    for q, (inputs, derived, items) in readers.items():
        fn = facts.functions[q]
        called = {(c.site.line, c.site.func) for c in fn.calls}
        typed = {p for p in inputs if fn.local_types.get(p) in containers}
        groups: dict[str, list[FieldUse]] = {}
        for s in fn.subs:
            if s.mode != "read" or not _KEY.match(s.key):
                continue
            root = s.receiver.split(".", 1)[0].split("[", 1)[0]
            if root in derived or root in items:
                groups.setdefault(items.get(root, root), []).append(FieldUse(s.key, fn.file, s.line, q))
        for a in fn.attrs:
            if a.mode != "read" or (a.line, f"{a.receiver}.{a.attr}") in called:
                continue
            if a.receiver in typed or (a.receiver in inputs and a.attr in container_fields):
                groups.setdefault(a.receiver, []).append(FieldUse(a.attr, fn.file, a.line, q))
            elif a.receiver in items and a.attr in container_fields:
                groups.setdefault(items[a.receiver], []).append(FieldUse(a.attr, fn.file, a.line, q))
        for root, uses in groups.items():
            keys = {u.name for u in uses}
            if root not in typed and len(keys & set(fc.produced)) < max(2, len(keys) // 2):
                continue  # a dict of something else (configs, weight metadata), not the trajectory
            for u in uses:
                fc.consumed.setdefault(u.name, []).append(u)
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

    for k in sorted(wanted & LIBRARY_KEYS):
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

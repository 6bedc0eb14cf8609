"""Fold key occurrences into one :class:`KeyEntry` per knob.

A knob is mentioned many times: declared once (an option, a field, an env read with a
default), set by config files and launch scripts, overridden in docs and tests. The
reader wants the declaration, its default and type, the class and why, and how many
other places mention it (the few most telling shown). Spellings fold together:
``--rollout-port``, ``rollout_port`` and ``ROLLOUT_PORT`` set in a script are one key
when they are one name once dashes and case are ignored.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ..model import ConfigKey, KeyEntry, Location
from .classify import tokenize
from .sources import RawKey

CLASS_ORDER = ("process", "port", "comm", "layout")
_CLI = {"argparse", "click", "typer"}
_SHOWN_USES = 3
_EMPTY = {"", "[]", "{}", "()", "none", "null", "~", "''", '""'}


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One mention of a key with its own classification (None: not classified) and scope reason."""

    raw: RawKey
    hit: tuple[str, str] | None
    scope: str = ""


def empty(value: str | None) -> bool:
    """An empty list, string or None is not a configured value."""
    return value is None or value.strip().lower() in _EMPTY


def fold_name(name: str) -> str:
    """The identity of a key across spellings: no leading dashes, ``-`` as ``_``, lower-case — except an
    upper-case name (an env var by convention), which only folds with itself: ``MASTER_ADDR`` exported by a
    script is not the ``--master_addr`` flag."""
    text = name.lstrip("-").replace("-", "_")
    return text if text.isupper() else text.lower()


def _rank(raw: RawKey) -> int:
    """Declarations first, then config files, then env reads, then launchers and docs."""
    src = raw.source
    if src.split(" ", 1)[0] in _CLI or src.startswith(("dataclass", "pydantic", "TypedDict", "keyword argument",
                                                       "parameter (CLI")):
        return 0
    if src in ("yaml", "toml", "json", "ini", "python dict"):
        return 1
    if src in ("env (python)", "config read") or (src == "env" and raw.file.rsplit("/", 1)[-1].startswith(".env")):
        return 2
    return 3


def display_name(raw: RawKey) -> str:
    """The name a user types: ``--flag`` for an option, the dotted path or env var otherwise."""
    cli = raw.source.split(" ", 1)[0] in _CLI or "(CLI: " in raw.source  # a config class a CLI parser reads
    if cli or raw.source in ("script", "readme"):
        return "--" + raw.key.lstrip("-") if not raw.key.isupper() or cli else raw.key
    return raw.key


def fold(occs: Iterable[Occurrence]) -> tuple[list[KeyEntry], list[ConfigKey], dict[str, int]]:
    """Entries (listed ones first), the in-scope occurrences as flat keys, and what was folded away."""
    occs = list(occs)
    joins = {**_same_field(occs), **_joins(occs)}
    groups: dict[str, list[Occurrence]] = {}
    for o in occs:
        name = fold_name(o.raw.key)
        for _ in range(4):  # an env var joins a field that joins the field's longer path
            name = joins.get(name, name)
        groups.setdefault(name, []).append(o)
    entries: list[KeyEntry] = []
    flat: list[ConfigKey] = []
    folded: Counter[str] = Counter()
    for group in groups.values():
        entry = _entry(group)
        if entry is None:
            continue
        entries.append(entry)
        if entry.scope:
            folded[entry.scope] += 1
            continue
        folded["repeats"] += entry.uses
        for o in group:
            if o.scope:
                continue
            reason = o.hit[1] if o.hit and o.hit[0] == entry.cls else entry.evidence
            flat.append(ConfigKey(o.raw.key, entry.cls, o.raw.value, o.raw.file, o.raw.line, reason, o.raw.source))
    entries.sort(key=lambda e: (bool(e.scope), CLASS_ORDER.index(e.cls) if e.cls in CLASS_ORDER else 9,
                                not e.definition, _kind_order(e.declared_as), -e.uses, _peripheral(e.file), e.file,
                                e.line, e.name))  # the most mentioned knobs first
    flat.sort(key=lambda k: (k.cls, k.file, k.line, k.key))
    return entries, flat, dict(folded)


_TREE = ("dataclass", "pydantic", "TypedDict")


def _same_field(occs: list[Occurrence]) -> dict[str, str]:
    """One field of a config class reached from several roots is one knob: ``engine_args.tp``,
    ``config.engine_args.tp`` and ``_internal_config.engine_args.tp`` (the same declaration, one path the
    other's dotted tail or the two differing in their first segment only) fold into the name a command
    line parser reads if any, else the longest. Paths differing deeper (``actor.fsdp.x``, ``critic.fsdp.x``)
    are different knobs of one class and stay apart."""
    by_decl: dict[tuple[str, int, str], dict[str, set[str]]] = {}
    cli: set[str] = set()
    for o in occs:
        r = o.raw
        if r.source.startswith(_TREE) and "." in r.key:
            name = fold_name(r.key)
            by_decl.setdefault((r.file, r.line, r.context), {}).setdefault(name, set()).add(r.root)
            if "(CLI: " in r.source:
                cli.add(name)
    out: dict[str, str] = {}
    for names in by_decl.values():
        if len(names) < 2 or len(names) > 12:
            continue
        ordered = sorted(names, key=lambda n: (n not in cli, -n.count("."), n))
        for n in ordered[1:]:
            for target in ordered:
                if target != n and _one_knob(n, target, names[n], names[target]):
                    out.setdefault(n, target)
                    break
    return out


def _one_knob(a: str, b: str, roots_a: set[str], roots_b: set[str]) -> bool:
    """``a`` is ``b`` seen from a smaller tree (its dotted tail), or from another root class (the first segment
    differs; two fields of one root holding the same class, ``actor.x`` and ``ref.x``, are two knobs)."""
    pa, pb = a.split("."), b.split(".")
    if len(pa) < len(pb):  # ``*``: one section per name of a dict field matches any name
        return all(x == y or x == "*" for x, y in zip(pa, pb[-len(pa):], strict=True))
    return (len(pa) == len(pb) and pa[1:] == pb[1:] and "" not in roots_a | roots_b
            and not roots_a & roots_b)


_FLAG_VALUE = re.compile(r"^--([A-Za-z_][\w\-.]*)$")
_VAR_REF = re.compile(r"^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-=+?][^}]*)?\})$")


def _joins(occs: list[Occurrence]) -> dict[str, str]:
    """Upper-case names (env or shell variables) that are another key's value carrier fold into that key: a
    variable a launcher passes to exactly one flag (``--actor-num-nodes ${ACTOR_NUM_NODES}``), or an env var
    read in the very file that declares the same name (``default=os.environ.get("TEACHER_PORT")``)."""
    feeds: dict[str, set[str]] = {}
    declared: dict[str, set[str]] = {}
    for o in occs:
        if o.raw.key.isupper():
            f = _FLAG_VALUE.match(o.raw.value or "")
            if f:  # ``ENABLE_HYBRID_ENGINE="--enable_hybrid_engine"``, later ``$ENABLE_HYBRID_ENGINE`` on the command
                feeds.setdefault(o.raw.key.lstrip("-"), set()).add(fold_name(f.group(1)))
            continue
        m = _VAR_REF.match(o.raw.value or "")
        if m:  # ``$VAR``, ``${VAR}``, ``${VAR:-8}``
            feeds.setdefault(m.group(1) or m.group(2), set()).add(fold_name(o.raw.key))
        if _rank(o.raw) == 0:
            declared.setdefault(fold_name(o.raw.key), set()).add(o.raw.file)
    out: dict[str, str] = {}
    for o in occs:  # the env var a settings class reads for a field (``RL_INFERENCE__PORT``) is that field
        if o.raw.env:
            out.setdefault(fold_name(o.raw.env), fold_name(o.raw.key))
    # ``--no-colocate`` is how tyro, typer and pydantic-settings (``cli_implicit_flags``) type a boolean flag off
    switches = {fold_name(o.raw.key) for o in occs if o.raw.type == "bool" and _rank(o.raw) == 0
                and display_name(o.raw).startswith("--")}
    for o in occs:
        name = fold_name(o.raw.key)
        if name.startswith("no_") and name[3:] in switches:
            out.setdefault(name, name[3:])
    at: dict[tuple[str, int], dict[str, str]] = {}  # (file, line) -> leaf of each lower-case key there -> its name
    cli: set[str] = set()
    for o in occs:
        if not o.raw.key.isupper():
            name = fold_name(o.raw.key)
            at.setdefault((o.raw.file, o.raw.line), {}).setdefault(name.rsplit(".", 1)[-1], name)
            if o.raw.source.split(" ", 1)[0] in _CLI:
                cli.add(name)
    for o in occs:
        key = o.raw.key.lstrip("-")
        if not key.isupper() or fold_name(key) in out:
            continue
        targets = feeds.get(key, set())
        same = fold_name(key).lower()
        beside = at.get((o.raw.file, o.raw.line), {}).get(same)
        if len(targets) == 1 or same in targets:  # several flags: the one of the same name, if any
            out[fold_name(key)] = same if same in targets else next(iter(targets))
        elif o.raw.file in declared.get(fold_name(key).lower(), ()):
            out[fold_name(key)] = fold_name(key).lower()
        elif beside is not None:
            # ``os.environ.get("BASE_URL", cfg.get("base_url"))`` / ``os.environ["PORT"] = str(cfg.port)``: the
            # variable overrides, or carries, the key read on the same line
            out[fold_name(key)] = beside
        elif key in _LAUNCHER_SET and same in cli:
            out[fold_name(key)] = same
    return out


# set by torch/DeepSpeed launchers for every process they start, which also pass ``--local_rank``: one value
_LAUNCHER_SET = {"LOCAL_RANK", "RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "NODE_RANK", "MASTER_ADDR", "MASTER_PORT"}


def _entry(group: list[Occurrence]) -> KeyEntry | None:
    classified = [o for o in group if o.hit is not None]
    if not classified:
        return None
    inscope = [o for o in group if not o.scope]
    pool = inscope or group
    order = sorted(pool, key=lambda o: (_rank(o.raw), _private(o.raw.file), _peripheral(o.raw.file), o.raw.file,
                                        o.raw.line, -o.raw.key.count(".")))  # one field: its fullest path
    best = order[0]
    hits = sorted((o for o in (c for c in pool if c.hit is not None)), key=lambda o: (_rank(o.raw), o.raw.file, o.raw.line))
    judge = hits[0] if hits else sorted(classified, key=lambda o: (_rank(o.raw), o.raw.file, o.raw.line))[0]
    assert judge.hit is not None
    cls, evidence = judge.hit
    declared = [o for o in order if _rank(o.raw) in (0, 2) and not empty(o.raw.value)]
    configured = [o for o in order if _rank(o.raw) in (1, 3) and not empty(o.raw.value)]
    configured.sort(key=lambda o: bool(_VAR_REF.match(o.raw.value or "")))  # ``$NNODES`` only points elsewhere
    default = declared[0].raw.value if declared else None
    value = configured[0].raw.value if configured else default
    rest = [o for o in group if o is not best]
    rest.sort(key=lambda o: (bool(o.scope), o.hit is None or o.hit[0] != cls, _telling(o.raw), _private(o.raw.file),
                             o.raw.file, o.raw.line))
    where = tuple(Location(o.raw.file, o.raw.line, _note(o)) for o in rest[:_SHOWN_USES])
    names = sorted({display_name(o.raw) for o in group} - {display_name(best.raw)})
    typ = next((o.raw.type for o in order if o.raw.type), None)
    return KeyEntry(
        name=display_name(best.raw), cls=cls, value=value, default=default, file=best.raw.file, line=best.raw.line,
        declared_as=best.raw.source, evidence=evidence, why=why(cls, evidence, best.raw.key, value), type=typ,
        uses=len(group) - 1, where=where, scope=best.scope if not inscope else "",
        definition=_rank(best.raw) <= 2, aliases=tuple(names[:4]))


_PERIPHERAL = {"scripts", "script", "examples", "example", "tools", "recipes", "recipe", "benchmarks", "bench"}


def _peripheral(path: str) -> bool:
    """A helper script or example beside the package is a weaker place to show a knob's definition."""
    return path.split("/", 1)[0].lower() in _PERIPHERAL


def _kind_order(declared_as: str) -> int:
    """Options, fields and config files first, then env reads, then launch lines."""
    head = declared_as.split(" ", 1)[0]
    if head in _CLI or head in ("dataclass", "pydantic", "TypedDict", "yaml", "toml", "json", "ini", "keyword",
                                "parameter", "python"):
        return 0
    return 1 if head in ("env", "config") else 2


def _private(path: str) -> bool:
    """``_generated_trainer.yaml``: a private or generated copy is not where a reader edits the key."""
    return path.rsplit("/", 1)[-1].startswith("_")


def _telling(raw: RawKey) -> int:
    """Launchers and config files that set the key tell more than code that reads it."""
    return {3: 0, 1: 1, 0: 2, 2: 3}[_rank(raw)]


def _note(o: Occurrence) -> str:
    src = o.raw.source
    text = f"{src} sets {o.raw.value[:40]}" if not empty(o.raw.value) and _rank(o.raw) in (1, 3) else src
    return f"{text} [{o.scope}]" if o.scope else text


_WHY_TOKENS: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"offload", "offloading"}), "moves weights or optimizer state off the GPU between phases"),
    (frozenset({"colocate", "colocated", "colocation"}), "puts sampler and trainer on the same devices"),
    (frozenset({"async", "asynchronous", "staleness", "offpolicyness"}),
     "lets sampling run ahead of training (how stale the sampler's weights may be)"),
    (frozenset({"placement", "mapping", "allocation", "pool", "pools"}), "assigns roles to devices or nodes"),
    (frozenset({"sleep", "free", "release"}), "frees the engine's GPU memory while the trainer runs"),
    (frozenset({"utilization", "fraction"}), "the share of a GPU the engine takes (room left for a colocated trainer)"),
    (frozenset({"strategy", "backend"}), "chooses the training or generation backend"),
    (frozenset({"cls", "class", "impl", "factory"}), "chooses which class a role runs"),
    (frozenset({"gpus", "gpu", "devices", "device", "ngpus", "accelerators"}), "how many GPUs a role gets, or which ones"),
    (frozenset({"nnodes", "nodes", "node", "machines"}), "how many nodes the run spans"),
    (frozenset({"tp", "pp", "dp", "ep", "cp", "parallel", "parallelism", "fsdp", "mesh"}),
     "how a model is split across processes"),
    (frozenset({"rank", "ranks"}), "which process this is"),
    (frozenset({"world"}), "how many processes take part"),
    (frozenset({"engines", "replicas", "servers", "instances", "workers", "actors", "procs", "processes", "nproc"}),
     "how many workers or engines are started"),
    (frozenset({"resources", "launcher"}), "what a role's processes are started on, and by what"),
    (frozenset({"concurrent", "concurrency"}), "how much work is kept in flight against the engine at once"),
    (frozenset({"process", "subprocess", "inprocess", "server"}),
     "whether a service runs in the caller's process or in a process of its own"),
)


def why(cls: str, evidence: str, key: str, value: str | None) -> str:
    """One line for a reader: what this key changes about processes and links."""
    toks = set(tokenize(key.rsplit(".", 1)[-1]))
    if evidence.startswith("value") and "import path" in evidence:
        return "loads a class by import path: which code runs in the worker"
    if evidence.startswith("value") and "engine" in evidence:
        return "chooses the engine or backend a role runs"
    if evidence.startswith("value") and "mode" in evidence:
        return "chooses how processes are launched or placed"
    if evidence.startswith("selects a class"):
        return "picks the class a role runs, and so what it starts"
    if evidence.startswith("read where"):
        return "read " + evidence.removeprefix("read ").split(" (", 1)[0]
    if evidence.startswith(("timeout/retry", "a timeout")):
        return "how long a link may stay silent before the run gives up"
    if cls == "port":
        return "where a process listens or connects"
    if cls == "comm":
        if toks & {"update", "sync", "transfer"}:
            return "how weights move from the trainer to the sampler"
        return "the transport between processes"
    for words, text in _WHY_TOKENS:
        if toks & words:
            return text
    return {"process": "how many processes run and where", "layout": "switches the process layout"}.get(cls, "")

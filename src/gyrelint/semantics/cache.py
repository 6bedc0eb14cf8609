"""Reuse of the semantics result when no file (and no extra signal) changed.

The result is stored in the cache store (namespace ``semantics``) as msgpack data,
decoded by the codec into the report records only, under a key made of every file's
content hash, the gyrelint version, the declared extra signals, the scopes and the set of
functions the entry points reach (entry points are found in non-Python files too, and the
handoff lists, the weight-sync path and the boundary modules depend on what is reached).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from pathlib import Path

from ..cachestore import open_store
from ..codec import Plan, Registry
from ..codehash import code_digest
from ..index import Index
from ..model import (
    Diagnostic,
    Evidence,
    FieldContract,
    FieldUse,
    FunctionReport,
    Handoff,
    HandoffKind,
    ModuleReport,
    Side,
)
from ..settings import Settings

NAMESPACE = "semantics"


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    """Where one semantics result is kept: a cache folder and a key."""

    cache_dir: Path
    key: str


@dataclasses.dataclass(frozen=True, slots=True)
class Stored:
    """What a semantics run leaves for the next one."""

    functions: list[FunctionReport]
    modules: list[ModuleReport]
    boundary: list[str]
    handoff: Handoff
    containers: list[str]
    diagnostics: list[Diagnostic]


@functools.cache
def _codec() -> tuple[Registry, Plan]:
    registry = Registry((Side, HandoffKind, Evidence, FunctionReport, ModuleReport, FieldUse, FieldContract,
                         Handoff, Diagnostic, Stored))
    plan = registry.plan(Stored)
    assert plan is not None
    return registry, plan


def cache_path(index: Index, settings: Settings, reached: set[str]) -> Entry | None:
    """The entry of this run's semantics: the key covers the Python files, the signals, the
    scopes and ``reached`` (what the entry points reach: the handoff lists rank reached
    carriers first, the weight-sync path and boundary modules read it, and entry points come
    from files that are not Python too: a console script added to pyproject.toml, a launcher)."""
    if not settings.use_cache or not index.summaries or not all(s.sha for s in index.summaries.values()):
        return None
    h = hashlib.sha256(f"semantics\0{code_digest()}\0{sorted(map(repr, settings.signals))}\0"
                       f"{index.scope_key()}\0".encode())
    for s in sorted(index.summaries.values(), key=lambda s: s.path):
        h.update(f"{s.path}\0{s.module}\0{s.sha}\0".encode())
    h.update(b"reached\0" + "\0".join(sorted(reached)).encode("utf-8", "surrogateescape"))
    return Entry(Path(settings.cache_dir), h.hexdigest())


def dump(sem) -> Stored:
    return Stored(list(sem.functions.values()), list(sem.modules), list(sem.boundary_modules), sem.handoff,
                  list(sem.containers), list(sem.diagnostics))


def load_into(sem, data: Stored, reached: set[str]) -> bool:
    """Fill ``sem`` from cached data (reachability from this run's graphs)."""
    sem.functions = {}
    for f in data.functions:
        f.reached = f.qualname in reached
        sem.functions[f.qualname] = f
    sem.modules = data.modules
    sem.boundary_modules = data.boundary
    sem.handoff = data.handoff
    sem.containers = data.containers
    sem.diagnostics = data.diagnostics
    return True


def read(entry: Entry) -> Stored | None:
    payload = open_store(entry.cache_dir).get(NAMESPACE, entry.key)
    return None if payload is None else decode(payload)


def decode(payload: bytes) -> Stored | None:
    """The result a cache payload holds, or None when it is not a good one."""
    registry, plan = _codec()
    return registry.decode_as(plan, payload, Stored)


def write(entry: Entry, data: Stored) -> None:
    registry, plan = _codec()
    payload = registry.encode_or_none(plan, data)
    if payload is None:
        return  # unstorable data: a cache that cannot be written only costs time
    open_store(entry.cache_dir).put(NAMESPACE, entry.key, payload)

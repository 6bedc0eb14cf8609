"""On-disk reuse of the semantics result when no file (and no extra signal) changed.

The result is stored as plain ``marshal`` data (no code runs on load) under a key made
of every file's content hash, the gyrelint version and the declared extra signals.
Reachability is not stored: it depends on entry points found in non-Python files, so
it is re-read from the graphs on every run.
"""

from __future__ import annotations

import hashlib
import marshal
from pathlib import Path

from ..codehash import code_digest
from ..index import Index
from ..index.cache import write_atomic
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


def cache_path(index: Index, settings: Settings) -> Path | None:
    if not settings.use_cache or not index.summaries or not all(s.sha for s in index.summaries.values()):
        return None
    h = hashlib.sha256(f"semantics\0{code_digest()}\0{sorted(map(repr, settings.signals))}\0"
                       .encode())
    for s in sorted(index.summaries.values(), key=lambda s: s.path):
        h.update(f"{s.path}\0{s.module}\0{s.sha}\0".encode())
    return Path(settings.cache_dir) / "semantics" / h.hexdigest()


def _uses(d: dict[str, list[FieldUse]]) -> dict:
    return {k: tuple((u.file, u.line, u.function) for u in v) for k, v in d.items()}


def dump(sem) -> dict:
    h = sem.handoff
    return {
        "functions": tuple((f.qualname, f.file, f.line, f.side.value, f.handoff_kind.value if f.handoff_kind else None,
                            tuple((e.signal, e.file, e.line, e.via) for e in f.evidence))
                           for f in sem.functions.values()),
        "modules": tuple((m.module, m.side.value, m.boundary) for m in sem.modules),
        "boundary": tuple(sem.boundary_modules),
        "trajectory": tuple(h.trajectory), "weight_sync": tuple(h.weight_sync), "online": h.online,
        "path": tuple(h.weight_sync_path), "produced": _uses(h.fields.produced), "consumed": _uses(h.fields.consumed),
        "containers": tuple(sem.containers),
        "diagnostics": tuple((d.file, d.line, d.message, d.kind) for d in sem.diagnostics),
    }


def load_into(sem, data: dict, reached: set[str]) -> bool:
    """Fill ``sem`` from cached data; False when the data does not have the expected shape."""
    try:
        for q, file, line, side, kind, ev in data["functions"]:
            sem.functions[q] = FunctionReport(q, file, line, Side(side), HandoffKind(kind) if kind else None,
                                              q in reached, [Evidence(*e) for e in ev])
        sem.modules = [ModuleReport(m, Side(s), b) for m, s, b in data["modules"]]
        sem.boundary_modules = list(data["boundary"])
        fc = FieldContract(
            produced={k: [FieldUse(k, *u) for u in v] for k, v in data["produced"].items()},
            consumed={k: [FieldUse(k, *u) for u in v] for k, v in data["consumed"].items()},
        )
        sem.handoff = Handoff(list(data["trajectory"]), list(data["weight_sync"]), bool(data["online"]),
                              list(data["path"]), fc)
        sem.containers = list(data["containers"])
        sem.diagnostics = [Diagnostic(*d) for d in data["diagnostics"]]
    except (KeyError, TypeError, ValueError):
        return False
    return True


def read(path: Path) -> dict | None:
    try:
        data = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return data if isinstance(data, dict) else None


def write(path: Path, data: dict) -> None:
    try:
        write_atomic(path, marshal.dumps(data))
    except ValueError:
        pass  # unmarshallable data: a cache that cannot be written only costs time

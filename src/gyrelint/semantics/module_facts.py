"""Facts that read one module's summary and nothing else, kept per module across runs.

After a code edit the semantics stage runs again over the whole repo, yet what it derives
from one module's summary alone is the same as last time for every module the edit did not
touch. Such facts are kept in the cache store (namespace ``modfacts``), one entry per module,
under a key made of gyrelint's code digest and the module's path, dotted name and content
hash: the summary is a function of exactly these (``index/cache.py`` keys it the same way),
so an entry holds what a cold run would compute. Entries are msgpack data decoded by the
codec into :class:`ModuleFacts` only (nothing runs on load, a bad entry is a miss).

Only a fact computed from the ``FileSummary`` it is handed belongs here: one that reads the
symbol table, another module or the settings would be stale after an edit elsewhere.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..cachestore import open_store
from ..codec import Plan, Registry
from ..codehash import code_digest
from ..index.summary import FileSummary

NAMESPACE = "modfacts"


@dataclass(frozen=True, slots=True)
class ModuleFacts:
    """What the catalog reads of one module's own records, computed once per content."""

    group_scopes: dict[str, int]  # scope -> first line where a flow builds an optimizer parameter group
    group_sites: tuple[int, ...]  # positions in ``summary.calls`` of the calls whose expression builds one


Compute = Callable[[FileSummary], ModuleFacts]


@functools.cache
def _codec() -> tuple[Registry, Plan]:
    registry = Registry((ModuleFacts,))
    plan = registry.plan(ModuleFacts)
    assert plan is not None
    return registry, plan


def decode(payload: bytes) -> ModuleFacts | None:
    """The facts a cache payload holds, or None when it is not a good one."""
    registry, plan = _codec()
    return registry.decode_as(plan, payload, ModuleFacts)


def encode(facts: ModuleFacts) -> bytes | None:
    registry, plan = _codec()
    return registry.encode_or_none(plan, facts)


def entry_key(summary: FileSummary) -> str | None:
    """The module's entry: the analyzer's code and everything its summary is a function of."""
    if not summary.sha:
        return None
    return hashlib.sha256(f"modfacts\0{code_digest()}\0{summary.path}\0{summary.module}\0{summary.sha}".encode(
        "utf-8", "surrogateescape")).hexdigest()


@dataclass(slots=True)
class ModuleFactsCache:
    """One run's module facts: read from the store on first use, computed on a miss, and
    the new ones written back by :meth:`flush`. Without a cache folder, computed only."""

    cache_dir: Path | None = None
    _by_path: dict[str, ModuleFacts] = field(default_factory=dict)
    _new: dict[str, ModuleFacts] = field(default_factory=dict)  # entry key -> facts computed this run
    files: dict[str, FileSummary] = field(default_factory=dict)  # path -> summary (the index's), when known
    _site_ids: dict[str, tuple[frozenset[int], frozenset[int]]] = field(default_factory=dict)

    def of(self, summary: FileSummary, compute: Compute) -> ModuleFacts:
        """The facts of ``summary`` (``compute``: the one function that makes them, ``catalog.module_facts``)."""
        got = self._by_path.get(summary.path)
        if got is not None:
            return got
        key = entry_key(summary) if self.cache_dir is not None else None
        if key is not None:
            payload = open_store(self.cache_dir).get(NAMESPACE, key)
            got = None if payload is None else decode(payload)
            if got is not None and not all(0 <= i < len(summary.calls) for i in got.group_sites):
                got = None  # positions past the module's calls: not this module's entry
        if got is None:
            got = compute(summary)
            if key is not None:
                self._new[key] = got
        self._by_path[summary.path] = got
        return got

    def group_sites(self, summary: FileSummary, compute: Compute) -> tuple[frozenset[int], frozenset[int]]:
        """Identities of the call-site records of ``summary``, and of those whose expression
        builds a parameter group (records are compared by identity: equal calls on two lines are two)."""
        got = self._site_ids.get(summary.path)
        if got is None:
            calls = summary.calls
            hits = frozenset(id(calls[i]) for i in self.of(summary, compute).group_sites)
            got = self._site_ids[summary.path] = (frozenset(map(id, calls)), hits)
        return got

    def flush(self) -> None:
        """Store what this run computed (a store that cannot be written only costs time)."""
        if self.cache_dir is None or not self._new:
            return
        store = open_store(self.cache_dir)
        for key, facts in sorted(self._new.items()):
            payload = encode(facts)
            if payload is not None:
                store.put(NAMESPACE, key, payload)
        self._new.clear()

"""Content-addressed cache of file summaries, kept in the cache store.

Entries are msgpack data decoded by :mod:`gyrelint.codec` into the summary records only
(nothing runs on load), behind a magic, a digest of the summary schema, a layout byte
and a digest of the payload, inside the store's own frame (key and checksum): a
corrupt, truncated, foreign or outdated entry fails one of the checks and is rebuilt.

Layout: each record is the array of its fields; a field that holds records (``calls``,
``CallSite.args``...) is converted by a plan derived once from the dataclasses' type
hints, and every other field is stored as it is. Decoding then costs one constructor
call per record, not one Python call per node of the data (a summary of verl holds
twice as many strings as records). Arrays decode as tuples; a field hinted ``list`` is
turned back into one by its plan, so a decoded summary is ``==`` to the stored one (the
early cutoff compares them). A summary whose values do not match their hints is stored
in a slower tagged layout instead, so nothing is ever stored wrongly.

The same bytes are what a parse worker sends back to the main process: the worker
encodes a summary once, writes it to the cache and returns it, and the main process
only decodes it. A file that cannot be summarised (a syntax error, a bad encoding) gets
an entry too, holding its diagnostic, so a warm run starts no parser for it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import hashlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from ..cachestore import open_store, versioned
from ..codec import Mismatch, Registry
from . import summary as S

MAGIC = b"GYRC\x03"
_FAST, _GENERIC, _PROBLEM = b"S", b"G", b"D"
_TYPES: tuple[type, ...] = tuple(
    t for t in vars(S).values()
    if isinstance(t, type) and dataclasses.is_dataclass(t) and t.__module__ == S.__name__
)
# wire types are not checked field by field here: the entry's two digests cover its
# bytes, and a summary that claims odd facts is no worse than a file that says them
_CODEC = Registry(_TYPES, checked=False)


class CacheError(Exception):
    pass


def _summary_plan():  # noqa: ANN202 - a codec plan
    try:
        return _CODEC.plan(S.FileSummary)
    except (TypeError, NameError):  # hints the codec cannot follow: use the tagged layout
        return None


_SUMMARY = _summary_plan()
# entries written for other record definitions are refused, whatever the cache folder
_SCHEMA = hashlib.sha256(repr([(t.__name__, [(f.name, str(f.type)) for f in dataclasses.fields(t)])
                               for t in _TYPES]).encode()).digest()[:8]
_HEAD = MAGIC + _SCHEMA


@contextlib.contextmanager
def gc_paused(promote: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector while many acyclic records are built.

    Summaries hold no reference cycles, yet every few hundred allocations would start a
    collection, and the full ones walk every object made so far: decoding verl's
    summaries took three times as long with the collector running.

    ``promote``: afterwards, move everything to the oldest generation (``gc.freeze`` then
    ``gc.unfreeze``, two list splices), so the young collections that follow do not walk
    the new records once more; only a full collection, when one is due, visits them.
    Skipped when the caller has frozen objects of its own, which must stay frozen.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if promote and gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        if was:
            gc.enable()


_intern = sys.intern
_SMALL = 3  # longest tuple shared by value: ``("n", name)``, ``("a", base, attr)``, ``("k", 0)``


def _sharer(memo: dict) -> Callable[[tuple], tuple]:
    """The decoder's array hook that interns every string and shares small tuples of strings
    by value, across files through ``memo`` (one per index build).

    The decoder makes a new object for each occurrence: on verl 890 k string objects held
    47 k distinct values (scopes, ``self``, callee and attribute names, repeated in every
    record and expression tree), 52 MiB of a 104 MiB index, and most of its 540 k tuples
    were the same few expression nodes (``("n", "self")``, ``("a", ("n", "self"), "x")``).
    Interned, equal strings are one object shared across files, compared by identity in
    dictionary lookups; ``memo`` does the same for tuples made of strings and such tuples
    only: a number never takes part, since ``1``, ``1.0`` and ``True`` are equal keys and
    sharing would turn one into another.

    msgpack calls the hook on each array as soon as its items are built, innermost first,
    so the items of an array are already shared when it is: one call from C per array and
    no walk of the tree afterwards (that walk, a Python call per tuple recursing into its
    items, was most of the decode). The hook holds no reference to itself, so no cycle
    keeps ``memo`` alive after the build (one did, up to the run's peak: see
    ``tests/test_index_sharing.py``).
    """
    keep = memo.setdefault
    pure: set[int] = memo.setdefault(None, set())  # ids of the tuples in ``memo`` (kept alive by it)
    intern = _intern

    find = memo.get

    def share(v: tuple) -> tuple:
        if len(v) > _SMALL:
            return tuple([intern(x) if type(x) is str else x for x in v])
        try:  # most small arrays were met before: hashing the fresh one finds the shared one
            got = find(v)
        except TypeError:  # holds a map
            got = None
        if got is not None:  # equal to a shared tuple, so made of the same strings: that tuple is the answer
            return got
        v = tuple([intern(x) if type(x) is str else x for x in v])
        for x in v:  # a plain loop over at most three: a third cheaper than a set of types and all()
            if type(x) is not str and (type(x) is not tuple or id(x) not in pure):
                return v
        got = keep(v, v)
        if got is v:
            pure.add(id(v))
        return got

    return share


def _frame(kind: bytes, payload: bytes) -> bytes:
    return _HEAD + kind + hashlib.sha256(payload).digest()[:16] + payload


def encode(key: str, summary: S.FileSummary) -> bytes:
    """Bytes of one cache entry; ValueError when the summary holds unstorable values."""
    if _SUMMARY is not None:
        try:
            return _frame(_FAST, _CODEC.pack((key, _SUMMARY.enc(summary))))
        except (Mismatch, TypeError, AttributeError):
            pass
    return _frame(_GENERIC, _CODEC.pack((key, _CODEC.tagged(summary))))


def encode_problem(key: str, line: int, message: str, kind: str) -> bytes:
    """Bytes of a cache entry for a file that cannot be summarised (a syntax error, a bad
    encoding): a warm run reports it again without starting a parser."""
    return _frame(_PROBLEM, _CODEC.pack((key, (line, message, kind))))


def decode_entry(key: str, data: bytes, memo: dict | None = None) -> S.FileSummary | tuple[int, str, str]:
    """A summary, or the ``(line, message, kind)`` of a file's problem. ``memo``: the values
    already shared by the entries decoded before (see :func:`_sharer`); None: this entry's own."""
    head = len(_HEAD) + 1 + 16
    if len(data) < head or not data.startswith(_HEAD):
        raise CacheError("not a gyrelint cache entry of this version")
    kind, digest, payload = data[len(_HEAD) : len(_HEAD) + 1], data[len(_HEAD) + 1 : head], data[head:]
    if hashlib.sha256(payload).digest()[:16] != digest:
        raise CacheError("checksum mismatch")
    if kind not in (_FAST, _GENERIC, _PROBLEM):
        raise CacheError("unknown entry layout")
    with gc_paused():
        try:
            fast = kind == _FAST and _SUMMARY is not None
            got = _CODEC.unpack(payload, _sharer({} if memo is None else memo) if fast else None)
            if type(got) is not tuple or len(got) != 2:
                raise CacheError("bad entry")
            stored_key, body = got
            if stored_key != key:
                raise CacheError("entry belongs to another file")
            if kind == _PROBLEM:
                if type(body) is not tuple or len(body) != 3 or type(body[0]) is not int \
                        or type(body[1]) is not str or type(body[2]) is not str:
                    raise CacheError("bad problem entry")
                return body  # type: ignore[return-value]
            if kind == _FAST:
                if _SUMMARY is None:
                    raise CacheError("unknown entry layout")
                result = _SUMMARY.dec(body)
            else:
                result = body
        except CacheError:
            raise
        except Exception as exc:  # noqa: BLE001 - any decoder failure is a bad entry
            raise CacheError(f"{exc.__class__.__name__}: {exc}") from exc
    if not isinstance(result, S.FileSummary):
        raise CacheError("not a file summary")
    return result


def decode(key: str, data: bytes, memo: dict | None = None) -> S.FileSummary:
    got = decode_entry(key, data, memo)
    if not isinstance(got, S.FileSummary):
        raise CacheError("not a file summary")
    return got


class SummaryCache:
    """The summaries of one analyzer version: a versioned namespace of the cache store
    (the store prunes it once another version has replaced it for a week)."""

    def __init__(self, directory: Path, version: str) -> None:
        self.store = open_store(directory)
        self.namespace = versioned("summaries", version)

    def _path(self, key: str) -> Path:
        return self.store.path(self.namespace, key)

    def get(self, key: str) -> S.FileSummary | None:
        got = self.lookup(key)
        return got if isinstance(got, S.FileSummary) else None

    def has(self, key: str) -> bool:
        """Whether ``key`` has an entry (not yet whether it is a good one)."""
        return self.store.has(self.namespace, key)

    def lookup(self, key: str, memo: dict | None = None) -> S.FileSummary | tuple[int, str, str] | None:
        """The entry of ``key``: a summary, a file's ``(line, message, kind)`` problem, or
        None when there is none or it is bad."""
        data = self.store.get(self.namespace, key)
        if data is None:
            return None
        try:
            return decode_entry(key, data, memo)
        except CacheError:
            return None

    def put(self, key: str, summary: S.FileSummary) -> None:
        try:
            data = encode(key, summary)
        except ValueError:
            return
        self.put_bytes(key, data)

    def put_bytes(self, key: str, data: bytes) -> None:
        """Store an entry ``encode`` already made."""
        self.store.put(self.namespace, key, data)


def cache_key(version: str, path: str, module: str, content: bytes) -> str:
    h = hashlib.sha256()
    h.update(version.encode())
    h.update(b"\0")
    h.update(path.encode("utf-8", "surrogateescape"))
    h.update(b"\0")
    h.update(module.encode())
    h.update(b"\0")
    h.update(content)
    return h.hexdigest()

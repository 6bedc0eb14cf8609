"""Content-addressed on-disk cache of file summaries.

Entries are ``marshal`` data (no code runs on load, unlike pickle) behind a magic, a
digest of the summary schema, the entry's own key and a digest of the payload: a
corrupt, truncated, foreign or outdated entry fails one of the checks and is rebuilt.
Writes go through a temporary file and an atomic rename, so two concurrent runs never
see half an entry.

Layout: each record is the tuple of its fields; a field that holds records (``calls``,
``CallSite.args``...) is converted by a plan derived once from the dataclasses' type
hints, and every other field is stored as it is. Decoding then costs one constructor
call per record, not one Python call per node of the data (a summary of verl holds
twice as many strings as records). A summary whose values do not match their hints is
stored in a slower generic tagged layout instead, so nothing is ever stored wrongly.

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
import marshal
import operator
import os
import tempfile
import types
import typing
from collections.abc import Callable, Iterator
from itertools import starmap
from pathlib import Path

from . import summary as S

MAGIC = b"GYRC\x02"
_FAST, _GENERIC, _PROBLEM = b"S", b"G", b"D"
_TAG = "\x00gyr"
_TYPES: tuple[type, ...] = tuple(
    t for t in vars(S).values()
    if isinstance(t, type) and dataclasses.is_dataclass(t) and t.__module__ == S.__name__
)
_INDEX = {t: i for i, t in enumerate(_TYPES)}
_FIELDS = [tuple(f.name for f in dataclasses.fields(t)) for t in _TYPES]
_PLAIN = frozenset({str, int, float, bool, type(None)})  # decoded as they are, without a call

Conv = Callable[[object], object]


class CacheError(Exception):
    pass


class _Mismatch(ValueError):
    """A value does not have the shape its type hint promises."""


# -- generic layout: a tagged walk of every node (for summaries that do not fit the hints)


def _enc(obj: object) -> object:
    idx = _INDEX.get(type(obj))
    if idx is not None:
        return (_TAG, idx, tuple(_enc(getattr(obj, f)) for f in _FIELDS[idx]))
    if isinstance(obj, list):
        return [_enc(x) for x in obj]
    if isinstance(obj, tuple):
        enc = tuple(_enc(x) for x in obj)
        if enc and enc[0] == _TAG:
            return (_TAG, -1, enc)  # escape a literal that looks like a tag
        return enc
    if isinstance(obj, dict):
        return {k: _enc(v) for k, v in obj.items()}
    return obj


def _dec(obj: object) -> object:
    if isinstance(obj, tuple):
        if len(obj) == 3 and obj[0] == _TAG and isinstance(obj[1], int):
            idx, vals = obj[1], obj[2]
            if idx == -1:
                return tuple(_dec(x) for x in vals)
            if not (0 <= idx < len(_TYPES)) or not isinstance(vals, tuple) or len(vals) != len(_FIELDS[idx]):
                raise CacheError("bad record")
            return _TYPES[idx](*(v if type(v) in _PLAIN else _dec(v) for v in vals))
        return tuple(_dec(x) for x in obj)
    if isinstance(obj, list):
        return [x if type(x) in _PLAIN else _dec(x) for x in obj]
    if isinstance(obj, dict):
        return {k: _dec(v) for k, v in obj.items()}
    return obj


# -- fast layout: plans derived from the type hints


@dataclasses.dataclass(frozen=True)
class _Plan:
    enc: Conv
    dec: Conv
    record: type | None = None  # set when the value is a record without nested records
    get: Conv | None = None  # that record's fields as a tuple
    keeps_empty: bool = True  # an empty or None stored value decodes to itself


def _record_plan(cls: type, building: set[type]) -> _Plan:
    if cls in building:  # a recursive type: no fixed plan
        raise TypeError(cls)
    building.add(cls)
    try:
        hints = typing.get_type_hints(cls)
        names = _FIELDS[_INDEX[cls]]
        plans = [_plan(hints[n], building) for n in names]
    finally:
        building.discard(cls)
    n_fields = len(names)
    get: Conv = operator.attrgetter(*names) if n_fields > 1 else (lambda o: (getattr(o, names[0]),))
    nested = [(i, p.enc, p.dec) for i, p in enumerate(plans) if p is not None]
    # fields whose empty or None value decodes to itself are converted only when set
    lazy = [(i, d) for i, _, d in nested if plans[i].keeps_empty]  # type: ignore[union-attr]
    eager = [(i, d) for i, _, d in nested if not plans[i].keeps_empty]  # type: ignore[union-attr]
    if not nested:
        def enc_flat(obj: object) -> object:
            if type(obj) is not cls:
                raise _Mismatch(cls.__name__)
            return get(obj)

        def dec_flat(vals: object) -> object:
            if len(vals) != n_fields:  # type: ignore[arg-type]
                raise CacheError(f"bad {cls.__name__} record")
            return cls(*vals)  # type: ignore[misc]

        return _Plan(enc_flat, dec_flat, cls, get)

    def enc(obj: object) -> object:
        if type(obj) is not cls:
            raise _Mismatch(cls.__name__)
        vals = list(get(obj))
        for i, e, _ in nested:
            vals[i] = e(vals[i])
        return tuple(vals)

    pick = operator.itemgetter(*[i for i, _ in lazy], 0) if lazy else None  # 0: always a tuple

    def dec(vals: object) -> object:
        if len(vals) != n_fields:  # type: ignore[arg-type]
            raise CacheError(f"bad {cls.__name__} record")
        if not eager and not any(pick(vals)[:-1]):  # type: ignore[misc]
            return cls(*vals)  # type: ignore[misc]  # nothing nested is set
        out = list(vals)  # type: ignore[call-overload]
        for i, d in lazy:
            if out[i]:
                out[i] = d(out[i])
        for i, d in eager:
            out[i] = d(out[i])
        return cls(*out)

    return _Plan(enc, dec)


def _seq_plan(container: type, elem: _Plan) -> _Plan:
    if elem.record is not None:  # a sequence of flat records: constructor calls from C
        cls, get = elem.record, elem.get

        def enc_flat(seq: object) -> object:
            if type(seq) is not container or not set(map(type, seq)) <= {cls}:  # type: ignore[call-overload]
                raise _Mismatch(container.__name__)
            return tuple(map(get, seq))  # type: ignore[arg-type]

        def dec_flat(seq: object) -> object:
            return container(starmap(cls, seq))  # type: ignore[call-overload]

        return _Plan(enc_flat, dec_flat, keeps_empty=container is tuple)
    e, d = elem.enc, elem.dec

    def enc(seq: object) -> object:
        if type(seq) is not container:
            raise _Mismatch(container.__name__)
        return tuple(map(e, seq))  # type: ignore[call-overload]

    def dec(seq: object) -> object:
        return container(map(d, seq))  # type: ignore[call-overload]

    return _Plan(enc, dec, keeps_empty=container is tuple)


def _plan(hint: object, building: set[type]) -> _Plan | None:
    """How to store a value of type ``hint``: None when it holds no record (stored as it is)."""
    if hint in _INDEX:
        return _record_plan(hint, building)  # type: ignore[arg-type]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        plans = [_plan(a, building) for a in args if a is not type(None)]
        if all(p is None for p in plans):
            return None
        if len(plans) != 1 or len(args) != 2:
            raise TypeError(hint)  # a union of records: no fixed plan
        inner = plans[0]
        assert inner is not None
        ie, idc = inner.enc, inner.dec
        return _Plan(lambda v: None if v is None else ie(v), lambda v: None if v is None else idc(v),
                     keeps_empty=inner.keeps_empty)
    if origin in (tuple, list) and (origin is list or (len(args) == 2 and args[1] is Ellipsis)):
        elem = _plan(args[0], building) if args else None
        return None if elem is None else _seq_plan(origin, elem)
    if origin is tuple:  # fixed shape, e.g. tuple[str, Arg]
        parts = [_plan(a, building) for a in args]
        if all(p is None for p in parts):
            return None
        encs = [p.enc if p else None for p in parts]
        decs = [p.dec if p else None for p in parts]
        size = len(args)

        def enc_fixed(v: object) -> object:
            if type(v) is not tuple or len(v) != size:
                raise _Mismatch("tuple")
            return tuple([c(x) if c else x for c, x in zip(encs, v, strict=True)])

        def dec_fixed(v: object) -> object:
            if len(v) != size:  # type: ignore[arg-type]
                raise CacheError("bad tuple")
            return tuple([c(x) if c else x for c, x in zip(decs, v, strict=True)])  # type: ignore[call-overload]

        return _Plan(enc_fixed, dec_fixed)
    if origin is dict:
        if _plan(args[0], building) is not None:
            raise TypeError(hint)
        val = _plan(args[1], building)
        if val is None:
            return None
        ve, vd = val.enc, val.dec

        def enc_dict(v: object) -> object:
            if type(v) is not dict:
                raise _Mismatch("dict")
            return {k: ve(x) for k, x in v.items()}

        return _Plan(enc_dict, lambda v: {k: vd(x) for k, x in v.items()})  # type: ignore[attr-defined]
    if any(_plan(a, building) is not None for a in args if a is not Ellipsis):
        raise TypeError(hint)  # another container of records
    return None


def _summary_plan() -> _Plan | None:
    try:
        return _record_plan(S.FileSummary, set())
    except (TypeError, NameError):  # hints this module cannot follow: use the generic layout
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


def encode(key: str, summary: S.FileSummary) -> bytes:
    """Bytes of one cache entry; ValueError when the summary holds unstorable values."""
    kind, payload = _GENERIC, b""
    if _SUMMARY is not None:
        try:  # a record where the hints promise a plain value makes marshal refuse it
            kind, payload = _FAST, marshal.dumps((key, _SUMMARY.enc(summary)))
        except (ValueError, TypeError, AttributeError):
            kind = _GENERIC
    if kind == _GENERIC:
        payload = marshal.dumps((key, _enc(summary)))
    return _HEAD + kind + hashlib.sha256(payload).digest()[:16] + payload


def encode_problem(key: str, line: int, message: str, kind: str) -> bytes:
    """Bytes of a cache entry for a file that cannot be summarised (a syntax error, a bad
    encoding): a warm run reports it again without starting a parser."""
    payload = marshal.dumps((key, (line, message, kind)))
    return _HEAD + _PROBLEM + hashlib.sha256(payload).digest()[:16] + payload


def decode_entry(key: str, data: bytes) -> S.FileSummary | tuple[int, str, str]:
    """A summary, or the ``(line, message, kind)`` of a file's problem."""
    head = len(_HEAD) + 1 + 16
    if len(data) < head or not data.startswith(_HEAD):
        raise CacheError("not a gyrelint cache entry of this version")
    kind, digest, payload = data[len(_HEAD) : len(_HEAD) + 1], data[len(_HEAD) + 1 : head], data[head:]
    if hashlib.sha256(payload).digest()[:16] != digest:
        raise CacheError("checksum mismatch")
    if kind == _PROBLEM:
        try:
            stored_key, (line, message, problem) = marshal.loads(payload)
        except (ValueError, EOFError, TypeError) as exc:
            raise CacheError(str(exc)) from exc
        if stored_key != key or type(line) is not int or type(message) is not str or type(problem) is not str:
            raise CacheError("bad problem entry")
        return line, message, problem
    with gc_paused():
        try:
            stored_key, body = marshal.loads(payload)
        except (ValueError, EOFError, TypeError) as exc:
            raise CacheError(str(exc)) from exc
        if stored_key != key:
            raise CacheError("entry belongs to another file")
        try:
            if kind == _FAST and _SUMMARY is not None:
                result = _SUMMARY.dec(body)
            elif kind == _GENERIC:
                result = _dec(body)
            else:
                raise CacheError("unknown entry layout")
        except (TypeError, ValueError, AttributeError, IndexError, KeyError, RecursionError) as exc:
            raise CacheError(f"{exc.__class__.__name__}: {exc}") from exc
    if not isinstance(result, S.FileSummary):
        raise CacheError("not a file summary")
    return result


def decode(key: str, data: bytes) -> S.FileSummary:
    got = decode_entry(key, data)
    if not isinstance(got, S.FileSummary):
        raise CacheError("not a file summary")
    return got


class SummaryCache:
    def __init__(self, directory: Path, version: str) -> None:
        self.dir = directory / f"v{version}"

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / key

    def get(self, key: str) -> S.FileSummary | None:
        got = self.lookup(key)
        return got if isinstance(got, S.FileSummary) else None

    def has(self, key: str) -> bool:
        """Whether ``key`` has an entry (not yet whether it is a good one)."""
        return self._path(key).is_file()

    def lookup(self, key: str) -> S.FileSummary | tuple[int, str, str] | None:
        """The entry of ``key``: a summary, a file's ``(line, message, kind)`` problem, or
        None when there is none (a bad entry is deleted)."""
        path = self._path(key)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        try:
            return decode_entry(key, data)
        except CacheError:
            try:
                path.unlink()
            except OSError:
                pass
            return None

    def put(self, key: str, summary: S.FileSummary) -> None:
        try:
            data = encode(key, summary)
        except ValueError:
            return
        self.put_bytes(key, data)

    def put_bytes(self, key: str, data: bytes) -> None:
        """Store an entry ``encode`` already made."""
        write_atomic(self._path(key), data)


def write_atomic(path: Path, data: bytes) -> None:
    """Write a cache file through a temporary file and a rename, so concurrent runs never
    read half an entry; a cache that cannot be written only costs time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError:
        pass


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

"""Content-addressed on-disk cache of file summaries.

Entries are ``marshal`` data (no code runs on load, unlike pickle) behind a magic,
the entry's own key and a digest: a corrupt, truncated or foreign entry fails one of
the three checks and is rebuilt. Writes go through a temporary file and an atomic
rename, so two concurrent runs never see half an entry.
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
import os
import tempfile
from pathlib import Path

from . import summary as S

MAGIC = b"GYRC\x01"
_TAG = "\x00gyr"
_TYPES: tuple[type, ...] = (
    S.Arg, S.CallSite, S.Import, S.Assignment, S.Subscript, S.AttrAccess, S.StringConst, S.Skip,
    S.Param, S.FunctionDef, S.ClassDef, S.FileSummary, S.Flow,
)
_INDEX = {t: i for i, t in enumerate(_TYPES)}
_FIELDS = [tuple(f.name for f in dataclasses.fields(t)) for t in _TYPES]
# fields holding plain nested tuples (expression trees) are stored as they are, not walked
_OPAQUE_FIELDS = {S.Flow: {"target", "value"}, S.CallSite: {"expr"}}
_OPAQUE = [tuple(f in _OPAQUE_FIELDS.get(t, ()) for f in _FIELDS[i]) for i, t in enumerate(_TYPES)]
_PLAIN = frozenset({str, int, float, bool, type(None)})  # decoded as they are, without a call


class CacheError(Exception):
    pass


def _enc(obj: object) -> object:
    idx = _INDEX.get(type(obj))
    if idx is not None:
        return (_TAG, idx, tuple(getattr(obj, f) if raw else _enc(getattr(obj, f))
                                 for f, raw in zip(_FIELDS[idx], _OPAQUE[idx], strict=True)))
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
            return _TYPES[idx](*(v if raw or type(v) in _PLAIN else _dec(v)
                                 for v, raw in zip(vals, _OPAQUE[idx], strict=True)))
        return tuple(_dec(x) for x in obj)
    if isinstance(obj, list):
        return [x if type(x) in _PLAIN else _dec(x) for x in obj]
    if isinstance(obj, dict):
        return {k: _dec(v) for k, v in obj.items()}
    return obj


def encode(key: str, summary: S.FileSummary) -> bytes:
    payload = marshal.dumps((key, _enc(summary)))
    return MAGIC + hashlib.sha256(payload).digest()[:16] + payload


def decode(key: str, data: bytes) -> S.FileSummary:
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 16:
        raise CacheError("not a gyrelint cache entry")
    digest, payload = data[len(MAGIC) : len(MAGIC) + 16], data[len(MAGIC) + 16 :]
    if hashlib.sha256(payload).digest()[:16] != digest:
        raise CacheError("checksum mismatch")
    try:
        stored_key, body = marshal.loads(payload)
    except (ValueError, EOFError, TypeError) as exc:
        raise CacheError(str(exc)) from exc
    if stored_key != key:
        raise CacheError("entry belongs to another file")
    try:
        result = _dec(body)
    except (TypeError, ValueError, RecursionError) as exc:
        raise CacheError(str(exc)) from exc
    if not isinstance(result, S.FileSummary):
        raise CacheError("not a file summary")
    return result


class SummaryCache:
    def __init__(self, directory: Path, version: str) -> None:
        self.dir = directory / f"v{version}"

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / key

    def get(self, key: str) -> S.FileSummary | None:
        path = self._path(key)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        try:
            return decode(key, data)
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

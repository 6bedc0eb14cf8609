"""The one on-disk store behind every gyrelint cache: framed entries, atomic writes, safe cleanup.

Stages ask for bytes by namespace and key (``get``/``put``) and never see a path. The
cache folder may sit inside the analyzed repo, or be shared between CI jobs, so its
content is untrusted:

* every entry is framed with a magic, a format version, its own key and a sha256 over
  key and payload: a bad, truncated, foreign, moved or old-format entry is a miss;
* every folder below the root and every entry is opened relative to its parent's
  descriptor with ``O_NOFOLLOW``, so a symlink planted in the cache is never read or
  written through (a root that is itself a symlink is not used at all);
* writes go to a fresh temporary file in the entry's folder and are renamed over it;
* cleanup runs only under a root gyrelint marked with ``CACHEDIR.TAG`` (written when it
  creates the root or finds it empty) and deletes only names gyrelint makes: entries
  named by a hex key and its own temporary files, inside its own namespace and shard
  folders. A ``vendor/``, another tool's folder or a user's file is never touched.

Two cleanup rules keep the store bounded: entries of the unversioned namespaces (whole
analyses, graphs, semantics and its per-module facts, findings, pointers) share a size budget and the least
recently used go first; a versioned namespace (the summaries of one analyzer version)
that is not in use goes once nothing touched it for a week.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import stat
import time
from pathlib import Path

MAGIC = b"GYRS"
FORMAT = 1  # bump when the frame changes
TAG_NAME = "CACHEDIR.TAG"
TAG_SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"
TAG_TEXT = TAG_SIGNATURE + (b"\n# This file is a cache directory tag created by gyrelint.\n"
                            b"# For information about cache directory tags, see https://bford.info/cachedir/\n")
BUDGET = 512 << 20  # bytes of unversioned entries before the least recently used go
STALE_SECONDS = 7 * 24 * 3600  # an unused versioned namespace goes after this long untouched
TMP_STALE_SECONDS = 3600  # a temporary file this old belongs to a run that died
MAX_ENTRY = 1 << 30  # an entry file larger than this is not read

# the namespaces gyrelint makes: whole-run entries (one size budget), and per-version ones
NAMESPACES = frozenset({"analysis", "last", "graphs", "semantics", "findings", "provenance", "configs", "modfacts"})
VERSIONED = frozenset({"summaries"})

_KEY = re.compile(r"[0-9a-f]{16,64}\Z")
_NAMESPACE = re.compile(rf"({'|'.join(sorted(NAMESPACES))})\Z|({'|'.join(sorted(VERSIONED))})-[0-9a-f]{{16}}\Z")
_SHARD = re.compile(r"[0-9a-f]{2}\Z")
_TMP = re.compile(r"\.tmp-[0-9]+-[0-9a-f]{16}\Z")
_DIGEST = 32
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_DIR_FLAGS = os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
_USABLE = bool(_O_NOFOLLOW and _O_DIRECTORY) and os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd


def versioned(name: str, version: str) -> str:
    """The namespace of ``name`` for one analyzer version (pruned once unused and stale)."""
    if name not in VERSIONED:
        raise ValueError(f"{name!r} is not a versioned cache namespace")
    return f"{name}-{hashlib.sha256(version.encode()).hexdigest()[:16]}"


def frame(namespace: str, key: str, payload: bytes) -> bytes:
    """The bytes of an entry file: magic, format, key, checksum, payload."""
    k = key.encode("ascii")
    return MAGIC + bytes((FORMAT, len(k))) + k + hashlib.sha256(k + payload).digest() + payload


def unframe(key: str, data: bytes) -> bytes | None:
    """The payload of an entry file, or None when any check fails."""
    k = key.encode("ascii")
    head = len(MAGIC) + 2 + len(k)
    if len(data) < head + _DIGEST or data[: len(MAGIC)] != MAGIC or data[len(MAGIC)] != FORMAT:
        return None
    if data[len(MAGIC) + 1] != len(k) or data[len(MAGIC) + 2 : head] != k:
        return None
    payload = data[head + _DIGEST :]
    if hashlib.sha256(k + payload).digest() != data[head : head + _DIGEST]:
        return None
    return payload


def _valid(namespace: str, key: str) -> bool:
    return bool(_NAMESPACE.match(namespace) and _KEY.match(key))


def _close(fd: int | None) -> None:
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass


class CacheStore:
    """Entries under ``root/<namespace>/<key[:2]>/<key>``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._ready = False  # the root exists and was marked if it was ours to mark

    # -- folders

    def _open_root(self, create: bool) -> int | None:
        if not _USABLE:
            return None
        try:
            fd = os.open(self.root, _DIR_FLAGS)
        except FileNotFoundError:
            if not create:
                return None
            try:
                os.makedirs(self.root, exist_ok=True)
                fd = os.open(self.root, _DIR_FLAGS)
            except OSError:
                return None
        except OSError:  # a symlink (ELOOP), not a folder, unreadable: no cache
            return None
        if create and not self._ready:
            self._ready = True
            try:
                if not os.listdir(fd):
                    _write_new(fd, TAG_NAME, TAG_TEXT)
            except OSError:
                pass
        return fd

    def _open_dirs(self, fd: int, parts: tuple[str, ...], create: bool) -> int | None:
        """The descriptor of ``parts`` below ``fd`` (which it consumes), never through a symlink."""
        for part in parts:
            try:
                nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    _close(fd)
                    return None
                try:
                    os.mkdir(part, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
                except OSError:
                    _close(fd)
                    return None
                try:
                    nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except OSError:
                    _close(fd)
                    return None
            except OSError:
                _close(fd)
                return None
            _close(fd)
            fd = nfd
        return fd

    def _shard(self, namespace: str, key: str, create: bool) -> int | None:
        root = self._open_root(create)
        if root is None:
            return None
        return self._open_dirs(root, (namespace, key[:2]), create)

    def path(self, namespace: str, key: str) -> Path:
        """Where the entry of ``key`` lives (for tests and messages; stages never need it)."""
        return self.root / namespace / key[:2] / key

    # -- entries

    def get(self, namespace: str, key: str) -> bytes | None:
        """The payload stored under ``key``, or None (absent, unreadable or failing a check)."""
        if not _valid(namespace, key):
            return None
        sfd = self._shard(namespace, key, create=False)
        if sfd is None:
            return None
        try:
            try:
                fd = os.open(key, os.O_RDONLY | _O_NOFOLLOW | _O_CLOEXEC | os.O_NONBLOCK, dir_fd=sfd)
            except OSError:
                return None
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_ENTRY:
                    return None
                data = _read_all(fd, st.st_size)
                payload = unframe(key, data)
                if payload is not None and "-" not in namespace:
                    try:
                        os.utime(fd)  # least recently used goes first; noatime mounts never record reads
                    except OSError:
                        pass
            finally:
                _close(fd)
            if payload is None and self.marked():  # a bad entry would be found bad on every run: drop it
                try:
                    os.unlink(key, dir_fd=sfd)
                except OSError:
                    pass
            return payload
        finally:
            _close(sfd)

    def has(self, namespace: str, key: str) -> bool:
        """Whether ``key`` has an entry file (not yet whether it is a good one)."""
        if not _valid(namespace, key):
            return False
        sfd = self._shard(namespace, key, create=False)
        if sfd is None:
            return False
        try:
            return stat.S_ISREG(os.stat(key, dir_fd=sfd, follow_symlinks=False).st_mode)
        except OSError:
            return False
        finally:
            _close(sfd)

    def put(self, namespace: str, key: str, payload: bytes) -> None:
        """Store ``payload``; a cache that cannot be written only costs time, so never raises."""
        if not _valid(namespace, key):
            raise ValueError(f"bad cache namespace or key: {namespace!r} {key!r}")
        sfd = self._shard(namespace, key, create=True)
        if sfd is None:
            return
        try:
            tmp = f".tmp-{os.getpid()}-{secrets.token_hex(8)}"
            try:
                _write_new(sfd, tmp, frame(namespace, key, payload))
            except OSError:
                return
            try:
                os.replace(tmp, key, src_dir_fd=sfd, dst_dir_fd=sfd)
            except OSError:
                try:
                    os.unlink(tmp, dir_fd=sfd)
                except OSError:
                    pass
        finally:
            _close(sfd)

    # -- cleanup

    def marked(self) -> bool:
        """Whether the root carries gyrelint's ``CACHEDIR.TAG`` (a regular file, not a symlink)."""
        root = self._open_root(create=False)
        if root is None:
            return False
        try:
            fd = os.open(TAG_NAME, os.O_RDONLY | _O_NOFOLLOW | _O_CLOEXEC | os.O_NONBLOCK, dir_fd=root)
        except OSError:
            return False
        finally:
            _close(root)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return False
            return os.read(fd, len(TAG_SIGNATURE)) == TAG_SIGNATURE
        except OSError:
            return False
        finally:
            _close(fd)

    def prune(self, keep: set[str], budget: int | None = None, stale_seconds: float | None = None,
              now: float | None = None) -> list[Path]:
        """Apply the two cleanup rules; ``keep``: versioned namespaces in use by this run.
        Returns what was deleted. Does nothing under an unmarked root. Never raises."""
        if not self.marked():
            return []
        now = time.time() if now is None else now
        budget = BUDGET if budget is None else budget
        stale_seconds = STALE_SECONDS if stale_seconds is None else stale_seconds
        removed: list[Path] = []
        lru: list[tuple[float, int, str, str, str]] = []
        for ns in self._names(()):
            if "-" not in ns:
                lru += self._entries(ns)
            elif ns not in keep and now - self._newest(ns) > stale_seconds:
                for _, _, _, shard, name in self._entries(ns):
                    if self._unlink(ns, shard, name):
                        removed.append(self.root / ns / shard / name)
                self._rmdirs(ns)
        stale_tmp = [e for e in lru if _TMP.match(e[4]) and now - e[0] > TMP_STALE_SECONDS]
        for _, _, ns, shard, name in stale_tmp:
            if self._unlink(ns, shard, name):
                removed.append(self.root / ns / shard / name)
        entries = [e for e in lru if _KEY.match(e[4])]
        total = sum(size for _, size, *_ in entries)
        if total > budget:
            for _, size, ns, shard, name in sorted(entries):  # least recently used first
                if total <= budget * 0.8:
                    break
                if self._unlink(ns, shard, name):
                    total -= size
                    removed.append(self.root / ns / shard / name)
        return removed

    def _names(self, parts: tuple[str, ...]) -> list[str]:
        """Sub-folders of ``parts`` named as gyrelint names them (namespaces, then shards)."""
        pattern = _NAMESPACE if not parts else _SHARD
        root = self._open_root(create=False)
        fd = None if root is None else self._open_dirs(root, parts, create=False)
        if fd is None:
            return []
        try:
            with os.scandir(fd) as it:
                return [e.name for e in it if pattern.match(e.name) and e.is_dir(follow_symlinks=False)]
        except OSError:
            return []
        finally:
            _close(fd)

    def _entries(self, ns: str) -> list[tuple[float, int, str, str, str]]:
        """(mtime, size, namespace, shard, name) of the entry and temporary files of ``ns``."""
        out: list[tuple[float, int, str, str, str]] = []
        for shard in self._names((ns,)):
            root = self._open_root(create=False)
            fd = None if root is None else self._open_dirs(root, (ns, shard), create=False)
            if fd is None:
                continue
            try:
                with os.scandir(fd) as it:
                    for e in it:
                        if not (_KEY.match(e.name) or _TMP.match(e.name)):
                            continue
                        try:
                            st = e.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        if stat.S_ISREG(st.st_mode):
                            out.append((st.st_mtime, st.st_size, ns, shard, e.name))
            except OSError:
                pass
            finally:
                _close(fd)
        return out

    def _newest(self, ns: str) -> float:
        """Latest change in a namespace: the folder or one of its shard folders."""
        newest = 0.0
        root = self._open_root(create=False)
        fd = None if root is None else self._open_dirs(root, (ns,), create=False)
        if fd is None:
            return newest
        try:
            newest = os.fstat(fd).st_mtime
            for shard in self._names((ns,)):
                try:
                    newest = max(newest, os.stat(shard, dir_fd=fd, follow_symlinks=False).st_mtime)
                except OSError:
                    continue
        finally:
            _close(fd)
        return newest

    def _unlink(self, ns: str, shard: str, name: str) -> bool:
        root = self._open_root(create=False)
        fd = None if root is None else self._open_dirs(root, (ns, shard), create=False)
        if fd is None:
            return False
        try:
            os.unlink(name, dir_fd=fd)
            return True
        except OSError:
            return False
        finally:
            _close(fd)

    def _rmdirs(self, ns: str) -> None:
        """Remove a namespace's shard folders and itself, where nothing else is left in them."""
        root = self._open_root(create=False)
        fd = None if root is None else self._open_dirs(root, (ns,), create=False)
        if fd is None:
            return
        try:
            for shard in self._names((ns,)):
                try:
                    os.rmdir(shard, dir_fd=fd)
                except OSError:
                    continue
        finally:
            _close(fd)
        root = self._open_root(create=False)
        if root is not None:
            try:
                os.rmdir(ns, dir_fd=root)
            except OSError:
                pass
            finally:
                _close(root)


def _write_new(dir_fd: int, name: str, data: bytes) -> None:
    """Create ``name`` (never an existing file, never through a symlink) holding ``data``."""
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC, 0o644, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except BaseException:
        _close(fd)
        try:
            os.unlink(name, dir_fd=dir_fd)
        except OSError:
            pass
        raise
    _close(fd)


def _read_all(fd: int, size: int) -> bytes:
    chunks, left = [], size
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 24))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


_STORES: dict[str, CacheStore] = {}


def open_store(root: Path | str) -> CacheStore:
    """The store of the cache folder ``root`` (one object per folder and process)."""
    key = os.fspath(root)
    got = _STORES.get(key)
    if got is None:
        got = _STORES[key] = CacheStore(Path(key))
    return got

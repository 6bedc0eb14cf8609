"""Whole-analysis cache: when no file of the repo changed, load the finished analysis.

This is the warm path of pre-commit, flake8 and CI re-runs. The key covers the content
of every file discovery lists (Python and the configs, launchers and READMEs later stages
read), the settings and the analyzer version. The per-file summaries are not stored
again: the loaded analysis reads them lazily from the summary cache, so a warm run costs
one file hash pass and one load. The per-call resolution (``graphs.resolved``) is not
kept either: every stage that reads it has already run, and its results are stored.

Entries are pickles, so loading is restricted to gyrelint's and networkx's own classes and
a few builtins, behind a digest: a corrupt, truncated or foreign entry is refused and the
analysis is recomputed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import marshal
import pickle
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from . import cache_gc
from .codehash import code_digest
from .index import build_index, parse_source
from .index.cache import SummaryCache, cache_key, gc_paused, write_atomic
from .index.summary import FileSummary
from .repo import RepoFiles
from .settings import Settings

if TYPE_CHECKING:
    from .analysis import Analysis

MAGIC = b"GYRA\x02"
FORMAT = 2  # bump when what is stored changes
_SAFE_BUILTINS = {"set", "frozenset", "list", "dict", "tuple", "bytes", "bytearray", "complex", "slice", "range",
                  "object", "int", "float", "str", "bool"}
_SAFE_MODULES = ("gyrelint.", "networkx.")
_SAFE_EXACT = {("pathlib", "PosixPath"), ("pathlib", "WindowsPath"), ("pathlib", "Path"),
               ("collections", "OrderedDict"), ("collections", "defaultdict"), ("collections", "Counter"),
               ("copyreg", "_reconstructor"), ("copyreg", "__newobj__")}


class _RestrictedUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):  # noqa: ANN201 - pickle's signature
        if module == "builtins" and name in _SAFE_BUILTINS:
            return super().find_class(module, name)
        if module.startswith(_SAFE_MODULES) or (module, name) in _SAFE_EXACT:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a gyrelint cache entry")


class _FastPickler(pickle.Pickler):
    """Store dataclass records as constructor calls: loading them then skips the slow
    ``__setstate__`` that slotted dataclasses get."""

    _plain: dict[type, tuple[str, ...] | None] = {}

    def reducer_override(self, obj: object):  # noqa: ANN201 - pickle's signature
        cls = type(obj)
        names = self._plain.get(cls, ())
        if names == ():
            names = None
            if dataclasses.is_dataclass(cls) and hasattr(cls, "__slots__"):
                flds = dataclasses.fields(cls)
                if all(f.init for f in flds):
                    names = tuple(f.name for f in flds)
            self._plain[cls] = names
        if names is None:
            return NotImplemented
        return cls, tuple(getattr(obj, n) for n in names)


class LazySummaries(Mapping[str, FileSummary]):
    """The index's summaries, read from the summary cache only when someone asks."""

    def __init__(self, root: Path, keys: dict[str, str], modules: dict[str, str], cache_dir: Path) -> None:
        self._root, self._keys, self._modules, self._cache_dir = root, keys, modules, cache_dir
        self._loaded: dict[str, FileSummary] = {}

    def __getitem__(self, path: str) -> FileSummary:
        got = self._loaded.get(path)
        if got is not None:
            return got
        key = self._keys[path]
        summary = SummaryCache(self._cache_dir, code_digest("index")).get(key)
        if summary is None:  # evicted: parse again (the file did not change, its key says so)
            try:
                content = (self._root / path).read_bytes()
            except OSError:
                content = b""
            summary, _ = parse_source(path, self._modules.get(path, ""), content)
            if summary is None:
                summary = FileSummary(path=path, module=self._modules.get(path, ""))
            summary.sha = key
        self._loaded[path] = summary
        return summary

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __reduce__(self):  # noqa: ANN204 - store keys, never the summaries themselves
        return (LazySummaries, (self._root, self._keys, self._modules, self._cache_dir))


@dataclasses.dataclass(frozen=True, slots=True)
class Fingerprint:
    """What a run's result depends on, split so a later run can tell what changed."""

    key: str  # the whole-analysis cache key
    head: str  # analyzer code, cache format, command, settings
    rest: str  # every non-Python file, and Python files too big or unreadable to summarise
    file_keys: dict[str, str]  # readable Python file -> summary key (its content hash)
    modules: dict[str, str]  # Python file -> dotted module


def fingerprint(root: Path, files: RepoFiles, settings: Settings, run_rules: bool | str) -> Fingerprint:
    """The repo's cache key, and each readable Python file's summary key (``build_index``
    reuses them instead of reading and hashing every file a second time)."""
    stable = dataclasses.replace(settings, jobs=0)
    head = hashlib.sha256(f"{code_digest()}\0{FORMAT}\0{run_rules}\0{stable!r}\0".encode()).hexdigest()
    h = hashlib.sha256(head.encode())
    rest = hashlib.sha256()
    file_keys: dict[str, str] = {}
    for path in files.python:
        h.update(path.encode("utf-8", "surrogateescape") + b"\0")
        try:
            p = root / path
            st = p.stat()
            if st.st_size > settings.max_file_size:
                rest.update(f"{path}\0big:{st.st_size}:{st.st_mtime_ns}".encode("utf-8", "surrogateescape"))
            else:
                file_keys[path] = cache_key(code_digest("index"), path, files.modules[path], p.read_bytes())
                h.update(file_keys[path].encode())
        except OSError:
            rest.update(f"{path}\0unreadable".encode("utf-8", "surrogateescape"))
    for path in files.other:
        rest.update(b"\1" + path.encode("utf-8", "surrogateescape") + b"\0")
        try:
            p = root / path
            st = p.stat()
            if st.st_size > settings.max_file_size:
                rest.update(f"big:{st.st_size}:{st.st_mtime_ns}".encode())
            else:
                rest.update(hashlib.sha256(p.read_bytes()).digest())
        except OSError:
            rest.update(b"unreadable")
    h.update(rest.digest())
    return Fingerprint(h.hexdigest(), head, rest.hexdigest(), file_keys, dict(files.modules))


def _entry_path(settings: Settings, key: str) -> Path:
    return Path(settings.cache_dir) / "analysis" / key[:2] / key


def load(settings: Settings, key: str) -> Analysis | None:
    path = _entry_path(settings, key)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = len(MAGIC) + 32
    if not data.startswith(MAGIC) or len(data) < head:
        return None
    digest, payload = data[len(MAGIC) : head], data[head:]
    if hashlib.sha256(key.encode() + payload).digest() != digest:
        return None
    try:
        with gc_paused(promote=True):  # a graph's worth of small objects, no cycles among them
            result = _RestrictedUnpickler(io.BytesIO(payload)).load()
    except Exception:  # noqa: BLE001 - any failure means: recompute
        return None
    cache_gc.touch(path)
    from .analysis import Analysis

    return result if isinstance(result, Analysis) else None


_MAX_CHANGED = 16  # past this many changed files a full run costs about as much
_READ_AS_TEXT = frozenset({"setup.py"})  # Python files a stage reads as text too (console_scripts)


def _last_path(settings: Settings, root: Path, head: str) -> Path:
    """Where the newest entry of this repo, command and settings is named."""
    return Path(settings.cache_dir) / "last-analysis" / hashlib.sha256(f"{root}\0{head}".encode()).hexdigest()


def reuse_if_summaries_unchanged(settings: Settings, root: Path, files: RepoFiles, fp: Fingerprint,
                                 parsed: list[str] | None = None) -> Analysis | None:
    """Early cutoff: when the only changed files summarise exactly as before (an edited
    comment, trailing blank lines: nothing any stage reads), the newest analysis of this
    repo is the answer. Only those files are parsed (their paths are added to ``parsed``;
    their summaries are cached, so a pipeline run after a ``None`` finds them there)."""
    try:
        prev = marshal.loads(_last_path(settings, root, fp.head).read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not isinstance(prev, dict) or prev.get("rest") != fp.rest or prev.get("modules") != fp.modules:
        return None
    old_keys = prev.get("file_keys")
    if not isinstance(old_keys, dict) or old_keys.keys() != fp.file_keys.keys():
        return None
    changed = [p for p, k in fp.file_keys.items() if old_keys[p] != k]
    if not changed or len(changed) > _MAX_CHANGED:
        return None
    if any(p.rsplit("/", 1)[-1] in _READ_AS_TEXT for p in changed):
        return None
    summaries = SummaryCache(Path(settings.cache_dir), code_digest("index"))
    old = {p: summaries.get(old_keys[p]) for p in changed}  # never re-parsed: the file is not what it was
    if any(v is None for v in old.values()):
        return None
    previous = load(settings, prev.get("key", ""))
    if previous is None:
        return None
    only = dataclasses.replace(files, python=changed, diagnostics=[])
    fresh = build_index(root, settings, files=only, keys={p: fp.file_keys[p] for p in changed})
    if parsed is not None:
        parsed.extend(p for p in changed if p in fresh.summaries)
    if fresh.diagnostics or fresh.summaries.keys() != old.keys():
        return None
    for p, new in fresh.summaries.items():
        # the content hash and the file's line count: no stage reads either
        if dataclasses.replace(new, sha=old[p].sha, lines=old[p].lines) != old[p]:  # type: ignore[union-attr]
            return None
    lazy = LazySummaries(root, dict(fp.file_keys), dict(files.modules), Path(settings.cache_dir))
    lazy._loaded.update(fresh.summaries)
    previous.index = dataclasses.replace(previous.index, files=files, summaries=lazy)
    return previous


def find(settings: Settings, root: Path, files: RepoFiles, fp: Fingerprint,
         parsed: list[str] | None = None) -> Analysis | None:
    """The cached analysis for this fingerprint: stored under its key, or else the newest
    one of the repo when the early cutoff applies (then stored under this key too)."""
    hit = load(settings, fp.key)
    if hit is None:
        hit = reuse_if_summaries_unchanged(settings, root, files, fp, parsed)
        if hit is not None:
            store(settings, fp.key, hit, fp)
    return hit


def store(settings: Settings, key: str, analysis: Analysis, fp: Fingerprint | None = None) -> None:
    index = analysis.index
    if isinstance(index.summaries, LazySummaries):  # reading .sha would load every summary
        keys = dict(index.summaries._keys)
    else:
        keys = {p: s.sha for p, s in index.summaries.items()}
    if not all(keys.values()):
        return
    lazy = LazySummaries(index.root, keys, dict(index.files.modules), Path(settings.cache_dir))
    graphs = dataclasses.replace(analysis.graphs, resolved={})
    slim = dataclasses.replace(analysis, index=dataclasses.replace(index, summaries=lazy), graphs=graphs)
    buf = io.BytesIO()
    try:
        _FastPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(slim)
    except Exception:  # noqa: BLE001 - an unpicklable result only costs the warm path
        return
    payload = buf.getvalue()
    write_atomic(_entry_path(settings, key), MAGIC + hashlib.sha256(key.encode() + payload).digest() + payload)
    if fp is not None:
        last = {"key": key, "rest": fp.rest, "file_keys": fp.file_keys, "modules": fp.modules}
        write_atomic(_last_path(settings, index.root, fp.head), marshal.dumps(last))
    cache_dir = Path(settings.cache_dir)
    cache_gc.prune(cache_dir, {SummaryCache(cache_dir, code_digest("index")).dir.name})

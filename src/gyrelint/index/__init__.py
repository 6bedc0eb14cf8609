"""Stage 1: discover, parse (libcst, in worker processes) and summarise every file."""

from __future__ import annotations

import ast
import gc
import multiprocessing
import multiprocessing.context
import os
import sys
import threading
import time
import types
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..codehash import code_digest
from ..model import Diagnostic, Stats
from ..repo import RepoFiles, discover
from ..settings import Settings
from .cache import CacheError, SummaryCache, cache_key, decode, encode, encode_problem, gc_paused
from .summary import FileSummary

Progress = Callable[[int, int], None]
_BATCH = 4


@dataclass(slots=True)
class Index:
    root: Path
    files: RepoFiles
    summaries: dict[str, FileSummary] = field(default_factory=dict)  # path -> summary
    diagnostics: list[Diagnostic] = field(default_factory=list)
    stats: Stats = field(default_factory=Stats)

    def by_module(self) -> dict[str, FileSummary]:
        return {s.module: s for s in self.summaries.values()}

    def read_text(self, rel: str, limit: int | None = None) -> str | None:
        """Text of a non-Python file of the repo, or None if unreadable/too big."""
        path = self.root / rel
        try:
            if limit is not None and path.stat().st_size > limit:
                return None
            return path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return None


class _Screened(Exception):
    """The cheap scan found nothing that needs CPython's parser first."""


_KEEP = b"()[]{}\n"
_DROP = bytes(b for b in range(256) if b not in _KEEP)
_OPEN = frozenset(b"([{")


def needs_screen(content: bytes) -> bool:
    """Whether a file has what crashes or stalls libcst's parser: deep bracket nesting, one
    bracketed expression over very many lines, very long lines or continuation chains.

    Brackets inside strings and comments are counted too; that only makes a file be
    screened when it need not be (it costs one ``ast.parse``), never the reverse for the
    shapes checked here.
    """
    if len(content) > 2_000_000 or content.count(b"\\\n") > 500:
        return True
    if max(map(len, content.split(b"\n"))) > 4000:
        return True
    depth = span = 0
    for ch in content.translate(None, _DROP):
        if ch == 10:
            if depth:
                span += 1
                if span > 1500:
                    return True
        elif ch in _OPEN:
            depth += 1
            if depth > 60:
                return True
        elif depth:
            depth -= 1
            if not depth:
                span = 0
    return False


def _parser() -> tuple[types.ModuleType, Callable]:
    """libcst and the extractor, imported on first use: a run that finds every summary in
    the cache never loads them (about a fifth of a second)."""
    import libcst

    from .extract import extract

    return libcst, extract


def _quiet_parse(source: str | bytes) -> None:
    """``ast.parse`` without printing the warnings CPython emits for odd but valid code
    (``1if x else 2``, ``"\\d"``): the user's file is not ours to lint that way."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ast.parse(source)


def parse_source(path: str, module: str, content: bytes) -> tuple[FileSummary | None, Diagnostic | None]:
    """Parse and summarise one file; every failure becomes a diagnostic."""
    cst, extract = _parser()
    if b"\0" in content:
        return None, Diagnostic(path, 0, "contains NUL bytes (binary file with a .py name?); skipped", "decode")
    if content.startswith(b"\xef\xbb\xbf"):
        content = content[3:]
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    is_package = path.endswith("__init__.py")
    # CPython's own parser screens files that could make libcst's native parser overflow its
    # stack (5,000 nested brackets, 50,000-term sums): it rejects them in C, quickly.
    old_limit = sys.getrecursionlimit()
    try:
        if text is not None and not needs_screen(content):
            raise _Screened

        sys.setrecursionlimit(1000)
        _quiet_parse(text if text is not None else content)
    except SyntaxError as exc:
        msg = exc.msg or "invalid syntax"
        if "unicode error" in msg or "codec" in msg:
            return None, Diagnostic(path, exc.lineno or 0, "not valid UTF-8 and no coding cookie; save it as UTF-8 or exclude it", "decode")
        if "nested" in msg or "too many" in msg:
            return None, Diagnostic(path, exc.lineno or 0, f"{msg}; file skipped", "parse")
        return None, Diagnostic(path, exc.lineno or 0, f"syntax error: {msg}; file skipped, fix it or exclude it", "parse")
    except (RecursionError, MemoryError) as exc:
        why = " (out of memory)" if isinstance(exc, MemoryError) else ""
        return None, Diagnostic(path, 0, f"expression nesting too deep to analyze{why}; file skipped", "parse")
    except ValueError as exc:
        return None, Diagnostic(path, 0, f"cannot decode ({exc}); save it as UTF-8 or exclude it", "decode")
    except _Screened:
        pass
    finally:
        sys.setrecursionlimit(old_limit)
    try:
        tree = cst.parse_module(text if text is not None else content)
    except cst.ParserSyntaxError as exc:
        line, message = exc.raw_line, exc.message
        try:  # CPython's parser names the line and the problem more plainly
            _quiet_parse(text if text is not None else content)
        except SyntaxError as py_exc:
            line, message = py_exc.lineno or line, py_exc.msg or message
        except (RecursionError, MemoryError, ValueError):
            pass
        return None, Diagnostic(path, line, f"syntax error: {message}; file skipped, fix it or exclude it", "parse")
    except (UnicodeDecodeError, LookupError, SyntaxError) as exc:
        return None, Diagnostic(path, 0, f"cannot decode ({exc.__class__.__name__}); save it as UTF-8 or exclude it", "decode")
    except RecursionError:
        return None, Diagnostic(path, 0, "nesting too deep to parse; file skipped", "parse")
    except Exception as exc:  # noqa: BLE001 - the native parser raises assorted errors
        return None, Diagnostic(path, 0, f"cannot parse ({exc.__class__.__name__}: {str(exc)[:120]}); file skipped", "parse")
    try:
        summary = extract(tree, path, module, is_package)
    except RecursionError:
        return None, Diagnostic(path, 0, "nesting too deep to analyze; file skipped", "parse")
    return summary, None


def _lasting(diag: Diagnostic) -> bool:
    """Whether a file's problem follows from its content alone (a syntax error, a bad
    encoding), so that it can be cached like a summary; running out of memory does not."""
    return diag.kind in ("parse", "decode") and "memory" not in diag.message.lower()


_Item = tuple[str, str, str, str, str]  # absolute path, path, module, key, cache folder ("" = none)
_Result = tuple[str, "FileSummary | bytes | None", "Diagnostic | None"]


def _work(batch: list[_Item], inline: bool = False) -> list[_Result]:
    """Worker: parse a batch of files, write their cache entries, return summaries.

    A worker returns each summary as its encoded cache entry: the bytes it writes to the
    cache are the ones it sends, and they are cheaper to send and to decode than the records
    themselves. ``inline`` (parsing in the calling process) returns the records.
    """
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    out: list[_Result] = []
    caches: dict[str, SummaryCache] = {}

    def store(cache_dir: str, key: str, data: bytes) -> None:
        cache = caches.get(cache_dir)
        if cache is None:
            cache = caches[cache_dir] = SummaryCache(Path(cache_dir), code_digest("index"))
        cache.put_bytes(key, data)

    for abs_path, path, module, key, cache_dir in batch:
        try:
            content = Path(abs_path).read_bytes()
        except OSError as exc:
            out.append((path, None, Diagnostic(path, 0, f"unreadable ({exc.strerror})", "input")))
            continue
        with gc_paused():  # a syntax tree is acyclic and freed as soon as it is summarised
            summary, diag = parse_source(path, module, content)
            if summary is None:
                if cache_dir and diag is not None and _lasting(diag):
                    store(cache_dir, key, encode_problem(key, diag.line, diag.message, diag.kind))
                out.append((path, None, diag))
                continue
            summary.sha = key
            try:
                data = encode(key, summary) if cache_dir or not inline else None
            except ValueError:  # unstorable values: send the records themselves, cache nothing
                data = None
        if data is not None and cache_dir:
            store(cache_dir, key, data)
        out.append((path, summary if inline or data is None else data, diag))
    return out


def build_index(root: Path, settings: Settings, progress: Progress | None = None,
                files: RepoFiles | None = None, keys: dict[str, str] | None = None) -> Index:
    """``keys``: summary keys already computed for these files (by the analysis cache's
    fingerprint), so unchanged files are not read and hashed twice."""
    start = time.perf_counter()
    root = root.resolve()
    files = files or discover(root, settings)
    index = Index(root=root, files=files)
    index.diagnostics.extend(files.diagnostics)
    cache = SummaryCache(settings.cache_dir, code_digest("index")) if settings.use_cache else None
    with gc_paused(promote=True):  # summaries are acyclic: collecting while building them only costs time
        _fill(index, root, settings, cache, keys, progress)
    index.summaries = dict(sorted(index.summaries.items()))
    index.diagnostics.sort(key=lambda d: (d.file, d.line, d.message))
    index.stats.files = len(files.python)
    index.stats.functions = sum(len(s.functions) for s in index.summaries.values())
    index.stats.seconds = round(time.perf_counter() - start, 3)
    return index


def _fill(index: Index, root: Path, settings: Settings, cache: SummaryCache | None,
          keys: dict[str, str] | None, progress: Progress | None) -> None:
    """Summaries from the cache, and from worker processes for the files it lacks.

    The workers start first, on the files that have no entry, so that they parse while
    this process decodes the entries of the others.
    """
    files = index.files
    todo: list[_Item] = []
    stored: list[_Item] = []
    for path in files.python:
        abs_path = root / path
        module = files.modules[path]
        try:
            size = abs_path.stat().st_size
            if size > settings.max_file_size:
                index.diagnostics.append(
                    Diagnostic(path, 0, f"{size // 1024} KiB is over the max-file-size limit "
                               f"({settings.max_file_size // 1024} KiB); skipped, raise [tool.gyrelint] max-file-size to include it", "size")
                )
                continue
            key = keys.get(path) if keys else None
            if key is None:
                key = cache_key(code_digest("index"), path, module, abs_path.read_bytes())
        except OSError as exc:
            index.diagnostics.append(Diagnostic(path, 0, f"unreadable ({exc.strerror}); skipped", "input"))
            continue
        item = (str(abs_path), path, module, key, str(settings.cache_dir) if cache else "")
        (stored if cache is not None and cache.has(key) else todo).append(item)
    total, done = len(files.python), 0
    key_of = {item[1]: item[3] for item in todo + stored}
    seen: set[str] = set()

    def take(out: list[_Result]) -> None:
        """Record a batch as it arrives: decoding overlaps with the workers still parsing."""
        nonlocal done
        for path, got, diag in out:
            if isinstance(got, bytes):
                try:
                    got = decode(key_of[path], got)
                except CacheError as exc:  # a worker's own entry: only a bug can get here
                    got, diag = None, Diagnostic(path, 0, f"internal error reading the summary ({exc}); file skipped", "parse")
            if got is not None:
                index.summaries[path] = got
                index.stats.parsed += 1
            if diag is not None:
                index.diagnostics.append(diag)
            seen.add(path)
        done += len(out)
        if progress:
            progress(done, total)

    # always in worker processes: a native parser crash then costs one worker, not the run;
    # a daemonic process (e.g. inside flake8's or pytest-xdist's pool) cannot have children
    # and parses here instead
    workers = None if multiprocessing.current_process().daemon else _Workers(settings.jobs, len(todo))
    crash: Exception | None = None

    def launch(items: list[_Item]) -> None:
        nonlocal crash
        if workers is not None and items and crash is None:
            try:
                workers.submit(items)
            except Exception as exc:  # noqa: BLE001 - a pool that broke already
                crash = exc

    try:
        launch(todo)
        late: list[_Item] = []
        for item in stored:
            assert cache is not None
            cached = cache.lookup(item[3])
            if isinstance(cached, FileSummary):
                index.summaries[item[1]] = cached
                index.stats.cached += 1
            elif cached is not None:  # a syntax error or bad encoding, found when the file was parsed
                index.diagnostics.append(Diagnostic(item[1], *cached))
            else:  # the entry went bad or away since: parse the file after all
                late.append(item)
                continue
            done += 1
        todo += late
        launch(late)
        if progress:
            progress(done, total)
        if workers is None:
            for batch in _batches(todo):
                take(_work(batch, inline=True))
            return
        if crash is None:
            try:
                for out in workers.results():
                    take(out)
            except Exception as exc:  # noqa: BLE001 - a worker that dies (e.g. native stack overflow)
                crash = exc
        if crash is not None:
            workers.close()
            for item in todo:
                if item[1] not in seen:
                    take(_work_guarded(item, crash))
    finally:
        if workers is not None:
            workers.close()


def _batches(items: list[_Item]) -> list[list[_Item]]:
    """Big files first, then small batches so that workers stay busy to the end."""
    items = sorted(items, key=lambda t: -_size(t[0]))
    return [items[i : i + _BATCH] for i in range(0, len(items), _BATCH)]


class _Workers:
    """A process pool started on first use, with one worker per batch up to ``jobs``."""

    def __init__(self, jobs: int, expected: int) -> None:
        self.jobs = max(1, min(jobs or os.cpu_count() or 1, (expected + _BATCH - 1) // _BATCH))
        self.expected = expected
        self.pool = None
        self.futures: list = []

    def submit(self, items: list[_Item]) -> None:
        from concurrent.futures import ProcessPoolExecutor

        if self.pool is None:
            if self.expected > self.jobs * _BATCH:
                # many files: load the parser once here, so that forked workers inherit it;
                # a few: each worker loads it while this process decodes the cache
                _parser()
            self.pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=_context(), initializer=_init_worker)
        self.futures.extend(self.pool.submit(_work, batch) for batch in _batches(items))

    def results(self) -> Iterator[list[_Result]]:
        """Batches in the order they finish: the first one holds the biggest files, and
        waiting for it would leave the others to decode at the end."""
        from concurrent.futures import as_completed

        for fut in as_completed(self.futures):
            yield fut.result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


def _context() -> multiprocessing.context.BaseContext:
    """``fork`` where it is safe (POSIX but macOS, no other thread running): a forked
    worker starts in about 10 ms, a ``forkserver`` or ``spawn`` one (Python 3.14's and
    macOS's default) re-imports gyrelint and libcst first, about 0.5 s, which would be
    most of a run that re-parses one file."""
    if (sys.platform != "darwin" and "fork" in multiprocessing.get_all_start_methods()
            and threading.active_count() == 1):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _init_worker() -> None:
    """Leave the objects a forked worker inherits out of its collections: they are never
    garbage, and walking them would also copy their memory pages."""
    gc.freeze()


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _work_guarded(item: _Item, exc: Exception) -> list[_Result]:
    """Re-run one file in its own process after a pool crash, so one file cannot sink the repo."""
    from concurrent.futures import ProcessPoolExecutor

    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=_context(), initializer=_init_worker) as pool:
            return pool.submit(_work, [item]).result(timeout=120)
    except Exception:  # noqa: BLE001
        return [(item[1], None, Diagnostic(item[1], 0, "the parser crashed on this file; skipped", "parse"))]

"""Stage 1: discover, parse (libcst, in worker processes) and summarise every file."""

from __future__ import annotations

import ast
import contextlib
import gc
import multiprocessing
import multiprocessing.context
import os
import signal
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
from ..safeio import InputFileError, read_input, read_input_text
from ..settings import Settings
from .cache import CacheError, SummaryCache, cache_key, decode, encode, encode_problem, gc_paused
from .light import exported_names, relocate, skeleton
from .precheck import LINE_WEIGHT, MAX_COST, MIN_GROUP, elide, may_hold_bulk, scan
from .scope import TEST, ModuleScope, classify
from .summary import FileSummary

Progress = Callable[[int, int], None]
_BATCH = 4
_TEXT_CAP = 64 * 1024 * 1024  # a non-Python file read without a limit of its own
# tests only: seconds each worker waits before parsing a file, so that a run can be signalled mid-parse
_PARSE_DELAY_ENV = "GYRELINT_TEST_PARSE_DELAY"


@dataclass(slots=True)
class Index:
    root: Path
    files: RepoFiles
    summaries: dict[str, FileSummary] = field(default_factory=dict)  # path -> summary
    diagnostics: list[Diagnostic] = field(default_factory=list)
    stats: Stats = field(default_factory=Stats)
    scopes: dict[str, ModuleScope] = field(default_factory=dict)  # path -> scope, for files that are not product
    include_tests: bool = False  # ``--include-tests``: test files count as product

    def by_module(self) -> dict[str, FileSummary]:
        return {s.module: s for s in self.summaries.values()}

    def out_of_scope(self, path: str | None) -> bool:
        """Whether a file is indexed for name resolution only: no side, entry point, counter or
        map node (tests, docs, benchmarks, vendored libraries; tests count with ``include_tests``)."""
        got = self.scopes.get(path) if path else None
        return got is not None and not (self.include_tests and got.scope == TEST)

    def out_of_scope_modules(self) -> set[str]:
        """The dotted names of the modules :meth:`out_of_scope` leaves out."""
        return {self.files.modules.get(p, "") for p in self.scopes if self.out_of_scope(p)} - {""}

    def scope_key(self) -> str:
        """The scope decisions as text, for the keys of caches that depend on them."""
        return f"{self.include_tests}\0" + "\0".join(f"{p}={s.scope}" for p, s in sorted(self.scopes.items()))

    def read_text(self, rel: str, limit: int | None = None) -> str | None:
        """Text of a non-Python file of the repo, or None if unreadable, too big, or not a
        regular file inside the repo (discovery already said why for the files it lists)."""
        try:
            return read_input_text(self.root / rel, _TEXT_CAP if limit is None else limit, self.root)
        except InputFileError:
            return None


def read_python(path: str | Path, limit: int, root: str | Path) -> bytes:
    """A Python file discovery listed, through :func:`safeio.read_input` (regular files only,
    non-blocking, size-bounded). The check that it stays inside ``root`` resolves two paths
    (a sixth of a millisecond a file, most of a warm run's reading); it is needed only when
    the file is a symlink, since discovery never enters a symlinked folder."""
    return read_input(path, limit, root if os.path.islink(path) else None)


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
    """Parse and summarise one file; every failure becomes a diagnostic.

    A file holding bulk literals or too big to parse in full (see :mod:`.precheck`) is
    parsed with them elided, or as a skeleton, and comes back with a summary *and* a
    ``data-module`` diagnostic.
    """
    if b"\0" in content:
        return None, Diagnostic(path, 0, "contains NUL bytes (binary file with a .py name?); skipped", "decode")
    if content.startswith(b"\xef\xbb\xbf"):
        content = content[3:]
    if may_hold_bulk(content, MIN_GROUP, MAX_COST):
        return _parse_bulky(path, module, content)
    return _parse(path, module, content)


def _parse_bulky(path: str, module: str, content: bytes) -> tuple[FileSummary | None, Diagnostic | None]:
    """The bounded path for a file the pre-check flags: elide its bulk literals, and parse
    only a skeleton of what is left if that still costs too much."""
    pre = scan(content, MIN_GROUP, MAX_COST)
    if pre.broken or (not pre.bulks and pre.complete and pre.cost <= MAX_COST):
        return _parse(path, module, content)  # nothing to elide, or a syntax error the parser reports
    reduced, where = elide(content, pre.bulks)
    what = []
    if pre.bulks:
        what.append(f"{_size_text(pre.elided_bytes)} of literal data left out of the index")
    if not pre.complete or pre.cost > MAX_COST:
        reduced, inner, cut = skeleton(reduced)
        outer = where
        where = lambda line: outer(inner(line))  # noqa: E731 - skeleton -> elided -> file
        what.append(f"too big to parse in full (over {MAX_COST:,} tokens, a line break counting as {LINE_WEIGHT}): "
                    f"indexed imports and top-level names only{', up to a cap' if cut else ''}")
    else:
        what.append("the rest of the file indexed as usual")
    summary, diag = _parse(path, module, reduced)
    if summary is None:
        if diag is not None:
            diag = Diagnostic(diag.file, where(diag.line), f"{diag.message} ({'; '.join(what[:-1] or what)})", diag.kind)
        return None, diag
    relocate(summary, where)
    summary.lines = content.count(b"\n") + content.count(b"\r") - content.count(b"\r\n") + 1
    exported = exported_names(content, pre.bulks)
    if exported is not None:
        summary.all_exports = exported
    line = pre.bulks[0].line if pre.bulks else 0
    summary.light, summary.light_line = "; ".join(what), line
    return summary, Diagnostic(path, line, summary.light, "data-module")


def _size_text(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1_000_000 else f"{max(1, round(n / 1e3))} KB"


def _parse(path: str, module: str, content: bytes) -> tuple[FileSummary | None, Diagnostic | None]:
    """The full parse: CPython's screen where needed, then libcst and the extractor."""
    cst, extract = _parser()
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


# absolute path, path, module, key, cache folder ("" = none), repository root, max file size
_Item = tuple[str, str, str, str, str, str, int]
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

    delay = _parse_delay()
    for abs_path, path, module, key, cache_dir, root, limit in batch:
        if delay:
            time.sleep(delay)
        try:  # a regular file inside the root, never a FIFO swapped in since discovery
            content = read_python(abs_path, limit, root)
        except InputFileError as exc:
            out.append((path, None, Diagnostic(path, 0, exc.reason, "input")))
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
    index.scopes = classify(files, index.summaries, lambda rel, limit: index.read_text(rel, limit))
    index.include_tests = settings.include_tests
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
                key = cache_key(code_digest("index"), path, module, read_python(abs_path, settings.max_file_size, root))
        except InputFileError as exc:
            index.diagnostics.append(Diagnostic(path, 0, exc.reason, "input"))
            continue
        except OSError as exc:
            index.diagnostics.append(Diagnostic(path, 0, f"unreadable ({exc.strerror}); skipped", "input"))
            continue
        item = (str(abs_path), path, module, key, str(settings.cache_dir) if cache else "", str(root),
                settings.max_file_size)
        (stored if cache is not None and cache.has(key) else todo).append(item)
    total, done = len(files.python), 0
    key_of = {item[1]: item[3] for item in todo + stored}
    seen: set[str] = set()
    memo: dict = {}  # values shared across the summaries decoded here (see cache._sharer)

    def take(out: list[_Result]) -> None:
        """Record a batch as it arrives: decoding overlaps with the workers still parsing."""
        nonlocal done
        for path, got, diag in out:
            if isinstance(got, bytes):
                try:
                    got = decode(key_of[path], got, memo)
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
            cached = cache.lookup(item[3], memo)
            if isinstance(cached, FileSummary):
                index.summaries[item[1]] = cached
                index.stats.cached += 1
                if cached.light:  # a data module: its diagnostic lives in the summary
                    index.diagnostics.append(Diagnostic(item[1], cached.light_line, cached.light, "data-module"))
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
    except BaseException:
        # Ctrl-C, SIGTERM (the CLI turns it into an exception) or a bug: stop the workers now
        # instead of waiting for the files they are parsing
        if workers is not None:
            workers.terminate()
        raise
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
            # each worker loads the parser itself (0.2 CPU-s, while this process decodes the
            # cache): loaded here for forked workers to inherit, it stayed in this process for
            # the whole run, 7.5 MiB of its peak, and nothing after the index uses it
            ctx = _context()
            self.pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=ctx, initializer=_init_worker,
                                            initargs=_worker_args(ctx))
        with _signals_held():  # the first submit forks the workers
            self.futures.extend(self.pool.submit(_work, batch) for batch in _batches(items))

    def results(self) -> Iterator[list[_Result]]:
        """Batches in the order they finish: the first one holds the biggest files, and
        waiting for it would leave the others to decode at the end."""
        from concurrent.futures import as_completed

        # the pool is handed its futures and this list let go: a finished future holds its
        # batch of encoded summaries (17 MiB on verl), kept alive to the end by the list
        futures, self.futures = self.futures, []
        done = as_completed(futures)
        del futures
        for fut in done:
            yield fut.result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def terminate(self) -> None:
        """Stop every worker at once, parsing or not, and forget the pool."""
        pool, self.pool = self.pool, None
        if pool is not None:
            _terminate_pool(pool)


def _terminate_pool(pool: object) -> None:
    """SIGTERM the workers of a ``ProcessPoolExecutor``, then SIGKILL those still alive.

    ``terminate_workers`` is public from Python 3.14; before, the worker processes are only
    reachable as ``_processes``, read defensively."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    stop = getattr(pool, "terminate_workers", None)
    if stop is not None:
        try:
            stop()
        except Exception:  # noqa: BLE001 - already shut down
            pass
    for proc in procs:
        try:
            proc.terminate()
        except Exception:  # noqa: BLE001 - it exited on its own
            pass
    pool.shutdown(wait=False, cancel_futures=True)  # type: ignore[attr-defined]
    for proc in procs:
        try:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5)
        except Exception:  # noqa: BLE001
            pass


def _context() -> multiprocessing.context.BaseContext:
    """``fork`` where it is safe (POSIX but macOS, no other thread running): a forked
    worker starts in about 10 ms, a ``forkserver`` or ``spawn`` one (Python 3.14's and
    macOS's default) re-imports gyrelint and libcst first, about 0.5 s, which would be
    most of a run that re-parses one file."""
    if (sys.platform != "darwin" and "fork" in multiprocessing.get_all_start_methods()
            and threading.active_count() == 1):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _init_worker(parent: int | None = None) -> None:
    """Set up a parse worker so that it never outlives the run that started it, and leave
    the objects a forked worker inherits out of its collections (they are never garbage,
    and walking them would also copy their memory pages).

    Ctrl-C reaches the whole process group: the worker ignores it and the parent, which
    gets it too, stops the pool (a worker interrupted while waiting for work would print a
    traceback); SIGTERM kills the worker outright. When the parent dies, SIGKILL included, the kernel kills the worker
    (``PR_SET_PDEATHSIG`` on Linux); elsewhere a thread watches for the worker being
    re-parented. ``parent`` is the pid of the process that made the pool when the worker is
    its direct child: if the worker has another parent by now, that one died before the
    request took effect (a dead parent can linger as a zombie, so its pid is no proof of
    life), and the worker exits at once.
    """
    gc.freeze()
    _trust_parser_nodes()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the handler a forked worker inherits from the CLI
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)  # held by the parent while it forked
    ppid = os.getppid()
    if not _die_with_parent():
        threading.Thread(target=_watch_parent, args=(ppid,), name="gyrelint-parent-watch", daemon=True).start()
    if parent is not None and os.getppid() != parent:
        os._exit(1)


def _trust_parser_nodes() -> None:
    """In a parse worker only: skip libcst's per-node ``_validate`` after construction.

    libcst checks every node it builds (whitespace around keywords, non-empty names...),
    which is for trees edited by hand: the parser's own output already has that shape, and
    libcst's source says so ("avoid validating the tree when parsing a file"). It is an
    eighth of the parse's CPU (verl, 200 files: 3.1 -> 2.7 CPU-s). The worker never builds
    a node itself, so nothing goes unchecked that was checked before; the calling process
    (the inline path, the API user's own libcst) keeps validating.
    """
    try:
        from libcst._nodes import base
    except ImportError:  # another libcst layout: validate as usual
        return
    node = getattr(base, "CSTNode", None)
    if node is not None and "__post_init__" in vars(node):
        node.__post_init__ = _no_validation


def _no_validation(self: object) -> None:
    return None


_HELD = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM while the pool forks: the exception they raise, landing in
    an at-fork hook or a half-built pool, was swallowed ("Exception ignored") and left a
    lock held, so the run hung with its workers. Held, they arrive just after, where the
    pool can be torn down."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _worker_args(ctx: multiprocessing.context.BaseContext) -> tuple[int | None]:
    """``_init_worker``'s argument: this pid when the workers are its children (``fork``,
    ``spawn``), None when a fork server is their parent."""
    return (None if ctx.get_start_method() == "forkserver" else os.getpid(),)


_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent exits; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(ppid: int, every: float = 0.5) -> None:
    """Exit the worker as soon as its parent is gone (it is then re-parented)."""
    while os.getppid() == ppid:
        time.sleep(every)
    os._exit(1)


def _parse_delay() -> float:
    try:
        return max(0.0, float(os.environ.get(_PARSE_DELAY_ENV, "0") or 0))
    except ValueError:
        return 0.0


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _work_guarded(item: _Item, exc: Exception) -> list[_Result]:
    """Re-run one file in its own process after a pool crash, so one file cannot sink the repo."""
    from concurrent.futures import ProcessPoolExecutor

    ctx = _context()
    pool = ProcessPoolExecutor(max_workers=1, mp_context=ctx, initializer=_init_worker, initargs=_worker_args(ctx))
    try:
        with _signals_held():
            fut = pool.submit(_work, [item])
        return fut.result(timeout=120)
    except Exception:  # noqa: BLE001
        return [(item[1], None, Diagnostic(item[1], 0, "the parser crashed on this file; skipped", "parse"))]
    finally:
        _terminate_pool(pool)

"""flake8 plugin: the repository-level findings that sit in the file being linted.

gyrelint's rules look at the whole loop, so the plugin analyzes the repository that
holds the file (found by walking up to ``.git`` or ``pyproject.toml``) once, keeps the
findings on disk keyed by a stat signature of the repository's files, and then only
filters them per file. A warm run costs a directory walk and one small JSON read.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import json
import multiprocessing
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from . import __version__
from .codehash import code_digest

_MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg")


def find_root(filename: str | Path) -> Path | None:
    """The nearest folder above ``filename`` holding ``.git``; else the nearest with a project file."""
    start = Path(filename).resolve().parent
    chain = [start, *start.parents]
    for d in chain:
        if (d / ".git").exists():
            return d
    for d in chain:
        if any((d / m).exists() for m in _MARKERS[1:]):
            return d
    return None


def signature(root: Path) -> str:
    """Changes whenever a file the analysis reads changes (path, size, mtime) or the settings do."""
    from .repo import discover
    from .settings import SettingsError, read_settings

    try:
        settings = read_settings(root)
    except SettingsError as exc:  # the analysis reports nothing until the settings are fixed
        return hashlib.sha256(f"{code_digest()}\0bad settings\0{exc}".encode()).hexdigest()[:32]
    files = discover(root, settings)
    h = hashlib.sha256(f"{code_digest()}\0{dataclasses.replace(settings, jobs=0)!r}".encode())
    for rel in sorted(files.python + files.other):
        try:
            st = os.stat(root / rel)
        except OSError:
            continue
        h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:32]


@functools.lru_cache(maxsize=8)
def _findings(root: str, sig: str) -> tuple[tuple[str, int, str, str], ...]:
    """(file, line, rule, message) for the repository, from the disk cache or a fresh analysis."""
    from .api import InputError, analyze
    from .settings import SettingsError, read_settings

    try:
        settings = read_settings(Path(root))
    except SettingsError:  # as for any input error: no findings (`gyrelint check` says why)
        return ()
    if settings.use_cache:
        cached = _load_findings(settings.cache_dir, sig)
        if cached is not None:
            return cached
    if multiprocessing.current_process().daemon:
        # flake8 lints in daemonic pool workers, which may not start the index's parser processes:
        # analyze in a fresh interpreter instead
        out = _analyze_in_subprocess(root)
        if out is None:
            return ()
    else:
        try:
            analysis = analyze(root)
        except InputError:
            return ()
        out = tuple((f.file, f.line, f.rule, f.message) for f in analysis.findings)
    if settings.use_cache:
        _save_findings(settings.cache_dir, sig, out)
    return out


# Puts the folders given as JSON in the first argument first on ``sys.path``, then runs the CLI.
_BOOT = ("import json, sys; sys.path[:0] = json.loads(sys.argv.pop(1)); sys.argv[0] = 'gyrelint'; "
         "from gyrelint.cli import main; main()")


def isolated_command(root: str | Path, *args: str) -> tuple[list[str], str]:
    """The command line (and the working folder to run it in) of this very gyrelint, started
    so that nothing from the linted repository ``root`` can be imported.

    ``python -m gyrelint`` run from the repository imported a ``gyrelint/`` package planted
    at its top instead (the working folder comes first on ``sys.path``). Isolated mode
    (``-I``) drops the working folder, ``PYTHON*`` variables and the user site; the folder
    this package was imported from and this process's own import path are put back
    explicitly, minus the working folder and anything inside ``root``, so the child runs
    the same code with the same dependencies as the plugin (editable install, user site or
    ``PYTHONPATH`` checkout included). It starts in the package's folder, not in the repo.
    """
    home = str(Path(__file__).resolve().parent.parent)
    real_root = os.path.realpath(root)
    cwd = os.path.realpath(os.getcwd())

    def trusted(entry: str) -> bool:
        if not entry or not os.path.isabs(entry):
            return False
        real = os.path.realpath(entry)
        return real != cwd and real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep)

    path = [home, *(p for p in sys.path if isinstance(p, str) and p != home and trusted(p))]
    return [sys.executable, "-I", "-c", _BOOT, json.dumps(path), *args], home


_Rows = tuple[tuple[str, int, str, str], ...]
_FINDINGS = "findings"  # the cache store's namespace


def _rows_codec():  # noqa: ANN202 - a codec registry and plan
    from .codec import Registry

    registry = Registry(())
    return registry, registry.plan(_Rows)


def _load_findings(cache_dir: Path, sig: str) -> _Rows | None:
    """The findings stored for this signature; None when absent or bad (checked by the store)."""
    from .cachestore import open_store

    payload = open_store(cache_dir).get(_FINDINGS, sig)
    return None if payload is None else decode_findings(payload)


def decode_findings(payload: bytes) -> _Rows | None:
    """The findings a cache payload holds, or None when it is not a good one."""
    registry, plan = _rows_codec()
    try:
        return plan.dec(registry.unpack(payload))  # type: ignore[union-attr,return-value]
    except Exception:  # noqa: BLE001 - any failure is a miss
        return None


def _save_findings(cache_dir: Path, sig: str, rows: _Rows) -> None:
    from .cachestore import open_store

    registry, plan = _rows_codec()
    try:
        payload = registry.pack(plan.enc(rows))  # type: ignore[union-attr]
    except (ValueError, TypeError):
        return
    open_store(cache_dir).put(_FINDINGS, sig, payload)


def _analyze_in_subprocess(root: str) -> tuple[tuple[str, int, str, str], ...] | None:
    cmd, cwd = isolated_command(root, "check", root, "--format", "json")
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=1800,
                              stdin=subprocess.DEVNULL, check=False)
        data = json.loads(proc.stdout) if proc.returncode in (0, 1) else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    return tuple((f["file"], int(f["line"]), f["rule"], f["message"]) for f in data.get("findings", []))


def findings_for(filename: str | Path) -> list[tuple[int, str, str]]:
    """(line, rule, message) of the repository findings located in ``filename``."""
    root = find_root(filename)
    if root is None:
        return []
    try:
        rel = Path(filename).resolve().relative_to(root).as_posix()
    except ValueError:
        return []
    sig = _recent_signature(str(root), int(time.monotonic() // 2))
    return [(line, rule, msg) for f, line, rule, msg in _findings(str(root), sig) if f == rel]


@functools.lru_cache(maxsize=8)
def _recent_signature(root: str, bucket: int) -> str:
    """The signature, walked at most once per two seconds per repository while flake8 visits its files."""
    return signature(Path(root))


class GyrelintChecker:
    """flake8 entry point ``GYR``: one ``GYRnnn message`` per finding in this file."""

    name = "gyrelint"
    version = __version__

    def __init__(self, tree: ast.AST | None = None, filename: str = "") -> None:
        self.filename = filename

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        if not self.filename or self.filename in ("stdin", "-"):
            return
        for line, rule, message in findings_for(self.filename):
            yield max(line, 1), 0, f"{rule} {message}", type(self)

"""Keep the on-disk cache bounded.

Every run whose input differs leaves a whole-analysis entry (several MiB for a big repo)
and stage entries behind, and every analyzer version its own folder of summaries. A
pre-commit hook runs on every commit, so without pruning the cache only grows. Two rules:

* whole-run entries (``analysis/``, ``graphs/``, ``semantics/``) share a size budget; past
  it the least recently used go first (a load marks an entry used), down to 80 % of it;
* summary folders of other analyzer versions go once nothing touched them for a week
  (an upgrade leaves the old folder dead; two versions used side by side both stay).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

ENTRY_DIRS = ("analysis", "graphs", "semantics")
BUDGET = 512 << 20
STALE_SECONDS = 7 * 24 * 3600


def touch(path: Path) -> None:
    """Mark a cache entry as just used (file systems mounted noatime never do it on read)."""
    try:
        os.utime(path)
    except OSError:
        pass


def _files(top: Path) -> list[tuple[float, int, Path]]:
    out: list[tuple[float, int, Path]] = []
    stack = [top]
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                for e in it:
                    try:
                        if e.is_dir(follow_symlinks=False):
                            stack.append(Path(e.path))
                        elif e.is_file(follow_symlinks=False):
                            st = e.stat(follow_symlinks=False)
                            out.append((st.st_mtime, st.st_size, Path(e.path)))
                    except OSError:
                        continue
        except OSError:
            continue
    return out


def _newest(folder: Path) -> float:
    """Latest change in a version folder: the folder or one of its shard folders."""
    newest = 0.0
    try:
        newest = folder.stat().st_mtime
        with os.scandir(folder) as it:
            for e in it:
                try:
                    newest = max(newest, e.stat(follow_symlinks=False).st_mtime)
                except OSError:
                    continue
    except OSError:
        pass
    return newest


def prune(cache_dir: Path, keep: set[str], budget: int | None = None, stale_seconds: float | None = None,
          now: float | None = None) -> list[Path]:
    """Delete what the two rules above select; ``keep``: folder names in use by this run.
    Returns what was deleted. Never raises: a cache that cannot be pruned still works."""
    now = time.time() if now is None else now
    budget = BUDGET if budget is None else budget
    stale_seconds = STALE_SECONDS if stale_seconds is None else stale_seconds
    removed: list[Path] = []
    entries = [f for d in ENTRY_DIRS for f in _files(cache_dir / d)]
    total = sum(size for _, size, _ in entries)
    if total > budget:
        for _, size, path in sorted(entries):  # oldest first
            if total <= budget * 0.8:
                break
            try:
                path.unlink()
            except OSError:
                continue
            total -= size
            removed.append(path)
    try:
        folders = [Path(e.path) for e in os.scandir(cache_dir) if e.is_dir(follow_symlinks=False)]
    except OSError:
        folders = []
    for folder in folders:
        name = folder.name
        if name in keep or name in ENTRY_DIRS or not name.startswith(("v", "analysis-v")):
            continue
        if now - _newest(folder) > stale_seconds:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed

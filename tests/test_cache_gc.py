"""The cache stays bounded: least recently used whole-run entries past the budget, and
summary folders of analyzer versions nobody used for a week, are deleted."""

from __future__ import annotations

import os
from pathlib import Path

from gyrelint import cache_gc
from gyrelint.api import analyze
from gyrelint.settings import Settings


def _entry(path: Path, size: int, mtime: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    os.utime(path, (mtime, mtime))
    return path


def test_oldest_entries_go_first_down_below_the_budget(tmp_path: Path) -> None:
    old = _entry(tmp_path / "analysis" / "aa" / "old", 400, 1000)
    mid = _entry(tmp_path / "graphs" / "mid", 400, 2000)
    new = _entry(tmp_path / "semantics" / "new", 400, 3000)
    removed = cache_gc.prune(tmp_path, set(), budget=1000, now=4000)
    assert removed == [old]  # 1200 > 1000: the oldest go until what is left is <= 800
    assert new.exists() and mid.exists() and not old.exists()
    assert cache_gc.prune(tmp_path, set(), budget=1000, now=4000) == []


def test_touch_keeps_a_used_entry(tmp_path: Path) -> None:
    used = _entry(tmp_path / "analysis" / "aa" / "used", 400, 1000)
    other = _entry(tmp_path / "analysis" / "bb" / "other", 400, 2000)
    cache_gc.touch(used)
    cache_gc.prune(tmp_path, set(), budget=500)
    assert used.exists() and not other.exists()


def test_stale_version_folders_go_and_the_current_one_stays(tmp_path: Path) -> None:
    week = cache_gc.STALE_SECONDS
    now = 10 * week
    stale = _entry(tmp_path / "v0.1.0+old" / "ab" / "k", 10, now - 2 * week).parent.parent
    os.utime(stale / "ab", (now - 2 * week,) * 2)
    os.utime(stale, (now - 2 * week,) * 2)
    recent = _entry(tmp_path / "v0.1.0+recent" / "ab" / "k", 10, now - 2 * week).parent.parent
    os.utime(recent / "ab", (now - 3600,) * 2)  # a shard written an hour ago
    os.utime(recent, (now - 2 * week,) * 2)
    current = _entry(tmp_path / "v0.1.0+current" / "ab" / "k", 10, 0).parent.parent
    os.utime(current / "ab", (0, 0))
    os.utime(current, (0, 0))
    mine = tmp_path / "last-analysis"
    mine.mkdir()
    os.utime(mine, (0, 0))
    cache_gc.prune(tmp_path, {"v0.1.0+current"}, now=now)
    assert not stale.exists()
    assert recent.exists() and current.exists() and mine.exists()


def test_store_prunes_the_real_cache(tmp_path: Path, monkeypatch) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "m.py").write_text("def f():\n    pass\n")
    cache = tmp_path / "cache"
    stale = _entry(cache / "analysis" / "zz" / "stale", 10, 100)
    monkeypatch.setattr(cache_gc, "BUDGET", 20 << 20)
    big = _entry(cache / "graphs" / "big", 24 << 20, 0)  # over the budget alone, and the oldest
    analyze(repo, Settings(cache_dir=cache, jobs=1))
    assert not big.exists() and stale.exists()  # down to 80 %: the small old one could stay
    assert list((cache / "analysis").rglob("*"))  # this run's entry was written and kept

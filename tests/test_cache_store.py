"""The cache store: framed entries, and a bounded size under a root gyrelint marked.

Least recently used unversioned entries past the budget go, and versioned namespaces
(summaries of an analyzer version) nobody used for a week go."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gyrelint import cachestore
from gyrelint.api import analyze
from gyrelint.cachestore import CacheStore
from gyrelint.settings import Settings

K1, K2, K3 = "a1" * 32, "b2" * 32, "c3" * 32


def _aged(store: CacheStore, ns: str, key: str, size: int, mtime: float) -> Path:
    store.put(ns, key, b"x" * size)
    path = store.path(ns, key)
    os.utime(path, (mtime, mtime))
    return path


def test_entries_round_trip_and_misses_are_none(tmp_path: Path) -> None:
    store = CacheStore(tmp_path / "c")
    assert store.get("analysis", K1) is None and not store.has("analysis", K1)
    store.put("analysis", K1, b"payload")
    assert store.get("analysis", K1) == b"payload" and store.has("analysis", K1)
    assert store.get("graphs", K1) is None  # namespaces are separate
    assert (tmp_path / "c" / cachestore.TAG_NAME).read_bytes().startswith(cachestore.TAG_SIGNATURE)
    for ns, key in (("../x", K1), ("analysis", "../../etc"), ("Analysis", K1), ("analysis", "xyz")):
        assert store.get(ns, key) is None
        with pytest.raises(ValueError):
            store.put(ns, key, b"p")


def test_an_entry_moved_to_another_key_is_a_miss(tmp_path: Path) -> None:
    store = CacheStore(tmp_path)
    store.put("graphs", K1, b"one")
    os.makedirs(store.path("graphs", K2).parent)
    os.replace(store.path("graphs", K1), store.path("graphs", K2))
    assert store.get("graphs", K2) is None


def test_oldest_entries_go_first_down_below_the_budget(tmp_path: Path) -> None:
    store = CacheStore(tmp_path)
    old = _aged(store, "analysis", K1, 400, 1000)
    mid = _aged(store, "graphs", K2, 400, 2000)
    new = _aged(store, "semantics", K3, 400, 3000)
    removed = store.prune(set(), budget=1300, now=4000)
    assert removed == [old]  # framed entries are a little over 400 bytes: the oldest go until <= 80 %
    assert new.exists() and mid.exists() and not old.exists()
    assert store.prune(set(), budget=1300, now=4000) == []


def test_a_read_keeps_a_used_entry(tmp_path: Path) -> None:
    store = CacheStore(tmp_path)
    used = _aged(store, "analysis", K1, 400, 1000)
    other = _aged(store, "analysis", K2, 400, 2000)
    assert store.get("analysis", K1) is not None
    store.prune(set(), budget=700)
    assert used.exists() and not other.exists()


def test_stale_versioned_namespaces_go_and_the_current_one_stays(tmp_path: Path) -> None:
    store = CacheStore(tmp_path)
    week = cachestore.STALE_SECONDS
    now = 10 * week
    names = {n: cachestore.versioned("summaries", n) for n in ("old", "recent", "current")}
    for n, ns in names.items():
        path = _aged(store, ns, K1, 10, now - 2 * week)
        shard_age = now - 3600 if n == "recent" else now - 2 * week  # a shard written an hour ago
        os.utime(path.parent, (shard_age,) * 2)
        os.utime(path.parent.parent, (now - 2 * week,) * 2)
    last = _aged(store, "last", K2, 10, 0)
    store.prune({names["current"]}, now=now)
    assert not (tmp_path / names["old"]).exists()
    assert (tmp_path / names["recent"]).exists() and (tmp_path / names["current"]).exists() and last.exists()


def test_analyze_prunes_the_real_cache(tmp_path: Path, monkeypatch) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "m.py").write_text("def f():\n    pass\n")
    cache = tmp_path / "cache"
    store = CacheStore(cache)
    stale = _aged(store, "analysis", K1, 10, 100)
    big = _aged(store, "graphs", K2, 24 << 20, 0)  # over the budget alone, and the oldest
    monkeypatch.setattr(cachestore, "BUDGET", 20 << 20)
    analyze(repo, Settings(cache_dir=cache, jobs=1))
    assert not big.exists() and stale.exists()  # down to 80 %: the small old one could stay
    assert list((cache / "analysis").rglob("*"))  # this run's entry was written and kept

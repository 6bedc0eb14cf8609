"""Facts of one module's own summary, kept per module in the cache store (``semantics/module_facts.py``).

After an edit only the edited module's facts are computed again; the others come from the store,
and the run answers what a cold run answers. The store's rules hold for the new namespace: a
bad or planted entry is a miss, entries are keyed by content and pruned with the others.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gyrelint import cachestore
from gyrelint.api import analyze
from gyrelint.cachestore import CacheStore
from gyrelint.render.json_report import to_report
from gyrelint.semantics import catalog, module_facts
from gyrelint.settings import Settings

FIXTURE = Path(__file__).parent / "fixtures" / "edit_param_groups"


def _report(root: Path, settings: Settings) -> dict:
    r = to_report(analyze(root, settings))
    r.pop("stats")
    return r


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    return root


def _entries(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / module_facts.NAMESPACE).glob("*/*") if p.is_file())


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    computed: list[str] = []
    real = catalog.module_facts

    def spy(summary):  # noqa: ANN001, ANN202 - the spied function's signature
        computed.append(summary.path)
        return real(summary)

    monkeypatch.setattr(catalog, "module_facts", spy)
    return computed


def test_the_fixture_labels_hold_cold_and_cached(repo: Path, tmp_path: Path) -> None:
    """Parameter groups built by a flow and inside a call are found, with the cache and without."""
    labels = json.loads((repo / "labels.json").read_text())
    for settings in (Settings(use_cache=False, jobs=1), Settings(cache_dir=tmp_path / "c", jobs=1)):
        a = analyze(repo, settings)
        got = {q: f.side.value for q, f in a.functions.items() if q in labels}
        assert got == labels
        for q in ("quillet.decay.split_decay", "quillet.tutor.Tutor.rebuild"):
            assert "optimizer-param-groups" in {e.signal for e in a.functions[q].evidence}, q


def test_an_edit_computes_the_facts_of_the_edited_module_only(repo: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    warm = Settings(cache_dir=tmp_path / "cache", jobs=1)
    computed = _counting(monkeypatch)
    _report(repo, warm)
    assert sorted(set(computed)) == sorted(computed) and len(computed) == 4  # every module with a function, once
    assert len(_entries(tmp_path / "cache")) == 4
    computed.clear()
    path = repo / "quillet" / "decay.py"
    path.write_text(path.read_text().replace("    keep, skip = [], []\n",
                                             "    keep, skip = [], []\n    print(decay_rate)\n"))
    after = _report(repo, warm)
    assert computed == ["quillet/decay.py"]  # the three others read from the store
    assert after == _report(repo, Settings(use_cache=False, jobs=1))
    assert len(_entries(tmp_path / "cache")) == 5  # a new content, a new key: the old entry is left to the pruning


def test_a_planted_entry_is_a_miss_and_changes_nothing(repo: Path, tmp_path: Path) -> None:
    """Entries framed right (anyone can recompute the checksum) but holding positions past the
    module's calls, negative ones, wrong types or another record: refused, the facts recomputed."""
    import msgpack

    cache = tmp_path / "cache"
    warm = Settings(cache_dir=cache, jobs=1)
    cold = _report(repo, Settings(use_cache=False, jobs=1))
    _report(repo, warm)
    plants = [module_facts.encode(module_facts.ModuleFacts({}, (10_000,))),
              module_facts.encode(module_facts.ModuleFacts({"x": 1}, (-1,))),
              msgpack.packb(({"x": "one"}, ())), msgpack.packb((("x", 1), (0,))), msgpack.packb((1, 2, 3)),
              msgpack.packb(msgpack.ExtType(2, msgpack.packb((9999, "os", "system"))))]
    for n, plant in enumerate(plants):
        assert plant is not None
        for p in _entries(cache):
            p.write_bytes(cachestore.frame(module_facts.NAMESPACE, p.name, plant))
        assert n < 2 or module_facts.decode(plant) is None
        (repo / "quillet" / "run.py").write_text((repo / "quillet" / "run.py").read_text() + f"\n# edit {n}\n")
        path = repo / "quillet" / "scribe.py"  # a code edit: the whole-run and semantics entries miss
        path.write_text(path.read_text() + f"\n\ndef helper_{n}(x):\n    return x\n")
        assert _report(repo, warm) == _report(repo, Settings(use_cache=False, jobs=1))
    assert cold["functions"]  # the fixture has functions to compare


def test_entries_are_content_keyed_and_pruned_with_the_others(repo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    analyze(repo, Settings(cache_dir=cache, jobs=1))
    entries = _entries(cache)
    assert entries and module_facts.NAMESPACE in cachestore.NAMESPACES
    store = CacheStore(cache)
    assert store.marked()
    removed = store.prune(set(), budget=0, stale_seconds=0)  # over any budget: the least recently used go
    assert set(entries) <= set(removed) and not _entries(cache)


def test_no_cache_folder_means_no_entry(repo: Path, tmp_path: Path) -> None:
    analyze(repo, Settings(cache_dir=tmp_path / "cache", jobs=1, use_cache=False))
    assert not (tmp_path / "cache").exists() or not _entries(tmp_path / "cache")

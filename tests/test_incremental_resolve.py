"""The resolver replayed after an edit (``graphs/incremental.py``) equals a cold run of the edited files.

Equal means: the same store, the same facts the graphs stage reads (every call site's targets,
implicit calls, attribute types, MROs), and the same provenance for the next edit (when each key
last changed, how often the items ran, what they wrote). Each edit is also checked for the path
it takes (``reuse``: nothing the resolver reads changed; ``cone``: a replay; ``full:<why>``).

The meta-tests break one rule of the replay (the removed items' keys, the check that what a
replayed item read had settled, the renaming of allocations whose line moved) and check that
the same edits then differ from a cold run: passing tests here mean something.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gyrelint.codehash import code_digest
from gyrelint.graphs import incremental as inc
from gyrelint.graphs.resolve import Resolver
from gyrelint.graphs.symbols import symbols_of
from gyrelint.index import build_index
from gyrelint.index.cache import SummaryCache
from gyrelint.settings import Settings

WORKERS = '''\
class Sampler:
    def step(self, batch):
        return [batch]


class Trainer:
    def step(self, batch):
        return {"loss": batch}

    def reset(self):
        return self


def drive(obj, batch):
    out = obj.step(batch)
    return out


def other(obj):
    return obj.step(None)


def probe(obj):
    return obj.reset()
'''

MAIN = '''\
from pkg.workers import Sampler, Trainer, drive, other, probe


def main():
    s = Sampler()
    items = [s, Trainer()]
    drive(s, items)
    other(Trainer())
    probe(Trainer())
    for x in zip(items, items):
        print(x)
    return items
'''


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "workers.py").write_text(WORKERS)
    (root / "pkg" / "main.py").write_text(MAIN)
    return root


class Session:
    """One checkout, its summary cache, and the provenance carried from run to run (encoded and
    decoded each time, as the cache store would)."""

    def __init__(self, tmp_path: Path) -> None:
        self.root = _repo(tmp_path)
        self.cache = tmp_path / "cache"
        self.settings = Settings(cache_dir=str(self.cache), jobs=1)
        sums, symbols = self.load()
        r = Resolver(sums, symbols)
        r.run(record=True)
        self.blob = inc.encode(inc.provenance_of(r))

    def load(self) -> tuple[list, object]:
        index = build_index(self.root, self.settings)
        return list(index.summaries.values()), symbols_of(index)

    def edit(self, path: str, old: str, new: str) -> tuple[str, list[str]]:
        """Apply one edit; returns the path the resolution took and what differs from cold."""
        p = self.root / path
        text = p.read_text()
        assert old in text
        p.write_text(text.replace(old, new, 1))
        sums, symbols = self.load()
        prov = inc.decode(self.blob)
        assert prov is not None
        out = inc.resolve_after_edit(sums, symbols, prov, SummaryCache(self.cache, code_digest("index")).get)
        after = inc.provenance_after_replay(out.resolver)
        self.blob = inc.encode(after)
        cold = Resolver(sums, symbols)
        cold.run(record=True)
        return out.path, _differences(out.resolver, after, cold, inc.provenance_of(cold))


def _facts(r: Resolver) -> set[tuple]:
    out: set[tuple] = set()
    for mod in sorted(r.sums):
        for i, site in enumerate(r.sums[mod].calls):
            out.update(("site", mod, i, e.target, e.kind, e.via) for e in r.site_targets(mod, site))
    out.update(("implicit", *k, t) for k, v in r.implicit.items() for t in v)
    out.update(("attr", c, a, t) for c, d in r.attr_types().items() for a, t in d.items())
    out.update(("mro", c, tuple(r.mro(c))) for c in sorted(r.classes))
    return out


def _differences(r: Resolver, prov: inc.Provenance, cold: Resolver, cold_prov: inc.Provenance) -> list[str]:
    wrong = []
    if r.store != cold.store:
        wrong.append(f"store: {sorted(k for k in r.store.keys() | cold.store.keys() if r.store.get(k) != cold.store.get(k))}")
    if {c: set(v) for c, v in r.ckeys.items()} != {c: set(v) for c, v in cold.ckeys.items()}:
        wrong.append("container keys")
    if _facts(r) != _facts(cold):
        wrong.append("facts")
    if prov.settled != cold_prov.settled:
        wrong.append("when keys settled")
    if prov.done != cold_prov.done:
        wrong.append(f"item runs {prov.done} != {cold_prov.done}")
    if sorted(map(sorted, prov.writes)) != sorted(map(sorted, cold_prov.writes)):
        wrong.append("what items wrote")
    return wrong


# (file, old text, new text, the path it must take)
EDITS = [
    ("pkg/workers.py", "def other(obj):\n", "def added(batch):\n    return [batch]\n\n\ndef other(obj):\n", "cone"),
    ("pkg/main.py", "def main():\n", "def main():\n    print('moved every line below')\n", "cone"),
    ("pkg/workers.py", "    return obj.step(None)\n", "    return obj.step(None)\n\n\nUNUSED = None\n", "reuse"),
    ("pkg/main.py", "    probe(Trainer())\n", "    print(Trainer())\n", "cone"),
    ("pkg/main.py", "    drive(s, items)\n", "    other(s)\n", "full:a replayed item read a key still moving at that time"),
    ("pkg/workers.py", "def other(obj):", "def other(obj, extra=None):", "full:a function's signature"),
    ("pkg/main.py", "import Sampler,", "import Sampler as Sampler,", "reuse"),
    ("pkg/main.py", "    return items\n", "    return items\n\n\nitems = [1, 2]\n", "full:a replayed item read a key still moving at that time"),
]


@pytest.mark.parametrize(("path", "old", "new", "expected"), EDITS)
def test_one_edit_takes_its_path_and_equals_a_cold_run(tmp_path: Path, path: str, old: str, new: str,
                                                        expected: str) -> None:
    took, wrong = Session(tmp_path).edit(path, old, new)
    assert took == expected
    assert wrong == []


def test_a_sequence_of_edits_equals_a_cold_run_after_each(tmp_path: Path) -> None:
    """The provenance a replay leaves is a cold run's: the next edit replays from it exactly."""
    session = Session(tmp_path)
    paths = []
    for path, old, new, _ in EDITS:
        took, wrong = session.edit(path, old, new)
        assert wrong == [], (path, old, took)
        paths.append(took.partition(":")[0])
    assert {"reuse", "cone", "full"} <= set(paths)


def _broken(monkeypatch: pytest.MonkeyPatch, rule: str) -> None:
    if rule == "removed items' keys":
        monkeypatch.setattr(inc, "_seed_cone", lambda seeds, removed, prov: set(seeds))
    elif rule == "settled inputs":
        monkeypatch.setattr(inc, "_unsettled", lambda settled, key, t: False)
    else:
        monkeypatch.setattr(inc, "_renamed", lambda prov, renames: prov)


@pytest.mark.parametrize(("rule", "edit"), [
    ("removed items' keys", ("pkg/main.py", "    probe(Trainer())\n", "    print(Trainer())\n")),
    ("settled inputs", ("pkg/main.py", "    other(Trainer())\n", "    other(Trainer())\n    drive(items[0], s)\n")),
    ("renamed allocations", ("pkg/main.py", "def main():\n", "def main():\n    print('moved every line below')\n")),
])
def test_a_replay_that_breaks_one_rule_differs_from_a_cold_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                rule: str, edit: tuple[str, str, str]) -> None:
    session = Session(tmp_path)
    _broken(monkeypatch, rule)
    took, wrong = session.edit(*edit)
    assert took == "cone", "the broken rule must be the one that decides"
    assert wrong, f"a replay without its {rule} rule went unnoticed"


def test_a_bad_provenance_entry_is_a_miss() -> None:
    assert inc.decode(b"not msgpack") is None
    assert inc.decode(b"\x93\x01\x02\x03") is None

"""The cache folder is untrusted (it may sit inside the analyzed fork, or be shared
between CI jobs): nothing in it can run code, crash a run, change a result, redirect a
write through a symlink, or get a file gyrelint did not make deleted."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import msgpack
import pytest

from gyrelint import analysis_cache, cachestore
from gyrelint.api import analyze
from gyrelint.cachestore import CacheStore
from gyrelint.render.json_report import to_report
from gyrelint.settings import Settings

LOOP = '''
import torch
from vllm import LLM


class Sampler:
    def __init__(self):
        self.llm = LLM(model="m")

    def rollout(self, prompts):
        return self.llm.generate(prompts)


class Learner:
    def __init__(self, model):
        self.opt = torch.optim.AdamW(model.parameters())

    def update(self, batch):
        batch["loss"].backward()
        self.opt.step()


def main():
    s, t = Sampler(), Learner(torch.nn.Linear(2, 2))
    for _ in range(3):
        t.update({"loss": s.rollout(["hi"])})


if __name__ == "__main__":
    main()
'''


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "loop").mkdir(parents=True)
    (root / "loop" / "__init__.py").write_text("")
    (root / "loop" / "main.py").write_text(LOOP)
    (root / "conf.yaml").write_text("trainer:\n  nnodes: 2\n")  # a config file: the "configs" namespace
    return root


def _report(a) -> dict:
    r = to_report(a)
    r.pop("stats")
    return r


def _entries(cache: Path) -> dict[str, list[Path]]:
    """Entry files by namespace."""
    out: dict[str, list[Path]] = {}
    for p in sorted(cache.glob("*/*/*")):
        if p.is_file() and not p.is_symlink():
            out.setdefault(p.parent.parent.name.split("-")[0], []).append(p)
    return out


def _fill_every_namespace(repo: Path, cache: Path) -> dict[str, list[Path]]:
    from gyrelint import flake8_plugin

    analyze(repo, Settings(cache_dir=cache, jobs=1))
    flake8_plugin._save_findings(cache, "f" * 32, (("loop/main.py", 3, "GYR001", "m"),))
    got = _entries(cache)
    assert set(got) == {"analysis", "last", "graphs", "semantics", "summaries", "findings", "provenance",
                        "configs", "modfacts"}
    assert set(got) - {"summaries"} == cachestore.NAMESPACES  # a namespace the store knows is tested here
    return got


def _evil_pickles(marker: Path) -> list[bytes]:
    """Pickles that run ``touch marker`` when loaded: a plain ``os.system`` global, and the
    one the old restricted unpickler let through (a dotted name under ``gyrelint.*`` that
    reaches ``os.system``; it ran the command before this store existed)."""
    cmd = f"touch {marker}".encode()
    out = []
    for mod, name in ((b"posix", b"system"), (b"gyrelint.flake8_plugin", b"os.system")):
        out.append(b"\x80\x04\x8c" + bytes([len(mod)]) + mod + b"\x8c" + bytes([len(name)]) + name + b"\x93"
                   + b"\x8c" + bytes([len(cmd)]) + cmd + b"\x85R.")
    return out


def test_a_pickle_planted_at_an_entry_path_runs_nothing(repo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    settings = Settings(cache_dir=cache, jobs=1)
    cold = _report(analyze(repo, settings))
    marker = tmp_path / "PWNED"
    for evil in _evil_pickles(marker):
        for ns, paths in _entries(cache).items():
            for path in paths:
                key, folder = path.name, path.parent.parent.name
                # raw, as the old format stored it, then inside a valid frame (behind the right magic)
                path.write_bytes(analysis_cache.MAGIC + hashlib.sha256(key.encode() + evil).digest() + evil)
                assert CacheStore(cache).get(folder, key) is None
                inner = analysis_cache._codec()[3] + evil if ns == "analysis" else evil
                path.write_bytes(cachestore.frame(folder, key, inner))
                assert CacheStore(cache).get(folder, key) == inner
        again = analyze(repo, settings)
        assert not marker.exists()
        assert _report(again) == cold and again.stats.parsed == 2  # every entry refused, all recomputed


def test_a_flipped_bit_in_any_namespace_is_a_miss(repo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    settings = Settings(cache_dir=cache, jobs=1)
    entries = _fill_every_namespace(repo, cache)
    cold = _report(analyze(repo, settings))
    store = CacheStore(cache)
    for paths in entries.values():
        for path in paths:
            data = bytearray(path.read_bytes())
            for pos in (0, 5, 8, len(data) // 2, len(data) - 1):  # magic, format, key, payload
                flipped = bytearray(data)
                flipped[pos] ^= 0x10
                path.write_bytes(bytes(flipped))
                assert store.get(path.parent.parent.name, path.name) is None, (path, pos)
            path.write_bytes(bytes(data[: len(data) // 2]))  # truncated
            assert store.get(path.parent.parent.name, path.name) is None
            path.write_bytes(bytes(data))
    for paths in entries.values():  # now flip one bit of every entry for the same run
        for path in paths:
            data = bytearray(path.read_bytes())
            data[-1] ^= 1
            path.write_bytes(bytes(data))
    again = analyze(repo, settings)
    assert _report(again) == cold and again.stats.parsed == 2


def _reframe(path: Path, payload: bytes) -> None:
    ns = path.parent.parent.name
    path.write_bytes(cachestore.frame(ns, path.name, payload))


def test_a_reframed_entry_with_an_unknown_type_tag_is_a_miss(repo: Path, tmp_path: Path) -> None:
    """The checksum is recomputable by anyone; what decodes is still only gyrelint's own types."""
    from gyrelint.flake8_plugin import decode_findings
    from gyrelint.graphs.build import decode_resolution
    from gyrelint.graphs.incremental import decode as decode_provenance
    from gyrelint.index import cache as C
    from gyrelint.semantics.cache import decode as decode_semantics
    from gyrelint.semantics.module_facts import decode as decode_module_facts
    from gyrelint.topology.file_cache import decode as decode_config

    cache = tmp_path / "cache"
    settings = Settings(cache_dir=cache, jobs=1)
    entries = _fill_every_namespace(repo, cache)
    cold = _report(analyze(repo, settings))
    unknown_record = msgpack.ExtType(2, msgpack.packb((9999, "os", "system")))  # a record index nobody registered
    unknown_code = msgpack.ExtType(99, b"os.system")
    for tag in (unknown_record, unknown_code):
        body = msgpack.packb(("k" * 64, tag))
        summary_payload = C._HEAD + b"G" + hashlib.sha256(body).digest()[:16] + body
        head = analysis_cache._codec()[3]
        payloads = {
            "analysis": head + msgpack.packb(tag),
            "summaries": summary_payload,
            "graphs": msgpack.packb(tag),
            "semantics": msgpack.packb((tag,) * 6),
            "last": msgpack.packb((tag, "", {}, {})),
            "findings": msgpack.packb(((tag, 1, "GYR001", "m"),)),
            "provenance": msgpack.packb((1, tag)),
            "configs": msgpack.packb((tag, (), (), ())),
            "modfacts": msgpack.packb((tag, ())),
        }
        for ns, paths in entries.items():
            for path in paths:
                _reframe(path, payloads[ns])
        assert decode_findings(payloads["findings"]) is None
        assert decode_resolution(payloads["graphs"]) is None
        assert decode_provenance(payloads["provenance"]) is None
        assert decode_config(payloads["configs"]) is None
        assert decode_semantics(payloads["semantics"]) is None
        assert decode_module_facts(payloads["modfacts"]) is None
        assert analysis_cache.decode_last(payloads["last"]) is None
        with pytest.raises(C.CacheError):
            C.decode("k" * 64, summary_payload)
        again = analyze(repo, settings)
        assert _report(again) == cold and again.stats.parsed == 2


def _plant_user_files(folder: Path, lookalike: bool = True) -> list[Path]:
    """What a user (or another tool) keeps where a cache folder may point; ``lookalike``:
    also a file named exactly as gyrelint names its entries."""
    files = []
    rels = ["vendor/lib/a.py", "venv/bin/python", "v1/ab/" + "ab" * 32, "analysis-v2/x", "notes.txt",
            "old.bin", "analysis/README", "graphs/ab/notes.txt", "graphs/.tmp-1-x", "cache/ab/" + "ab" * 32]
    if lookalike:
        rels.append("summaries-" + "0" * 16 + "/ab/" + "ab" * 32)
    for rel in rels:
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("user data")
        files.append(p)
    for p in [*files, *{p.parent for p in files}]:
        os.utime(p, (0, 0))  # very old: any age rule would pick them
    return files


def test_cleanup_never_touches_an_unmarked_folder(repo: Path, tmp_path: Path, monkeypatch) -> None:
    home = tmp_path / "home"
    files = _plant_user_files(home)
    monkeypatch.setattr(cachestore, "BUDGET", 0)  # everything would be over the budget
    store = CacheStore(home)
    assert store.prune(set(), budget=0, stale_seconds=0) == []
    analyze(repo, Settings(cache_dir=home, jobs=1))  # still works as a cache there...
    assert analyze(repo, Settings(cache_dir=home, jobs=1)).stats.cached == 2
    assert all(p.read_text() == "user data" for p in files)  # ...and deletes nothing
    assert not (home / cachestore.TAG_NAME).exists()  # a non-empty folder is never marked


def test_cleanup_under_a_marked_root_deletes_only_gyrelint_names(repo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    store = CacheStore(cache)
    store.put("analysis", "cd" * 32, b"x" * 100)  # creates and marks the root
    assert store.marked()
    mine = [store.path("analysis", "cd" * 32)]
    ns = cachestore.versioned("summaries", "some old version")
    store.put(ns, "ef" * 32, b"y")
    mine.append(store.path(ns, "ef" * 32))
    files = _plant_user_files(cache, lookalike=False)
    for p in mine:
        os.utime(p, (0, 0))
    os.utime(mine[1].parent, (0, 0))
    os.utime(mine[1].parent.parent, (0, 0))
    removed = store.prune(set(), budget=0, stale_seconds=0)
    assert sorted(removed) == sorted(mine) and not any(p.exists() for p in mine)
    assert all(p.read_text() == "user data" for p in files)


def test_a_symlinked_tag_does_not_mark_a_root(tmp_path: Path) -> None:
    real = tmp_path / "real"
    CacheStore(real).put("graphs", "ab" * 32, b"x")
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("user data")
    (other / cachestore.TAG_NAME).symlink_to(real / cachestore.TAG_NAME)
    assert not CacheStore(other).marked()
    assert CacheStore(other).prune(set(), budget=0, stale_seconds=0) == []


def test_symlinks_planted_in_a_repo_local_cache_are_never_written_through(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim"
    victim.write_text("user data")
    cache = repo / ".gyrelint-cache"
    cache.mkdir()
    for ns in (*sorted(cachestore.NAMESPACES), cachestore.versioned("summaries", "x")):  # modfacts, configs too
        (cache / ns).symlink_to(outside)
    # the real summaries namespace, and one shard of another namespace, too
    from gyrelint.codehash import code_digest

    real_ns = cachestore.versioned("summaries", code_digest("index"))
    (cache / real_ns).symlink_to(outside)
    settings = Settings(cache_dir=cache, jobs=1)
    analyze(repo, settings)
    analyze(repo, settings)
    assert sorted(p.name for p in outside.iterdir()) == ["victim"] and victim.read_text() == "user data"
    # an entry file that is a symlink is replaced, not written through
    store = CacheStore(tmp_path / "c2")
    store.put("graphs", "ab" * 32, b"x")
    entry = store.path("graphs", "ab" * 32)
    entry.unlink()
    entry.symlink_to(victim)
    assert store.get("graphs", "ab" * 32) is None
    store.put("graphs", "ab" * 32, b"new")
    assert victim.read_text() == "user data" and store.get("graphs", "ab" * 32) == b"new"
    assert not entry.is_symlink()


def test_a_cache_root_that_is_a_symlink_is_not_used(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    link = repo / ".cache-link"
    link.symlink_to(outside)
    a = analyze(repo, Settings(cache_dir=link, jobs=1))
    assert a.stats.parsed == 2 and list(outside.iterdir()) == []
    assert analyze(repo, Settings(cache_dir=link, jobs=1)).stats.parsed == 2  # no cache, still right


def test_graphs_that_do_not_decode_are_rebuilt_from_the_index(repo: Path, tmp_path: Path) -> None:
    """The graphs of a loaded analysis decode on first use; bytes forged behind a valid
    checksum are then rebuilt, never a crash or another answer."""
    from gyrelint.render.dot import build_map

    cache = tmp_path / "cache"
    settings = Settings(cache_dir=cache, jobs=1)
    cold = analyze(repo, settings)
    [entry] = _entries(cache)["analysis"]
    registry, _, _, head = analysis_cache._codec()
    payload = CacheStore(cache).get("analysis", entry.name)
    assert payload is not None
    fields = list(registry.unpack(payload[len(head):]))
    graphs_at = [i for i, v in enumerate(fields) if type(v) is tuple and v and all(type(b) is bytes for b in v)]
    assert len(graphs_at) == 1
    blobs = list(fields[graphs_at[0]])
    blobs[-1] = msgpack.packb({"not": "roots"})  # only the last field is bad: every one is rebuilt
    fields[graphs_at[0]] = tuple(blobs)
    _reframe(entry, head + msgpack.packb(tuple(fields), use_bin_type=True))
    warm = analyze(repo, settings)
    assert warm.stats.cached == 2 and isinstance(warm.graphs, analysis_cache.LazyGraphs)
    assert list(warm.graphs.calls.edges(data=True)) == list(cold.graphs.calls.edges(data=True))
    assert repr(build_map(warm)) == repr(build_map(cold)) and warm.graphs.roots == cold.graphs.roots

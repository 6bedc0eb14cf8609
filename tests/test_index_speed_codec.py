"""The summary codec that serves both as cache entry and as the workers' reply.

Decoded summaries must equal freshly extracted ones exactly (same record types, same
container types), whichever way they travel: worker bytes, cache hit, in-process parse.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
from pathlib import Path

import msgpack
import pytest

import gyrelint.index as index_mod
from gyrelint.index import build_index, parse_source
from gyrelint.index import cache as C
from gyrelint.index.summary import Arg, CallSite, FileSummary, Flow, FunctionDef, Param
from gyrelint.settings import Settings

RICH = '''\
"""A module that exercises every record kind."""
from __future__ import annotations
import os, sys as system
from . import sibling
from ..pkg.mod import thing as other, more
import torch.optim as optim

__all__ = ["Trainer", "run"]
TABLE = {("a", 1): [1.5, -2, None, True, b"raw"], "k": {"nested": (1, 2)}}


def deco(fn=None, *, name: str = "x"):
    return fn


@deco(name="t")
class Trainer(Base, metaclass=Meta):
    lr: float = 3e-4
    steps: int
    mode: str = "train"

    def __init__(self, opt: optim.Optimizer | None = None, *args, flag=False, **kw) -> None:
        self.opt = opt or optim.AdamW(self.parameters(), lr=self.lr, betas=(0.9, 0.99))
        self.table = {"loss": lambda x: x * 2, "id": lambda y: y}
        self.queue = []
        super().__init__(*args, **kw)

    @property
    def name(self) -> str:
        return self.mode

    async def step(self, batch, *, retries: int = 3):
        for i, item in enumerate(batch["items"]):
            if item is None:
                continue
            if not item.valid:
                logger.warning("skip %s", i)
                continue
            batch["advantages"] = await self.compute(item, scale=-1.0)
            item.score = batch.reward
        while retries:
            retries -= 1
            yield getattr(self, "update")(batch, **{"k": 1})
        return

    def run_method(self, method: str, *a):
        return getattr(self, method)(*a)  # gyrelint: ignore[GYR001, gyr002]


def run(cfg=None, workers: list[str] = ["a", "b"]):  # gyrelint: ignore
    t = Trainer.options(num_gpus=1).remote()
    x = t.step.remote(cfg) if cfg else None
    y = [t for t in range(3) if t]
    fn = functools.partial(run, cfg=1)
    path = "pkg.mod.Cls"
    with open(os.path.join("a", "b")) as fh, lock:
        data = fh.read()[1:2]
    del data
    return ray.get([x, *y]), fn, path, f"{cfg!r}", 0x10, 1j


if __name__ == "__main__":
    run(system.argv[1:])
'''


def _strict_equal(a: object, b: object) -> bool:
    """Equality that also tells list from tuple, bool from int, record from record."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(map(_strict_equal, a, b))  # type: ignore[arg-type]
    if isinstance(a, dict):
        return list(a) == list(b) and all(_strict_equal(a[k], b[k]) for k in a)  # type: ignore[index]
    if dataclasses.is_dataclass(a):
        return all(_strict_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return a == b


def _rich() -> FileSummary:
    summary, diag = parse_source("pkg/rich.py", "pkg.rich", RICH.encode())
    assert diag is None and summary is not None
    return summary


def _layout(data: bytes) -> bytes:
    return data[len(C._HEAD) : len(C._HEAD) + 1]


def test_every_record_kind_round_trips_exactly_in_the_fast_layout() -> None:
    s = _rich()
    kinds = {name for name in ("functions", "classes", "imports", "calls", "assignments", "subscripts", "attrs",
                               "strings", "skips", "flows", "lambdas") if getattr(s, name)}
    assert len(kinds) == 11, kinds  # the fixture really exercises every record list
    assert s.suppressions and s.all_exports and s.main_guard_line
    assert any(p.default is not None for f in s.functions for p in f.params)
    assert any(c.kwargs for c in s.calls) and any(c.args for c in s.calls)
    data = C.encode("key", s)
    assert _layout(data) == b"S"
    back = C.decode("key", data)
    assert back == s and _strict_equal(back, s)


def test_values_that_do_not_fit_their_hints_use_the_generic_layout() -> None:
    base = _rich()
    odd = [
        # a list where the hint says tuple
        dataclasses.replace(base, calls=[dataclasses.replace(base.calls[0], args=list(base.calls[0].args))]),
        # a record inside a value the hints call plain
        dataclasses.replace(base, calls=[*base.calls, CallSite("<module>", "f", 1, (Arg("lit", Arg("lit", 1)),))]),
        # a record of another kind where the hints name one
        dataclasses.replace(base, functions=[*base.functions, Param("p")]),  # type: ignore[list-item]
        # an empty list where the hint says tuple (empty values skip conversion when decoded)
        dataclasses.replace(base, calls=[CallSite("<module>", "f", 1, [])]),  # type: ignore[arg-type]
    ]
    for s in odd:
        data = C.encode("key", s)
        assert _layout(data) == b"G"
        assert _strict_equal(C.decode("key", data), s)


def test_lists_inside_untyped_values_come_back_as_lists() -> None:
    """Arrays decode as tuples; a list inside a value no hint types (a literal, a flow
    expression) is tagged, so the decoded summary is ``==`` to the stored one."""
    s = dataclasses.replace(_rich(), flows=[Flow("<module>", "=", ("n", "x"), ("k", [1, (2, [3])], "[x]"), 3)],
                            calls=[CallSite("<module>", "f", 1, (Arg("lit", [1, 2]), Arg("lit", ("[",))))])
    data = C.encode("key", s)
    assert _layout(data) == b"S"
    assert _strict_equal(C.decode("key", data), s)


def test_unstorable_values_are_refused_at_encoding() -> None:
    s = dataclasses.replace(_rich(), all_exports=(object(),))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        C.encode("key", s)


def _forge(payload_obj: object, layout: bytes = b"S") -> bytes:
    payload = msgpack.packb(payload_obj, use_bin_type=True)
    return C._HEAD + layout + hashlib.sha256(payload).digest()[:16] + payload


@pytest.mark.parametrize("data", [
    b"",
    b"GYRC\x01" + bytes(40),  # an old format
    b"GYRC\x02" + bytes(40),  # the marshal format
    C.MAGIC + bytes(8) + b"S" + bytes(40),  # another schema
    _forge(("key", (1, 2, 3))),  # right checksum, wrong shape
    _forge(("key", ("p", "m", False, 1, 2, 3, 4, 5, 6, 7, 8, 9, None, None, {}, 0, "", (), ()))),
    _forge(("key", tuple(range(19)))),
    _forge(("key", msgpack.ExtType(2, msgpack.packb((999, "x"))))),  # a record type outside the allow-list
    _forge(("other", ("p", "m"))),
    _forge(("key", ("p", "m")), layout=b"Z"),
    _forge(("key", msgpack.ExtType(42, b"")), layout=b"G"),
    _forge(("key", "not a summary"), layout=b"G"),
])
def test_corrupt_or_forged_entries_are_refused(data: bytes) -> None:
    with pytest.raises(C.CacheError):
        C.decode("key", data)
    assert not Path("/tmp/gyrelint-pwned").exists()


def test_a_flipped_byte_is_refused() -> None:
    data = bytearray(C.encode("key", _rich()))
    data[-5] ^= 0xFF
    with pytest.raises(C.CacheError):
        C.decode("key", bytes(data))


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("from .rich import run\n")
    (repo / "pkg" / "rich.py").write_text(RICH)
    for i in range(9):  # enough files for several batches and both workers
        (repo / "pkg" / f"m{i}.py").write_text(RICH.replace("Trainer", f"Trainer{i}"))
    (repo / "pkg" / "broken.py").write_text("def f(:\n")
    return repo


def _fresh(repo: Path, index: index_mod.Index) -> dict[str, FileSummary]:
    out = {}
    for path in index.files.python:
        s, _ = parse_source(path, index.files.modules[path], (repo / path).read_bytes())
        if s is not None:
            s.sha = index.summaries[path].sha
            out[path] = s
    return out


def test_worker_bytes_cache_hits_and_inline_parsing_give_identical_summaries(tmp_path: Path, monkeypatch) -> None:
    repo = _repo(tmp_path)
    settings = Settings(cache_dir=tmp_path / "cache", jobs=2)
    cold = build_index(repo, settings)
    assert (cold.stats.parsed, cold.stats.cached) == (11, 0)
    assert [d.file for d in cold.diagnostics] == ["pkg/broken.py"]
    fresh = _fresh(repo, cold)
    assert list(cold.summaries) == sorted(fresh)
    assert all(_strict_equal(cold.summaries[p], fresh[p]) for p in fresh)
    warm = build_index(repo, settings)
    assert (warm.stats.parsed, warm.stats.cached) == (0, 11)
    assert all(_strict_equal(warm.summaries[p], fresh[p]) for p in fresh)
    assert [d.file for d in warm.diagnostics] == ["pkg/broken.py"]  # a broken file is never cached
    nocache = build_index(repo, Settings(cache_dir=tmp_path / "nocache", jobs=2, use_cache=False))
    assert nocache.stats.cached == 0 and not (tmp_path / "nocache").exists()
    assert all(_strict_equal(nocache.summaries[p], fresh[p]) for p in fresh)

    class Daemon:
        daemon = True

    monkeypatch.setattr(index_mod.multiprocessing, "current_process", lambda: Daemon())
    inline = build_index(repo, Settings(cache_dir=tmp_path / "inline", jobs=2))
    assert inline.stats.parsed == 11
    assert all(_strict_equal(inline.summaries[p], fresh[p]) for p in fresh)
    assert build_index(repo, Settings(cache_dir=tmp_path / "inline", jobs=2)).stats.cached == 11


def test_build_index_leaves_the_collector_as_it_found_it(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    settings = Settings(cache_dir=tmp_path / "cache", jobs=2)
    assert gc.isenabled()
    build_index(repo, settings)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    try:
        build_index(repo, settings)
        assert not gc.isenabled()
    finally:
        gc.enable()
    keep = [object(), [1, 2]]
    gc.freeze()  # a caller's frozen objects stay frozen
    try:
        frozen = gc.get_freeze_count()
        build_index(repo, settings)
        assert gc.get_freeze_count() == frozen and gc.isenabled()
    finally:
        gc.unfreeze()
    assert keep


def test_a_summary_with_unstorable_values_still_reaches_the_index(tmp_path: Path, monkeypatch) -> None:
    """The worker then sends the records themselves and caches nothing."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def f():\n    return 1\n")
    real = index_mod.parse_source

    def odd(path: str, module: str, content: bytes):  # noqa: ANN202
        s, d = real(path, module, content)
        s.all_exports = (object(),)  # type: ignore[union-attr]
        return s, d

    monkeypatch.setattr(index_mod, "parse_source", odd)  # forked workers see it too

    class Daemon:
        daemon = True

    for daemon in (False, True):
        if daemon:
            monkeypatch.setattr(index_mod.multiprocessing, "current_process", lambda: Daemon())
        cache = tmp_path / f"cache{daemon}"
        idx = build_index(repo, Settings(cache_dir=cache, jobs=1))
        assert [f.name for f in idx.summaries["a.py"].functions] == ["f"]
        assert not [p for p in cache.rglob("*") if p.is_file()]


def test_the_fast_layout_covers_the_summary_schema() -> None:
    """Every record list and nested record field has a plan; a new record type or field
    added to summary.py is picked up from the type hints."""
    assert C._SUMMARY is not None
    assert {FileSummary, FunctionDef, Param, Arg, CallSite} <= set(C._TYPES)
    assert C._CODEC.types == C._TYPES


def test_workers_are_forked_only_while_no_other_thread_runs() -> None:
    import sys
    import threading

    ctx = index_mod._context()
    if sys.platform != "darwin" and "fork" in index_mod.multiprocessing.get_all_start_methods():
        assert ctx.get_start_method() == "fork"
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert index_mod._context() is index_mod.multiprocessing.get_context()
    finally:
        stop.set()
        t.join()


def test_a_warm_index_never_loads_the_parser(tmp_path: Path) -> None:
    """libcst is imported where a file is parsed: a run served by the cache skips it."""
    import subprocess
    import sys

    repo = _repo(tmp_path)
    script = (
        "import sys; from pathlib import Path\n"
        "from gyrelint.index import build_index\nfrom gyrelint.settings import Settings\n"
        f"idx = build_index(Path({str(repo)!r}), Settings(cache_dir=Path({str(tmp_path / 'c')!r}), jobs=2))\n"
        "print(idx.stats.parsed, idx.stats.cached, 'libcst' in sys.modules)\n"
    )
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()
            for _ in range(2)]
    # the cold run parses in its workers, which load libcst themselves: the calling process
    # never holds it (7.5 MiB of its peak for the whole run)
    assert runs == [["11", "0", "False"], ["0", "11", "False"]]


def test_files_that_cannot_be_summarised_are_reported_again_from_the_cache(tmp_path: Path, monkeypatch) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "nest.py").write_text("x = " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    (repo / "nul.py").write_bytes(b"x = 1\x00\n")
    (repo / "badutf.py").write_bytes(b"s = 'caf\xe9'\n")
    (repo / "syntax.py").write_text("def f(:\n    pass\n")
    (repo / "good.py").write_text("def train(opt):\n    opt.step()\n")
    settings = Settings(cache_dir=tmp_path / "cache", jobs=2)
    cold = build_index(repo, settings)
    assert {d.file for d in cold.diagnostics} == {"nest.py", "nul.py", "badutf.py", "syntax.py"}

    def no_parser():  # noqa: ANN202
        raise AssertionError("a warm run parsed a file")

    monkeypatch.setattr(index_mod, "_parser", no_parser)
    warm = build_index(repo, settings)
    assert warm.diagnostics == cold.diagnostics and list(warm.summaries) == ["good.py"]
    assert (warm.stats.parsed, warm.stats.cached) == (0, 1)
    monkeypatch.undo()
    (repo / "syntax.py").write_text("def f():\n    pass\n")  # fixed: parsed again
    fixed = build_index(repo, settings)
    assert "syntax.py" in fixed.summaries and fixed.stats.parsed == 1
    assert {d.file for d in fixed.diagnostics} == {"nest.py", "nul.py", "badutf.py"}


def test_problem_entries_are_checked_like_summaries() -> None:
    data = C.encode_problem("key", 3, "syntax error: x; file skipped", "parse")
    assert C.decode_entry("key", data) == (3, "syntax error: x; file skipped", "parse")
    for bad in (data[:-3], data.replace(b"syntax", b"syntaz")):
        with pytest.raises(C.CacheError):
            C.decode_entry("key", bad)
    with pytest.raises(C.CacheError):
        C.decode_entry("other", data)
    with pytest.raises(C.CacheError):
        C.decode("key", data)  # not a summary
    forged = _forge(("key", ("3", "m", "parse")), layout=b"D")
    with pytest.raises(C.CacheError):
        C.decode_entry("key", forged)


def test_a_worker_that_dies_costs_only_its_file(tmp_path: Path, monkeypatch) -> None:
    """A native parser crash kills a worker: that file is a diagnostic, the rest is indexed,
    and nothing about the crash is cached."""
    import os

    if index_mod._context().get_start_method() != "fork":
        pytest.skip("the crash is injected into forked workers")
    repo = tmp_path / "repo"
    repo.mkdir()
    for i in range(12):
        (repo / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    real = index_mod.parse_source

    def crashing(path: str, module: str, content: bytes):  # noqa: ANN202
        if path == "m5.py":
            os._exit(3)
        return real(path, module, content)

    monkeypatch.setattr(index_mod, "parse_source", crashing)
    settings = Settings(cache_dir=tmp_path / "cache", jobs=2)
    idx = build_index(repo, settings)
    assert set(idx.summaries) == {f"m{i}.py" for i in range(12)} - {"m5.py"}
    assert [(d.file, d.message) for d in idx.diagnostics] == [("m5.py", "the parser crashed on this file; skipped")]
    monkeypatch.undo()
    again = build_index(repo, settings)
    assert "m5.py" in again.summaries and again.stats.parsed == 1


def test_entries_found_bad_while_workers_parse_are_parsed_too(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for i in range(6):
        (repo / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    settings = Settings(cache_dir=tmp_path / "cache", jobs=2)
    cold = build_index(repo, settings)
    entry = _cache_of(settings)._path(cold.summaries["m2.py"].sha)
    entry.write_bytes(entry.read_bytes()[:-7])  # truncated: found bad only when decoded
    (repo / "m4.py").write_text("def g4():\n    return 4\n")  # no entry: sent to the workers first
    again = build_index(repo, settings)
    assert (again.stats.parsed, again.stats.cached) == (2, 4)
    assert [f.name for f in again.summaries["m4.py"].functions] == ["g4"]
    assert all(_strict_equal(again.summaries[p], cold.summaries[p]) for p in cold.summaries if p != "m4.py")


def _cache_of(settings: Settings) -> C.SummaryCache:
    from gyrelint.codehash import code_digest

    return C.SummaryCache(settings.cache_dir, code_digest("index"))

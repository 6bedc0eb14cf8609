"""Decoded summaries share equal strings and small string-only tuples (the index's memory on
verl went from 104 to 53 MiB), and the sharing never changes a value: a literal ``True``, ``1``
and ``1.0`` stay what they were, and a decoded summary equals the extracted one."""

from __future__ import annotations

from gyrelint.index import cache as C
from gyrelint.index import parse_source
from gyrelint.index.summary import FileSummary

SOURCE = '''\
import torch


class Actor:
    def update_policy(self, batch):
        self.optimizer.zero_grad()
        loss = self.compute_loss(batch, scale=1, clip=True, eps=1.0, flag=False, zero=0, none=None)
        loss.backward()
        self.optimizer.step()
        return self.optimizer.step(1.0), self.optimizer.step(True), self.optimizer.step(1)
'''


def _entry(path: str) -> tuple[str, bytes, FileSummary]:
    summary, diag = parse_source(path, path[:-3].replace("/", "."), SOURCE.encode())
    assert summary is not None and diag is None
    key = f"{len(path):064x}"
    summary.sha = key
    return key, C.encode(key, summary), summary


def _objects(value: object, out: list) -> list:
    """Every string and tuple reachable from ``value`` (records by their slots)."""
    if isinstance(value, (str, tuple)):
        out.append(value)
    if isinstance(value, (tuple, list)):
        for x in value:
            _objects(x, out)
    elif hasattr(value, "__slots__"):
        for name in value.__slots__:
            _objects(getattr(value, name, None), out)
    return out


def test_decoded_summary_equals_extracted_and_keeps_literal_types() -> None:
    key, data, extracted = _entry("pkg/actor.py")
    decoded = C.decode(key, data, {})
    assert decoded == extracted
    # 1, 1.0 and True are equal dictionary keys: sharing them would turn one into another
    lits = [(a.value, type(a.value)) for c in decoded.calls for a in c.args if a.kind == "lit"]
    kw = [(v.value, type(v.value)) for c in decoded.calls for _, v in c.kwargs if v.kind == "lit"]
    assert (1.0, float) in lits and (True, bool) in lits and (1, int) in lits
    assert {(1, int), (True, bool), (1.0, float), (False, bool), (0, int), (None, type(None))} <= set(kw)
    assert _types(extracted) == _types(decoded)


def _types(s: FileSummary) -> list:
    return [type(x).__name__ + repr(x) for x in _objects(s, []) if not isinstance(x, str)]


def test_equal_strings_and_string_tuples_are_one_object_across_files() -> None:
    memo: dict = {}
    key_a, data_a, _ = _entry("pkg/a.py")
    key_b, data_b, _ = _entry("pkg/b.py")
    a, b = C.decode(key_a, data_a, memo), C.decode(key_b, data_b, memo)
    sa = {s: s for s in _objects(a, []) if isinstance(s, str)}
    shared_strings = [s for s in _objects(b, []) if isinstance(s, str) and s in sa]
    assert shared_strings and all(s is sa[s] for s in shared_strings)
    self_a = [t for t in _objects(a, []) if t == ("n", "self")]
    self_b = [t for t in _objects(b, []) if t == ("n", "self")]
    assert len(self_a) > 3 and len({id(t) for t in self_a + self_b}) == 1


def test_without_a_memo_an_entry_shares_within_itself() -> None:
    key, data, extracted = _entry("pkg/c.py")
    got = C.decode(key, data)
    assert got == extracted
    selfs = [t for t in _objects(got, []) if t == ("n", "self")]
    assert len({id(t) for t in selfs}) == 1


def _validates() -> bool:
    """Whether libcst still checks the nodes built in this process."""
    import libcst

    try:
        libcst.Name("")
    except libcst.CSTValidationError:
        return True
    return False


def test_only_parse_workers_skip_libcst_node_validation() -> None:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    import gyrelint.index as index_mod

    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=1, mp_context=ctx, initializer=index_mod._init_worker,
                             initargs=index_mod._worker_args(ctx)) as pool:
        assert pool.submit(_validates).result(timeout=60) is False
    assert _validates()  # the calling process (the inline path, the API user's libcst) keeps validating


def test_decoding_leaves_no_cycle_holding_the_memo() -> None:
    """The memo lives as long as the build that owns it: a decode left a self-referencing
    closure behind, which kept the memo (8 MiB on verl) until a full collection."""
    import gc
    import weakref

    class Memo(dict):  # a dict subclass can be weakly referenced
        pass

    key, data, _ = _entry("pkg/d.py")
    memo = Memo()
    gone = weakref.ref(memo)
    was = gc.isenabled()
    gc.disable()
    try:
        C.decode(key, data, memo)
        del memo
        assert gone() is None
    finally:
        if was:
            gc.enable()


def test_a_second_file_found_by_hash_decodes_to_the_same_values() -> None:
    """The hook looks a small array up in the memo before interning its strings: the second
    file's arrays are found there, and what comes back equals the plain decode (no hook), literal
    types included."""
    memo: dict = {}
    key_a, data_a, _ = _entry("pkg/a.py")
    key_b, data_b, extracted = _entry("pkg/b.py")
    C.decode(key_a, data_a, memo)
    shared = dict(memo)
    got = C.decode(key_b, data_b, memo)
    assert got == extracted and _types(got) == _types(extracted)
    plain = C._CODEC.unpack(data_b[len(C._HEAD) + 17:])
    assert C._SUMMARY.dec(plain[1]) == got
    found = [t for t in _objects(got, []) if isinstance(t, tuple) and t in shared]
    assert found and all(t is shared[t] for t in found)

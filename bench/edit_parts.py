"""Where a code edit's CPU goes, part by part, without a profiler's inflation.

Usage::

    python bench/edit_parts.py [--repo DIR] [--module PATH] [--rounds N] [--full] [--decode]

Copies the corpus (default: the verl wheel), fills a cache with one cold ``analyze`` in this
process, then for each round inserts a call at the top of the largest function of ``--module``
(``bench/edit_loop.py``'s body edit, a new line each round so every whole-run entry misses) and
runs ``analyze`` again, in process, with the named stage functions wrapped by
``time.process_time`` (CPU of this process only). Topology runs in process (its second-core
child is switched off here), so its CPU is counted. cProfile inflates this Python code by
2-4x and not evenly (many small calls more than a few long loops); this split does not.

``--full`` forces the resolver's whole run after each edit (``graphs/incremental.py``'s replay
refused), to measure what the replay saves. ``--decode`` also splits decoding the cached
summaries into msgpack, the sharing hook and the records, on the same cache.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import importlib
import os
import sys
import tempfile
import time
from pathlib import Path

from edit_loop import body_edit
from speed import DEFAULT_REPO, copy_corpus

# (module, function, label): the parts printed, in this order; a part inside another is indented
PARTS = (
    ("gyrelint.index", "build_index", "index"),
    ("gyrelint.index.cache", "decode_entry", "  summary decode"),
    ("gyrelint.graphs.symbols", "symbols_of", "symbol table"),
    ("gyrelint.entrypoints", "find_entry_points", "entry points"),
    ("gyrelint.graphs", "build_graphs", "graphs"),
    ("gyrelint.graphs.build", "_resolve_edited", "  fixed point after the edit"),
    ("gyrelint.graphs.incremental", "encode", "    provenance encode"),
    ("gyrelint.graphs.build", "_resolution_of", "  results pass"),
    ("gyrelint.graphs.build", "_save_resolution", "  resolution store"),
    ("gyrelint.semantics", "tag", "semantics"),
    ("gyrelint.semantics.tag", "build_facts", "  build_facts"),
    ("gyrelint.semantics.facts", "_merge_resolved", "    _merge_resolved"),
    ("gyrelint.semantics.tag", "extra_edges", "  extra_edges"),
    ("gyrelint.semantics.signals", "Matcher.match", "  signal matching"),
    ("gyrelint.semantics.tag", "assign_sides", "  assign_sides"),
    ("gyrelint.semantics.tag", "entry_reach", "  entry_reach"),
    ("gyrelint.semantics.cache", "write", "  semantics store"),
    ("gyrelint.topology", "analyze_topology", "topology"),
    ("gyrelint.topology.verdict", "key_entries", "  key entries"),
    ("gyrelint.topology.keys", "config_read_keys", "    config reads"),
    ("gyrelint.topology.verdict", "collect", "  code evidence"),
    ("gyrelint.rules", "run_rules", "rules"),
    ("gyrelint.analysis_cache", "store", "whole-run store"),
)


def _wrap(totals: dict[str, float], modname: str, attr: str, label: str) -> None:
    owner = importlib.import_module(modname)
    cls_name, _, fn_name = attr.rpartition(".")
    if cls_name:
        owner = getattr(owner, cls_name)
    f = getattr(owner, fn_name)

    @functools.wraps(f)
    def timed(*a, **k):  # noqa: ANN002, ANN003, ANN202 - any signature
        start = time.process_time()
        try:
            return f(*a, **k)
        finally:
            totals[label] = totals.get(label, 0.0) + time.process_time() - start

    setattr(owner, fn_name, timed)


def _decode_split(root: Path, cache: Path) -> str:
    """Decoding every cached summary of ``root``: msgpack alone, with the sharing hook, and whole."""
    from gyrelint.analysis_cache import fingerprint
    from gyrelint.api import discover_python, load
    from gyrelint.codehash import code_digest
    from gyrelint.index.cache import _CODEC, _HEAD, _SUMMARY, SummaryCache, _sharer, decode_entry

    root, settings, _ = load(root, cache_dir=str(cache))
    fp = fingerprint(root, discover_python(root, root, settings), settings, True)
    sc = SummaryCache(cache, code_digest("index"))
    datas = [(k, d) for k in fp.file_keys.values() if (d := sc.store.get(sc.namespace, k)) is not None]
    head = len(_HEAD) + 1 + 16
    out = []
    for label, one in (("msgpack only", lambda k, d, m: _CODEC.unpack(d[head:])),
                       ("msgpack + sharing hook", lambda k, d, m: _CODEC.unpack(d[head:], _sharer(m))),
                       ("msgpack + plan, no hook", lambda k, d, m: _SUMMARY.dec(_CODEC.unpack(d[head:])[1])),
                       ("whole decode", decode_entry)):
        gc.disable()
        memo: dict = {}
        start = time.process_time()
        for k, d in datas:
            one(k, d, memo)
        out.append(f"{label} {time.process_time() - start:.3f}")
        del memo
        gc.enable()
        gc.collect()
    distinct = strings = distinct_strings = 0
    for _, d in datas:  # what a per-entry string table and node table would leave to build
        seen: set = set()
        texts: list[str] = []

        def count(v: tuple, seen: set = seen, texts: list = texts) -> tuple:
            with contextlib.suppress(TypeError):  # an array holding a map
                seen.add(v)
            texts.extend(x for x in v if type(x) is str)
            return v

        _CODEC.unpack(d[head:], count)
        distinct += len(seen)
        strings += len(texts)
        distinct_strings += len(set(texts))
    arrays = sum(_count_arrays(_CODEC, d[head:]) for _, d in datas)
    return (f"{len(datas)} summaries: " + ", ".join(out) + " CPU-s; "
            f"{arrays:,} arrays ({distinct:,} distinct per entry), "
            f"{strings:,} strings in arrays ({distinct_strings:,} distinct per entry)")


def _count_arrays(codec, payload: bytes) -> int:  # noqa: ANN001 - the summary codec
    n = [0]

    def one(v: tuple) -> tuple:
        n[0] += 1
        return v

    codec.unpack(payload, one)
    return n[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, default=DEFAULT_REPO)
    ap.add_argument("--module", default="verl/workers/engine/megatron/transformer_impl.py",
                    help="the file to edit, relative to the repo")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--full", action="store_true", help="refuse the resolver's replay: a whole run after each edit")
    ap.add_argument("--decode", action="store_true", help="also split the summary decode")
    args = ap.parse_args()
    if not args.repo.is_dir():
        print(f"{args.repo}: not a directory; run scripts/fetch_corpora.sh or pass --repo", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="gyrelint-edit-parts-") as tmp:
        root, files = copy_corpus(args.repo, tmp)
        cache = Path(tmp) / "cache"
        os.environ["GYRELINT_CACHE_DIR"] = str(cache)
        os.environ.pop("CI", None)
        import gyrelint.topology_beside as beside
        from gyrelint.api import analyze

        beside.start = lambda *a, **k: None  # topology in process: its CPU is this process's
        if args.full:
            from gyrelint.graphs import incremental

            def refuse(*a, **k):  # noqa: ANN002, ANN003, ANN202
                raise incremental.Fallback("refused by bench/edit_parts.py --full")

            incremental._replay = refuse
        print(f"{args.repo}: {len(files)} Python files, load {os.getloadavg()[0]:.1f}, "
              f"edited module {args.module}{', replay refused' if args.full else ''}")
        start = time.process_time()
        analyze(root)
        print(f"cold, in process: {time.process_time() - start:.2f} CPU-s (parse workers not counted)")
        totals: dict[str, float] = {}
        for modname, attr, label in PARTS:
            _wrap(totals, modname, attr, label)
        import gyrelint.api as api  # the stages it imported by name before the wrapping
        import gyrelint.index as index_mod

        api.build_index = index_mod.build_index
        rows: list[tuple[float, dict[str, float]]] = []
        for _ in range(args.rounds):
            body_edit(root / args.module)
            totals.clear()
            start = time.process_time()
            analyze(root)
            rows.append((time.process_time() - start, dict(totals)))
        print(f"{'part (CPU s)':<34}" + "".join(f"{f'edit {i + 1}':>10}" for i in range(len(rows))))
        print(f"{'analyze, total':<34}" + "".join(f"{t:>10.2f}" for t, _ in rows))
        for _, _, label in PARTS:
            print(f"{label:<34}" + "".join(f"{parts.get(label, 0.0):>10.2f}" for _, parts in rows))
        if args.decode:
            print(_decode_split(root, cache))
        print(f"load at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

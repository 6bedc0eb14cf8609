"""Where the semantics stage spends its CPU, and what a per-function reuse of its local part could save.

Usage::

    python bench/semantics_parts.py [--repo DIR] [--rounds N] [--gc]

Indexes and resolves ``--repo`` once (verl by default, through a private cache folder), then
runs the semantics stage (``semantics.tag._tag``, no cache) ``--rounds`` times in this
process, timing each part with ``time.process_time`` by wrapping its function:

- ``facts``: ``build_facts``, split into the call facts (``_call_fact``: canonical names through
  the symbol table, receiver roles through class facts of other modules), the resolver's
  targets merged in (``_merge_resolved``) and the rest (grouping the summary records by
  function, local and attribute types);
- ``match``: the signal matcher over every function (tokens included);
- ``sides``: ``assign_sides`` (every call of it), and the rest of the stage.

Then the price of a key: a stable digest (blake2b of the ``repr``) of what ``Matcher.match``
reads of each function's *own* facts (its calls with names, roles and targets, its records,
its local types), without the cross-function context the body signals also read (the class's
bases and appended attributes, callees' definitions, the module summary, the weight
senders). The collector is paused while a round is timed (collected before it): its pauses
land in whichever part runs then and blur the split. A per-function reuse of the match is worth building only when that digest costs
clearly less than the match it would skip; the ratio is printed.

``--gc`` first times the whole stage (``semantics.tag``, no cache) as the pipeline runs it
(collector paused inside) against the same stage with the collector running, alternating,
and checks both label every function alike.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import importlib
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from speed import DEFAULT_REPO

from gyrelint.api import discover_python, load
from gyrelint.entrypoints import find_entry_points
from gyrelint.graphs import build_graphs
from gyrelint.graphs.symbols import symbols_of
from gyrelint.index import build_index

tag_mod = importlib.import_module("gyrelint.semantics.tag")
facts_mod = importlib.import_module("gyrelint.semantics.facts")
signals_mod = importlib.import_module("gyrelint.semantics.signals")
catalog_mod = importlib.import_module("gyrelint.semantics.catalog")


def wrap(owner: object, name: str, label: str, acc: dict[str, float]) -> None:
    """Replace ``owner.name`` by a wrapper adding its CPU seconds to ``acc[label]`` (outermost call only)."""
    f: Callable = getattr(owner, name)
    depth = [0]

    def timed(*a, **k):  # noqa: ANN002, ANN003, ANN202 - any signature
        depth[0] += 1
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                acc[label] = acc.get(label, 0.0) + time.process_time() - t

    setattr(owner, name, timed)


def own_digest(fn) -> bytes:  # noqa: ANN001 - FnFacts
    """What the matcher reads of one function's own facts, as a stable digest."""
    calls = tuple((c.site, c.method, c.names, c.role, c.role_strength, c.targets, c.kind, c.ray, c.repo,
                   c.instance, c.obj_role, c.ext_own, c.junk_only) for c in fn.calls)
    text = repr((fn.qualname, fn.cls, fn.definition, calls, fn.subs, fn.attrs, fn.strings, fn.assigns,
                 sorted(fn.local_types.items()), fn.extra))
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).digest()


def gc_ab(index, graphs, settings, rounds: int) -> None:  # noqa: ANN001 - the pipeline's objects
    """The stage with the collector paused (as ``tag`` runs it) and running, alternating."""
    paused: list[float] = []
    running: list[float] = []
    labels: list[dict[str, str]] = []
    for _ in range(rounds):
        for run, out in ((tag_mod.tag, paused), (tag_mod._tag_cached, running)):
            gc.collect()
            t = time.process_time()
            sem = run(index, graphs, settings)
            out.append(time.process_time() - t)
            labels.append({q: f"{f.side.value}/{f.handoff_kind}" for q, f in sem.functions.items()})
    same = all(x == labels[0] for x in labels)
    print(f"collector paused: {' '.join(f'{x:.2f}' for x in paused)} s; running: "
          f"{' '.join(f'{x:.2f}' for x in running)} s; paused / running = {sum(paused) / sum(running):.2f} "
          f"(labels {'identical' if same else 'DIFFER'})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--repo", type=Path, default=DEFAULT_REPO)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--gc", action="store_true", help="A/B of the collector paused in the stage")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gyrelint-semparts-") as cache:
        root, settings, _ = load(args.repo, cache_dir=cache)
        files = discover_python(root, args.repo, settings)
        index = build_index(root, settings, None, files=files)
        symbols = symbols_of(index)
        entries, _ = find_entry_points(index, settings, symbols)
        graphs = build_graphs(index, entries, cache_dir=None, symbols=symbols)
    if args.gc:
        gc_ab(index, graphs, settings.with_overrides(use_cache=False), args.rounds)
    acc: dict[str, float] = {}
    wrap(tag_mod, "build_facts", "facts", acc)
    wrap(facts_mod, "_call_fact", "facts: call facts", acc)
    wrap(facts_mod, "_merge_resolved", "facts: resolver targets", acc)
    wrap(signals_mod.Matcher, "match", "match", acc)
    wrap(tag_mod, "assign_sides", "sides", acc)
    print(f"{args.repo}: {len(index.summaries)} modules")
    totals: list[float] = []
    for r in range(args.rounds):
        acc.clear()
        gc.collect()
        gc.disable()
        t = time.process_time()
        sem = tag_mod._tag(index, graphs, settings)
        total = time.process_time() - t
        gc.enable()
        totals.append(total)
        acc["facts: grouping, types"] = acc["facts"] - acc["facts: call facts"] - acc["facts: resolver targets"]
        acc["rest"] = total - acc["facts"] - acc["match"] - acc["sides"]
        shares = ", ".join(f"{k} {v:.2f} ({v / total:.0%})" for k, v in sorted(acc.items()))
        print(f"round {r}: semantics {total:.2f} s CPU: {shares}")
    # the price of a key over each function's own match inputs, against the match itself
    matcher = signals_mod.Matcher(list(catalog_mod.SIGNALS))
    facts = facts_mod.build_facts(index, graphs, matcher.methods)
    facts_mod.extra_edges(facts)
    for r in range(args.rounds):
        gc.collect()
        gc.disable()
        t = time.process_time()
        keys = {q: own_digest(fn) for q, fn in facts.functions.items()}
        t1 = time.process_time()
        for fn in facts.functions.values():
            matcher.match(fn, facts)
        t2 = time.process_time()
        gc.enable()
        print(f"round {r}: {len(keys)} functions: own-facts digest {t1 - t:.2f} s, match {t2 - t1:.2f} s "
              f"(digest / match = {(t1 - t) / (t2 - t1):.2f})")
    print(f"functions on a side: {sum(f.side.value != 'neutral' for f in sem.functions.values())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Which path the resolver takes after real edits, how large the cone is, and whether it is exact.

Usage::

    python bench/cone_edits.py [--repo DIR] [--module PATH] [--no-check]

The repo (default: the verl wheel unpacked by ``scripts/fetch_corpora.sh``) is copied to a
temporary folder; the resolver runs once cold (recording its provenance), then after each of
these edits, applied one after the other to one module (default: the bench's mid-graph module
of ``edit_loop.py``), through ``graphs.incremental.resolve_after_edit`` in this process:

1. body edit: ``_bench_edit = print(...)`` at the top of the module's largest function (every
   line below it moves: the allocations named after their line are renamed);
2. a call to a repo function with arguments, at the end of a function that has parameters;
3. an import added at the top of the module (every line moves);
4. a method renamed (its definition only: callers keep the old name);
5. one function added at the end of the module.

Each row: the path (``reuse``, ``cone``, ``full:<why>``), the replayed items and cone keys, the
CPU seconds of the incremental resolution and of a cold resolution of the same files, and
(unless ``--no-check``) whether the incremental fixed point equals the cold one: the store,
and every fact the graphs stage reads (``resolve_order.facts``).
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from resolve_order import facts

from gyrelint.codehash import code_digest
from gyrelint.graphs import incremental as inc
from gyrelint.graphs.resolve import Resolver
from gyrelint.graphs.symbols import symbols_of
from gyrelint.index import build_index
from gyrelint.index.cache import SummaryCache
from gyrelint.settings import Settings

DEFAULT_REPO = Path.home() / ".cache" / "gyrelint-corpora" / "src" / "verl"
DEFAULT_MODULE = "verl/workers/engine/megatron/transformer_impl.py"


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.body]


def body_edit(text: str, tree: ast.Module) -> str:
    f = max(_functions(tree), key=lambda n: ((n.end_lineno or 0) - n.lineno, -n.lineno))
    first = f.body[0]
    lines = text.splitlines(keepends=True)
    lines.insert(first.lineno - 1, " " * first.col_offset + "_bench_edit = print(\"edited by bench\")\n")
    return "".join(lines)


def call_added(text: str, tree: ast.Module) -> str:
    """``helper(arg, key=arg)`` appended to a function with parameters, ``helper`` a top-level
    function of the module (or of an imported one) with parameters."""
    tops = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.args.args]
    fns = [f for f in _functions(tree) if len(f.args.args) >= 2]
    f = fns[len(fns) // 2]
    last = f.body[-1]
    arg = f.args.args[-1].arg
    callee = tops[0].name if tops else "print"
    key = tops[0].args.args[-1].arg if tops else "sep"
    lines = text.splitlines(keepends=True)
    at = last.lineno - 1 if isinstance(last, ast.Return) else (last.end_lineno or last.lineno)
    lines.insert(at, " " * last.col_offset + f"{callee}({arg}, {key}={arg})\n")
    return "".join(lines)


def import_added(text: str, tree: ast.Module) -> str:
    where = 0
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            where = node.end_lineno or where
        else:
            break
    lines = text.splitlines(keepends=True)
    lines.insert(where, "import queue as _bench_queue\n")
    return "".join(lines)


def method_renamed(text: str, tree: ast.Module) -> str:
    methods = [f for c in tree.body if isinstance(c, ast.ClassDef) for f in c.body
               if isinstance(f, ast.FunctionDef) and not f.name.startswith("__")]
    m = methods[len(methods) // 2]
    lines = text.splitlines(keepends=True)
    lines[m.lineno - 1] = re.sub(rf"\bdef {m.name}\(", f"def {m.name}_renamed(", lines[m.lineno - 1], count=1)
    return "".join(lines)


def function_added(text: str, tree: ast.Module) -> str:
    return text + "\n\ndef _added_by_bench_edit_loop(xs):\n    return sorted(xs)\n"


EDITS = [("body edit", body_edit), ("call with arguments added", call_added), ("import added", import_added),
         ("method renamed", method_renamed), ("one function added", function_added)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, default=DEFAULT_REPO)
    ap.add_argument("--module", default=DEFAULT_MODULE, help="the file to edit, relative to the repo")
    ap.add_argument("--no-check", action="store_true", help="skip the cold resolution and the comparison")
    args = ap.parse_args()
    if not args.repo.is_dir():
        print(f"{args.repo}: not a directory; run scripts/fetch_corpora.sh or pass --repo", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="gyrelint-cone-") as tmp:
        root = Path(tmp) / args.repo.name
        shutil.copytree(args.repo, root)
        cache = Path(tmp) / "cache"
        settings = Settings(cache_dir=str(cache), jobs=2)
        summaries = SummaryCache(cache, code_digest("index"))

        def load() -> tuple[list, object]:
            index = build_index(root, settings)
            return list(index.summaries.values()), symbols_of(index)

        sums, symbols = load()
        start = time.process_time()
        r = Resolver(sums, symbols)
        r.run(record=True)
        cold = time.process_time() - start
        prov = inc.provenance_of(r)
        blob = inc.encode(prov)
        start = time.process_time()
        inc.decode(blob)
        print(f"{args.repo.name}: {len(r.items):,} items, cold recorded run {cold:.2f} CPU-s, provenance "
              f"{len(blob) / 2**20:.1f} MiB (decoded in {time.process_time() - start:.2f} s); edits to {args.module}")
        print(f"{'edit':<28}{'path':<44}{'replayed':>9}{'cone':>7}{'incr s':>8}{'cold s':>8}  exact")
        path = root / args.module
        for name, edit in EDITS:
            text = path.read_text()
            path.write_text(edit(text, ast.parse(text)))
            sums, symbols = load()
            start = time.process_time()
            out = inc.resolve_after_edit(sums, symbols, prov, summaries.get)
            took = time.process_time() - start
            prov = inc.provenance_after_replay(out.resolver)
            exact, cold_s = "-", 0.0
            if not args.no_check:
                start = time.process_time()
                c = Resolver(sums, symbols)
                c.run(record=True)
                cold_s = time.process_time() - start
                same = c.store == out.resolver.store and facts(c, sums) == facts(out.resolver, sums)
                exact = "yes" if same else "NO"
            print(f"{name:<28}{out.path[:43]:<44}{out.replayed:>9,}{out.cone:>7,}{took:>8.2f}{cold_s:>8.2f}  {exact}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

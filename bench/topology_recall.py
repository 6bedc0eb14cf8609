"""Recall of hand-labelled layout keys, entries per key, and the share of listed entries from
tests/docs/CI/container files — for ``gyrelint topology`` and for a grep baseline.

    .venv/bin/python bench/topology_recall.py --truth tests/topology_truth --corpora ~/.cache/gyrelint-corpora/src

Each ``<framework>.json`` in ``--truth`` holds ``{framework, keys: [{key, class, file, line, why}]}``; the
corpus is ``--corpora/<framework>``. A labelled key is found when a listed entry has the same name (dashes,
case and a leading ``--`` ignored), when one name is the other's dotted tail (a field declared un-nested,
``n_gpus_per_node`` for ``trainer.n_gpus_per_node``, counts only when the entry sits in the labelled file),
or when an entry is defined or used at the labelled file:line (±2). The grep baseline lists every key
occurrence whose name holds a layout keyword: what a reviewer gets from ``grep -E`` over the same sources.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterable
from pathlib import Path

from gyrelint.api import analyze
from gyrelint.model import Diagnostic
from gyrelint.topology.classify import Vocabulary, explain
from gyrelint.topology.entries import Occurrence
from gyrelint.topology.evidence import collect
from gyrelint.topology.keys import occurrences, raw_keys
from gyrelint.topology.names import Namer, resolved_by_file

_GREP = re.compile(r"port|host|addr|url|node|gpu|rank|world|ray|nccl|gloo|offload|colocate|parallel|backend|engine|"
                   r"async|worker|replica|device|queue|zmq|shm|strategy|mode", re.I)
# independent of gyrelint's own scope rules: a path component or suffix that marks non-product files
_NOISE_PATH = re.compile(r"(?:^|/)(?:tests?|testing|docs?|\.github|\.gitlab|\.ci|ci|docker|\.devcontainer)/|"
                         r"(?:^|/)(?:test_[^/]*|[^/]*_test\.py|conftest\.py|Dockerfile[^/]*|[^/]*\.md|[^/]*\.rst)$",
                         re.I)


def _norm(name: str) -> str:
    return name.lstrip("-").replace("-", "_").lower()


def _tail(a: str, b: str) -> bool:
    """``b`` ends with ``a`` on a dotted boundary."""
    return b == a or b.endswith("." + a)


def _found(label: dict, listed: Iterable[tuple[str, str, int, tuple[tuple[str, int], ...]]]) -> bool:
    want = _norm(label["key"])
    lfile, lline = label.get("file"), label.get("line")
    for name, file, line, where in listed:
        n = _norm(name)
        if n == want:
            return True
        if (_tail(n, want) or _tail(want, n)) and file == lfile:
            return True
        if isinstance(lline, int):
            for f, ln in ((file, line), *where):
                if f == lfile and abs(ln - lline) <= 2:
                    return True
    return False


def _one(label: dict, name: str, file: str, line: int, by_line: bool = True) -> bool:
    return _found(label, [(name, file, line, ())]) if by_line else _found({**label, "line": None}, [(name, file, line, ())])


def _cause(label: dict, occs: list[Occurrence], listed_names: set[str], vocab: Vocabulary) -> str:
    """Why a labelled key that the raw list holds is not listed: its occurrences' scope reasons, the veto or
    missing rule of the classifier, or the entry it was folded into under another name."""
    mine = [o for o in occs if _one(label, o.raw.key, o.raw.file, o.raw.line, by_line=False)] or \
        [o for o in occs if _one(label, o.raw.key, o.raw.file, o.raw.line)]
    if not mine:
        return "not extracted"
    live = [o for o in mine if not o.scope]
    if live and any(o.hit for o in live):
        hit = next(o for o in live if o.hit)
        return f"folded: classified ({hit.hit[0] if hit.hit else ''}) but listed under another name"
    if not live:
        scopes = sorted({o.scope for o in mine})
        return f"scope: {', '.join(scopes)}" + ("" if any(o.hit for o in mine) else " (and unclassified)")
    o = live[0]
    why = explain(o.raw.key, o.raw.value, vocab, o.raw.context)
    return f"unclassified: {why}" if not why.startswith("classified") else f"unclassified ({why} by itself)"


def vs_grep(truth: dict, analysis, raws: list) -> list[dict[str, object]]:
    """Per labelled key: found by gyrelint, by grep, in the raw list at all, and why gyrelint dropped it."""
    t = analysis.topology
    listed = [(e.name, e.file, e.line, tuple((w.file, w.line) for w in e.where)) for e in t.keys if not e.scope]
    grep_listed = [(r.key, r.file, r.line, ()) for r in raws if _GREP.search(r.key)]
    raw_listed = [(r.key, r.file, r.line, ()) for r in raws]
    resolved = resolved_by_file(analysis.graphs)
    symbols = getattr(analysis.graphs, "symbols", None)
    namers = {p: Namer(s, resolved.get(p), symbols) for p, s in analysis.index.summaries.items()}
    live = {q for q, f in analysis.functions.items() if f.reached} | set(analysis.graphs.reached or ())
    ev = collect(analysis.index, analysis.graphs, namers, live)
    vocab = Vocabulary.from_settings(analysis.settings.topology)
    diags: list[Diagnostic] = []
    occs = occurrences(analysis.index, analysis.graphs, analysis.settings, namers, vocab, ev, diags)
    names = {_norm(n) for n, _f, _l, _w in listed}
    out = []
    for lab in truth["keys"]:
        row = {"key": lab["key"], "class": lab.get("class"), "gyrelint": _found(lab, listed),
               "grep": _found(lab, grep_listed), "raw": _found(lab, raw_listed)}
        if not row["gyrelint"]:
            row["cause"] = _cause(lab, occs, names, vocab)
        out.append(row)
    return out


def _bucket(cause: str) -> str:
    """The cause's kind, for the table across sets."""
    if cause.startswith("unclassified: vetoed"):
        return "veto: " + cause.split("vetoed: ", 1)[1].split(" by ", 1)[0]
    if cause.startswith("unclassified: no rule"):
        return "no class rule"
    if cause.startswith("scope"):
        return cause.split(" (", 1)[0]
    return cause.split(":", 1)[0]


def measure(truth: dict, root: Path, diagnose: bool = False) -> dict[str, object]:
    # cold: the grep baseline below reads the call graph, which a cached analysis keeps only compacted
    # (a warm run printed a lower grep recall than a cold one on the same tree)
    analysis = analyze(root, use_cache=False)
    t = analysis.topology
    listed = [(e.name, e.file, e.line, tuple((w.file, w.line) for w in e.where)) for e in t.keys if not e.scope]
    labels = truth["keys"]
    hits = [lab for lab in labels if _found(lab, listed)]
    names = {_norm(n) for n, _f, _l, _w in listed}
    noisy = sum(1 for _n, f, _l, _w in listed if _NOISE_PATH.search(f))
    # the grep baseline over the same key occurrences (every source, no classifier, no folding)
    resolved = resolved_by_file(analysis.graphs)
    symbols = getattr(analysis.graphs, "symbols", None)
    namers = {p: Namer(s, resolved.get(p), symbols) for p, s in analysis.index.summaries.items()}
    all_raws = raw_keys(analysis.index, analysis.graphs, analysis.settings, namers, [])
    raws = [r for r in all_raws if _GREP.search(r.key)]
    grep_listed = [(r.key, r.file, r.line, ()) for r in raws]
    grep_hits = [lab for lab in labels if _found(lab, grep_listed)]
    grep_names = {_norm(r.key) for r in raws}
    flat = t.config_keys
    return {
        "framework": truth.get("framework", root.name), "labels": len(labels),
        "recall": len(hits) / max(len(labels), 1), "missed": [lab["key"] for lab in labels if lab not in hits],
        "entries": len(listed), "entries_per_key": len(listed) / max(len(names), 1),
        "noise_share": noisy / max(len(listed), 1),
        "flat_per_key": len(flat) / max(len({_norm(k.key) for k in flat}), 1),
        "hidden": {k: v for k, v in sorted(t.folded.items()) if k != "repeats"}, "repeats": t.folded.get("repeats", 0),
        "grep_recall": len(grep_hits) / max(len(labels), 1), "grep_entries": len(raws),
        "grep_per_key": len(raws) / max(len(grep_names), 1),
        "grep_noise_share": sum(1 for r in raws if _NOISE_PATH.search(r.file)) / max(len(raws), 1),
        "verdict": t.verdict, "online": analysis.handoff.online,
        "expect": truth.get("expect"),
        "per_key": vs_grep(truth, analysis, all_raws)
        if diagnose else [],
    }


def _against(got: object, row: dict, field: str) -> str:
    """``got``, marked against the label's ``expect`` block when the set has one."""
    want = (row.get("expect") or {}).get(field)
    if want is None:
        return str(got)
    return f"{got} ({'right' if got == want else f'WRONG, labelled {want}'})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--truth", type=Path, required=True, help="folder of <framework>.json label files")
    ap.add_argument("--corpora", type=Path, required=True, help="folder holding one tree per framework")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--unlabelled", type=Path, nargs="*", default=[],
                    help="more trees to measure for noise and folding only (no labels: recall is left blank)")
    ap.add_argument("--missed", action="store_true",
                    help="list the labelled keys gyrelint missed (never on a blind set: it would stop being blind)")
    ap.add_argument("--vs-grep", action="store_true",
                    help="per labelled key: found by gyrelint / by grep / in the raw key list, and why gyrelint "
                         "dropped it; then the causes tabulated (never on a blind set)")
    args = ap.parse_args()
    rows = []
    for root in args.unlabelled:
        rows.append(measure({"framework": root.name, "keys": []}, root))
    for path in sorted(args.truth.glob("*.json")):
        truth = json.loads(path.read_text())
        root = args.corpora / truth.get("framework", path.stem) / truth.get("corpus_root", ".")
        if not root.is_dir():
            print(f"{root}: missing (run scripts/fetch_corpora.sh)")
            continue
        rows.append(measure(truth, root, args.vs_grep))
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print("| corpus | labels | recall | entries | entries/key | tests/docs/CI share | grep recall | grep entries "
          "| grep entries/key | grep tests/docs/CI share | verdict | online |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for r in rows:
        recall = f"{r['recall']:.2f}" if r["labels"] else "-"
        grep_recall = f"{r['grep_recall']:.2f}" if r["labels"] else "-"
        print(f"| {r['framework']} | {r['labels']} | {recall} | {r['entries']} | {r['entries_per_key']:.2f} "
              f"| {r['noise_share']:.1%} | {grep_recall} | {r['grep_entries']} | {r['grep_per_key']:.2f} "
              f"| {r['grep_noise_share']:.1%} | {_against(r['verdict'], r, 'verdict')} "
              f"| {_against(r['online'], r, 'online')} |")
    for r in rows:
        print(f"{r['framework']}: hidden {r['hidden']}, repeats folded {r['repeats']}, "
              f"flat occurrences per key {r['flat_per_key']:.2f}"
              + (f"; missed: {', '.join(r['missed']) or '-'}" if args.missed else f"; missed: {len(r['missed'])}"))
    if args.vs_grep:
        _print_vs_grep(rows)


def _print_vs_grep(rows: list[dict]) -> None:
    print("\n| corpus | key | class | gyrelint | grep | raw | why gyrelint dropped it |\n|---|---|---|---|---|---|---|")
    causes: dict[str, dict[str, int]] = {}
    for r in rows:
        for k in r["per_key"]:
            if k["gyrelint"] and k["grep"]:
                continue
            mark = {True: "yes", False: "-"}
            print(f"| {r['framework']} | {k['key']} | {k['class']} | {mark[k['gyrelint']]} | {mark[k['grep']]} "
                  f"| {mark[k['raw']]} | {k.get('cause', '')} |")
            if not k["gyrelint"]:
                causes.setdefault(_bucket(k["cause"]), {}).setdefault(r["framework"], 0)
                causes[_bucket(k["cause"])][r["framework"]] += 1
    print("\n| cause | drops | sets |\n|---|---:|---|")
    for cause, per in sorted(causes.items(), key=lambda c: -sum(c[1].values())):
        print(f"| {cause} | {sum(per.values())} | {', '.join(f'{k} {v}' for k, v in sorted(per.items()))} |")


if __name__ == "__main__":
    main()

"""Side-tagging accuracy on hand-labelled real frameworks, next to a keyword-grep baseline.

    .venv/bin/python bench/semantics_accuracy.py                      # table on stdout
    .venv/bin/python bench/semantics_accuracy.py --json               # machine output
    .venv/bin/python bench/semantics_accuracy.py --write docs/bench/semantics.md

For every ``tests/corpus_truth/*.json`` it runs ``gyrelint.api.analyze`` (cache on) on
the labelled corpus and scores precision / recall / F1 per side over the labelled
functions, macro-F1 over sampling/training/handoff (those the labels have) and the neutral mislabel rate (share
of labelled-neutral functions given another side). The keyword-grep baseline is scored
on the same labels: a function's source text (``FunctionDef.line``..``end_line`` from the
index) is *sampling* if it holds more of rollout/sample/trajectory/generate, *training*
if more of trainer/update/optimizer/advantage, *driver* on a tie, *neutral* if none; it
never says handoff. Then, as a sanity check, verl and AReaL are analyzed (no labels):
counts per side and whether each chain and both handoffs were found. Last, speed on
verl: the whole pipeline cold (``use_cache=False``) against a single-process bare
``libcst.parse_module`` loop over the same files, and warm. ``--no-speed`` and
``--no-sanity`` skip those parts. With ``--write``, a hand-written section starting at a
``## Notes`` heading in the existing file is kept below the regenerated tables.

The corpora come from ``scripts/fetch_corpora.sh`` (``$GYRELINT_CORPORA`` or
``~/.cache/gyrelint-corpora``); nothing from them is written to the repository.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import subprocess
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TRUTH_DIR = REPO / "tests" / "corpus_truth"
SIDES = ("sampling", "training", "handoff", "driver", "neutral")
SCORED = ("sampling", "training", "handoff", "driver")
MACRO = ("sampling", "training", "handoff")
SAMPLING_WORDS = ("rollout", "sample", "trajectory", "generate")
TRAINING_WORDS = ("trainer", "update", "optimizer", "advantage")
SANITY = {"verl": ".", "areal": "."}  # corpus folder -> root to analyze, relative to it
SPEED_CORPUS = "verl"


def corpora_dir() -> Path:
    base = os.environ.get("GYRELINT_CORPORA")
    return (Path(base) if base else Path.home() / ".cache" / "gyrelint-corpora") / "src"


# ---------------------------------------------------------------- scoring (pure)

def grep_side(text: str) -> str:
    """The keyword-grep baseline: count keyword occurrences (case-insensitive substrings)."""
    low = text.lower()
    s = sum(low.count(w) for w in SAMPLING_WORDS)
    t = sum(low.count(w) for w in TRAINING_WORDS)
    if s == 0 and t == 0:
        return "neutral"
    if s == t:
        return "driver"
    return "sampling" if s > t else "training"


@dataclass
class Score:
    """Per-side precision/recall/F1 over labelled functions, plus the neutral mislabel rate."""

    per_side: dict[str, dict[str, float]] = field(default_factory=dict)
    macro_f1: float = 0.0
    neutral_mislabel: float = 0.0
    neutral_total: int = 0
    kind_accuracy: float | None = None  # among labelled handoffs predicted handoff: kind right
    confusion: dict[str, dict[str, int]] = field(default_factory=dict)  # label -> predicted -> n


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def score(pairs: list[tuple[str, str | None, str, str | None]]) -> Score:
    """Score ``(label_side, label_kind, predicted_side, predicted_kind)`` tuples."""
    out = Score()
    conf: dict[str, Counter] = {s: Counter() for s in SIDES}
    for lab, _, pred, _ in pairs:
        conf[lab][pred] += 1
    out.confusion = {k: dict(v) for k, v in conf.items() if v}
    for side in SCORED:
        tp = sum(1 for lab, _, pred, _ in pairs if lab == side and pred == side)
        fp = sum(1 for lab, _, pred, _ in pairs if lab != side and pred == side)
        fn = sum(1 for lab, _, pred, _ in pairs if lab == side and pred != side)
        p, r, f = prf(tp, fp, fn)
        out.per_side[side] = {"precision": p, "recall": r, "f1": f, "support": tp + fn}
    # a side the labels do not have (a tree with no handoff code) has no F1: it is left out of the
    # mean, not counted as 0 (its false positives still show in its precision and the neutral mislabel)
    scored = [s for s in MACRO if out.per_side[s]["support"]] or list(MACRO)
    out.macro_f1 = sum(out.per_side[s]["f1"] for s in scored) / len(scored)
    neutral = [pred for lab, _, pred, _ in pairs if lab == "neutral"]
    out.neutral_total = len(neutral)
    out.neutral_mislabel = sum(1 for p in neutral if p != "neutral") / len(neutral) if neutral else 0.0
    hits = [(lk, pk) for lab, lk, pred, pk in pairs if lab == "handoff" and pred == "handoff"]
    out.kind_accuracy = sum(1 for lk, pk in hits if lk == pk) / len(hits) if hits else None
    return out


# ---------------------------------------------------------------- running

def _value(x: object) -> str | None:
    return None if x is None else str(getattr(x, "value", x))


def _bodies(analysis) -> dict[str, tuple[str, int, int]]:
    """qualname -> (file, line, end_line) from the index summaries."""
    out = {}
    for summary in analysis.index.summaries.values():
        for fd in summary.functions:
            out[f"{summary.module}.{fd.qualname}"] = (summary.path, fd.line, fd.end_line)
    return out


def run_labelled(truth_path: Path, base: Path, hint: str = "run scripts/fetch_corpora.sh") -> dict:
    """Score one labelled framework; ``hint`` says how to get its corpus when it is missing."""
    from gyrelint.api import analyze

    truth = json.loads(truth_path.read_text())
    name = truth["framework"]
    root = base / name / truth["corpus_root"]
    res: dict = {"framework": name, "version": truth["version"], "labels": len(truth["labels"]),
                 "counts": dict(Counter(lab["side"] for lab in truth["labels"]))}
    if not root.is_dir():
        res["error"] = f"{root}: corpus not found; {hint}"
        return res
    t0 = time.perf_counter()
    try:
        analysis = analyze(root, run_rules=False)
    except Exception as exc:  # noqa: BLE001 - a benchmark reports, it does not crash
        res["error"] = f"analyze failed: {exc.__class__.__name__}: {exc}"
        res["traceback"] = traceback.format_exc()
        return res
    res["seconds"] = round(time.perf_counter() - t0, 2)
    bodies = _bodies(analysis)
    texts: dict[str, list[str]] = {}
    ours, grep, missing, wrong = [], [], [], []
    for lab in truth["labels"]:
        q, side, kind = lab["qualname"], lab["side"], lab["handoff_kind"]
        fr = analysis.functions.get(q)
        if fr is None:
            missing.append(q)
            pred, pkind = "neutral", None
        else:
            pred, pkind = _value(fr.side), _value(fr.handoff_kind)
        ours.append((side, kind, pred, pkind))
        if pred != side or (side == "handoff" and pkind != kind):
            wrong.append({"qualname": q, "label": side if side != "handoff" else f"handoff/{kind}",
                          "got": pred if pred != "handoff" else f"handoff/{pkind}"})
        loc = bodies.get(q)
        if loc is None:
            g = "neutral"
        else:
            path, a, b = loc
            if path not in texts:
                texts[path] = (analysis.root / path).read_text(encoding="utf-8", errors="replace").splitlines()
            g = grep_side("\n".join(texts[path][a - 1 : b]))
        grep.append((side, kind, g, None))
    res["gyrelint"] = asdict_score(score(ours))
    res["grep"] = asdict_score(score(grep))
    res["missing"] = missing
    res["wrong"] = wrong
    return res


def asdict_score(s: Score) -> dict:
    return {"per_side": s.per_side, "macro_f1": s.macro_f1, "neutral_mislabel": s.neutral_mislabel,
            "neutral_total": s.neutral_total, "kind_accuracy": s.kind_accuracy, "confusion": s.confusion}


def run_sanity(name: str, base: Path) -> dict:
    from gyrelint.api import analyze

    root = base / name / SANITY[name]
    res: dict = {"framework": name}
    if not root.is_dir():
        res["error"] = f"{root}: corpus not found; run scripts/fetch_corpora.sh"
        return res
    t0 = time.perf_counter()
    try:
        a = analyze(root)
    except Exception as exc:  # noqa: BLE001
        res["error"] = f"analyze failed: {exc.__class__.__name__}: {exc}"
        res["traceback"] = traceback.format_exc()
        return res
    res["seconds"] = round(time.perf_counter() - t0, 2)
    sides = Counter(_value(f.side) for f in a.functions.values())
    kinds = Counter(_value(f.handoff_kind) for f in a.functions.values() if _value(f.side) == "handoff")
    res["functions"] = len(a.functions)
    res["sides"] = {s: sides.get(s, 0) for s in SIDES}
    res["sampling_chain"] = sides.get("sampling", 0) > 0
    res["training_chain"] = sides.get("training", 0) > 0
    res["trajectory_handoff"] = bool(a.handoff.trajectory) or kinds.get("trajectory", 0) > 0
    res["weight_sync"] = bool(a.handoff.weight_sync) or kinds.get("weight_sync", 0) > 0
    res["online"] = bool(a.handoff.online)
    res["weight_sync_path"] = list(a.handoff.weight_sync_path)
    res["findings"] = len(a.findings)
    return res


# (module, name): where ``gyrelint.api.analyze`` looks each stage up when it runs
STAGES = (("gyrelint.api", "build_index"), ("gyrelint.entrypoints", "find_entry_points"),
          ("gyrelint.graphs", "build_graphs"), ("gyrelint.semantics", "tag"),
          ("gyrelint.topology", "analyze_topology"), ("gyrelint.rules", "run_rules"))


@contextlib.contextmanager
def stage_timer(times: dict[str, float]):
    """Time each pipeline stage of one ``analyze`` call by wrapping the stage functions."""
    import importlib

    def wrap(name: str, fn):
        def timed(*a, **k):
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                times[name] = times.get(name, 0.0) + time.perf_counter() - t0
        return timed

    mods = {m: importlib.import_module(m) for m, _ in STAGES}
    saved = {(m, n): getattr(mods[m], n) for m, n in STAGES}
    try:
        for (m, n), fn in saved.items():
            setattr(mods[m], n, wrap(n, fn))
        yield times
    finally:
        for (m, n), fn in saved.items():
            setattr(mods[m], n, fn)


def run_speed(base: Path) -> dict:
    """Cold whole pipeline vs a bare single-process libcst parse loop; then warm."""
    import libcst as cst

    from gyrelint.api import analyze
    from gyrelint.settings import load_settings

    root = base / SPEED_CORPUS
    res: dict = {"corpus": SPEED_CORPUS}
    if not root.is_dir():
        res["error"] = f"{root}: corpus not found; run scripts/fetch_corpora.sh"
        return res
    settings, _ = load_settings(root)
    try:
        cold_stages: dict[str, float] = {}
        t0 = time.perf_counter()
        with stage_timer(cold_stages):
            cold = analyze(root, settings.with_overrides(use_cache=False))
        res["cold_s"] = time.perf_counter() - t0
        res["cold_stages"] = {k: round(v, 2) for k, v in cold_stages.items()}
    except Exception as exc:  # noqa: BLE001
        res["error"] = f"analyze failed: {exc.__class__.__name__}: {exc}"
        return res
    files = list(cold.index.files.python)
    res["files"] = len(files)
    res["jobs"] = settings.jobs or os.cpu_count() or 1
    t0 = time.perf_counter()
    failed = 0
    for rel in files:
        data = (root / rel).read_bytes()
        try:
            cst.parse_module(data.decode("utf-8"))
        except Exception:  # noqa: BLE001 - same files the analyzer skipped
            failed += 1
    res["parse_s"] = time.perf_counter() - t0
    res["parse_failed"] = failed
    analyze(root, settings)  # fill the cache
    stages: dict[str, float] = {}
    t0 = time.perf_counter()
    with stage_timer(stages):
        analyze(root, settings)
    res["warm_s"] = time.perf_counter() - t0
    res["warm_stages"] = {k: round(v, 2) for k, v in stages.items()}
    res["cold_ratio"] = res["cold_s"] / res["parse_s"] if res["parse_s"] else None
    return res


# ---------------------------------------------------------------- rendering

def _f(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def render(report: dict, *, list_wrong: bool = False) -> str:
    lines: list[str] = []
    w = lines.append
    w("## Side tagging on hand-labelled frameworks\n")
    w(f"Labels: `{report.get('truth', 'tests/corpus_truth')}/*.json` (see its README). Scores are over the labelled functions only; "
      "`handoff` counts the side, `kind` is the share of labelled handoffs tagged handoff that also got the "
      "right kind (trajectory / weight_sync). Neutral mislabel = labelled-neutral functions given another side.\n")
    w("| framework | labels (S/T/H/D/N) | tool | sampling P/R/F1 | training P/R/F1 | handoff P/R/F1 | driver P/R/F1 "
      "| macro-F1 (S,T,H) | neutral mislabel | kind |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for r in report["labelled"]:
        c = r["counts"]
        lab = "/".join(str(c.get(s, 0)) for s in SIDES)
        if "error" in r:
            w(f"| {r['framework']} {r['version']} | {lab} | – | {r['error']} | | | | | | |")
            continue
        for tool in ("gyrelint", "grep"):
            s = r[tool]
            cells = [f"{_f(s['per_side'][x]['precision'])}/{_f(s['per_side'][x]['recall'])}/"
                     f"{_f(s['per_side'][x]['f1'])}" for x in SCORED]
            kind = _f(s["kind_accuracy"]) if tool == "gyrelint" else "–"
            w(f"| {r['framework']} {r['version']} | {lab} | {tool} | " + " | ".join(cells)
              + f" | **{_f(s['macro_f1'])}** | {_f(s['neutral_mislabel'])} ({s['neutral_total']}) | {kind} |")
    for r in report["labelled"] if list_wrong else []:  # opt-in: blind label sets stay blind
        if r.get("wrong"):
            w(f"\n<details><summary>{r['framework']}: {len(r['wrong'])} labels gyrelint got wrong</summary>\n")
            for x in r["wrong"]:
                w(f"- `{x['qualname']}`: label {x['label']}, got {x['got']}")
            w("\n</details>")
    for r in report["labelled"]:
        if r.get("missing"):
            w(f"\n{r['framework']}: {len(r['missing'])} labelled qualnames absent from the analysis: "
              + ", ".join(f"`{q}`" for q in r["missing"][:10]))
    if report.get("sanity"):
        w("\n## Sanity runs (no labels)\n")
        w("| framework | functions | sampling | training | handoff | driver | neutral | sampling chain | training chain "
          "| trajectory handoff | weight sync | online | s |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in report["sanity"]:
            if "error" in r:
                w(f"| {r['framework']} | {r['error']} |" + " |" * 11)
                continue
            s = r["sides"]
            yn = {True: "yes", False: "**no**"}
            w(f"| {r['framework']} | {r['functions']} | " + " | ".join(str(s[x]) for x in SIDES)
              + f" | {yn[r['sampling_chain']]} | {yn[r['training_chain']]} | {yn[r['trajectory_handoff']]} "
              f"| {yn[r['weight_sync']]} | {r['online']} | {r['seconds']} |")
    sp = report.get("speed")
    if sp:
        w("\n## Speed on verl\n")
        if "error" in sp:
            w(sp["error"])
        else:
            w("| files | bare libcst parse, 1 process (s) | analyze cold, no cache (s) | cold / parse (target ≤ 1.5) "
              "| analyze warm (s) (target < 1) | jobs |")
            w("|---|---|---|---|---|---|")
            w(f"| {sp['files']} | {sp['parse_s']:.2f} | {sp['cold_s']:.2f} | **{sp['cold_ratio']:.2f}** "
              f"| **{sp['warm_s']:.2f}** | {sp['jobs']} |")
            names = [n for _, n in STAGES]
            w("\nPer stage (s):\n")
            w("| run | " + " | ".join(names) + " |")
            w("|---|" + "---|" * len(names))
            for run in ("cold", "warm"):
                st = sp.get(f"{run}_stages", {})
                if not st:
                    w(f"| {run} | " + " | ".join("cached" for _ in names) + " |")
                    continue
                w(f"| {run} | " + " | ".join(f"{st[n]:.2f}" if n in st else "–" for n in names) + " |")
            if not sp.get("warm_stages"):
                w("\n`cached`: the warm run loaded the finished analysis from the analysis cache; no stage ran.")
    return "\n".join(lines) + "\n"


NOTES_HEADING = "\n## Notes"


def kept_notes(path: Path) -> str:
    """The hand-written ``## Notes…`` tail of an existing report, kept across regenerations."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return ""
    at = text.find(NOTES_HEADING)
    return "" if at < 0 else text[at:].rstrip("\n") + "\n"


def _shown(path: Path) -> str:
    """``path`` relative to the repository when inside it (as the report shows it), else absolute."""
    try:
        return path.relative_to(REPO).as_posix()
    except ValueError:
        return str(path)


def _commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=False).stdout.strip()
    except OSError:
        return "?"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--write", metavar="PATH", help="also write the Markdown report to PATH")
    ap.add_argument("--truth", default=str(TRUTH_DIR), help="folder of labelled JSON files")
    ap.add_argument("--corpora", default=None, help="folder holding <framework>/ corpora")
    ap.add_argument("--no-sanity", action="store_true", help="skip the verl/AReaL sanity runs")
    ap.add_argument("--no-speed", action="store_true", help="skip the speed measurement")
    ap.add_argument("--wrong", action="store_true", help="list every label gyrelint got wrong (never on a blind set: it would stop being blind)")
    args = ap.parse_args(argv)
    base = Path(args.corpora).expanduser() if args.corpora else corpora_dir()
    truth_files = sorted(Path(args.truth).glob("*.json"))
    if not truth_files:
        print(f"{args.truth}: no labelled *.json files", file=sys.stderr)
        return 2
    truth = Path(args.truth).resolve()
    # a folder other than the default (e.g. the held-out labels) says in its README how to get its corpora
    hint = ("run scripts/fetch_corpora.sh" if truth == TRUTH_DIR.resolve()
            else f"see {_shown(truth)}/README.md for how to get it")
    report: dict = {"commit": _commit(), "date": datetime.date.today().isoformat(), "truth": _shown(truth),
                    "labelled": [run_labelled(p, base, hint) for p in truth_files]}
    if not args.no_sanity:
        report["sanity"] = [run_sanity(n, base) for n in SANITY]
    if not args.no_speed:
        report["speed"] = run_speed(base)
    md = render(report, list_wrong=args.wrong)
    if args.json:
        print(json.dumps(report, indent=1, default=str))
    else:
        print(md)
    for r in report["labelled"] + report.get("sanity", []):
        if "traceback" in r:
            print(f"{r['framework']}: {r['error']}\n{r['traceback']}", file=sys.stderr)
    if args.write:
        cmd = "python bench/semantics_accuracy.py --write " + args.write
        out = Path(args.write)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(
            f"# Semantics: side-tagging accuracy and speed\n\nMeasured {report['date']} at commit `{report['commit']}` "
            f"with\n\n    .venv/bin/{cmd}\n\n(2-core machine shared with other jobs; timings are indicative.)\n\n" + md
            + kept_notes(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The hand-labelled corpus truth is well formed, and the benchmark's scoring is right.

These tests never need the corpora: they check the JSON files' shape and the label
rules of tests/corpus_truth/README.md, and the pure scoring helpers of
bench/semantics_accuracy.py on tiny inputs.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

HERE = Path(__file__).parent
TRUTH = HERE / "corpus_truth"
FILES = sorted(TRUTH.glob("*.json"))
SIDES = {"sampling", "training", "handoff", "driver", "neutral"}
KINDS = {"trajectory", "weight_sync"}
KEYS = {"qualname", "side", "handoff_kind", "file", "line", "why"}
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
QUALNAME = re.compile(rf"^{IDENT}(\.{IDENT})+$")
# minimum numbers per framework, from the issue: 15+ sampling, 15+ training, 8+ handoff, a few drivers, 10+ neutral
MINIMUM = {"sampling": 15, "training": 15, "handoff": 8, "driver": 2, "neutral": 10}


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _bench():
    """Load bench/semantics_accuracy.py by path (bench/ is not a package); it imports no corpus."""
    name = "_gyrelint_bench_semantics_accuracy"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE.parent / "bench" / "semantics_accuracy.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses resolve string annotations through sys.modules
    spec.loader.exec_module(mod)
    return mod


def test_both_frameworks_are_labelled():
    assert {_load(p)["framework"] for p in FILES} >= {"trl", "openrlhf"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_top_level_metadata(path: Path):
    data = _load(path)
    assert set(data) == {"framework", "version", "corpus_root", "labels"}
    assert data["framework"] == path.stem
    assert re.fullmatch(r"\d+(\.\d+)+", data["version"])
    root = data["corpus_root"]
    assert isinstance(root, str) and not root.startswith("/") and ".." not in Path(root).parts
    assert isinstance(data["labels"], list) and data["labels"]


def check_label(lab: dict, where: str) -> None:
    """One label follows the README's rules (shared with the held-out labels' tests)."""
    assert set(lab) == KEYS, where
    assert QUALNAME.match(lab["qualname"]), where
    assert lab["side"] in SIDES, where
    if lab["side"] == "handoff":
        assert lab["handoff_kind"] in KINDS, where
    else:
        assert lab["handoff_kind"] is None, where
    assert isinstance(lab["line"], int) and lab["line"] > 0, where
    assert isinstance(lab["why"], str) and 10 <= len(lab["why"]) <= 200 and "\n" not in lab["why"], where
    f = lab["file"]
    assert f.endswith(".py") and not f.startswith("/") and ".." not in Path(f).parts, where


def check_unique(labels: list[dict]) -> None:
    names = Counter(lab["qualname"] for lab in labels)
    assert [q for q, n in names.items() if n > 1] == []
    places = Counter((lab["file"], lab["line"]) for lab in labels)
    assert [p for p, n in places.items() if n > 1] == []


def check_counts(labels: list[dict], minimum: dict[str, int], name: str, weight_sync: int = 3, trajectory: int = 3) -> None:
    counts = Counter(lab["side"] for lab in labels)
    for side, n in minimum.items():
        assert counts[side] >= n, f"{name}: {counts[side]} {side} labels, need {n}"
    kinds = Counter(lab["handoff_kind"] for lab in labels if lab["side"] == "handoff")
    assert kinds["trajectory"] >= trajectory and kinds["weight_sync"] >= weight_sync, kinds


def neutral_lookalikes(labels: list[dict]) -> list[dict]:
    """Labelled-neutral functions whose name or ``why`` holds a word a keyword grep keys on."""
    words = ("sampl", "generat", "rollout", "trajector", "train", "update", "optimi", "advantage", "log",
             "weight", "checkpoint", "toggle", "builder", "metric")
    neutral = [lab for lab in labels if lab["side"] == "neutral"]
    return [lab for lab in neutral if any(w in (lab["qualname"] + " " + lab["why"]).lower() for w in words)]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_label_is_well_formed(path: Path):
    for lab in _load(path)["labels"]:
        check_label(lab, f"{path.name}: {lab.get('qualname')}")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_qualname_agrees_with_file(path: Path):
    """The module part of the qualname is the file's dotted path (``pkg/a/b.py`` -> ``pkg.a.b``)."""
    for lab in _load(path)["labels"]:
        module = lab["file"][: -len(".py")].replace("/", ".")
        if module.endswith(".__init__"):
            module = module[: -len(".__init__")]
        assert lab["qualname"].startswith(module + "."), lab["qualname"]
        assert lab["qualname"].split(".")[0] == path.stem, lab["qualname"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_no_duplicates_and_no_two_functions_on_one_line(path: Path):
    check_unique(_load(path)["labels"])


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_minimum_counts_and_both_handoff_kinds(path: Path):
    check_counts(_load(path)["labels"], MINIMUM, path.name)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_neutral_labels_are_mostly_keyword_look_alikes(path: Path):
    """The neutral set is meant to trap a keyword grep: at least 10 must contain its keywords.

    Checked on the ``why`` + name, the only text we have without the corpus: a look-alike's
    name or description mentions sampling/generation/rollouts/training words.
    """
    assert len(neutral_lookalikes(_load(path)["labels"])) >= 10


def test_grep_baseline_rules():
    bench = _bench()
    assert bench.grep_side("def f():\n    return 1") == "neutral"
    assert bench.grep_side("out = llm.generate(prompts)  # rollout") == "sampling"
    assert bench.grep_side("optimizer.step(); scheduler.update()") == "training"
    assert bench.grep_side("samples = x; trainer.fit()") == "driver"  # one each: tie
    assert bench.grep_side("ROLLOUT Rollout rollout advantage") == "sampling"  # case-insensitive counts
    assert bench.grep_side("self.weight_sync(); broadcast(params)") == "neutral"  # never handoff


def test_score_per_side_macro_and_neutral_rate():
    bench = _bench()
    pairs = [
        ("sampling", None, "sampling", None),
        ("sampling", None, "training", None),
        ("training", None, "training", None),
        ("handoff", "trajectory", "handoff", "trajectory"),
        ("handoff", "weight_sync", "handoff", "trajectory"),
        ("neutral", None, "sampling", None),
        ("neutral", None, "neutral", None),
        ("driver", None, "driver", None),
    ]
    s = bench.score(pairs)
    assert s.per_side["sampling"]["precision"] == pytest.approx(0.5)  # 1 of 2 predicted sampling
    assert s.per_side["sampling"]["recall"] == pytest.approx(0.5)
    assert s.per_side["training"]["precision"] == pytest.approx(0.5)
    assert s.per_side["training"]["recall"] == pytest.approx(1.0)
    assert s.per_side["handoff"]["f1"] == pytest.approx(1.0)  # the side is right for both
    assert s.kind_accuracy == pytest.approx(0.5)  # one of the two kinds is wrong
    assert s.macro_f1 == pytest.approx((0.5 + 2 / 3 + 1.0) / 3)
    assert s.neutral_mislabel == pytest.approx(0.5) and s.neutral_total == 2
    assert s.confusion["sampling"] == {"sampling": 1, "training": 1}


def test_score_of_an_all_neutral_prediction_is_zero():
    bench = _bench()
    s = bench.score([("sampling", None, "neutral", None), ("neutral", None, "neutral", None)])
    assert s.macro_f1 == 0.0 and s.neutral_mislabel == 0.0 and s.kind_accuracy is None


def test_macro_f1_leaves_out_a_side_the_labels_do_not_have():
    """A tree with no handoff code has no handoff labels: the mean is over sampling and training."""
    bench = _bench()
    s = bench.score([("sampling", None, "sampling", None), ("training", None, "training", None),
                     ("neutral", None, "handoff", "weight_sync")])
    assert s.per_side["handoff"]["support"] == 0 and s.per_side["handoff"]["precision"] == 0.0
    assert s.macro_f1 == pytest.approx(1.0) and s.neutral_mislabel == pytest.approx(1.0)


def test_write_keeps_the_hand_written_notes(tmp_path: Path):
    bench = _bench()
    report = tmp_path / "semantics.md"
    assert bench.kept_notes(report) == ""  # no file yet
    report.write_text("# title\n\n| old | table |\n\n## Notes from the stage\n\n- keep me\n")
    assert bench.kept_notes(report) == "\n## Notes from the stage\n\n- keep me\n"
    report.write_text("# title\n\n| table only |\n")
    assert bench.kept_notes(report) == ""

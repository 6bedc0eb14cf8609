"""The held-out corpus truth (slime, ROLL, NeMo-Aligner, OAT, SkyRL, open-instruct, prime-rl) is well formed and really held out.

Like tests/test_corpus_truth.py these tests never need the corpora: they check the
JSON files' shape and the label rules of tests/corpus_truth_heldout/README.md, that
the held-out frameworks are not the ones the tagger was tuned on, and that the
benchmark reads this folder (a missing corpus is reported, not a crash).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_corpus_truth import (
    IDENT,
    _bench,
    _load,
    check_counts,
    check_label,
    check_unique,
    neutral_lookalikes,
)

HERE = Path(__file__).parent
HELDOUT = HERE / "corpus_truth_heldout"
TUNED = HERE / "corpus_truth"
# Development sets: labelled blind like the held-out ones, then tuned on (so never reported as held out).
DEV = HERE / "corpus_truth_dev"
HELD = sorted(HELDOUT.glob("*.json"))
FILES = HELD + sorted(DEV.glob("*.json"))
COMMIT = re.compile(r"^[0-9a-f]{40}$")
RELEASE = re.compile(r"^\d+(\.\d+)+$")
MINIMUM = {"sampling": 15, "training": 15, "handoff": 8, "driver": 2, "neutral": 15}
# A development set may be a library whose training loop lives in another package (ART's is
# TRL's trainer): it labels what the tree has, and a lower training minimum says so.
DEV_MINIMUM = {**MINIMUM, "training": 8}
# A set whose tree cannot reach a minimum honestly says so here: (the side minimums, the weight-sync
# minimum). trlx generates with the very model object it trains (no inference engine, so no
# trainer-to-engine weight push); verifiers' GRPO trainer subclasses transformers' Trainer (the loop,
# backward and optimizer step live there); agent-lightning v1.0 runs verl's RayPPOTrainer (the update
# and the weight push to vLLM are verl's). The READMEs give the counts.
SHORTFALL = {
    "trlx": (MINIMUM, 0),
    "verifiers": ({**MINIMUM, "training": 5}, 3),
    "agent_lightning": ({**DEV_MINIMUM, "training": 7}, 0),
    # DeepSpeed-Chat generates with the trained actor inside the trainer process (DeepSpeed hybrid engine):
    # one generation call, an in-process experience buffer, no weight push.
    "deepspeed_chat": ({**DEV_MINIMUM, "sampling": 9, "handoff": 4}, 0),
    # rl4lms generates with the very policy object it trains; its only weight copy is NLPO's mask-model refresh.
    "rl4lms": (DEV_MINIMUM, 2),
    # LLaMA-Factory's PPO runs TRL's PPOTrainer in the trainer process: the policy generates itself, the
    # batch goes from ppo_train to TRL's step in local lists (no buffer, queue or collation of its own in
    # the tree) and nothing moves weights to a sampler.
    "llamafactory": ({**DEV_MINIMUM, "handoff": 0}, 0),
}
# Sets whose tree holds fewer than 3 trajectory handoffs (the README says why).
TRAJECTORY_SHORTFALL = {"llamafactory": 0}


def _module_of(file: str) -> str:
    """gyrelint's module name for a file of a root-level package or script (``-`` becomes ``_``).

    A ``src/`` layout (``src/pkg/a.py``, or a workspace member's ``packages/x/src/pkg/a.py``)
    is named from inside ``src``, the way the package is imported.
    """
    parts = file[: -len(".py")].split("/")
    if "src" in parts[:3]:
        parts = parts[parts.index("src") + 1 :]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(p if re.fullmatch(IDENT, p) else p.replace("-", "_").replace(".", "_") for p in parts)


def test_every_heldout_framework_is_labelled():
    assert {_load(p)["framework"] for p in HELD} >= {"slime", "roll", "nemo_aligner", "oat_llm", "skyrl", "open_instruct", "prime_rl", "pipelinerl", "nemo_rl", "rlinf", "orz", "trlx", "verifiers", "colossalchat", "ms_swift"}


def test_heldout_frameworks_are_not_the_tuned_ones():
    tuned = {_load(p)["framework"] for p in TUNED.glob("*.json")}
    dev = {_load(p)["framework"] for p in DEV.glob("*.json")}
    assert tuned, "tests/corpus_truth should hold the tuned frameworks"
    assert {_load(p)["framework"] for p in HELD}.isdisjoint(tuned | dev)


def test_readme_records_each_version_and_how_to_get_the_tree():
    """A git tree is named by its checkout command, a wheel by its pinned ``pip download``."""
    for path in FILES:
        readme = (path.parent / "README.md").read_text(encoding="utf-8")
        version = _load(path)["version"]
        if COMMIT.match(version):
            assert f"checkout {version}" in readme, path.name
        else:
            assert re.search(rf"pip download --no-deps [A-Za-z0-9_.-]+=={re.escape(version)}\b", readme), path.name
        assert path.name in readme


def test_fetch_script_gets_every_labelled_wheel():
    """A label set pinned to a release names a wheel that scripts/fetch_corpora.sh downloads and unzips."""
    script = (HERE.parent / "scripts" / "fetch_corpora.sh").read_text(encoding="utf-8")
    for path in FILES:
        version = _load(path)["version"]
        if RELEASE.match(version):
            assert re.search(rf"[A-Za-z0-9_.-]+=={re.escape(version)}\b", script), path.name


def test_fetch_script_clones_every_labelled_git_tree():
    """A label set pinned to a commit is a tree GYRELINT_FETCH_GIT=1 clones, into the folder the bench reads."""
    script = (HERE.parent / "scripts" / "fetch_corpora.sh").read_text(encoding="utf-8")
    for path in FILES:
        data = _load(path)
        if COMMIT.match(data["version"]):
            kind = "dev" if path.parent == DEV else "heldout"
            assert re.search(rf"^{kind} {data['framework']} https://github\.com/\S+ {data['version']}$", script, re.M), path.name


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_top_level_metadata(path: Path):
    data = _load(path)
    assert set(data) == {"framework", "version", "corpus_root", "labels"}
    assert data["framework"] == path.stem
    version = data["version"]
    assert COMMIT.match(version) or RELEASE.match(version), "version: the git commit of the tree, or the wheel's release"
    root = data["corpus_root"]
    assert isinstance(root, str) and not root.startswith("/") and ".." not in Path(root).parts
    assert isinstance(data["labels"], list) and data["labels"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_label_is_well_formed(path: Path):
    for lab in _load(path)["labels"]:
        check_label(lab, f"{path.name}: {lab.get('qualname')}")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_qualname_agrees_with_file(path: Path):
    """The module part of the qualname is the file's dotted path, named the way gyrelint names it."""
    for lab in _load(path)["labels"]:
        assert lab["qualname"].startswith(_module_of(lab["file"]) + "."), lab["qualname"]


def test_module_naming_helper():
    assert _module_of("examples/search-r1/generate_with_search.py") == "examples.search_r1.generate_with_search"
    assert _module_of("pkg/sub/__init__.py") == "pkg.sub"
    assert _module_of("train.py") == "train"
    assert _module_of("src/prime_rl/trainer/rl/train.py") == "prime_rl.trainer.rl.train"
    assert _module_of("packages/prime-rl-configs/src/prime_rl/configs/rl.py") == "prime_rl.configs.rl"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_no_duplicates_and_no_two_functions_on_one_line(path: Path):
    check_unique(_load(path)["labels"])


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_minimum_counts_and_both_handoff_kinds(path: Path):
    default = DEV_MINIMUM if path.parent == DEV else MINIMUM
    minimum, weight_sync = SHORTFALL.get(path.stem, (default, 3))
    trajectory = TRAJECTORY_SHORTFALL.get(path.stem, 3)
    check_counts(_load(path)["labels"], minimum, path.name, weight_sync=weight_sync, trajectory=trajectory)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_neutral_labels_are_mostly_keyword_look_alikes(path: Path):
    assert len(neutral_lookalikes(_load(path)["labels"])) >= 10


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_bench_reports_a_missing_corpus_instead_of_crashing(path: Path, tmp_path: Path):
    res = _bench().run_labelled(path, tmp_path)
    assert res["framework"] == path.stem
    assert "corpus not found" in res["error"] and str(tmp_path) in res["error"]
    assert res["labels"] == len(_load(path)["labels"])


def test_bench_names_the_truth_folder_and_its_readme(tmp_path: Path):
    bench = _bench()
    res = bench.run_labelled(FILES[0], tmp_path, "see tests/corpus_truth_heldout/README.md for how to get it")
    assert res["error"].endswith("see tests/corpus_truth_heldout/README.md for how to get it")
    assert bench._shown(HELDOUT.resolve()) == "tests/corpus_truth_heldout"
    assert bench._shown(tmp_path) == str(tmp_path)  # outside the repository: shown as is
    md = bench.render({"labelled": [], "truth": "tests/corpus_truth_heldout"})
    assert "Labels: `tests/corpus_truth_heldout/*.json`" in md
    assert "Labels: `tests/corpus_truth/*.json`" in bench.render({"labelled": []})  # the default report is unchanged

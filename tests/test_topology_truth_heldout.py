"""The held-out topology key labels (issue 15) are well formed.

Like the corpus-truth tests these never need the corpora: they check the JSON shape and
the rules of tests/topology_truth_heldout/README.md, and that each labelled framework's
wheel is one scripts/fetch_corpora.sh fetches.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

HERE = Path(__file__).parent
TRUTH = HERE / "topology_truth_heldout"
DEV = HERE / "topology_truth_dev"  # labelled blind, then tuned on: never reported as held out
HELD = sorted(TRUTH.glob("*.json"))
FILES = HELD + sorted(DEV.glob("*.json"))
CLASSES = {"process", "port-address", "transport", "layout-mode"}
COMMIT = re.compile(r"^[0-9a-f]{40}$")
RELEASE = re.compile(r"^\d+(\.\d+)+$")
# Frameworks whose tree has no user-set port or address (README: ORZ takes free ports itself and
# joins the Ray cluster that `ray start` made; RAGEN calls `ray.init()` with no address, colocates
# every role in one local pool, and its API-evaluation endpoints are fixed in code; RL4LMs is one
# process with local env subprocesses; EasyR1 calls `ray.init()` with no address, joining the cluster
# `ray start` made, and its workers pick MASTER_ADDR/MASTER_PORT themselves; ReaLHF's workers find free
# ports themselves and publish them as name-resolve records under the cluster spec's fileroot, and its
# Ray mode calls `ray.init()` with no address), so a port-address label would be invented.
# MindSpeed-RL sets the Ray port on the launcher command line and picks its zmq ports at run time.
NO_ADDRESS_KEYS = {"orz", "ragen", "rl4lms", "easyr1", "realhf", "mindspeed_rl"}
# Frameworks with fewer than 20 layout keys in their whole tree (README: RL4LMs runs one process that
# generates with the policy it trains, plus SubprocVecEnv env workers; it has no port, engine or sync key).
FEW_KEYS = {"rl4lms": 9}
# a CLI flag, a dotted config path, or an environment variable
KEY = re.compile(r"^(--[A-Za-z0-9][A-Za-z0-9_.-]*|[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)$")


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_both_frameworks_are_labelled():
    assert {_load(p)["framework"] for p in HELD} >= {"nemo_aligner", "oat_llm", "skyrl", "open_instruct", "prime_rl", "pipelinerl", "nemo_rl", "rlinf", "orz", "trlx", "verifiers", "colossalchat", "ms_swift"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_shape(path: Path):
    data = _load(path)
    assert set(data) <= {"framework", "version", "keys", "expect", "corpus_root"} and {"framework", "version", "keys"} <= set(data)
    root = data.get("corpus_root", ".")  # the project's folder inside a bigger checkout
    assert isinstance(root, str) and not root.startswith("/") and ".." not in Path(root).parts, path.name
    expect = data.get("expect")
    if expect is not None:  # the process verdict and online flag read from the code (issue 14 item 5)
        assert set(expect) == {"verdict", "online", "why"}, path.name
        assert expect["verdict"] in {"same-process", "cross-process"}, path.name
        assert isinstance(expect["online"], bool), path.name
        assert isinstance(expect["why"], str) and 10 <= len(expect["why"]) <= 400, path.name
    assert data["framework"] == path.stem
    assert RELEASE.match(data["version"]) or COMMIT.match(data["version"]), "a wheel's release or a tree's git commit"
    for k in data["keys"]:
        where = f"{path.name}: {k.get('key')}"
        assert set(k) == {"key", "class", "file", "line", "why"}, where
        assert KEY.match(k["key"]), where
        assert k["class"] in CLASSES, where
        assert isinstance(k["line"], int) and k["line"] > 0, where
        assert isinstance(k["why"], str) and 10 <= len(k["why"]) <= 200 and "\n" not in k["why"], where
        f = k["file"]
        assert not f.startswith("/") and ".." not in Path(f).parts, where


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_one_entry_per_key_and_enough_keys(path: Path):
    keys = [k["key"] for k in _load(path)["keys"]]
    assert [k for k, n in Counter(keys).items() if n > 1] == []
    assert len(keys) >= FEW_KEYS.get(path.stem, 20)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_more_than_one_class(path: Path):
    """A layout is decided by counts, addresses and modes together; a one-class list is a mislabel."""
    classes = Counter(k["class"] for k in _load(path)["keys"])
    assert classes["layout-mode"] >= 1 and classes["process"] >= 1
    assert classes["port-address"] >= 1 or path.stem in NO_ADDRESS_KEYS


def test_readme_and_fetch_script_cover_each_framework():
    script = (HERE.parent / "scripts" / "fetch_corpora.sh").read_text(encoding="utf-8")
    for path in FILES:
        readme = (path.parent / "README.md").read_text(encoding="utf-8")
        assert "blind" in readme
        version = _load(path)["version"]
        if COMMIT.match(version):  # a git tree: its checkout command is in the README
            assert f"checkout {version}" in readme, path.name
        else:
            assert re.search(rf"[A-Za-z0-9_.-]+=={re.escape(version)}\b", script), path.name

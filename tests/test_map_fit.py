"""Maps that fit a screen (issue 19 item 4): at most MAX_WIDTH pt wide on a large synthetic repo,
by GraphViz's own layout when ``dot`` is installed and by the row estimate in any case; --focus
small; the same bytes under any hash seed."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_map_support import P, fixture_analysis

from gyrelint.model import Evidence, FunctionReport, Side
from gyrelint.render.dot import (
    FOCUS_MAX_NODES,
    LABEL_CHARS,
    MAX_WIDTH,
    build_map,
    estimated_width,
    layout_rows,
    to_dot,
    wrap_dotted,
)

HAS_DOT = shutil.which("dot") is not None
TESTS = Path(__file__).parent


def large_analysis():
    """~300 tagged functions over many packages, plus some with framework-length names (long
    packages, classes and methods), the case that made maps 5,000 pt wide."""
    a = fixture_analysis(extra=300)
    for i in range(40):
        side = (Side.SAMPLING, Side.TRAINING, Side.DRIVER)[i % 3]
        mod = f"{P}.distributed_inference_backends.engine_adapters_{i % 4}.sglang_rollout_worker_{i % 5}"
        q = f"{mod}.AsyncMultiTurnRolloutWorkerWithTools{i % 3}.generate_sequences_with_tool_calls_{i}"
        file = mod.replace(".", "/") + ".py"
        a.functions[q] = FunctionReport(q, file, i + 1, side, None, True, [Evidence("synthetic", file, i + 1)])
        a.graphs.calls.add_edge(f"{P}.main.train_loop", q, kind="exact", via="call")
    return a


@pytest.fixture(scope="module")
def large():
    return large_analysis()


def dot_width(dot_text: str) -> float:
    """The page width GraphViz lays the DOT out to (its bounding box, in points)."""
    proc = subprocess.run(["dot", "-Tjson"], input=dot_text.encode(), capture_output=True, timeout=300, check=True)
    x0, _, x1, _ = (float(v) for v in json.loads(proc.stdout)["bb"].split(","))
    return x1 - x0


@pytest.mark.parametrize("kind", ["default", "module", "focus"])
def test_width_bound_on_a_large_repo(large, kind):
    kw = {"default": {}, "module": {"level": "module"}, "focus": {"focus": "train_loop"}}[kind]
    g = build_map(large, **kw)
    assert len(g.nodes) <= (FOCUS_MAX_NODES if kind == "focus" else 60)
    assert estimated_width(g) <= MAX_WIDTH
    assert all(len(line) <= LABEL_CHARS + 8 for n in g.nodes for line in n.label.split("\n"))
    if HAS_DOT:
        assert dot_width(to_dot(g)) <= MAX_WIDTH


def test_every_box_sits_on_one_row_in_side_order(large):
    g = build_map(large)
    rows = layout_rows(g)
    placed = [n.id for row in rows for n in row]
    assert sorted(placed) == sorted(n.id for n in g.nodes)  # each box once
    order = ["entry", "driver", "sampling", "handoff", "training"]
    sides = [order.index(row[0].side) for row in rows if row[0].side in order]
    assert sides == sorted(sides)  # entries on top, then drivers, sampling, handoff, training
    assert all(len({n.side for n in row}) == 1 for row in rows)
    text = to_dot(g)
    assert "splines=line" in text.replace('"', "")
    # no drawn edge may add a rank: the rows alone decide the height and the width
    drawn = [line for line in text.splitlines() if "->" in line and "invis" not in line]
    assert drawn and all("constraint=false" in line.replace('"', "") for line in drawn)


def test_labels_wrap_at_dots_and_groups_are_counted(large):
    assert wrap_dotted("verl.workers.rollout.vllm_rollout.vLLMRolloutWorker") == \
        "verl.workers.rollout.\nvllm_rollout.\nvLLMRolloutWorker"
    assert wrap_dotted("a_very_long_function_name_that_has_no_dots_at_all") == \
        "a_very_long_function_\nname_that_has_no_dots_\nat_all"
    g = build_map(large)
    groups = [n for n in g.nodes if n.kind == "group"]
    assert groups
    assert all(n.label.startswith(f"+{len(n.members)} more") for n in groups)
    assert any("\nin " in n.label for n in groups)  # "+14 more functions / in pkg.sub"


def test_module_shown_once_per_sub_cluster():
    a = fixture_analysis()
    text = to_dot(build_map(a))
    # Trainer.consume / compute_advantages / update share looprl.trainer: one dashed sub-cluster
    # titled with the module, and the boxes inside say only Class.method
    assert 'label="looprl.trainer"' in text
    assert 'label="Trainer.update"' in text and 'label="trainer.Trainer.update"' not in text


def test_focus_is_small_and_reaches_the_other_chain():
    a = fixture_analysis()
    g = build_map(a, focus="score")  # a sampling function: its callers, two steps up
    keys = {q for n in g.nodes for q in n.members}
    assert f"{P}.rollout.Sampler.generate" in keys and f"{P}.main.train_loop" in keys
    # Trainer.update is three calls away: added as the short path to the training chain
    assert f"{P}.trainer.Trainer.update" in keys
    assert len(g.nodes) <= FOCUS_MAX_NODES
    big = build_map(large_analysis(), focus="train_loop", max_nodes=200)
    assert len(big.nodes) <= FOCUS_MAX_NODES  # a hub's neighbourhood is folded, not drawn whole


_HASH = (
    "import hashlib, sys; sys.path[:0] = [{tests!r}]\n"
    "from test_map_fit import large_analysis\n"
    "from gyrelint.render.dot import build_map, to_dot\n"
    "a = large_analysis()\n"
    "print(hashlib.sha256(''.join(to_dot(build_map(a, **kw)) for kw in "
    "({{}}, {{'level': 'module'}}, {{'focus': 'train_loop'}})).encode()).hexdigest())\n"
)


def test_same_bytes_under_any_hash_seed(large, tmp_path: Path):
    here = hashlib.sha256("".join(to_dot(build_map(large, **kw)) for kw in
                                  ({}, {"level": "module"}, {"focus": "train_loop"})).encode()).hexdigest()
    code = _HASH.format(tests=str(TESTS))
    seen = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "GYRELINT_CACHE_DIR": str(tmp_path / "cache")}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600,
                             check=True, cwd=tmp_path)
        seen.add(out.stdout.strip())
    assert seen == {here}

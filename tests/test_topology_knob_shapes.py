"""Layout knobs the classifier dropped (issue 15, found by ``bench/topology_recall.py --vs-grep``): an FSDP
``sharding_strategy``, the settings of a section named after a cluster
launcher or a local runner, and a ``*_path`` option a launch script sets to a Python file the run loads.
All four were unlisted before; ``--reward_scale``, ``learning_rate`` and a bare ``--device`` (a device name
alone says nothing of the layout: tests/test_topology_classify.py) stay out."""

from pathlib import Path

import pytest

from gyrelint.api import analyze
from gyrelint.topology.classify import classify

FIXTURE = Path(__file__).parent / "fixtures" / "topology_knob_shapes"


@pytest.fixture(scope="module")
def entries():
    return {e.name: e for e in analyze(FIXTURE, use_cache=False, jobs=1).topology.keys if not e.scope}


@pytest.mark.parametrize(("name", "cls", "words"), [
    ("sharding_strategy", "layout", "sharding_strategy"),
    ("k8s_runner.namespace", "process", "launcher section"),
    ("local_runner.pool_limit", "process", "launcher section"),
    ("--flow_file_path", "layout", "Python file"),
])
def test_listed(entries, name, cls, words):
    assert entries[name].cls == cls and words in entries[name].evidence


def test_the_rest_stays_out(entries):
    assert "--reward_scale" not in entries and "learning_rate" not in entries and "--device" not in entries


def test_the_rules_keep_to_their_shape():
    assert classify("eval_runner.batch_size", "8") is None  # a runner that is no launcher
    assert classify("--data_path", "data/make_prompts.py") is None  # a data script, not the run's code

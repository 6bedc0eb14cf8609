"""A copied library recognised by content, and calls into it read as calls into the library.

``tests/fixtures/vendored_copy`` is a product package (``heron``, every file under the
project's own copyright line) holding, inside its own ``third_party`` *package*, a copy of a
checkpoint module of a tensor library (headers of another owner, a ``From Upstream:`` block,
"this is a copy of", imports that mirror the library's layout, no import of ``heron``) and
a shim named after an inference engine that imports ``heron.utils``: the copy is vendored, the
shim stays product. Before content signals neither was vendored, the copy's functions took
the handoff side and one was listed as a weight-sync carrier.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from repo_tree import write_tree

from gyrelint.api import analyze
from gyrelint.graphs.symbols import as_library, build_symbols
from gyrelint.index.scope import _owners, library_names

FIX = Path(__file__).parent / "fixtures" / "vendored_copy"
COPY = "heron.third_party.torch"


@cache
def _analysis():
    return analyze(FIX, use_cache=False, jobs=1)


def test_the_copy_is_vendored_by_its_content_and_the_shim_stays_product() -> None:
    scopes = _analysis().index.scopes
    assert sorted(p for p, s in scopes.items() if s.scope == "vendored") == [
        "heron/third_party/torch/__init__.py", "heron/third_party/torch/distributed/__init__.py",
        "heron/third_party/torch/distributed/_state_dict_utils.py",
        "heron/third_party/torch/distributed/checkpoint/__init__.py",
        "heron/third_party/torch/distributed/checkpoint/state_dict.py"]
    reason = scopes["heron/third_party/torch/distributed/checkpoint/state_dict.py"].reason
    assert "another owner" in reason and "no import of the host project" in reason and "import structure" in reason
    assert "heron/third_party/vllm/__init__.py" not in scopes  # imports heron.utils: a shim
    assert "heron/third_party/__init__.py" not in scopes


def test_calls_into_the_copy_are_calls_into_the_library() -> None:
    a = _analysis()
    assert library_names(a.index.files, a.index.scopes) == {COPY: "torch"}
    st = a.graphs.symbols
    assert st.resolve_in("heron.train", "Learner.export_policy", "get_model_state_dict") == \
        "torch.distributed.checkpoint.state_dict.get_model_state_dict"
    assert st.import_map("heron.train")["get_model_state_dict"].startswith("torch.distributed.")
    assert st.resolve_dotted(f"{COPY}.distributed.checkpoint.state_dict.set_model_state_dict") == \
        "torch.distributed.checkpoint.state_dict.set_model_state_dict"
    assert not st.is_repo_name(st.resolve_dotted(f"{COPY}.distributed"))


def test_the_copy_takes_no_side_and_is_on_no_headline_answer() -> None:
    a = _analysis()
    for q, f in a.functions.items():
        if q.startswith(COPY + "."):
            assert f.side.value == "neutral", q
    h = a.handoff
    for carriers in (h.trajectory, h.weight_sync, h.weight_sync_path, a.boundary_modules):
        assert not [q for q in carriers if q.startswith(COPY)], carriers
    # the product's own answers are untouched
    assert a.functions["heron.rollout.RolloutWorker.sample_group"].side.value == "sampling"
    assert a.functions["heron.train.Learner.policy_update"].side.value == "training"
    assert a.functions["heron.train.main"].side.value == "driver"
    assert h.weight_sync == ["heron.rollout.RolloutWorker.load_policy"] and h.online


def test_owners_are_compared_across_spellings() -> None:
    assert _owners("# Copyright (c) 2016-     Facebook, Inc            (Adam Paszke)") == {"facebook"}
    assert _owners("# Copyright (c) 2016-present, Facebook Inc. All rights reserved.") == {"facebook"}
    assert _owners("# Copyright 2024 Bytedance Ltd. and/or its affiliates") == {"bytedance"}
    assert _owners("#    notice, this list of conditions and the following disclaimer.") == frozenset()


def test_a_table_without_copies_reads_names_as_they_are() -> None:
    assert as_library("pkg.third_party.torch.nn", {}) == "pkg.third_party.torch.nn"
    assert as_library("pkg.third_party.torchvision.x", {"pkg.third_party.torch": "torch"}) == \
        "pkg.third_party.torchvision.x"
    assert build_symbols([]).libraries == {}


OWN = "# Copyright 2025 Plover Labs Ltd.\n"


def test_an_adapter_package_named_after_its_engine_stays_product(tmp_path: Path) -> None:
    """A package named like a library that imports only that library: name + "no host import" is not enough."""
    root = write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "plover"\n',
        "plover/__init__.py": OWN, "plover/train.py": OWN + "import torch\n",
        "plover/integrations/__init__.py": OWN,
        "plover/integrations/vllm/__init__.py": OWN + "# Adapted from the engine's example server.\n"
                                               "from vllm import LLM\n\n\ndef make(p):\n    return LLM(p)\n",
    })
    a = analyze(root, use_cache=False, jobs=1)
    assert a.index.scopes == {}


def test_a_copy_in_a_vendor_folder_with_foreign_headers_is_vendored(tmp_path: Path) -> None:
    foreign = "# Copyright (c) 2021 Fastlib Authors\n# All rights reserved.\n"
    root = write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "plover"\n',
        "plover/__init__.py": OWN, "plover/train.py": OWN + "from plover.vendor.fastlib import ops\n",
        "plover/loop.py": OWN + "import plover.train\n",
        "plover/vendor/__init__.py": OWN,
        "plover/vendor/fastlib/__init__.py": foreign,
        "plover/vendor/fastlib/ops.py": foreign + "import math\n\n\ndef fused(x):\n    return math.fsum(x)\n",
    })
    a = analyze(root, use_cache=False, jobs=1)
    got = {p: s.reason for p, s in a.index.scopes.items()}
    assert sorted(got) == ["plover/vendor/fastlib/__init__.py", "plover/vendor/fastlib/ops.py"]
    assert "another owner" in got["plover/vendor/fastlib/ops.py"]
    assert a.graphs.symbols.resolve_in("plover.train", "<module>", "ops") == "fastlib.ops"

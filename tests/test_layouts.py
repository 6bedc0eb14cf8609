"""Module names on every repository layout: the importable dotted path, one name per module.

Each ``tests/fixtures/layout_*`` repo is one layout (``src/`` with setuptools metadata, a
PEP 420 namespace top package, a workspace of ``packages/*/src`` and ``libs/a/a``, a repo
whose root is itself the package). Each holds a sampling function in one package and a
caller in another that reaches it only through an absolute cross-package import: the
import must be an edge of the graphs and the caller must take the sampling side through it.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from repo_tree import write_tree

from gyrelint.api import analyze
from gyrelint.repo import discover, module_names
from gyrelint.settings import Settings

FIX = Path(__file__).parent / "fixtures"
LAYOUTS = ("layout_src", "layout_namespace", "layout_workspace", "layout_rootpkg")


@cache
def _analysis(name: str):
    return analyze(FIX / name, use_cache=False, jobs=1, run_rules=False)


EXPECTED_MODULES = {
    "layout_src": {"src/sparrow/actor.py": "sparrow.actor", "src/sparrow/__init__.py": "sparrow"},
    "layout_namespace": {"corvid/actor/engine.py": "corvid.actor.engine", "corvid/learner/feed.py": "corvid.learner.feed",
                         "corvid/actor/__init__.py": "corvid.actor",
                         # a package beside a script is imported from the script's folder
                         "examples/quick/corvid_demo/setup.py": "corvid_demo.setup",
                         "examples/quick/run.py": "examples.quick.run"},
    "layout_workspace": {"packages/heron-sampler/src/heron_sampler/generate.py": "heron_sampler.generate",
                         "packages/heron-learner/src/heron_learner/collect.py": "heron_learner.collect",
                         "libs/kite/kite/rewards.py": "kite.rewards"},
    "layout_rootpkg": {"__init__.py": "osprey", "rollout.py": "osprey.rollout", "relay.py": "osprey.relay"},
}
CROSS_IMPORT = {
    "layout_src": ("sparrow.loop", "sparrow.actor"),
    "layout_namespace": ("corvid.learner.feed", "corvid.actor.engine"),
    "layout_workspace": ("heron_learner.collect", "heron_sampler.generate"),
    "layout_rootpkg": ("osprey.pipeline", "osprey.rollout"),
}


@pytest.mark.parametrize("name", LAYOUTS)
def test_module_names_are_the_importable_paths(name: str) -> None:
    modules = _analysis(name).index.files.modules
    for path, want in EXPECTED_MODULES[name].items():
        assert modules[path] == want, path
    twice = [m for m, n in Counter(modules.values()).items() if n > 1]
    assert twice == [], f"one name for two files: {twice}"


@pytest.mark.parametrize("name", LAYOUTS)
def test_cross_package_import_is_an_edge_and_carries_the_side(name: str) -> None:
    a = _analysis(name)
    importer, imported = CROSS_IMPORT[name]
    assert a.graphs.imports.has_edge(importer, imported)
    labels = json.loads((FIX / name / "labels.json").read_text(encoding="utf-8"))
    got = {q: a.functions[q].side.value if q in a.functions else "absent" for q in labels}
    assert got == labels
    # every qualname in the report starts with a module name the index gave
    mods = set(a.index.files.modules.values())
    for q in a.functions:
        assert any(q.startswith(m + ".") for m in mods), q


def test_a_namespace_folder_inside_a_package_keeps_the_package_name() -> None:
    names = module_names(Path("/x"), ["core/__init__.py", "core/models/llama/__init__.py", "core/models/llama/attn.py"])
    assert names["core/models/llama/attn.py"] == "core.models.llama.attn"


def test_a_namespace_is_seen_past_a_large_sibling_folder(tmp_path: Path) -> None:
    """``demos/`` (no ``__init__.py``) holds a big script folder listed first and a package whose
    own files import it as ``demos.heron...``: the package is named through the namespace.
    Failed before: the look read the first 40 files, all in ``demos/aaa-big/``."""
    files = {f"demos/aaa-big/s{i:02d}.py": "x = 1\n" for i in range(45)}
    files.update({"demos/heron/__init__.py": "", "demos/heron/agents/__init__.py": "",
                  "demos/heron/agents/score.py": "def score(x):\n    return x\n",
                  "demos/heron/agents/agent.py": "from demos.heron.agents.score import score\n"})
    names = discover(_repo(tmp_path, files), Settings()).modules
    assert names["demos/heron/agents/agent.py"] == "demos.heron.agents.agent"
    assert names["demos/heron/agents/score.py"] == "demos.heron.agents.score"


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    return write_tree(tmp_path / "repo", files)


# ``flock`` is a namespace package (no __init__.py) in ``lib/``, which is no src/ folder: only
# the metadata says the code is imported from there, so only the metadata makes it flock.grebe
PKG = {"lib/flock/grebe/__init__.py": "", "lib/flock/grebe/act.py": "def act():\n    pass\n"}
METADATA = {
    "setuptools package-dir": {"pyproject.toml": '[tool.setuptools]\npackage-dir = {"" = "lib"}\n'},
    "setuptools packages.find": {"pyproject.toml": '[tool.setuptools.packages.find]\nwhere = ["lib"]\n'},
    "hatch packages": {"pyproject.toml": '[tool.hatch.build.targets.wheel]\npackages = ["lib/flock"]\n'},
    "poetry packages from": {"pyproject.toml": '[tool.poetry]\nname = "grebe"\npackages = [{include = "flock", from = "lib"}]\n'},
    "setup.cfg package_dir": {"setup.cfg": "[metadata]\nname = grebe\n[options]\npackage_dir =\n    =lib\n"},
    "setup.cfg find where": {"setup.cfg": "[options.packages.find]\nwhere = lib\n"},
    "setup.py text": {"setup.py": 'from setuptools import setup, find_packages\nsetup(name="grebe", package_dir={"": "lib"},'
                                  ' packages=find_packages("lib"))\n'},
}


@pytest.mark.parametrize("kind", sorted(METADATA))
def test_packaging_metadata_names_the_source_root(tmp_path: Path, kind: str) -> None:
    root = _repo(tmp_path, {**PKG, **METADATA[kind]})
    files = discover(root, Settings())
    assert files.modules["lib/flock/grebe/act.py"] == "flock.grebe.act"
    assert not [d for d in files.diagnostics if d.kind == "config"]


def test_a_package_mapped_onto_a_folder_of_another_name(tmp_path: Path) -> None:
    root = _repo(tmp_path, {"pyproject.toml": '[tool.setuptools]\npackage-dir = {"grebe" = "code"}\n',
                            "code/__init__.py": "", "code/act.py": "x = 1\n"})
    assert discover(root, Settings()).modules["code/act.py"] == "grebe.act"


def test_setup_py_is_read_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    root = _repo(tmp_path, {**PKG, "setup.py": f'open({str(marker)!r}, "w").write("x")\n'
                                                'from setuptools import setup\nsetup(package_dir={"": "lib"})\n'})
    files = discover(root, Settings())
    assert files.modules["lib/flock/grebe/act.py"] == "flock.grebe.act"
    assert not marker.exists()


@pytest.mark.parametrize("bad", ['[tool.setuptools\npackage-dir = {"" = "lib"}\n', "[tool.setuptools]\npackage-dir = 3\n",
                                 '[tool.setuptools]\npackage-dir = {"" = "../../etc"}\n'])
def test_malformed_or_hostile_metadata_is_one_diagnostic_not_a_crash(tmp_path: Path, bad: str) -> None:
    root = _repo(tmp_path, {**PKG, "pyproject.toml": bad, "setup.cfg": "[options\npackage_dir = =lib\n"})
    files = discover(root, Settings())
    assert files.modules["lib/flock/grebe/act.py"] == "grebe.act"  # the package's own folder still names it
    config = [d for d in files.diagnostics if d.kind == "config"]
    assert {d.file for d in config} <= {"pyproject.toml", "setup.cfg"}
    assert any(d.file == "setup.cfg" for d in config)


def test_metadata_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    import os

    root = _repo(tmp_path, PKG)
    os.mkfifo(root / "setup.cfg")
    files = discover(root, Settings())  # returns: nothing blocks on the FIFO
    assert files.modules["lib/flock/grebe/act.py"] == "grebe.act"
    assert any(d.file == "setup.cfg" and "FIFO" in d.message for d in files.diagnostics)


def test_a_virtualenv_is_found_by_content_whatever_its_name(tmp_path: Path) -> None:
    root = _repo(tmp_path, {"agent/__init__.py": "", "agent/env/__init__.py": "", "agent/env/world.py": "x = 1\n",
                            "sandbox/lib/python3.11/site-packages/torch/__init__.py": "", "sandbox/x.py": "y = 1\n"})
    files = discover(root, Settings())
    assert "agent/env/world.py" in files.python
    assert not [p for p in files.python if p.startswith("sandbox/")]

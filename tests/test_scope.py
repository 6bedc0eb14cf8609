"""Scope: tests, docs, benchmarks and vendored libraries are indexed but left out of the answers.

``tests/fixtures/layout_scope`` is a product package (``egret``) beside a test folder, docs
with a runnable example, a benchmark, a copy of a well-known library under ``third_party/``
with its own license, an unpacked wheel of another distribution under ``_vendor/``, the
product's own ``third_party`` package of patches and a workspace member with the project's
license (both product: one signal is not enough), and a ``test_utils.py`` helper holding no
test code (product).
"""

from __future__ import annotations

import json
import shutil
from functools import cache
from pathlib import Path

import jsonschema
from click.testing import CliRunner

from gyrelint.api import analyze
from gyrelint.cli import main as cli
from gyrelint.render.dot import build_map
from gyrelint.render.json_report import to_report
from gyrelint.render.schemas import report_schema
from gyrelint.render.text import render_text
from gyrelint.semantics.counters import logged_counters

FIX = Path(__file__).parent / "fixtures" / "layout_scope"


@cache
def _analysis(include_tests: bool = False):
    return analyze(FIX, use_cache=False, jobs=1, include_tests=include_tests)


def test_each_file_gets_its_scope_with_a_reason() -> None:
    scopes = {p: s.scope for p, s in _analysis().index.scopes.items()}
    assert scopes == {
        "tests/conftest.py": "test", "tests/test_rollout.py": "test",
        "docs/conf.py": "docs", "docs/examples/quickstart.py": "docs",
        "benchmarks/bench_generate.py": "bench",
        "third_party/megatron/__init__.py": "vendored", "third_party/megatron/core/__init__.py": "vendored",
        "third_party/megatron/core/optimizer.py": "vendored",
        "_vendor/fastkv/__init__.py": "vendored", "_vendor/fastkv/store.py": "vendored",
    }
    reason = _analysis().index.scopes["third_party/megatron/core/optimizer.py"].reason
    assert "license" in reason and "third-party folder" in reason


def test_out_of_scope_functions_take_no_side_product_keeps_its_own() -> None:
    sides = {q: f.side.value for q, f in _analysis().functions.items()}
    for q in ("tests.test_rollout.test_sample_group", "benchmarks.bench_generate.time_generate",
              "docs.examples.quickstart.demo", "megatron.core.optimizer.DistributedOptimizer.step"):
        assert sides[q] == "neutral", q
    assert sides["egret.rollout.sample_group"] == "sampling"
    assert sides["egret.third_party.patches.patched_generate"] == "sampling"
    assert sides["egret.train.policy_update"] == "training"
    assert sides["egret.train.main"] == "driver"


def test_no_entry_point_counter_or_map_node_outside_the_product() -> None:
    a = _analysis()
    assert [(e.found_by, e.file) for e in a.entry_points] == [("main-guard", "egret/train.py")]
    uses = [u.file for us in logged_counters(a.index).found.values() for u in us]
    assert uses and all(f.startswith("egret/") for f in uses)
    assert all(not e.file.startswith(("tests/", "benchmarks/", "docs/", "third_party/"))
               for e in a.topology.code_evidence)
    members = {m for n in build_map(a).nodes for m in n.members}
    assert members and not {m for m in members if m.startswith(("tests.", "benchmarks.", "docs.", "megatron."))}


def test_include_tests_brings_tests_back_and_only_tests() -> None:
    a = _analysis(include_tests=True)
    assert a.functions["tests.test_rollout.test_sample_group"].side.value == "sampling"
    assert ("main-guard", "tests/test_rollout.py") in [(e.found_by, e.file) for e in a.entry_points]
    assert a.functions["benchmarks.bench_generate.time_generate"].side.value == "neutral"
    assert a.functions["megatron.core.optimizer.DistributedOptimizer.step"].side.value == "neutral"


def test_include_tests_from_pyproject_and_from_the_command_line(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FIX, repo)
    env = {"GYRELINT_CACHE_DIR": str(tmp_path / "cache")}
    off = CliRunner().invoke(cli, ["analyze", str(repo), "--format", "json"], env=env)
    on = CliRunner().invoke(cli, ["analyze", str(repo), "--format", "json", "--include-tests"], env=env)
    assert off.exit_code == on.exit_code == 0, off.output + on.output
    assert json.loads(off.stdout)["ignored"]["test"] == 2
    assert json.loads(on.stdout)["ignored"]["test"] == 0
    with (repo / "pyproject.toml").open("a") as f:
        f.write("\n[tool.gyrelint]\ninclude-tests = true\n")
    a = analyze(repo, cache_dir=tmp_path / "cache", jobs=1)  # settings read from the repo
    assert a.index.include_tests
    assert a.functions["tests.test_rollout.test_sample_group"].side.value == "sampling"


def test_json_shows_scope_only_where_not_product_and_text_gives_the_count() -> None:
    a = _analysis()
    report = to_report(a)
    jsonschema.validate(report, report_schema())
    mods = {m["module"]: m for m in report["modules"]}
    assert mods["tests.test_rollout"]["scope"] == "test"
    assert mods["megatron.core.optimizer"]["scope"] == "vendored"
    assert "scope" not in mods["egret.train"]
    reasons = report["ignored"].pop("vendored_reasons")
    assert report["ignored"] == {"test": 2, "docs": 2, "bench": 1, "vendored": 5, "include_tests": False,
                                 "vendored_trees": ["_vendor/fastkv", "third_party/megatron"]}
    assert list(reasons) == ["_vendor/fastkv", "third_party/megatron"]
    assert "license" in reasons["third_party/megatron"]
    assert ("ignored: 2 test modules, 2 docs modules, 1 benchmark module, 2 vendored trees (5 modules) "
            "(--include-tests to include tests)") in render_text(a)


def test_a_test_named_file_without_test_code_stays_product() -> None:
    a = _analysis()
    assert "egret/test_utils.py" not in a.index.scopes
    assert "plugins/egret-tools/egret_tools/score.py" not in a.index.scopes
    assert "egret/third_party/patches.py" not in a.index.scopes


def test_include_tests_must_be_a_boolean(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pyproject.toml").write_text('[tool.gyrelint]\ninclude-tests = "yes"\n')
    res = CliRunner().invoke(cli, ["analyze", str(repo)], env={"GYRELINT_CACHE_DIR": str(tmp_path / "cache")})
    assert res.exit_code == 2
    assert "include-tests" in res.output and "true or false" in res.output
    assert "Traceback" not in res.output


def test_an_unpacked_wheel_of_a_known_library_is_the_project_not_a_copy(tmp_path: Path) -> None:
    # the analyzed tree is the library itself (its own wheel metadata says so), so its top
    # package carrying a well-known library's name is no sign of a copy
    repo = tmp_path / "repo"
    for rel, text in {"vllm-0.9.dist-info/METADATA": "Metadata-Version: 2.1\nName: vllm\n",
                      "vllm/LICENSE": "a license text of its own\n", "vllm/__init__.py": "",
                      "vllm/engine.py": "def step():\n    pass\n"}.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    a = analyze(repo, use_cache=False, jobs=1, run_rules=False)
    assert a.index.scopes == {}

"""One scope decision (issue 17 follow-up): sides, handoff modules, GYR008 and the text report ask
the index (``index.scope``, by content) whether a module is product, never its name. A product
package named ``testing/`` or a ``test_utils.py`` helper is product; a test module under an
``integration_tests/`` folder, whatever its own name, is not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gyrelint.api import analyze
from gyrelint.render.text import render_text
from gyrelint.semantics.facts import Facts

FIXTURE = Path(__file__).parent / "fixtures" / "rules_timeout_values"


@pytest.fixture(scope="module")
def analysis(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("scope") / "rlx_repo"
    shutil.copytree(FIXTURE, root)
    (root / "rlx" / "testing").mkdir()
    (root / "rlx" / "testing" / "__init__.py").write_text("", encoding="utf-8")
    (root / "integration_tests").mkdir()
    client = (root / "rlx" / "rollout.py").read_text(encoding="utf-8")
    weights = (root / "rlx" / "weights.py").read_text(encoding="utf-8")
    # product code whose names say "test"
    (root / "rlx" / "test_utils.py").write_text(client, encoding="utf-8")
    (root / "rlx" / "testing" / "client.py").write_text(client, encoding="utf-8")
    (root / "rlx" / "testing" / "weights.py").write_text(weights, encoding="utf-8")
    # test code whose names do not
    (root / "integration_tests" / "client_check.py").write_text(
        (root / "tests" / "test_client.py").read_text(encoding="utf-8"), encoding="utf-8")
    (root / "integration_tests" / "weights_double.py").write_text(weights, encoding="utf-8")
    return analyze(root, use_cache=False, cache_dir=tmp_path_factory.mktemp("cache"))


def test_the_index_scopes_by_folder_and_content_not_by_name(analysis):
    index = analysis.index
    assert index.out_of_scope("integration_tests/client_check.py")
    assert not index.out_of_scope("rlx/test_utils.py") and not index.out_of_scope("rlx/testing/client.py")


def test_gyr008_judges_product_waits_by_scope(analysis):
    files = {f.file for f in analysis.findings if f.rule == "GYR008"}
    # before: the name guess skipped both product clients and reported the test folder's client
    assert {"rlx/test_utils.py", "rlx/testing/client.py", "rlx/rollout.py"} <= files
    assert not any(f.startswith(("integration_tests/", "tests/")) for f in files)


def test_boundary_modules_and_sides_follow_the_scope(analysis):
    assert "rlx.testing.weights" in analysis.boundary_modules  # before: dropped as a "test" module
    assert not any(m.startswith("integration_tests") for m in analysis.boundary_modules)
    assert analysis.functions["rlx.testing.weights.init_weight_update_group"].handoff_kind is not None
    assert analysis.functions["integration_tests.weights_double.init_weight_update_group"].handoff_kind is None


def test_the_text_report_does_not_push_a_product_module_down_for_its_name(analysis):
    lines = [ln.strip() for ln in render_text(analysis).splitlines()]
    product_testing = lines.index(next(ln for ln in lines if ln.startswith("rlx.testing.weights.init_weight_update_group")))
    plain = lines.index(next(ln for ln in lines if ln.startswith("rlx.weights.init_weight_update_group")))
    assert product_testing < plain  # same rank, so by name; before: listed last as a "test"


def test_facts_without_an_index_fall_back_to_the_name_and_with_one_ask_it():
    assert Facts().out_of_scope("pkg.tests.helpers")  # built by hand: the name guess stands in
    scoped = Facts(outside=frozenset({"integration_tests.client_check"}))
    assert not scoped.out_of_scope("pkg.tests.helpers")
    assert scoped.out_of_scope("integration_tests.client_check")

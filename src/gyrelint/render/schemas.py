"""JSON Schemas (draft 2020-12) of the two machine documents, printed by ``gyrelint schema``.

CI scripts validate what they consume against these; the tests validate the renderers'
output against them, so a renderer cannot drift from its published shape. Objects accept
extra properties: the contract is that fields are added, never renamed or dropped.
"""

from __future__ import annotations

from typing import Any

from ..model import COUNTERS
from .findings_json import SCHEMA as FINDINGS_ID
from .json_report import SCHEMA as REPORT_ID

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE = "https://github.com/gyrelint/gyrelint/schemas/"

_STR = {"type": "string"}
_INT = {"type": "integer", "minimum": 0}
_LINE = {"type": "integer", "minimum": 0, "description": "1-based line; 0 when the item has no line"}
_OPT_STR = {"type": ["string", "null"]}
# topology key classes and the reasons a key is not listed by default (``topology.scope.SCOPES``)
_KEY_CLASSES = ("process", "port", "comm", "layout")
_KEY_SCOPES = ("tests", "docs", "ci", "container", "vendored", "tools", "hardware-tuning", "unloaded-config")
_SEVERITY = {"enum": ["error", "warning", "info"]}
_SIDE = {"enum": ["sampling", "training", "handoff", "driver", "neutral"]}
_SCOPE = {"enum": ["test", "docs", "bench", "vendored"],
          "description": "present only for a module that is not product code"}


def _obj(props: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props) if required is None else required,
            **extra}


def _arr(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


_PATH = {"type": "string", "description": "the file as it opens from the folder gyrelint ran in (equal to "
          "`file` under --root-relative); display only: match on `file` and `fingerprint`"}
_LOCATION = _obj({"file": _STR, "path": _PATH, "line": _LINE, "note": _STR}, required=["file", "line", "note"])
_FINDING_CORE = {
    "rule": {"type": "string", "pattern": "^GYR[0-9]{3}$"},
    "severity": _SEVERITY,
    "message": _STR,
    "file": {"type": "string", "description": "path relative to the analyzed root"},
    "line": {"type": "integer", "minimum": 1},
    "fix": {"type": "string", "description": "what to do, one line"},
    "evidence": _arr({"$ref": "#/$defs/location"}),
    "fingerprint": {"type": "string", "description": "stable across edits that only move lines"},
}


def findings_schema() -> dict[str, Any]:
    """The document of ``gyrelint check --format json``."""
    finding = _obj({**_FINDING_CORE, "path": _PATH, "column": {"type": "integer", "minimum": 1,
                                                 "description": "1-based; 1 when the rule points at a whole line"},
                    "message": {"type": "string", "description": "one line; control and bidi characters quoted "
                                "from the repo are written as escapes (\\x1b, \\u202e)"}})
    summary = _obj({
        "findings": _INT,
        "by_severity": _obj({"error": _INT, "warning": _INT, "info": _INT}),
        "by_rule": {"type": "object", "additionalProperties": _INT},
        "baselined": {**_INT, "description": "findings hidden because the baseline holds them"},
        "fail_on": _SEVERITY,
        "failed": {"type": "boolean", "description": "a finding is at or above fail_on (exit code 1)"},
        "files": _INT,
        "skipped_files": {**_INT, "description": "files that could not be read or parsed"},
        "seconds": {"type": "number", "minimum": 0},
    })
    return {
        "$schema": DRAFT,
        "$id": BASE + "findings-1.json",
        "title": "gyrelint findings",
        "description": "Output of `gyrelint check --format json`: the findings after the baseline, and a summary.",
        "type": "object",
        "properties": {
            "schema": {"const": FINDINGS_ID},
            "tool": _obj({"name": {"const": "gyrelint"}, "version": _STR}),
            "root": _STR,
            "findings": _arr({"$ref": "#/$defs/finding"}),
            "summary": summary,
        },
        "required": ["schema", "tool", "root", "findings", "summary"],
        "$defs": {"finding": finding, "location": {**_LOCATION, "required": ["file", "path", "line", "note"]}},
    }


def report_schema() -> dict[str, Any]:
    """The ``gyrelint/1`` report of ``gyrelint analyze --format json`` (see DESIGN.md)."""
    entry = _obj({
        "module": _OPT_STR, "file": _OPT_STR,
        "found_by": {"type": "string", "description": "readme, script, pyproject, setup, main-guard, hydra, config..."},
        "source": _STR, "line": _LINE, "command": _STR, "function": _OPT_STR, "exists": {"type": "boolean"},
    }, required=["module", "file", "found_by"])
    evidence = _obj({"signal": _STR, "file": _STR, "line": _LINE,
                     "via": {"type": "string", "pattern": "^(own|[a-z]+:.+)$",
                             "description": "own (the function's body), or kind:detail: callee:/caller: <qualname> "
                                            "(the side came along that call), sibling: <qualname> (an implementation "
                                            "of the same interface), registry: <qualname> (a registry's other "
                                            "entries), chain:/store:/client:/handler: <qualname>, route: <path>, "
                                            "copy: <attribute> -> <attribute>, offline: <entry modules> (reached "
                                            "only from offline scripts)"}})
    function = _obj({
        "qualname": _STR, "file": _STR, "line": _LINE, "side": _SIDE,
        "handoff_kind": {"enum": ["trajectory", "weight_sync", None]},
        "reached": {"type": "boolean"}, "evidence": _arr(evidence),
    })
    use = _obj({"file": _STR, "line": _LINE, "function": _STR})
    code = _obj({"signal": _STR, "file": _STR, "line": _LINE, "detail": _STR}, required=["signal", "file", "line"])
    handoff = _obj({
        "trajectory": _arr(_STR), "weight_sync": _arr(_STR), "online": {"type": "boolean"},
        "weight_sync_path": _arr(_STR),
        "fields": _obj({"produced": _arr(_STR), "consumed": _arr(_STR), "missing": _arr(_STR),
                        "missing_locations": {"type": "object", "additionalProperties": _arr(use)}},
                       required=["produced", "consumed", "missing"]),
    }, required=["trajectory", "weight_sync", "online", "weight_sync_path", "fields"])
    topology = _obj({
        "verdict": {"enum": ["cross-process", "same-process", "unknown"]},
        "reasons": _arr(_STR), "colocated": {"type": "boolean"},
        "config_keys": _arr(_obj({"key": _STR, "class": {"enum": list(_KEY_CLASSES)}, "value": _OPT_STR,
                                  "file": _STR, "line": _LINE, "reason": _STR, "source": _STR},
                                 required=["key", "class", "value", "file", "line"])),
        "code_evidence": _arr(code), "trajectory_transport": _STR, "weight_transport": _STR,
        "link_checks": _arr(code),
        # one entry per config knob (listed ones first; ``scope`` says why the others are not listed)
        "keys": _arr(_obj({
            "name": _STR, "class": {"enum": list(_KEY_CLASSES)}, "value": _OPT_STR, "default": _OPT_STR,
            "type": _OPT_STR, "file": _STR, "line": _LINE, "declared_as": _STR, "definition": {"type": "boolean"},
            "evidence": _STR, "why": _STR, "uses": {"type": "integer", "minimum": 0},
            "where": _arr(_obj({"file": _STR, "line": _LINE, "note": _STR}, required=["file", "line"])),
            "scope": {"enum": ["", *_KEY_SCOPES]}, "aliases": _arr(_STR),
        }, required=["name", "class", "value", "default", "file", "line", "evidence", "uses", "scope"])),
        "folded": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
    }, required=["verdict", "config_keys", "code_evidence", "trajectory_transport", "weight_transport"])
    finding = _obj(_FINDING_CORE, required=["rule", "severity", "message", "file", "line"])
    counter_uses = _arr(_obj({"key": {"type": "string", "description": "the metric key, log text or probe call"},
                              "file": _STR, "line": _LINE}))
    counters = _obj({**{name: counter_uses for name in COUNTERS},
                     "missing": _arr({"enum": list(COUNTERS)})},
                    description="Where the code logs each run counter (sampled, consumed, step, policy_version): "
                                "what lets `gyrelint logcheck` verify a run; `missing` lists those logged nowhere.")
    return {
        "$schema": DRAFT,
        "$id": BASE + "report-1.json",
        "title": "gyrelint report",
        "description": "Output of `gyrelint analyze --format json`. Fields are only ever added; a change of "
                       "shape bumps `schema`.",
        "type": "object",
        "properties": {
            "schema": {"const": REPORT_ID},
            "root": _STR,
            "entry_points": _arr(entry),
            "functions": _arr(function),
            "modules": _arr(_obj({"module": _STR, "side": _SIDE, "boundary": {"type": "boolean"},
                                  "scope": _SCOPE, "scope_reason": _STR},
                                 required=["module", "side", "boundary"])),
            "ignored": _obj({"test": _INT, "docs": _INT, "bench": _INT, "vendored": _INT,
                             "include_tests": {"type": "boolean"}, "vendored_trees": _arr(_STR),
                             "vendored_reasons": {"type": "object", "additionalProperties": _STR,
                                                  "description": "vendored tree folder -> the signals that "
                                                                 "say it is a copy of another library"}},
                            required=["test", "docs", "bench", "vendored", "include_tests", "vendored_trees"],
                            description="modules indexed for name resolution only: they take no side, are no "
                                        "entry point, counter location or map node"),
            "reach_roots": {"enum": ["entry-points", "public-api"],
                            "description": "what `reached` starts from: the entry points, or the package's public "
                                           "API when no entry point reaches the RL loop (a library without a "
                                           "launcher)"},
            "boundary_modules": _arr(_STR),
            "handoff": handoff,
            "topology": topology,
            "findings": _arr(finding),
            "counters": counters,
            "diagnostics": _arr(_obj({"file": _STR, "line": _LINE, "message": _STR, "kind": _STR})),
            "stats": _obj({"files": _INT, "parsed": _INT, "cached": _INT, "functions": _INT,
                           "seconds": {"type": "number", "minimum": 0}}),
        },
        "required": ["schema", "root", "entry_points", "functions", "modules", "boundary_modules", "handoff",
                     "topology", "findings", "stats"],
        "$defs": {"location": _LOCATION},
    }


SCHEMAS = {"findings": findings_schema, "report": report_schema}

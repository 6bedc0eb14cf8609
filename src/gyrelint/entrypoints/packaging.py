"""Console scripts declared by the package metadata: pyproject ``[project.scripts]``,
setup.py ``entry_points={"console_scripts": [...]}`` and setup.cfg ``[options.entry_points]``.

setup.py is read as a syntax tree (``ast``) and never executed: only literal values
(and names bound to literals at module level) count.
"""

from __future__ import annotations

import ast
import configparser
import re
import sys
from dataclasses import dataclass

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ..model import Diagnostic

_SPEC = re.compile(r"^\s*([A-Za-z0-9_][\w.-]*)\s*=\s*([A-Za-z_][\w.]*)\s*(?::\s*([A-Za-z_][\w.]*))?\s*(\[.*\])?\s*$")
SCRIPT_GROUPS = ("console_scripts", "gui_scripts")


@dataclass(frozen=True, slots=True)
class Script:
    """``name = pkg.mod:func`` from one of the metadata files."""

    name: str
    module: str
    attr: str | None
    source: str
    line: int
    found_by: str  # "pyproject" | "setup"

    @property
    def text(self) -> str:
        return f"{self.name} = {self.module}:{self.attr}" if self.attr else f"{self.name} = {self.module}"


def _line_of(text: str, needle: str, default: int = 0) -> int:
    pos = text.find(needle)
    return text.count("\n", 0, pos) + 1 if pos >= 0 else default


def parse_spec(spec: str) -> tuple[str, str | None] | None:
    """``pkg.mod:func`` -> (module, attr)."""
    m = _SPEC.match(f"x = {spec}")
    return (m.group(2), m.group(3)) if m else None


def pyproject_scripts(text: str, source: str = "pyproject.toml") -> tuple[list[Script], list[Diagnostic]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return [], [Diagnostic(source, getattr(exc, "lineno", 0) or 0, f"invalid TOML ({exc}); its scripts are not read", "entry")]
    tables: list[dict] = []
    project = data.get("project", {})
    if isinstance(project, dict):
        for key in ("scripts", "gui-scripts"):
            tables.append(project.get(key, {}))
        eps = project.get("entry-points", {})
        if isinstance(eps, dict):
            for group in SCRIPT_GROUPS:
                tables.append(eps.get(group, {}))
    tool = data.get("tool", {})
    if isinstance(tool, dict) and isinstance(tool.get("poetry"), dict):
        tables.append(tool["poetry"].get("scripts", {}))
    out: list[Script] = []
    for table in tables:
        if not isinstance(table, dict):
            continue
        for name, spec in table.items():
            if isinstance(spec, dict):  # poetry: {reference = "...", type = "file"} etc.
                spec = spec.get("callable") or spec.get("reference")
            if not isinstance(spec, str):
                continue
            parsed = parse_spec(spec)
            if parsed:
                out.append(Script(str(name), parsed[0], parsed[1], source, _line_of(text, spec), "pyproject"))
    return out, []


def setup_py_scripts(text: str, source: str = "setup.py") -> tuple[list[Script], list[Diagnostic]]:
    """console_scripts from ``setup(entry_points=...)`` literals, without running setup.py."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError) as exc:
        return [], [Diagnostic(source, getattr(exc, "lineno", 0) or 0, "cannot parse; its console_scripts are not read", "entry")]
    names: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            names[node.targets[0].id] = node.value
    out: list[Script] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            if kw.arg == "entry_points":
                out += _entry_points_value(kw.value, names, text, source)
    return out, []


def _entry_points_value(value: ast.expr, names: dict[str, ast.expr], text: str, source: str) -> list[Script]:
    if isinstance(value, ast.Name) and value.id in names:
        value = names[value.id]
    out: list[Script] = []
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return _ini_scripts(value.value, text, source, "setup", value.lineno)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
        pairs = [(ast.Constant(kw.arg), kw.value) for kw in value.keywords if kw.arg]
    elif isinstance(value, ast.Dict):
        pairs = [(k, v) for k, v in zip(value.keys, value.values, strict=True) if k is not None]
    else:
        return out
    for key, val in pairs:
        if not (isinstance(key, ast.Constant) and key.value in SCRIPT_GROUPS):
            continue
        if isinstance(val, ast.Name) and val.id in names:
            val = names[val.id]
        items = val.elts if isinstance(val, (ast.List, ast.Tuple, ast.Set)) else [val]
        for item in items:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                for ln in item.value.splitlines() or [item.value]:
                    m = _SPEC.match(ln)
                    if m:
                        out.append(Script(m.group(1), m.group(2), m.group(3), source, item.lineno, "setup"))
    return out


def _ini_scripts(body: str, text: str, source: str, found_by: str, base_line: int = 0) -> list[Script]:
    out: list[Script] = []
    group = ""
    for ln in body.splitlines():
        s = ln.strip()
        if s.startswith("[") and s.endswith("]"):
            group = s[1:-1].strip()
            continue
        if group in SCRIPT_GROUPS:
            m = _SPEC.match(s)
            if m:
                out.append(Script(m.group(1), m.group(2), m.group(3), source, _line_of(text, s, base_line), found_by))
    return out


def setup_cfg_scripts(text: str, source: str = "setup.cfg") -> tuple[list[Script], list[Diagnostic]]:
    parser = configparser.RawConfigParser()
    try:
        parser.read_string(text)
    except configparser.Error as exc:
        return [], [Diagnostic(source, getattr(exc, "lineno", 0) or 0, "invalid INI; its console_scripts are not read", "entry")]
    out: list[Script] = []
    if parser.has_section("options.entry_points"):
        for group in SCRIPT_GROUPS:
            if parser.has_option("options.entry_points", group):
                for ln in parser.get("options.entry_points", group).splitlines():
                    m = _SPEC.match(ln)
                    if m:
                        out.append(Script(m.group(1), m.group(2), m.group(3), source, _line_of(text, ln.strip()), "setup"))
    return out, []


def entry_points_txt_scripts(text: str, source: str = "entry_points.txt") -> tuple[list[Script], list[Diagnostic]]:
    """An installed distribution's ``*.dist-info/entry_points.txt`` (what a wheel declares)."""
    return _ini_scripts(text, text, source, "setup"), []

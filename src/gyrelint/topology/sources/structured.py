"""TOML, JSON, INI/CFG and ``.env`` files flattened into dotted keys with lines.

The standard parsers give no positions, so lines come from a light scan of the text
for the key in document order; a key that cannot be placed gets its table's line.
"""

from __future__ import annotations

import configparser
import json
import re
import sys

from ...model import Diagnostic
from . import RawKey, value_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_MAX_KEYS = 20_000
_TOML_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_TOML_KEY = re.compile(r"""^\s*((?:"[^"]*"|'[^']*'|[A-Za-z0-9_\-.]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_\-]+))*)\s*=""")
_ENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$")


def _flatten(data: object, prefix: str, out: list[tuple[str, str | None]]) -> None:
    if len(out) >= _MAX_KEYS:
        return
    if isinstance(data, dict):
        for k, v in data.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, (dict, list)) and v and not _scalars(v):
                if isinstance(v, list):
                    out.append((key, None))
                _flatten(v, key, out)
            else:
                out.append((key, value_text(v)))
    elif isinstance(data, list):
        for i, v in enumerate(data[:1000]):
            if isinstance(v, (dict, list)):
                _flatten(v, f"{prefix}.{i}" if prefix else str(i), out)


def _scalars(v: object) -> bool:
    return isinstance(v, list) and all(isinstance(x, (str, int, float, bool)) for x in v)


def _norm_toml_key(text: str) -> str:
    parts = re.findall(r'"([^"]*)"|\'([^\']*)\'|([^.\s]+)', text)
    return ".".join(a or b or c for a, b, c in parts)


def read_toml(path: str, text: str, diags: list[Diagnostic]) -> list[RawKey]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", 0) or _line_in_message(str(exc))
        diags.append(Diagnostic(path, line, f"malformed TOML ({str(exc).split(' (at')[0]}); file skipped, fix it", "parse"))
        return []
    lines: dict[str, int] = {}
    table = ""
    for no, raw in enumerate(text.splitlines(), 1):
        m = _TOML_HEADER.match(raw)
        if m and "=" not in raw.split("]")[0]:
            table = _norm_toml_key(m.group(1))
            lines.setdefault(table, no)
            continue
        m = _TOML_KEY.match(raw)
        if m:
            key = _norm_toml_key(m.group(1))
            lines.setdefault(f"{table}.{key}" if table else key, no)
    flat: list[tuple[str, str | None]] = []
    _flatten(data, "", flat)
    out = []
    for key, value in flat:
        line = lines.get(key)
        probe = key
        while line is None and "." in probe:
            probe = probe.rsplit(".", 1)[0]
            line = lines.get(probe)
        out.append(RawKey(key, value, path, line or 1, "toml"))
    return out


def _line_in_message(msg: str) -> int:
    m = re.search(r"line (\d+)", msg)
    return int(m.group(1)) if m else 0


def read_json(path: str, text: str, diags: list[Diagnostic]) -> list[RawKey]:
    dups: list[str] = []

    def pairs(items: list[tuple[str, object]]) -> dict:
        seen: dict[str, object] = {}
        for k, v in items:
            if k in seen:
                dups.append(k)
            seen[k] = v
        return seen

    try:
        data = json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        diags.append(Diagnostic(path, exc.lineno, f"malformed JSON ({exc.msg}); file skipped, fix it", "parse"))
        return []
    except RecursionError:
        diags.append(Diagnostic(path, 0, "JSON nested too deep; file skipped", "parse"))
        return []
    for k in dict.fromkeys(dups):
        m = re.search(r'"' + re.escape(k) + r'"\s*:', text)
        first = text.count("\n", 0, m.start()) + 1 if m else 0
        diags.append(Diagnostic(path, first, f"duplicate key '{k}'; JSON keeps the last one, remove one of them", "config"))
    flat: list[tuple[str, str | None]] = []
    _flatten(data, "", flat)
    out = []
    pos = 0
    for key, value in flat:
        leaf = key.rsplit(".", 1)[-1]
        m = re.compile(r'"' + re.escape(leaf) + r'"\s*:').search(text, pos)
        if m:
            pos = m.end()
            line = text.count("\n", 0, m.start()) + 1
        else:
            line = text.count("\n", 0, pos) + 1
        out.append(RawKey(key, value, path, line, "json"))
    return out


def read_ini(path: str, text: str, diags: list[Diagnostic]) -> list[RawKey]:
    parser = configparser.ConfigParser(strict=True, interpolation=None)
    try:
        parser.read_string(text, source=path)
    except configparser.MissingSectionHeaderError:
        return read_env(path, text, diags)  # a sectionless file of KEY=VALUE lines
    except (configparser.DuplicateOptionError, configparser.DuplicateSectionError) as exc:
        line = getattr(exc, "lineno", 0) or 0
        diags.append(Diagnostic(path, line, f"duplicate {'section' if isinstance(exc, configparser.DuplicateSectionError) else 'key'} "
                                f"'{getattr(exc, 'option', None) or exc.section}'; remove one of them", "config"))
        parser = configparser.ConfigParser(strict=False, interpolation=None)
        try:
            parser.read_string(text, source=path)
        except configparser.Error:
            return []
    except configparser.Error as exc:
        diags.append(Diagnostic(path, getattr(exc, "lineno", 0) or 0, f"malformed INI ({str(exc).splitlines()[0][:100]}); file skipped", "parse"))
        return []
    lines: dict[str, int] = {}
    section = ""
    for no, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if s.startswith("[") and s.endswith("]"):
            section = s[1:-1].strip()
        elif s and s[0] not in "#;" and ("=" in s or ":" in s):
            name = re.split(r"[=:]", s, maxsplit=1)[0].strip().lower()
            lines.setdefault(f"{section}.{name}", no)
    out = []
    for section_name in parser.sections():
        for name, value in parser.items(section_name, raw=True):
            key = f"{section_name}.{name}"
            out.append(RawKey(key, value_text(value.strip()) if value is not None else None, path, lines.get(key, 1), "ini"))
    return out


def read_env(path: str, text: str, diags: list[Diagnostic]) -> list[RawKey]:
    out = []
    for no, raw in enumerate(text.splitlines(), 1):
        if raw.lstrip().startswith("#"):
            continue
        m = _ENV_LINE.match(raw)
        if m:
            value = m.group(2).split(" #", 1)[0].strip().strip("'\"")
            out.append(RawKey(m.group(1), value or None, path, no, "env"))
    return out

"""Checking one ``[tool.gyrelint]`` table, key by key, into the typed fields of ``Settings``.

The table usually comes from the analyzed repository, which is untrusted: every key is
known, every value has the right type (``true`` is not a number), numbers are finite and in
range, lists and strings are bounded, regexes compile. The first problem raises one
``SettingsError`` line naming the file and the key; anything taken from the file is escaped
(``show``/``term``) so no control character or ANSI escape reaches a terminal or a CI log.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from .. import escape
from ..model import COUNTER_ALIASES as ALIASES
from ..model import COUNTER_MODES as MODES
from ..model import COUNTERS
from .model import CounterPattern, RuleSetting, SettingsError, SignalSpec, Thresholds, TopologySettings

MAX_ITEMS = 10_000  # entries in one list (globs, entry points, codes)
MAX_SIGNALS = 1_000  # each one is tried on every call site
MAX_TEXT = 4_096  # characters in one string
MAX_PATTERN = 1_000  # characters in one counter regex
MAX_FILE_SIZE_LIMIT = 64 * 1024 * 1024  # the parse of one file must stay bounded
MAX_TIMEOUT = 10_000_000.0  # seconds (about 4 months)
MAX_RETRIES = 1_000_000
MAX_WEIGHT = 10.0  # built-in signals weigh 0 to 3

SEVERITIES = ("error", "warning", "info", "off")
SIDES = ("sampling", "training", "handoff", "neutral", "trajectory", "weight_sync")
HANDOFF_KINDS = ("trajectory", "weight_sync")
_SIGNAL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_CALL_GLOB = re.compile(r"[\w.*?\[\]!-]{1,256}")
_METHOD = re.compile(r"[A-Za-z_]\w{0,127}")
_BARE_KEY = re.compile(r"[A-Za-z0-9_.\[\]-]{1,80}")


# -- terminal-safe text --------------------------------------------------------------------------

def term(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters, every hidden character (controls, ESC, bidi
    overrides, lone surrogates) written as an escape: the shared rule of ``gyrelint.escape``."""
    return escape.term(text if len(text) <= limit else text[:limit] + "…")


def show(value: object) -> str:
    """A value read from TOML as the user would recognise it, safe to print."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value if len(value) <= 80 else value[:80] + "…")
    if isinstance(value, int) and value.bit_length() > 128:
        return "a very large integer"  # repr() itself refuses past 4,300 digits
    if isinstance(value, (int, float)):
        text = repr(value)
        return text if len(text) <= 40 else text[:40] + "…"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return f"a list of {len(value)}" if value else "an empty list"
    return f"a TOML {type(value).__name__}"  # dates and times


def key_name(key: object) -> str:
    text = str(key)
    return text if _BARE_KEY.fullmatch(text) else repr(text[:64])


@dataclass(frozen=True)
class Where:
    """A position in a settings file: the file's label and the table (``tool.gyrelint.rules``)."""

    file: str
    table: str = "tool.gyrelint"
    # the rule ids this run knows (the rules stage's registry, handed down by the API, so the
    # settings layer never imports a later stage); None: ids are checked for their form only
    rule_ids: frozenset[str] | None = None

    def sub(self, name: str) -> Where:
        return replace(self, table=f"{self.table}.{name}" if self.table else name)

    def fail(self, key: str, problem: str, fix: str = "fix or remove the key") -> SettingsError:
        """The error to raise: ``FILE: [TABLE] KEY: PROBLEM; FIX`` on one line (``problem`` is
        built with ``show``/``term``, ``key`` is escaped here)."""
        head = f"[{self.table}] " if self.table else ""
        return SettingsError(f"{term(self.file)}: {head}{key_name(key)}: {problem}; {fix}")


def did_you_mean(name: str, known: tuple[str, ...] | list[str]) -> str:
    import difflib  # only on the way to an error

    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


# -- scalar checks -------------------------------------------------------------------------------

def _text(value: object, where: Where, key: str, what: str = "a string", limit: int = MAX_TEXT,
          allowed: str = "") -> str:
    """A non-empty, bounded string of printable characters (plus those in ``allowed``): names and
    paths from settings end up in reports, so an ESC or a bidi override is refused here."""
    if not isinstance(value, str):
        raise where.fail(key, f"expected {what}, got {show(value)}")
    if not value:
        raise where.fail(key, f"expected {what}, got an empty string")
    if len(value) > limit:
        raise where.fail(key, f"longer than {limit} characters ({len(value)})", "shorten it")
    bad = next((c for c in value if not c.isprintable() and c not in allowed), None)
    if bad is not None:
        raise where.fail(key, f"contains the invisible or control character U+{ord(bad):04X}", "remove it")
    return value


def _texts(value: object, where: Where, key: str, what: str = "a string or a list of strings",
           limit: int = MAX_ITEMS) -> tuple[str, ...]:
    """A string or a list of strings (a single string is a list of one)."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list):
        raise where.fail(key, f"expected {what}, got {show(value)}")
    if len(items) > limit:
        raise where.fail(key, f"more than {limit} entries ({len(items)})", "shorten the list")
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise where.fail(key, f"expected {what}, got {show(item)} at position {i + 1}")
        out.append(_text(item, where, key, what))
    return tuple(out)


def _boolean(value: object, where: Where, key: str) -> bool:
    if not isinstance(value, bool):
        raise where.fail(key, f"expected true or false, got {show(value)}")
    return value


def _integer(value: object, where: Where, key: str, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise where.fail(key, f"expected {what} up to {high}, got {show(value)}")
    return value


def _number(value: object, where: Where, key: str, low: float, high: float, what: str,
            low_open: bool = False) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        ok = (value > low if low_open else value >= low) and value <= high
    if not ok:
        raise where.fail(key, f"expected {what} up to {high:.0f}, finite, got {show(value)}")
    return float(value)  # type: ignore[arg-type]


def _table(value: object, where: Where, key: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise where.fail(key, f"expected a table, got {show(value)}", f"write it as [{where.sub(key).table}]")
    return value


# -- the keys ------------------------------------------------------------------------------------

def _max_file_size(value: object, where: Where, key: str) -> int:
    return _integer(value, where, key, 1, MAX_FILE_SIZE_LIMIT, "a positive integer (bytes)")


_RULE_CODE = re.compile(r"[A-Z][A-Z0-9]{0,15}")  # GYR008, a prefix (GYR00), a rule pack's ids


def _codes(value: object, where: Where, key: str) -> tuple[str, ...]:
    """``select``/``ignore``: rule ids or prefixes that name at least one rule."""
    codes = _texts(value, where, key, "a rule code or a list of them (GYR008, or a prefix such as GYR00)")
    known = where.rule_ids
    for code in codes:
        c = code.strip().upper()
        if not _RULE_CODE.fullmatch(c) or (known is not None and not any(r.startswith(c) for r in known)):
            raise where.fail(key, f"unknown rule code {show(code)}{did_you_mean(c, sorted(known or ()))}",
                             "use a rule id or prefix from `gyrelint check --list-rules`")
    return tuple(c.strip().upper() for c in codes)


def check_rules(table: dict[object, object], where: Where) -> tuple[RuleSetting, ...]:
    """``[tool.gyrelint.rules]`` (``where`` is that table): known rule id -> severity or ``off``; sorted by id."""
    known = where.rule_ids
    if len(table) > MAX_ITEMS:
        raise where.fail("rules", f"more than {MAX_ITEMS} entries", "shorten the table")
    out: dict[str, RuleSetting] = {}
    for rid, sev in table.items():
        rule = rid.strip().upper() if isinstance(rid, str) else ""
        if not _RULE_CODE.fullmatch(rule) or (known is not None and rule not in known):
            raise where.fail(str(rid), f"unknown rule id{did_you_mean(rule, sorted(known or ()))}",
                             "use an id from `gyrelint check --list-rules`")
        if rule in out:
            raise where.fail(str(rid), "given twice", "keep one")
        if not isinstance(sev, str) or sev.strip().lower() not in SEVERITIES:
            raise where.fail(rule, f"expected one of {', '.join(SEVERITIES)}, got {show(sev)}")
        out[rule] = RuleSetting(rule, sev.strip().lower())
    return tuple(out[r] for r in sorted(out))


def _rules(value: object, where: Where, key: str) -> tuple[RuleSetting, ...]:
    return check_rules(_table(value, where, key), where.sub(key))


def _topology(value: object, where: Where, key: str) -> TopologySettings:
    table = _table(value, where, key)
    inner = where.sub(key)
    known = tuple(name for name, _ in TopologySettings().items())
    out: dict[str, tuple[str, ...]] = {}
    for name, items in table.items():
        if name not in known:
            raise inner.fail(name, f"unknown key{did_you_mean(name, known)}", f"use one of {', '.join(known)}")
        out[name] = _texts(items, inner, name, "a config-key token or glob, or a list of them")
    return TopologySettings(**out)


def _counters(value: object, where: Where, key: str) -> tuple[CounterPattern, ...]:
    """``name = "regex"``, a list of them, or ``{pattern = "...", mode = "delta"}`` (or a list of those)."""
    table = _table(value, where, key)
    inner = where.sub(key)
    what = "a regex string, a list of them, or a table with pattern (and mode)"
    out: list[CounterPattern] = []
    for name, spec in table.items():
        norm = name.strip().lower().replace("-", "_")
        counter = ALIASES.get(norm, norm)
        if counter not in COUNTERS:
            raise inner.fail(name, f"unknown counter{did_you_mean(norm, COUNTERS)}", f"use one of {', '.join(COUNTERS)}")
        items = spec if isinstance(spec, list) else [spec]
        if not items or len(items) > MAX_ITEMS:
            raise inner.fail(name, f"expected {what}, got {show(spec)}")
        for item in items:
            mode = None
            if isinstance(item, dict):
                extra = sorted(set(item) - {"pattern", "mode"})
                if extra:
                    raise inner.fail(name, f"unknown key {key_name(extra[0])}{did_you_mean(extra[0], ('pattern', 'mode'))}",
                                     "use pattern and mode")
                if "pattern" not in item:
                    raise inner.fail(name, "a table needs pattern = \"regex\"", "add it")
                mode = item.get("mode")
                if mode is not None and mode not in MODES:
                    raise inner.fail(name, f"mode: expected one of {', '.join(MODES)}, got {show(mode)}")
                item = item["pattern"]
            pattern = _text(item, inner, name, what, MAX_PATTERN, allowed="\t")
            try:
                re.compile(pattern)
            except (re.error, RecursionError, OverflowError, ValueError) as exc:
                raise inner.fail(name, f"invalid regex {show(pattern)} ({term(str(exc), 80)})") from None
            out.append(CounterPattern(counter, pattern, mode))
    return tuple(out)


def _thresholds(value: object, where: Where, key: str) -> Thresholds:
    table = _table(value, where, key)
    inner = where.sub(key)
    out: dict[str, Any] = {}
    for name, v in table.items():
        if name == "timeout":
            out["timeout"] = _number(v, inner, name, 0.0, MAX_TIMEOUT, "a positive number of seconds", low_open=True)
        elif name == "retries":
            out["retries"] = _integer(v, inner, name, 1, MAX_RETRIES, "a positive integer")
        else:
            raise inner.fail(name, f"unknown key{did_you_mean(name, ('timeout', 'retries'))}", "use timeout or retries")
    return Thresholds(**out)


_SIGNAL_KEYS: dict[str, str] = {"id": "id", "side": "side", "kind": "kind", "handoff_kind": "kind",
                                "call": "calls", "calls": "calls", "method": "methods", "methods": "methods",
                                "weight": "weight", "rationale": "rationale"}


def _signal(entry: object, where: Where, n: int) -> SignalSpec:
    label = f"signals[{n}]"
    if not isinstance(entry, dict):
        raise where.fail(label, f"expected a table like {{id = \"my-engine\", side = \"sampling\", call = "
                                f"\"mylib.Engine.generate\"}}, got {show(entry)}")
    given: dict[str, object] = {}
    for k, v in entry.items():
        field = _SIGNAL_KEYS.get(k)
        if field is None:
            raise where.fail(label, f"unknown key {key_name(k)}{did_you_mean(k, tuple(_SIGNAL_KEYS))}",
                             f"use {', '.join(_SIGNAL_KEYS)}")
        if field in given:
            raise where.fail(label, f"{field} is given twice (as {key_name(k)} too)", "keep one spelling")
        given[field] = v
    sid = given.get("id", f"user-{n + 1}")
    if not isinstance(sid, str) or not _SIGNAL_ID.fullmatch(sid):
        raise where.fail(f"{label}.id", f"expected letters, digits, '-', '_' or '.' (at most 64), got {show(sid)}")
    side = given.get("side")
    if side not in SIDES:
        raise where.fail(f"{label}.side", f"expected one of {', '.join(SIDES)}, got {show(side)}")
    kind = given.get("kind")
    if kind is not None and kind not in HANDOFF_KINDS:
        raise where.fail(f"{label}.kind", f"expected trajectory or weight_sync, got {show(kind)}")
    if side in HANDOFF_KINDS:
        if kind is not None and kind != side:
            raise where.fail(f"{label}.kind", f"side {side} already says the kind, got {show(kind)}", "remove kind")
        side, kind = "handoff", side
    elif side == "handoff" and kind is None:
        raise where.fail(f"{label}.kind", "a handoff signal needs kind = \"trajectory\" or \"weight_sync\"", "add it")
    elif side != "handoff" and kind is not None:
        raise where.fail(f"{label}.kind", f"only a handoff signal has a kind, this one is {side}", "remove kind")
    calls = _texts(given.get("calls", []), where, f"{label}.call", "a dotted name glob or a list of them")
    for c in calls:
        if not _CALL_GLOB.fullmatch(c):
            raise where.fail(f"{label}.call", f"expected a dotted name glob such as mylib.Engine.generate, got {show(c)}")
    methods = _texts(given.get("methods", []), where, f"{label}.method", "a method name or a list of them")
    for m in methods:
        if not _METHOD.fullmatch(m):
            raise where.fail(f"{label}.method", f"expected a method name such as generate, got {show(m)}")
    if not calls and not methods:
        raise where.fail(label, "needs call = \"lib.Class.method\" (glob allowed) or method = \"name\"", "add one")
    weight = _number(given.get("weight", 3.0), where, f"{label}.weight", 0.0, MAX_WEIGHT, "a number from 0")
    rationale = _text(given.get("rationale", SignalSpec.rationale), where, f"{label}.rationale")
    return SignalSpec(id=sid, side=side, kind=kind, calls=calls, methods=methods, weight=weight, rationale=rationale)


def _signals(value: object, where: Where, key: str) -> tuple[SignalSpec, ...]:
    if not isinstance(value, list):
        raise where.fail(key, f"expected a list of tables, got {show(value)}",
                         "write signals = [{id = ..., side = ..., call = ...}]")
    if len(value) > MAX_SIGNALS:
        raise where.fail(key, f"more than {MAX_SIGNALS} signals ({len(value)})", "shorten the list")
    out = tuple(_signal(e, where, i) for i, e in enumerate(value))
    seen: set[str] = set()
    for i, s in enumerate(out):
        if s.id in seen:
            raise where.fail(f"signals[{i}].id", f"{show(s.id)} is used by an earlier signal", "give each signal its own id")
        seen.add(s.id)
    return out


def _paths(what: str) -> Callable[[object, Where, str], tuple[str, ...]]:
    return lambda value, where, key: _texts(value, where, key, what)


def _cache_dir(value: object, where: Where, key: str) -> str:
    return _text(value, where, key, "a folder path")


# key (as written, dashes) -> (Settings field, check)
KEYS: dict[str, tuple[str, Callable[[object, Where, str], Any]]] = {
    "exclude": ("exclude", _paths("a path glob or a list of them")),
    "respect-gitignore": ("respect_gitignore", _boolean),
    "include-tests": ("include_tests", _boolean),
    "entry-points": ("entry_points", _paths("an entry file or module, or a list of them")),
    "max-file-size": ("max_file_size", _max_file_size),
    "cache-dir": ("cache_dir", _cache_dir),
    "select": ("select", _codes),
    "ignore": ("ignore", _codes),
    "rules": ("rules", _rules),
    "topology": ("topology", _topology),
    "counters": ("counters", _counters),
    "signals": ("signals", _signals),
    "thresholds": ("thresholds", _thresholds),
}


def check_table(table: dict[str, Any], where: Where) -> dict[str, Any]:
    """The typed value of every key present, by ``Settings`` field name (``cache_dir`` stays the
    string as written: where it may point depends on who wrote it, see ``sources``).
    ``max_file_size`` and ``max-file-size`` are the same key; giving both is an error."""
    out: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for raw, value in table.items():
        key = raw.replace("_", "-")
        if key not in KEYS:
            raise where.fail(raw, f"unknown key{did_you_mean(key, tuple(KEYS))}", "remove it or fix its name")
        if key in spelled:
            raise where.fail(raw, f"given twice (as {key_name(spelled[key])} too)", "keep one")
        spelled[key] = raw
        field, check = KEYS[key]
        out[field] = check(value, where, raw)
    return out

"""Rule discovery: the ``gyrelint.rules`` entry-point group, built-ins included.

gyrelint's own rules are declared in its pyproject.toml like any rule pack's; when its
distribution metadata is missing or predates the group (a source tree on PYTHONPATH, a stale
editable install) the built-in list below stands in. Packs are code the *user* installed, so
they are trusted like any other plugin; a broken one is skipped with one stderr line and the
run goes on. Discovery runs once per process and only when a rule is needed, so ``--help``
never imports a pack.
"""

from __future__ import annotations

import hashlib
import importlib
import re
import sys
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..escape import term
from .base import Rule

GROUP = "gyrelint.rules"
OWN_DIST = "gyrelint"
# a prefix of capitals then digits (GYR008, RLX001): what select/ignore prefixes and inline
# ``# gyrelint: ignore[...]`` comments can name
RULE_ID = re.compile(r"[A-Z]{2,8}[0-9]{3,4}")
REQUIRED = ("name", "severity", "summary", "rationale", "fix")

BUILTIN_MODULES = (
    "gyr001_no_sampling_chain", "gyr002_no_training_chain", "gyr003_loop_not_online",
    "gyr004_unproduced_field", "gyr005_unchecked_link", "gyr006_missing_counters", "gyr007_silent_drop",
    "gyr008_high_timeout", "gyr009_missing_entry_target", "gyr010_unversioned_weight_sync",
    "gyr011_config_code_disagree",
)


@dataclass(frozen=True)
class Pack:
    """Where a discovered rule came from: the entry point and its distribution."""

    name: str  # the entry point's name, the rule id
    value: str  # ``module:Class``
    dist: str  # distribution name, "" when unknown


def builtin_rules() -> tuple[type[Rule], ...]:
    """GYR001-011 from the source tree: the fallback when the metadata does not list them."""
    return tuple(importlib.import_module(f"{__package__}.{m}").RULE for m in BUILTIN_MODULES)


def warn(pack: Pack, reason: str) -> None:
    """One stderr line naming the entry point; every repo- or pack-supplied byte escaped."""
    where = f" from {term(pack.dist)}" if pack.dist else ""
    sys.stderr.write(f"gyrelint: warning: rule pack entry point {term(pack.name)} = {term(pack.value)}"
                     f"{where} skipped: {term(reason)}\n")


def _load(ep: Any, pack: Pack) -> type[Rule] | None:
    """The entry point's rule class, or None after one warning saying why not."""
    try:
        obj = ep.load()
    except BaseException as exc:  # noqa: BLE001 - a broken pack (even one calling exit) must not sink the run
        if isinstance(exc, KeyboardInterrupt):
            raise
        warn(pack, f"import failed ({exc.__class__.__name__}: {str(exc)[:200]})")
        return None
    if not (isinstance(obj, type) and issubclass(obj, Rule)) or obj is Rule:
        warn(pack, "not a gyrelint.rules.base.Rule subclass")
        return None
    rule_id = obj.__dict__.get("id", getattr(obj, "id", None))
    if not isinstance(rule_id, str) or not RULE_ID.fullmatch(rule_id):
        warn(pack, f"malformed rule id {rule_id!r} (want capitals then 3-4 digits, e.g. RLX001)")
        return None
    if rule_id != pack.name:
        warn(pack, f"entry point name differs from the rule id {rule_id!r}")
        return None
    missing = [a for a in REQUIRED if not hasattr(obj, a)]
    if missing:
        warn(pack, f"rule class lacks {', '.join(missing)}")
        return None
    return obj


def _entry_points() -> list[tuple[Any, Pack]]:
    from importlib.metadata import entry_points

    try:
        eps = entry_points(group=GROUP)
    except Exception as exc:  # noqa: BLE001 - unreadable metadata of some installed package
        sys.stderr.write(f"gyrelint: warning: could not list rule packs ({term(exc.__class__.__name__)}: "
                         f"{term(str(exc)[:200])}); running the built-in rules only\n")
        return []
    out = []
    for ep in eps:
        dist = getattr(ep, "dist", None)
        out.append((ep, Pack(ep.name, ep.value, getattr(dist, "name", "") or "")))
    return out


@cache
def catalog() -> tuple[type[Rule], ...]:
    """Every rule of this process: the built-ins first in id order, then the packs' by id."""
    found = _entry_points()
    own = [(ep, p) for ep, p in found if p.dist.lower() == OWN_DIST]
    builtins = [r for ep, p in own if (r := _load(ep, p)) is not None] if own else list(builtin_rules())
    rules: dict[str, type[Rule]] = {r.id: r for r in sorted(builtins, key=lambda r: r.id)}
    for ep, pack in sorted(((ep, p) for ep, p in found if p.dist.lower() != OWN_DIST), key=lambda t: t[1].name):
        rule = _load(ep, pack)
        if rule is None:
            continue
        if rule.id in rules:
            if rules[rule.id] is not rule:
                warn(pack, f"rule id {rule.id} is taken by {rules[rule.id].__module__}")
            continue
        rules[rule.id] = rule
    return tuple(rules.values())


@cache
def by_id() -> dict[str, type[Rule]]:
    return {r.id: r for r in catalog()}


@cache
def catalog_key() -> str:
    """What the rule set is, for cache keys: a newly installed or edited pack changes it."""
    h = hashlib.sha256()
    for r in catalog():
        h.update(f"{r.id}\0{r.__module__}\0{r.__qualname__}\0".encode())
        if r.__module__.startswith(f"{OWN_DIST}."):
            continue  # gyrelint's own code is in the code digest already
        path = getattr(sys.modules.get(r.__module__), "__file__", None)
        try:
            h.update(open(path, "rb").read() if path else b"")  # noqa: SIM115 - small module file
        except OSError:
            h.update(b"?")
    return h.hexdigest()[:16]

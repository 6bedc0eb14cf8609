"""The rule catalog and ``run_rules``: evaluate every rule, then apply the user's settings.

Settings: ``select``/``ignore`` (rule ids or prefixes such as ``GYR00``), per-rule severity
or ``off`` from ``[tool.gyrelint.rules]``, and inline ``# gyrelint: ignore[GYR003]``
comments on the reported line (recorded by the index as ``FileSummary.suppressions``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..model import Diagnostic, Finding, Severity
from ..settings import Settings
from .base import Rule, RuleContext
from .catalog import by_id, catalog

if TYPE_CHECKING:
    from ..analysis import Analysis


def __getattr__(name: str) -> object:
    """``RULES`` and ``BY_ID`` are the discovered catalog, found on first use (PEP 562) so that
    importing the rules stage never loads a rule pack it does not need."""
    if name == "RULES":
        return catalog()
    if name == "BY_ID":
        return by_id()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


SEVERITIES = ("error", "warning", "info")


def matches(rule_id: str, patterns: Iterable[str]) -> bool:
    """Exact id or prefix match (``GYR0`` selects every rule, ``GYR00`` the first nine)."""
    return any(rule_id.startswith(p.strip().upper()) for p in patterns if p.strip())


def unknown_codes(codes: Iterable[str]) -> list[str]:
    return [c for c in codes if c.strip() and not any(r.startswith(c.strip().upper()) for r in by_id())]


def enabled(rule_id: str, settings: Settings) -> bool:
    if settings.select and not matches(rule_id, settings.select):
        return False
    if settings.ignore and matches(rule_id, settings.ignore):
        return False
    return settings.severity(rule_id) != "off"


def severity_for(rule: type[Rule], settings: Settings) -> Severity:
    """The configured severity (checked when the settings were read), else the rule's own."""
    value = settings.severity(rule.id)
    return Severity(value) if value in SEVERITIES else rule.severity


def evaluate(analysis: Analysis, rules: Iterable[type[Rule]] | None = None) -> list[Finding]:
    """Every finding of the given rules at default severity, before settings and suppressions."""
    ctx = RuleContext(analysis)
    out: list[Finding] = []
    for rule_cls in catalog() if rules is None else rules:
        try:
            out.extend(rule_cls().check(ctx))
        except Exception as exc:  # noqa: BLE001 - one broken rule must not sink the report
            analysis.diagnostics.append(Diagnostic(".", 0, f"rule {rule_cls.id} failed "
                                                   f"({exc.__class__.__name__}: {str(exc)[:100]}); its findings are "
                                                   f"missing, please report this", "input"))
    return unique_fingerprints(out)


def unique_fingerprints(findings: list[Finding]) -> list[Finding]:
    """Two findings sharing a key get distinct, still line-free fingerprints (by order of appearance)."""
    seen: dict[str, int] = {}
    for f in sorted(findings, key=lambda f: (f.file, f.line, f.rule, f.message)):
        n = seen.get(f.fingerprint, 0)
        seen[f.fingerprint] = n + 1
        if n:
            f.fingerprint = hashlib.sha256(f"{f.fingerprint}#{n}".encode()).hexdigest()[:20]
    return findings


def suppressed(f: Finding, analysis: Analysis) -> bool:
    s = analysis.index.summaries.get(f.file) if getattr(analysis, "index", None) else None
    if s is None:
        return False
    ids = s.suppressions.get(f.line, ())
    return "*" in ids or f.rule in ids


def apply_settings(findings: list[Finding], analysis: Analysis, settings: Settings) -> list[Finding]:
    out = []
    for f in findings:
        rule = by_id().get(f.rule)
        if rule is None or not enabled(f.rule, settings) or suppressed(f, analysis):
            continue
        f.severity = severity_for(rule, settings)
        out.append(f)
    return sorted(out, key=lambda f: (-f.severity.rank, f.file, f.line, f.rule))


def check_settings(settings: Settings) -> None:
    """Refuse rule ids and codes no rule has (SettingsError). Settings read through the API were
    checked against this registry already; these come from Python code (``Settings(rules=...)``)."""
    from ..settings.schema import Where, check_rules

    ids = frozenset(by_id())
    where = Where("Settings", "", ids)
    check_rules({r.rule: r.severity for r in settings.rules}, where.sub("rules"))
    for key, codes in (("select", settings.select), ("ignore", settings.ignore)):
        bad = unknown_codes(codes)
        if bad:
            raise where.fail(key, f"unknown rule code {bad[0]!r}", "use a rule id or prefix from `gyrelint rule`")


def run_rules(analysis: Analysis, settings: Settings) -> list[Finding]:
    """All rule findings for the analysis, with the user's settings applied."""
    check_settings(settings)
    rules = [r for r in catalog() if enabled(r.id, settings)]
    return apply_settings(evaluate(analysis, rules), analysis, settings)

"""Run verification from logs: trajectories sampled, consumed, training steps, policy version.

>>> from gyrelint.logcheck import build_rules, check_logs
>>> verdict = check_logs(["run.log"], build_rules())          # doctest: +SKIP
>>> verdict.status, verdict.headline                          # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .counters import Collector
from .profiles import (
    DEFAULT_PROFILE,
    PROFILES,
    PatternError,
    Rule,
    parse_cli_pattern,
    profile_rules,
    rules_from_settings,
)
from .reader import LogInputError, Record, iter_log, read_log
from .source import DEFAULT_LIMITS, Limits, ReadStats
from .usermatch import PatternTimeout
from .verdict import DEFAULT_THRESHOLD, Check, Evidence, Verdict, judge

__all__ = ["build_rules", "check_logs", "read_log", "judge", "Collector", "Verdict", "Check", "Evidence", "Record",
           "Rule", "LogInputError", "PatternError", "PatternTimeout", "Limits", "PROFILES", "DEFAULT_PROFILE", "DEFAULT_THRESHOLD"]


def build_rules(profile: str = DEFAULT_PROFILE, patterns: Iterable[str] = (),
                settings_counters: dict[str, Any] | None = None, settings_file: str = "pyproject.toml") -> list[Rule]:
    """User patterns (CLI, then pyproject) before the profile's key rules; probe lines need none."""
    rules = [parse_cli_pattern(p) for p in patterns]
    rules += rules_from_settings(settings_counters or {}, settings_file)
    rules += list(profile_rules(profile))
    return rules


def check_logs(paths: Sequence[str | Path], rules: list[Rule], threshold: float = DEFAULT_THRESHOLD,
               limits: Limits = DEFAULT_LIMITS) -> Verdict:
    """Read every log, streamed (LogInputError on the first unreadable one), and judge the counters together.

    User patterns that run over their time budget raise PatternTimeout.
    """
    collector = Collector(rules)
    stats = []
    try:
        for p in paths:
            st = ReadStats(str(p))
            stats.append(st)
            collector.add(iter_log(Path(p), str(p), limits, st))
    finally:
        collector.close()
    notes = [n for n in (st.note(limits) for st in stats) if n]
    return judge(collector, threshold, notes)

"""The typed settings tree: what every stage reads, built and checked once by ``schema``.

Only immutable values cross this line (frozen dataclasses, tuples, strings, numbers), so
a stage can neither see a raw TOML table nor change the settings another stage reads, and
``repr`` is a stable cache key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

DEFAULT_MAX_FILE_SIZE = 4 * 1024 * 1024


class SettingsError(ValueError):
    """A settings file (or value) the user must fix. ``str()`` is one terminal-safe line that
    names the file and the key; the API turns it into an input error (exit code 2)."""


class SettingsWarning(UserWarning):
    """A setting that was not applied but does not stop the run (a repo's ``cache-dir`` that
    leaves the repo). The CLI prints it as one ``gyrelint: warning:`` line on stderr."""


def default_cache_dir() -> Path:
    """``GYRELINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/gyrelint``, else ``~/.cache/gyrelint``."""
    base = os.environ.get("GYRELINT_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "gyrelint" if xdg else Path.home() / ".cache" / "gyrelint"


@dataclass(frozen=True)
class RuleSetting:
    """``[tool.gyrelint.rules] GYR006 = "info"``: a rule's severity, or ``off``."""

    rule: str  # a known rule id, upper case
    severity: str  # error | warning | info | off


@dataclass(frozen=True)
class TopologySettings:
    """``[tool.gyrelint.topology]``: extra config-key tokens (or globs) per class, and ones to ignore."""

    process: tuple[str, ...] = ()
    port: tuple[str, ...] = ()
    comm: tuple[str, ...] = ()
    layout: tuple[str, ...] = ()  # colocation, offload, engine or backend switches of the project's own naming
    ignore: tuple[str, ...] = ()

    def items(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """(class, entries) in a fixed order; the vocabulary is built from these."""
        return (("process", self.process), ("port", self.port), ("comm", self.comm), ("layout", self.layout),
                ("ignore", self.ignore))


@dataclass(frozen=True)
class CounterPattern:
    """One ``[tool.gyrelint.counters]`` line regex for ``logcheck``; it compiles, its length is bounded."""

    counter: str  # sampled | consumed | step | policy_version
    pattern: str
    mode: str | None = None  # total | delta | value; None lets logcheck decide from the groups


@dataclass(frozen=True)
class SignalSpec:
    """A signal declared in ``[tool.gyrelint] signals``: what the user's library call means for a side."""

    id: str
    side: str  # sampling | training | handoff | neutral
    kind: str | None = None  # trajectory | weight_sync, exactly when side is handoff
    calls: tuple[str, ...] = ()  # globs on dotted callee names
    methods: tuple[str, ...] = ()  # bare method names
    weight: float = 3.0
    rationale: str = "declared in [tool.gyrelint] signals"


@dataclass(frozen=True)
class Thresholds:
    """``[tool.gyrelint.thresholds]``: GYR008's limits; ``None`` keeps the rule's default."""

    timeout: float | None = None  # seconds
    retries: int | None = None


@dataclass(frozen=True)
class Settings:
    """Everything a run is configured by: ``[tool.gyrelint]`` (repo or ``--config``), the user's
    config file, the environment and CLI flags, merged and validated by ``load_settings``."""

    exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    entry_points: tuple[str, ...] = ()  # extra entry files or modules
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    jobs: int = 0  # 0 = number of cores
    use_cache: bool = True
    cache_dir: Path = field(default_factory=default_cache_dir)
    rules: tuple[RuleSetting, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    topology: TopologySettings = TopologySettings()
    counters: tuple[CounterPattern, ...] = ()
    signals: tuple[SignalSpec, ...] = ()
    thresholds: Thresholds = Thresholds()
    include_tests: bool = False  # tests take sides, are entry points and map nodes like product code

    def __post_init__(self) -> None:
        # ``Settings(rules={"GYR006": "off"})`` from Python code: a table given in its TOML form is
        # checked and typed like the file's (SettingsError when bad)
        tables = {name: getattr(self, name) for name in ("rules", "topology", "counters", "thresholds")
                  if isinstance(getattr(self, name), Mapping)}
        if isinstance(self.signals, list) or any(isinstance(s, Mapping) for s in self.signals):
            tables["signals"] = list(self.signals)
        if tables:
            from .schema import Where, check_table

            for name, value in check_table(tables, Where("Settings", "")).items():
                object.__setattr__(self, name, value)

    def severity(self, rule_id: str) -> str | None:
        """The configured severity (or ``off``) of a rule, None when the table does not name it."""
        for r in self.rules:
            if r.rule == rule_id:
                return r.severity
        return None

    def with_overrides(self, **kw: Any) -> Settings:
        """A copy with every keyword that is not None applied (CLI flags over files)."""
        return replace(self, **{k: v for k, v in kw.items() if v is not None})

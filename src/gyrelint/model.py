"""The plain data that flows between pipeline stages after the index.

Each stage returns one of these; renderers and rules only read them. Field names
follow the ``gyrelint/1`` JSON contract of ``shared/DESIGN.md``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Side(str, enum.Enum):
    SAMPLING = "sampling"
    TRAINING = "training"
    HANDOFF = "handoff"
    DRIVER = "driver"
    NEUTRAL = "neutral"


class HandoffKind(str, enum.Enum):
    TRAJECTORY = "trajectory"
    WEIGHT_SYNC = "weight_sync"


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem with the input (not with the analyzed design): file, line, reason."""

    file: str
    line: int
    message: str
    kind: str = "input"  # "parse" | "decode" | "size" | "data-module" | "config" | "entry" | "input" | "cache"

    def __str__(self) -> str:
        loc = f"{self.file}:{self.line}" if self.line else self.file
        return f"{loc}: {self.message}"


@dataclass(frozen=True, slots=True)
class EntryPoint:
    module: str | None  # dotted module, None when the target does not exist
    file: str | None  # file relative to the root
    found_by: str  # "readme" | "script" | "pyproject" | "setup" | "main-guard" | "hydra" | "config"
    source: str = ""  # where it was found (file relative to root)
    line: int = 0
    command: str = ""  # the command line or declaration text
    function: str | None = None  # qualname of the entry function when known
    exists: bool = True


@dataclass(frozen=True, slots=True)
class Evidence:
    signal: str
    file: str
    line: int
    via: str = "own"  # "own" | "callee:<qualname>"


@dataclass(slots=True)
class FunctionReport:
    qualname: str
    file: str
    line: int
    side: Side = Side.NEUTRAL
    handoff_kind: HandoffKind | None = None
    reached: bool = False
    evidence: list[Evidence] = field(default_factory=list)


@dataclass(slots=True)
class ModuleReport:
    module: str
    side: Side
    boundary: bool = False


@dataclass(slots=True)
class FieldUse:
    name: str
    file: str
    line: int
    function: str


@dataclass(slots=True)
class FieldContract:
    produced: dict[str, list[FieldUse]] = field(default_factory=dict)
    consumed: dict[str, list[FieldUse]] = field(default_factory=dict)

    @property
    def missing(self) -> list[str]:
        return sorted(set(self.consumed) - set(self.produced))


@dataclass(slots=True)
class Handoff:
    trajectory: list[str] = field(default_factory=list)
    weight_sync: list[str] = field(default_factory=list)
    online: bool = False
    weight_sync_path: list[str] = field(default_factory=list)
    fields: FieldContract = field(default_factory=FieldContract)
    # positive evidence of an online loop with nothing to push: the sampler acts with the module the
    # optimizer updates (signal "same-object", via = the value's text)
    online_evidence: list[Evidence] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ConfigKey:
    key: str  # dotted path
    cls: str  # "process" | "port" | "comm"
    value: str | None
    file: str
    line: int
    reason: str = ""
    source: str = ""  # "yaml" | "toml" | "json" | "ini" | "env" | "argparse" | "click" | "dataclass" | "script" ...


@dataclass(frozen=True, slots=True)
class KeyEntry:
    """One config knob, however many places mention it: where it is declared, its class and its uses.

    ``name`` is what a user types (the flag without dashes, the dotted config path, the env var);
    ``scope`` is empty for keys listed by default, else why they are not (``tests``, ``docs``, ``ci``,
    ``container``, ``vendored``, ``tools``, ``hardware-tuning``, ``unloaded-config``)."""

    name: str
    cls: str  # "process" | "port" | "comm" | "layout"
    value: str | None  # the value at the definition (a config file's setting, else the default)
    default: str | None  # the declared default (option/field/env read), None when not literal
    file: str  # the definition (or the best occurrence when nothing declares it)
    line: int
    declared_as: str  # "argparse" | "click" | "typer" | "dataclass" | "pydantic" | "yaml" | "env (python)" | ...
    evidence: str  # why this class (token, value or use)
    why: str = ""  # one line: why the key matters for the layout
    type: str | None = None  # the declared type when known
    uses: int = 0  # occurrences folded into this entry besides the definition
    where: tuple[Location, ...] = ()  # the few most telling of those occurrences
    scope: str = ""
    definition: bool = True  # False when no occurrence declares the key (only set or read)
    aliases: tuple[str, ...] = ()  # other spellings folded in (``--rollout-port`` for ``rollout_port``)


@dataclass(frozen=True, slots=True)
class CodeEvidence:
    signal: str
    file: str
    line: int
    detail: str = ""


@dataclass(slots=True)
class Topology:
    verdict: str = "unknown"  # "cross-process" | "same-process" | "unknown"
    reasons: list[str] = field(default_factory=list)  # ranked, strongest first
    colocated: bool = False
    config_keys: list[ConfigKey] = field(default_factory=list)
    code_evidence: list[CodeEvidence] = field(default_factory=list)
    trajectory_transport: str = "unknown"
    weight_transport: str = "unknown"
    link_checks: list[CodeEvidence] = field(default_factory=list)
    keys: list[KeyEntry] = field(default_factory=list)  # one entry per key, listed ones first
    folded: dict[str, int] = field(default_factory=dict)  # occurrences folded away: "repeats", and per scope


@dataclass(frozen=True, slots=True)
class Location:
    file: str
    line: int
    note: str = ""


@dataclass(slots=True)
class Finding:
    rule: str
    severity: Severity
    message: str
    file: str
    line: int
    fix: str = ""  # one line: what to do
    evidence: list[Location] = field(default_factory=list)
    fingerprint: str = ""


@dataclass(slots=True)
class Stats:
    files: int = 0
    parsed: int = 0
    cached: int = 0
    functions: int = 0
    seconds: float = 0.0


# -- the counters that verify a run (gyrelint.probe prints them, logcheck reads them, settings may
# -- name patterns for them): one vocabulary for the three
COUNTERS = ("sampled", "consumed", "step", "policy_version")
COUNTER_ALIASES = {"steps": "step", "version": "policy_version", "policy-version": "policy_version",
                   "weights_version": "policy_version", "sample": "sampled", "consume": "consumed"}
COUNTER_MODES = ("total", "delta", "value")  # a running total, an increment per line, a reported value


@dataclass(frozen=True, slots=True)
class CounterUse:
    """One place in code that logs a run counter: the metric key (or probe call) and where."""

    key: str
    file: str
    line: int


@dataclass(frozen=True, slots=True)
class Counters:
    """Where the code logs each run counter (``COUNTERS``): what verifies a run from its log."""

    found: dict[str, tuple[CounterUse, ...]] = field(default_factory=dict)  # counter -> uses, by file and line

    @property
    def missing(self) -> list[str]:
        return [c for c in COUNTERS if not self.found.get(c)]

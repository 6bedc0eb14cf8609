"""What every rule shares: the Rule class, finding construction, fingerprints, lookups.

A rule is one small class (Fixit style): an id, a default severity, a message, a
docs page, a one-line fix, and bad/good example repos that its tests run. Rules read
only the analysis (the index summaries included) and never open a file, so they stay
cheap and keep working when a stage upstream has nothing to say.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from ..graphs.symbols import SymbolTable, build_symbols
from ..index.summary import FileSummary, FunctionDef
from ..model import Finding, FunctionReport, HandoffKind, Location, Severity, Side

if TYPE_CHECKING:
    from ..analysis import Analysis

DOCS_BASE = "https://github.com/gyrelint/gyrelint/blob/main/docs/rules/"
MAX_EVIDENCE = 12


@dataclass(frozen=True)
class Example:
    """A tiny repo (relative path -> source) that shows a rule's pattern."""

    files: dict[str, str]
    note: str = ""


@dataclass
class RuleContext:
    """Lookups over one analysis that several rules need, computed once."""

    analysis: Analysis
    _by_file: dict[str, FileSummary] = field(default_factory=dict)
    _by_module: dict[str, FileSummary] = field(default_factory=dict)

    _symbols: SymbolTable | None = None

    def __post_init__(self) -> None:
        summaries = getattr(self.analysis.index, "summaries", {}) or {}
        self._by_file = dict(summaries)
        self._by_module = {s.module: s for s in summaries.values()}

    @property
    def symbols(self) -> SymbolTable:
        """What names mean: the graphs stage's symbol table, or (an analysis loaded from the
        cache, or built by hand without graphs) one built from the summaries on first use."""
        if self._symbols is None:
            graphs = self.analysis.graphs
            got = getattr(graphs, "symbols", None) if graphs else None
            self._symbols = got if got is not None else build_symbols(self._by_file.values())
        return self._symbols

    # -- functions -------------------------------------------------------------
    def functions(self, *sides: Side, reached: bool | None = None,
                  kind: HandoffKind | None = None) -> list[FunctionReport]:
        """Function reports on the given sides, in a stable (file, line) order."""
        out = []
        for f in self.analysis.functions.values():
            if sides and f.side not in sides:
                continue
            if reached is not None and f.reached != reached:
                continue
            if kind is not None and f.handoff_kind != kind:
                continue
            out.append(f)
        return sorted(out, key=lambda f: (f.file, f.line, f.qualname))

    def summary(self, file: str) -> FileSummary | None:
        return self._by_file.get(file)

    def summaries(self) -> Iterable[FileSummary]:
        return self._by_file.values()

    def definition(self, qualname: str) -> tuple[FileSummary, FunctionDef] | None:
        """The index record of a function: from the graphs when built, else by module prefix."""
        info = self.analysis.graphs.functions.get(qualname) if self.analysis.graphs else None
        if info is not None:
            s = self._by_file.get(info.file)
            if s is not None:
                return s, info.definition
        parts = qualname.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            s = self._by_module.get(".".join(parts[:cut]))
            if s is None:
                continue
            rel = ".".join(parts[cut:])
            for d in s.functions:
                if d.qualname == rel:
                    return s, d
        return None

    def scope_of(self, qualname: str) -> tuple[FileSummary, str] | None:
        """(summary, relative scope) whose records (calls, strings...) belong to ``qualname``."""
        found = self.definition(qualname)
        if found is None:
            return None
        return found[0], found[1].qualname

    def anchor(self) -> Location:
        """Where a repo-level finding with nothing better to point at is reported."""
        for e in self.analysis.entry_points:
            if e.exists and e.file:
                return Location(e.file, max(e.line, 1) if e.source == e.file else 1, "entry point")
        other = getattr(getattr(self.analysis.index, "files", None), "other", []) or []
        for name in ("pyproject.toml", "setup.py", "README.md", "README.rst"):
            if name in other or name in self._by_file:
                return Location(name, 1, "repository")
        if self._by_file:
            return Location(next(iter(sorted(self._by_file))), 1, "repository")
        return Location(".", 1, "repository")


def loc(f: FunctionReport, note: str = "") -> Location:
    return Location(f.file, max(f.line, 1), note or f.qualname)


def fingerprint(rule: str, file: str, key: str) -> str:
    """Stable across edits that only move lines: no line number goes in."""
    return hashlib.sha256(f"{rule}\0{file}\0{key}".encode()).hexdigest()[:20]


_WS = re.compile(r"\s+")


def norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


class Rule:
    """One lint rule; subclasses set the class attributes and implement ``check``."""

    id: ClassVar[str]
    name: ClassVar[str]  # kebab-case slug
    severity: ClassVar[Severity]
    summary: ClassVar[str]  # one sentence, SARIF shortDescription
    rationale: ClassVar[str]  # why it matters, SARIF fullDescription
    fix: ClassVar[str]  # the default one-line "what to do"
    bad: ClassVar[tuple[Example, ...]] = ()
    good: ClassVar[tuple[Example, ...]] = ()
    tags: ClassVar[tuple[str, ...]] = ()
    message: ClassVar[str]  # the rule's message in the catalog (defaults to the summary)

    def __init_subclass__(cls, **kw: object) -> None:
        super().__init_subclass__(**kw)
        if "message" not in cls.__dict__ and "summary" in cls.__dict__:
            cls.message = cls.summary

    @classmethod
    def docs_url(cls) -> str:
        return f"{DOCS_BASE}{cls.id}.md"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:  # pragma: no cover - abstract
        raise NotImplementedError

    def finding(self, message: str, where: Location, key: str, evidence: Iterable[Location] = (),
                fix: str | None = None) -> Finding:
        ev = list(evidence)[:MAX_EVIDENCE]
        return Finding(
            rule=self.id,
            severity=self.severity,
            message=message,
            file=where.file,
            line=max(where.line, 1),
            fix=fix or self.fix,
            evidence=ev or [where],
            fingerprint=fingerprint(self.id, where.file, key),
        )


def tokens(name: str) -> list[str]:
    """``rollout/numSamples-total`` -> ['rollout', 'num', 'samples', 'total']."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [t for t in re.split(r"[^A-Za-z0-9]+", name.lower()) if t]


def chain(ctx: RuleContext, side: Side) -> list[FunctionReport]:
    """The functions that make up one chain: that side's functions, then the drivers.

    A driver orchestrates both chains (it may compute the loss and step the optimizer
    inline), so it stands for either chain when no function of that side exists.
    """
    return ctx.functions(side) + ctx.functions(Side.DRIVER)

"""The signal type and the matcher that runs a catalog over one function's facts.

A signal is one observable thing a function body does (calls ``vllm.LLM.generate``,
steps an optimizer, posts to ``/update_weights_from_distributed``...) together with
the side it is evidence for. Matching grades evidence: ``STRONG`` when the callee or
the receiver's type is known from imports/learned types, ``MEDIUM`` for a specific
context (generation kwargs, a receiver named ``optimizer``), ``WEAK`` for a bare
method name. Guards are neutral signals that veto weaker evidence on the same call.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from .facts import MEDIUM, STRONG, WEAK_EV, CallFact, Facts, FnFacts
from .records import stores_arguments_only

SAMPLING, TRAINING, HANDOFF, NEUTRAL = "sampling", "training", "handoff", "neutral"
TRAJECTORY, WEIGHT_SYNC = "trajectory", "weight_sync"

CallCheck = Callable[[CallFact, FnFacts, float], float]
BodyCheck = Callable[[FnFacts, Facts], Iterable[tuple[int, float]]]


@dataclass(frozen=True)
class Signal:
    """One kind of evidence. ``examples_*`` are module sources defining ``target``."""

    id: str
    side: str  # sampling | training | handoff | neutral (guard)
    rationale: str
    kind: str | None = None  # trajectory | weight_sync when side is handoff
    weight: float = 2.0
    calls: tuple[str, ...] = ()  # globs on canonical external names (typed evidence)
    methods: tuple[str, ...] = ()  # method names this signal looks at
    roles: tuple[str, ...] = ()  # receiver roles that make a ``methods`` call match
    kwargs: tuple[str, ...] = ()  # kwargs that make a ``methods`` call match (MEDIUM)
    name_only: bool = False  # the method name alone is a library API: WEAK evidence
    check: CallCheck | None = None  # refines a call match: returns the final strength
    body: BodyCheck | None = None  # whole-body pattern
    setup: bool = False  # builds the machinery of a side rather than running it
    container: bool = False  # about the batch type trajectories travel in, not a transport between sides
    examples_match: tuple[str, ...] = ()
    examples_nomatch: tuple[str, ...] = ()
    user: bool = False  # declared in [tool.gyrelint] signals
    _rx: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    @property
    def guard(self) -> bool:
        return self.side == NEUTRAL

    def call_strength(self, c: CallFact, fn: FnFacts) -> float:
        best = 0.0
        rx = self._rx
        if rx is not None:
            for n in c.names:
                if rx.fullmatch(n):
                    best = STRONG
                    break
            if best == 0.0 and self.user and c.targets:
                for t in c.targets:
                    if rx.fullmatch(t):
                        best = STRONG
                        break
        if best < STRONG and c.method in self.methods:
            if self.roles and c.role in self.roles:
                best = max(best, c.role_strength)
            if self.kwargs and any(k in self.kwargs for k, _ in c.site.kwargs):
                best = max(best, MEDIUM)
            if self.name_only and best == 0.0 and not c.into_repo(fn.qualname):
                best = WEAK_EV
        if best and self.check is not None:
            best = self.check(c, fn, best)
        return best


def _compile(patterns: Sequence[str]) -> re.Pattern[str] | None:
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{fnmatch.translate(p)[4:-3]})" for p in patterns))


def finalize(sig: Signal) -> Signal:
    """Precompile the call patterns (kept out of __init__ so catalog entries stay declarative)."""
    object.__setattr__(sig, "_rx", _compile(sig.calls))
    return sig


@dataclass(frozen=True, slots=True)
class Match:
    signal: Signal
    line: int
    strength: float

    @property
    def score(self) -> float:
        return self.signal.weight * self.strength


class Matcher:
    """Runs a catalog over functions; signals are indexed by the method name they look at."""

    def __init__(self, signals: Sequence[Signal]) -> None:
        self.signals = [finalize(s) for s in signals]
        self.by_method: dict[str, list[Signal]] = {}
        self.wild: list[Signal] = []
        self.wild_by_head: dict[str, list[Signal]] = {}  # top-level module of the pattern -> signals
        self.wild_any: list[Signal] = []  # patterns starting with a wildcard
        self.body: list[Signal] = []
        for s in self.signals:
            keys: set[str] = set(s.methods)
            for p in s.calls:
                last = p.rsplit(".", 1)[-1]
                if any(ch in last for ch in "*?["):
                    if s not in self.wild:
                        self.wild.append(s)
                    head = p.split(".", 1)[0]
                    if any(ch in head for ch in "*?["):
                        if s not in self.wild_any:
                            self.wild_any.append(s)
                    elif s not in self.wild_by_head.setdefault(head, []):
                        self.wild_by_head[head].append(s)
                else:
                    keys.add(last)
            for k in keys:
                self.by_method.setdefault(k, []).append(s)
            if s.body is not None:
                self.body.append(s)

    @property
    def methods(self) -> frozenset[str]:
        """Method names some signal looks at (calls to anything else cannot match by name)."""
        return frozenset(self.by_method)

    def _wild_for(self, c: CallFact) -> list[Signal]:
        out: list[Signal] = list(self.wild_any)
        for n in c.names:
            out.extend(self.wild_by_head.get(n.split(".", 1)[0], ()))
        if c.targets and any(s.user for s in self.wild):
            out.extend(s for s in self.wild if s.user)
        return out

    def match(self, fn: FnFacts, facts: Facts) -> list[Match]:
        out: list[Match] = []
        by_method = self.by_method
        wild = self.wild
        for c in fn.calls:
            cands = by_method.get(c.method)
            if cands is None and not wild:
                continue
            site_matches: list[Match] = []
            guarded = False
            for s in (cands or ()):
                st = s.call_strength(c, fn)
                if st > 0:
                    if s.guard:
                        guarded = True
                    site_matches.append(Match(s, c.site.line, st))
            if wild and (c.names or c.targets):
                for s in dict.fromkeys(self._wild_for(c)):
                    if cands is not None and s in cands:
                        continue
                    st = s.call_strength(c, fn)
                    if st > 0:
                        if s.guard:
                            guarded = True
                        site_matches.append(Match(s, c.site.line, st))
            if guarded:
                site_matches = [m for m in site_matches if m.signal.guard or m.strength >= STRONG]
            out.extend(site_matches)
        if stores_arguments_only(fn):
            return out  # a record constructor's field names are no work of its body
        for s in self.body:
            for line, st in s.body(fn, facts):  # type: ignore[misc]
                if st > 0:
                    out.append(Match(s, line, st))
        return out

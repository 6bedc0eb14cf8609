"""Collect counter observations from records and reduce them to the four run counters.

When several sources report one counter, the most specific wins: probe lines, then user
patterns (``--pattern``, ``[tool.gyrelint.counters]``), then the profile's key names. Sampled and
consumed add up across streams (a file, or a process id inside a probe log); steps take the
stream that advanced most (data-parallel ranks step together); the policy version is a gauge.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from .profiles import COUNTERS, Rule
from .reader import Record

PROBE_PRECEDENCE = 3


@dataclass(slots=True)
class Obs:
    counter: str
    mode: str  # total | delta | value
    value: float
    record: Record
    key: str
    precedence: int


@dataclass(slots=True)
class Series:
    """Observations of one counter from one stream and one key, in log order."""

    stream: str
    key: str
    mode: str
    obs: list[Obs] = field(default_factory=list)

    @property
    def values(self) -> list[float]:
        return [o.value for o in self.obs]

    def amount(self) -> float:
        """Items counted by this series: increments add up, a running total counts its last value."""
        if self.mode == "delta":
            return sum(self.values)
        return self.obs[-1].value if self.obs else 0.0

    def advanced(self) -> int:
        """How many times this series moved forward (increments, or rises of a running value)."""
        if self.mode == "delta":
            return int(sum(v for v in self.values if v > 0))
        vals = self.values
        rises = sum(1 for a, b in zip(vals, vals[1:], strict=False) if b > a)
        if rises == 0 and len(vals) == 1 and vals[0] >= 1:
            return 1  # one report of step >= 1: at least one step was done
        if self.mode == "total" and rises:  # a step counter may skip values (logged every k steps)
            return max(rises, int(vals[-1] - vals[0]))
        return rises

    def last(self) -> float:
        return sum(self.values) if self.mode == "delta" else (self.obs[-1].value if self.obs else 0.0)


@dataclass(slots=True)
class CounterView:
    """One counter after choosing its source: the series that count, and the rest for the record."""

    name: str
    series: list[Series]
    source: str = ""

    @property
    def present(self) -> bool:
        return any(s.obs for s in self.series)

    def total(self) -> float:
        """Streams add up; inside one stream, several keys for the counter are spellings of one
        quantity (``count/x`` and ``async/count/x``, a scope logged twice): the largest counts."""
        per_stream: dict[str, float] = defaultdict(float)
        for s in self.series:
            per_stream[s.stream] = max(per_stream[s.stream], s.amount())
        return sum(per_stream.values())

    def last_lines(self, limit: int = 3) -> list[Record]:
        """The last observation of each stream (at most ``limit``), as evidence."""
        out = [s.obs[-1].record for s in self.series if s.obs]
        out.sort(key=lambda r: (r.file, r.line))
        return out[-limit:]

    def first_lines(self, limit: int = 3) -> list[Record]:
        out = [s.obs[0].record for s in self.series if s.obs]
        out.sort(key=lambda r: (r.file, r.line))
        return out[:limit]


class Collector:
    """Accumulates observations; records may arrive in batches (``--follow``)."""

    def __init__(self, rules: list[Rule] | tuple[Rule, ...]) -> None:
        self.key_rules = [r for r in rules if r.key is not None]
        self.line_rules = [r for r in rules if r.line is not None]
        self.obs: dict[str, list[Obs]] = {c: [] for c in COUNTERS}
        self.records = 0
        self.files: dict[str, int] = {}
        self._key_cache: dict[tuple[str, tuple[str, ...]], list[Rule]] = {}  # keys repeat on every line

    def add(self, records: Iterable[Record]) -> None:
        for rec in records:
            self.records += 1
            self.files[rec.file] = self.files.get(rec.file, 0) + 1
            self._add(rec)
            rec.values = {}  # observations keep the record as evidence only: free its numbers

    def _add(self, rec: Record) -> None:
        if rec.probe is not None:
            name, delta, amount = rec.probe
            if name in self.obs:
                mode = "delta" if delta else ("value" if name == "policy_version" else "total")
                self.obs[name].append(Obs(name, mode, amount, rec, "gyrelint-probe", PROBE_PRECEDENCE))
            return
        seen: set[str] = set()
        low = rec.text.lower() if self.line_rules else ""
        for rule in self.line_rules:
            if rule.counter in seen or (rule.needles and not any(n in low for n in rule.needles)):
                continue
            m = rule.line.search(rec.text)  # type: ignore[union-attr]
            if not m:
                continue
            if rule.line.groups == 0:  # type: ignore[union-attr]
                value = 1.0
            else:
                raw = m.groupdict().get("n") or m.groupdict().get("value") or m.group(1)
                try:
                    value = float(raw)
                except (TypeError, ValueError):
                    continue
            seen.add(rule.counter)
            self.obs[rule.counter].append(Obs(rule.counter, rule.mode, value, rec, rule.line.pattern,
                                              rule.precedence))
        if not self.key_rules:
            return
        for key, value in rec.values.items():
            if value != value or value in (float("inf"), float("-inf")):  # nan/inf count nothing
                continue
            for rule in self._rules_for(key, rec.aliases.get(key, ())):
                if rule.counter in seen:
                    continue
                seen.add(rule.counter)
                self.obs[rule.counter].append(Obs(rule.counter, rule.mode, value, rec, key, rule.precedence))
                break

    def _rules_for(self, key: str, aliases: tuple[str, ...]) -> list[Rule]:
        """The key rules matching ``key`` (or one of its other spellings), in rule order; cached."""
        ck = (key, aliases)
        hit = self._key_cache.get(ck)
        if hit is None:
            spellings = (key, *aliases)
            hit = [r for r in self.key_rules if any(r.key.fullmatch(k) for k in spellings)]  # type: ignore[union-attr]
            self._key_cache[ck] = hit
        return hit

    def view(self, counter: str) -> CounterView:
        obs = self.obs[counter]
        if not obs:
            return CounterView(counter, [])
        best = max(o.precedence for o in obs)
        chosen = [o for o in obs if o.precedence == best]
        series: dict[tuple[str, str, str], Series] = {}
        for o in chosen:
            k = (o.record.stream, o.key, o.mode)
            if k not in series:
                series[k] = Series(o.record.stream, o.key, o.mode)
            series[k].obs.append(o)
        source = {PROBE_PRECEDENCE: "probe", 2: "pattern"}.get(best, "profile")
        keys = sorted({o.key for o in chosen})
        return CounterView(counter, list(series.values()), f"{source}: {', '.join(keys[:3])}")

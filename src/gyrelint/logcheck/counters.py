"""Collect counter observations from records and reduce them to the four run counters.

When several sources report one counter, the most specific wins: probe lines, then user
patterns (``--pattern``, ``[tool.gyrelint.counters]``), then the profile's key names. Sampled and
consumed add up across streams (a file, or a process id inside a probe log); steps take the
stream that advanced most (data-parallel ranks step together); the policy version is a gauge.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from .profiles import COUNTERS, USER_PRECEDENCE, Rule
from .reader import Record
from .usermatch import UserMatcher, UserPattern

PROBE_PRECEDENCE = 3
BATCH_LINES = 4096  # records per batch sent to the user-pattern matcher
BATCH_BYTES = 1 << 20
_INF = float("inf")


LOW = 2  # step reports remembered per series (times, line numbers) to order version reports against
EVIDENCE_TEXT = 160


def evidence_record(rec: Record) -> Record:
    """The record itself, or a copy whose text is cut to what evidence shows (bounds what a series keeps)."""
    if len(rec.text) <= EVIDENCE_TEXT:
        return rec
    return Record(rec.file, rec.line, rec.text[: EVIDENCE_TEXT - 3] + "...", {}, rec.stream, rec.probe, {}, rec.t)


@dataclass(slots=True)
class Series:
    """One counter from one stream and one key, reduced as it is read: O(1) memory per series.

    Kept: count, first/last/min/max, sum, sum of increments, rises, the first and last record (as
    evidence), the earliest times and line numbers (to order version reports after the steps).
    """

    stream: str
    key: str
    mode: str
    n: int = 0
    first: float = 0.0
    last_value: float = 0.0
    lo: float = 0.0
    hi: float = 0.0
    total: float = 0.0
    positive: float = 0.0
    rises: int = 0
    integral: bool = True  # every value is a whole number
    monotone: bool = True  # never went down
    first_rec: Record | None = None
    last_rec: Record | None = None
    timed: int = 0  # reports that carry a time
    low_times: list[float] = field(default_factory=list)  # the LOW earliest times
    low_lines: list[int] = field(default_factory=list)  # the LOW smallest line numbers
    last_line: int = 0
    t_max: float | None = None

    def add(self, value: float, rec: Record) -> None:
        if self.n == 0:
            self.first = self.lo = self.hi = value
            self.first_rec = evidence_record(rec)
        else:
            last = self.last_value
            if value > last:
                self.rises += 1
                if value > self.hi:
                    self.hi = value
            elif value < last:
                self.monotone = False
                if value < self.lo:
                    self.lo = value
        self.n += 1
        self.last_value = value
        self.total += value
        if value > 0:
            self.positive += value
        if self.integral and not value.is_integer():
            self.integral = False
        self.last_rec = rec if len(rec.text) <= EVIDENCE_TEXT else evidence_record(rec)
        line = rec.line
        if line > self.last_line:
            self.last_line = line
        low = self.low_lines
        if len(low) < LOW or line < low[-1]:
            _keep_low(low, line)
        if rec.t is not None:
            self.timed += 1
            _keep_low(self.low_times, rec.t)
            self.t_max = rec.t if self.t_max is None else max(self.t_max, rec.t)

    @property
    def all_timed(self) -> bool:
        return self.timed == self.n

    @property
    def file(self) -> str:
        return self.first_rec.file if self.first_rec is not None else ""

    def amount(self) -> float:
        """Items counted by this series: increments add up, a running total counts its last value."""
        return self.total if self.mode == "delta" else self.last_value

    def advanced(self) -> int:
        """How many times this series moved forward (increments, or rises of a running value)."""
        if self.mode == "delta":
            return int(self.positive)
        if self.rises == 0 and self.n == 1 and self.first >= 1:
            return 1  # one report of step >= 1: at least one step was done
        if self.mode == "total" and self.rises:  # a step counter may skip values (logged every k steps)
            return max(self.rises, int(self.last_value - self.first))
        return self.rises

    def last(self) -> float:
        return self.total if self.mode == "delta" else self.last_value

    def is_step_counter(self) -> bool:
        """A training step is a non-decreasing whole number (increments: whole and >= 0).

        A fractional epoch (0.7) or a learning rate never counts as steps.
        """
        if self.mode == "delta":
            return self.integral and self.lo >= 0
        return self.integral and self.monotone


def _keep_low(low: list, value: float) -> None:
    if len(low) < LOW:
        low.append(value)
        low.sort()
    elif value < low[-1]:
        low[-1] = value
        low.sort()


@dataclass(slots=True)
class CounterView:
    """One counter after choosing its source: the series that count, and the rest for the record."""

    name: str
    series: list[Series]
    source: str = ""
    rejected: list[Series] = field(default_factory=list)  # step series that are not step counters

    @property
    def present(self) -> bool:
        return any(s.n for s in self.series)

    def total(self) -> float:
        """Streams add up; inside one stream, several keys for the counter are spellings of one
        quantity (``count/x`` and ``async/count/x``, a scope logged twice): the largest counts."""
        per_stream: dict[str, float] = defaultdict(float)
        for s in self.series:
            per_stream[s.stream] = max(per_stream[s.stream], s.amount())
        return sum(per_stream.values())

    def reports(self) -> int:
        return sum(s.n for s in self.series)

    def last_lines(self, limit: int = 3) -> list[Record]:
        """The last observation of each stream (at most ``limit``), as evidence."""
        out = [s.last_rec for s in self.series if s.last_rec is not None]
        out.sort(key=lambda r: (r.file, r.line))
        return out[-limit:]

    def first_lines(self, limit: int = 3) -> list[Record]:
        out = [s.first_rec for s in self.series if s.first_rec is not None]
        out.sort(key=lambda r: (r.file, r.line))
        return out[:limit]


MAX_SERIES = 4096  # per counter: a log inventing a new key or pid per line cannot grow memory without end
MAX_KEY_CACHE = 65536
MAX_NAME = 256  # longest key or stream name kept as is: 4096 series of 64 KiB keys would be 256 MiB


class Collector:
    """Accumulates observations into series; records may arrive in batches (``--follow``)."""

    def __init__(self, rules: list[Rule] | tuple[Rule, ...]) -> None:
        self.key_rules = [r for r in rules if r.key is not None]
        self.line_rules = [r for r in rules if r.line is not None and r.precedence < USER_PRECEDENCE]
        self.user_rules = [r for r in rules if r.line is not None and r.precedence >= USER_PRECEDENCE]
        self.series: dict[str, dict[tuple[int, str, str, str], Series]] = {c: {} for c in COUNTERS}
        self.records = 0
        self.max_series = MAX_SERIES
        self.dropped_series = 0
        self._key_cache: dict[tuple[str, tuple[str, ...]], list[Rule]] = {}  # keys repeat on every line
        self._plain_cache: dict[str, list[Rule]] = {}  # the same for keys without other spellings (most)
        self.matcher: UserMatcher | None = None
        self._batch: list[Record] = []
        self._batch_bytes = 0
        # every needle looked for once first: most lines hold none, and then no line rule runs
        self._needles = tuple(sorted({n for r in self.line_rules for n in r.needles})) \
            if all(r.needles for r in self.line_rules) else ()

    def add(self, records: Iterable[Record]) -> None:
        for rec in records:
            self.records += 1
            self._add(rec)
        self.flush()

    def close(self) -> None:
        if self.matcher is not None:
            self.matcher.close()
            self.matcher = None

    def _observe(self, counter: str, mode: str, value: float, rec: Record, key: str, precedence: int) -> None:
        group = self.series[counter]
        stream = rec.stream
        if len(key) > MAX_NAME or len(stream) > MAX_NAME:
            key, stream = key[:MAX_NAME], stream[:MAX_NAME]
        k = (precedence, stream, key, mode)
        s = group.get(k)
        if s is None:
            if len(group) >= self.max_series:
                self.dropped_series += 1
                return
            s = group[k] = Series(stream, key, mode)
        s.add(value, rec)

    def _add(self, rec: Record) -> None:
        if rec.probe is not None:
            name, delta, amount = rec.probe
            if name in self.series:
                mode = "delta" if delta else ("value" if name == "policy_version" else "total")
                self._observe(name, mode, amount, rec, "gyrelint-probe", PROBE_PRECEDENCE)
            return
        if self.user_rules:  # matched in a time-bounded child process, a batch at a time
            self._batch.append(rec)
            self._batch_bytes += len(rec.text)
            if len(self._batch) >= BATCH_LINES or self._batch_bytes >= BATCH_BYTES:
                self.flush()
        seen: set[str] = set()
        low = rec.text.lower() if self.line_rules else ""
        if low and (not self._needles or _holds_any(low, self._needles)):
            for rule in self.line_rules:
                if rule.counter in seen or (rule.needles and not any(n in low for n in rule.needles)):
                    continue
                m = rule.line.search(rec.text)  # type: ignore[union-attr]
                if not m:
                    continue
                value = rule_value(rule.line, m)  # type: ignore[arg-type]
                if value is None:
                    continue
                seen.add(rule.counter)
                self._observe(rule.counter, rule.mode, value, rec, rule.line.pattern,  # type: ignore[union-attr]
                              rule.precedence)
        if not self.key_rules:
            return
        plain, aliases = self._plain_cache, rec.aliases
        for key, value in rec.values.items():
            rules = plain.get(key) if not aliases else None
            if rules is None:
                rules = self._rules_for(key, aliases.get(key, ()))
            if not rules or value != value or value in (_INF, -_INF):  # nan/inf count nothing
                continue
            for rule in rules:
                if rule.counter in seen:
                    continue
                seen.add(rule.counter)
                self._observe(rule.counter, rule.mode, value, rec, key, rule.precedence)
                break
        rec.values = {}  # a series keeps a record as evidence only: free its numbers

    def flush(self) -> None:
        """Match the pending batch against the user patterns (in the child) and record what matched."""
        if not self._batch:
            return
        batch, self._batch, self._batch_bytes = self._batch, [], 0
        if self.matcher is None:
            self.matcher = UserMatcher([UserPattern(r.line.pattern, r.line.flags, r.counter,  # type: ignore[union-attr]
                                                    r.origin) for r in self.user_rules])
        for i, rule_i, value in self.matcher.match([r.text for r in batch], _span(batch)):
            rule = self.user_rules[rule_i]
            self._observe(rule.counter, rule.mode, value, batch[i], rule.line.pattern,  # type: ignore[union-attr]
                          rule.precedence)

    def _rules_for(self, key: str, aliases: tuple[str, ...]) -> list[Rule]:
        """The key rules matching ``key`` (or one of its other spellings), in rule order; cached."""
        ck = (key, aliases)
        hit = self._key_cache.get(ck)
        if hit is None:
            spellings = (key, *aliases)
            hit = [r for r in self.key_rules if any(r.key.fullmatch(k) for k in spellings)]  # type: ignore[union-attr]
            if len(key) > MAX_NAME:  # not cached: a log of long invented keys would fill memory
                return hit
            if len(self._key_cache) >= MAX_KEY_CACHE:  # a log inventing keys: start the caches over
                self._key_cache.clear()
                self._plain_cache.clear()
            self._key_cache[ck] = hit
            if not aliases:
                self._plain_cache[key] = hit
        return hit

    def view(self, counter: str) -> CounterView:
        group = self.series[counter]
        if not group:
            return CounterView(counter, [])
        best = max(k[0] for k in group)
        chosen = [s for k, s in group.items() if k[0] == best]
        rejected: list[Series] = []
        if counter == "step":
            rejected = [s for s in chosen if not s.is_step_counter()]
            chosen = [s for s in chosen if s.is_step_counter()]
            if not chosen:  # no real step counter from the best source: try the next one
                lower = [s for k, s in group.items() if k[0] < best and s.is_step_counter()]
                if lower:
                    best2 = max(k[0] for k, s in group.items() if k[0] < best and s.is_step_counter())
                    chosen = [s for k, s in group.items() if k[0] == best2 and s.is_step_counter()]
                    best = best2
        source = {PROBE_PRECEDENCE: "probe", USER_PRECEDENCE: "pattern"}.get(best, "profile")
        keys = sorted({s.key for s in chosen})
        return CounterView(counter, chosen, f"{source}: {', '.join(keys[:3])}" if chosen else "", rejected)


def _holds_any(text: str, needles: tuple[str, ...]) -> bool:
    for n in needles:
        if n in text:
            return True
    return False


def _span(batch: list[Record]) -> str:
    first, last = batch[0], batch[-1]
    if first.file == last.file:
        return f"{first.file} line {first.line}" if first.line == last.line else \
            f"{first.file} lines {first.line}-{last.line}"
    return f"{first.where} to {last.where}"


def rule_value(rx: re.Pattern[str], m: re.Match[str]) -> float | None:
    """The number a line rule reads: 1 per matching line without a group, else the group's number."""
    if rx.groups == 0:
        return 1.0
    raw = m.groupdict().get("n") or m.groupdict().get("value") or m.group(1)
    try:
        return float(raw)
    except (TypeError, ValueError):
        return None

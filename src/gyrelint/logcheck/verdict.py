"""The checks, in the order an engineer debugging an online RL run goes through them.

1. handoff: trajectories were sampled but none consumed -> the handoff is broken.
2. ratio:   sampled > consumed -> expected loss (batching, filtering, in flight), flagged past a threshold.
3. steps:   training steps do not increase -> the link from consumed data to the optimizer is broken.
4. online:  the sampler's policy version does not change across updates -> the loop is not online.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .counters import EVIDENCE_TEXT, LOW, Collector, CounterView, Series
from .escape import visible
from .reader import Record

DEFAULT_THRESHOLD = 0.5  # flag when more than half of the sampled trajectories were never consumed
MIN_UPDATES = 2  # updates needed before a frozen policy version is a problem
assert MIN_UPDATES <= LOW, "series remember LOW step reports; the online check needs MIN_UPDATES of them"

HOW_TO_LOG = {
    "sampled": "call probe.sampled(n) where the sampler hands trajectories over, or pass --pattern sampled=REGEX",
    "consumed": "call probe.consumed(n) where the trainer takes trajectories, or pass --pattern consumed=REGEX",
    "step": "call probe.step() after optimizer.step(), or pass --pattern step=REGEX",
    "policy_version": "call probe.policy_version(v) in the sampler with the version of the weights it uses, "
                      "or pass --pattern policy_version=REGEX",
}


@dataclass(frozen=True, slots=True)
class Evidence:
    """A log line shown as evidence: its text with control characters made visible, cut to a length."""

    file: str
    line: int
    text: str

    @classmethod
    def of(cls, rec: Record) -> Evidence:
        text = rec.text if len(rec.text) <= EVIDENCE_TEXT else rec.text[: EVIDENCE_TEXT - 3] + "..."
        return cls(visible(rec.file), rec.line, visible(text))


@dataclass(slots=True)
class Check:
    id: str
    status: str  # ok | problem | unknown
    message: str
    hint: str = ""
    evidence: list[Evidence] = field(default_factory=list)


@dataclass(slots=True)
class Verdict:
    status: str  # healthy | problem | inconclusive | no-counters
    headline: str
    checks: list[Check]
    counters: dict[str, dict]
    threshold: float
    notes: list[str] = field(default_factory=list)  # what the reader had to cut or drop, once each
    missing: list[str] = field(default_factory=list)  # run counters not found (sampled, consumed, step)

    @property
    def exit_code(self) -> int:
        return {"problem": 1, "no-counters": 2}.get(self.status, 0)

    @property
    def key(self) -> tuple:
        """What ``--follow`` compares to decide the verdict changed."""
        return (self.status, tuple((c.id, c.status) for c in self.checks))


def _fmt(n: float) -> str:
    return str(int(n)) if float(n).is_integer() else f"{n:.3g}"


def _ev(recs: list[Record]) -> list[Evidence]:
    seen: set[tuple[str, int]] = set()
    out = []
    for r in recs:
        if (r.file, r.line) not in seen:
            seen.add((r.file, r.line))
            out.append(Evidence.of(r))
    return out


HANDOFF_HINT = ("check the carrier first: the queue / pipe / connection / dump directory the sampler writes is "
                "the one the trainer reads (same object, address, path) and something drains it; then the "
                "trajectory fields the trainer expects; only then training-side filters that drop every sample")
RATIO_HINT = ("some loss is normal (in-flight items, batch leftovers); more points at filters (reward, length, "
              "dynamic sampling), dropped stale samples, or a queue that overflows or drops items")
STEPS_HINT = ("link problem: data arrives but no optimizer step follows it: check the consumed batch reaches "
              "loss.backward() and optimizer.step(), a training rank stuck in a collective, and that the step "
              "counter is logged from the training loop")
ONLINE_HINT = ("check the weight sync: the trainer sends its weights after optimizer.step(), the sampler receives "
               "and loads them (load_state_dict / engine weight update) and reports the new version")


def check_handoff(sampled: CounterView, consumed: CounterView) -> Check:
    if not sampled.present:
        return Check("handoff", "unknown", "no 'sampled' counter in the logs", HOW_TO_LOG["sampled"])
    s = sampled.total()
    if s <= 0:
        return Check("handoff", "problem", "the sampler reported 0 trajectories: nothing to hand over",
                     "check the sampling side (inference engine, environment) before the handoff",
                     _ev(sampled.last_lines()))
    if not consumed.present:
        if sampled.source.startswith("probe"):
            return Check("handoff", "problem",
                         f"handoff broken: {_fmt(s)} trajectories sampled, 0 consumed (no 'consumed' probe line: "
                         "nothing reached the trainer, or it is not instrumented, or its log was not passed)",
                         HANDOFF_HINT, _ev(sampled.first_lines(1) + sampled.last_lines()))
        return Check("handoff", "unknown", f"{_fmt(s)} trajectories sampled; no 'consumed' counter in the logs",
                     HOW_TO_LOG["consumed"], _ev(sampled.last_lines()))
    c = consumed.total()
    if c <= 0:
        return Check("handoff", "problem", f"handoff broken: {_fmt(s)} trajectories sampled, 0 consumed",
                     HANDOFF_HINT, _ev(sampled.last_lines() + consumed.last_lines()))
    return Check("handoff", "ok", f"{_fmt(s)} trajectories sampled, {_fmt(c)} consumed",
                 evidence=_ev(sampled.last_lines(1) + consumed.last_lines(1)))


def check_ratio(sampled: CounterView, consumed: CounterView, threshold: float) -> Check:
    if not (sampled.present and consumed.present):
        missing = [n for n, v in (("sampled", sampled), ("consumed", consumed)) if not v.present]
        return Check("ratio", "unknown", f"needs both 'sampled' and 'consumed' counters (no {' or '.join(missing)})",
                     HOW_TO_LOG[missing[0]])
    s, c = sampled.total(), consumed.total()
    if s <= 0 or c <= 0:
        return Check("ratio", "unknown", "nothing consumed: see the handoff check")
    ratio = c / s
    ev = _ev(sampled.last_lines(1) + consumed.last_lines(1))
    if ratio > 1:
        return Check("ratio", "ok", f"consumed/sampled = {ratio:.2f}: more consumed than sampled (reuse, several "
                     "epochs per batch, or counters in different units)", evidence=ev)
    lost = 1 - ratio
    if lost > threshold:
        return Check("ratio", "problem", f"only {ratio:.0%} of sampled trajectories were consumed "
                     f"({_fmt(s - c)} of {_fmt(s)} lost; threshold {threshold:.0%})", RATIO_HINT, ev)
    return Check("ratio", "ok", f"consumed/sampled = {ratio:.2f} ({lost:.0%} in flight or dropped, within the "
                 f"{threshold:.0%} threshold)", evidence=ev)


def check_steps(step: CounterView, consumed: CounterView) -> Check:
    if not step.present:
        if step.rejected:  # e.g. a trainer's fractional epoch: progress, but not a count of steps
            r = step.rejected[0]
            why = "fractional" if not r.integral else "going down"
            return Check("steps", "unknown", f"no training-step counter in the logs ('{visible(r.key)}' is {why}, "
                         f"e.g. {_fmt(r.last_value)}: not a count of optimizer steps)", HOW_TO_LOG["step"],
                         _ev([x for x in (r.last_rec,) if x is not None]))
        return Check("steps", "unknown", "no training-step counter in the logs", HOW_TO_LOG["step"])
    advanced = max(s.advanced() for s in step.series)
    if advanced <= 0:
        n = step.reports()
        if n < 2:
            return Check("steps", "unknown", f"one step report ({_fmt(step.series[0].first)}): too few to see it move",
                         evidence=_ev(step.last_lines(1)))
        why = " (nothing was consumed)" if consumed.present and consumed.total() <= 0 else ""
        top = max(s.hi for s in step.series)
        return Check("steps", "problem", f"training steps did not increase: step stayed at {_fmt(top)} "
                     f"over {n} report(s){why}", STEPS_HINT, _ev(step.first_lines(1) + step.last_lines(2)))
    last = max(s.last() for s in step.series)
    return Check("steps", "ok", f"training steps advanced by {advanced} (last: {_fmt(last)})",
                 evidence=_ev(step.first_lines(1) + step.last_lines(1)))


def _reported_after(version: CounterView | Series, step: CounterView, nth: int) -> bool:
    """Is a version reported, in a file that also logs steps, after the ``nth`` step there?

    A version report older than the updates says nothing about them. Probe lines carry a time,
    which orders reports across files; other reports in other files cannot be ordered against
    the steps and are taken as later.
    """
    versions = version.series if isinstance(version, CounterView) else [version]
    step_times = sorted(t for s in step.series for t in s.low_times)[:nth]
    timed = sum(s.timed for s in step.series)
    if timed >= nth and versions and all(s.all_timed and s.n for s in versions):
        return any(s.t_max is not None and s.t_max > step_times[nth - 1] for s in versions)
    step_lines: dict[str, list[int]] = {}
    step_counts: dict[str, int] = {}
    for s in step.series:
        step_lines.setdefault(s.file, []).extend(s.low_lines)
        step_counts[s.file] = step_counts.get(s.file, 0) + s.n
    for s in versions:
        if not s.n:
            continue
        lines = sorted(step_lines.get(s.file, []))
        if not lines or step_counts.get(s.file, 0) < nth or s.last_line > lines[nth - 1]:
            return True
    return False


def check_online(version: CounterView, step: CounterView) -> Check:
    if not version.present:
        return Check("online", "unknown", "the sampler reports no policy version", HOW_TO_LOG["policy_version"])
    lo, hi = min(s.lo for s in version.series), max(s.hi for s in version.series)
    updates = max((s.advanced() for s in step.series), default=0) if step.present else None
    ev = _ev(version.first_lines(1) + version.last_lines(2))
    frozen = [s for s in version.series if s.n >= 2 and s.hi == s.lo]
    if hi > lo and frozen and updates is not None and updates >= MIN_UPDATES:
        late = [s for s in frozen if _reported_after(s, step, MIN_UPDATES)]
        if late:
            streams = ", ".join(visible(s.stream.rsplit("#", 1)[-1]) for s in late[:3])
            return Check("online", "problem", f"policy version moved {_fmt(lo)} -> {_fmt(hi)} in some samplers but "
                         f"stayed at {_fmt(late[0].first)} in {len(late)} of {len(version.series)} ({streams}) "
                         f"across {updates} updates: those samplers never receive weights", ONLINE_HINT,
                         _ev([r for s in late[:2] for r in (s.first_rec, s.last_rec) if r is not None]))
    if hi > lo:
        upd = f" across {updates} update(s)" if updates else ""
        return Check("online", "ok", f"policy version moved {_fmt(lo)} -> {_fmt(hi)}{upd}: the loop is online",
                     evidence=ev)
    if updates is None:
        return Check("online", "unknown", f"policy version stayed at {_fmt(lo)}; no training step seen to compare")
    if updates < MIN_UPDATES or not _reported_after(version, step, MIN_UPDATES):
        return Check("online", "unknown", f"policy version stayed at {_fmt(lo)}, with {updates} update(s) "
                     "before its last report: too early to tell", evidence=ev)
    return Check("online", "problem", f"policy version stayed at {_fmt(lo)} across {updates} training updates: "
                 "the weights never reach the sampler, the loop is not online", ONLINE_HINT,
                 ev + _ev(step.last_lines(1)))


def summary(counters: dict[str, dict], checks: list[Check]) -> str:
    """A short line of what was verified, e.g. ``384 sampled, 320 consumed (0.83), 10 steps, version 0 -> 9``."""
    parts = []
    s, c = counters["sampled"], counters["consumed"]
    if s["present"]:
        parts.append(f"{_fmt(s['total'])} sampled")
    if c["present"]:
        ratio = f" ({c['total'] / s['total']:.2f})" if s["present"] and s["total"] else ""
        parts.append(f"{_fmt(c['total'])} consumed{ratio}")
    if counters["step"]["present"]:
        parts.append(f"{_fmt(counters['step']['total'])} steps")
    v = counters["policy_version"]
    if v["present"]:
        parts.append(f"policy version {_fmt(v['first'])} -> {_fmt(v['last'])}")
    unknown = [ch.id for ch in checks if ch.status == "unknown"]
    if unknown:
        parts.append(f"not checked: {', '.join(unknown)}")
    return ", ".join(parts)


def judge(collector: Collector, threshold: float = DEFAULT_THRESHOLD, notes: list[str] | None = None) -> Verdict:
    """The four checks and the status: healthy only when sampled, consumed and steps were all found and agree."""
    views = {name: collector.view(name) for name in ("sampled", "consumed", "step", "policy_version")}
    sampled, consumed, step, version = (views[k] for k in ("sampled", "consumed", "step", "policy_version"))
    checks = [
        check_handoff(sampled, consumed),
        check_ratio(sampled, consumed, threshold),
        check_steps(step, consumed),
        check_online(version, step),
    ]
    counters = {
        name: {"present": v.present, "total": v.total() if v.present else None, "source": visible(v.source),
               "reports": v.reports()}
        for name, v in views.items()
    }
    if version.present:
        counters["policy_version"]["total"] = None
        counters["policy_version"]["first"] = version.series[0].first
        counters["policy_version"]["last"] = version.series[-1].last_value
    if step.present:
        counters["step"]["advanced"] = max(s.advanced() for s in step.series)
        counters["step"]["total"] = max(s.last() for s in step.series)
    notes = list(notes or [])
    if collector.dropped_series:
        notes.append(f"{collector.dropped_series} report(s) of new keys or processes past {collector.max_series} per counter "
                     "were not counted")
    missing = [name for name in ("sampled", "consumed", "step") if not views[name].present]
    problems = [c for c in checks if c.status == "problem"]
    by_id = {c.id: c for c in checks}
    if problems:
        status, headline = "problem", problems[0].message
    elif not missing and all(by_id[i].status == "ok" for i in ("handoff", "ratio", "steps")):
        status = "healthy"
        headline = "healthy: " + summary(counters, checks)
    elif any(v.present for v in views.values()) or step.rejected:
        status, headline = "inconclusive", inconclusive_headline(counters, checks, missing, step)
    else:
        status, headline = "no-counters", "no run counter found"
    return Verdict(status, headline, checks, counters, threshold, notes, missing)


def inconclusive_headline(counters: dict[str, dict], checks: list[Check], missing: list[str],
                          step: CounterView) -> str:
    """What was found, what is missing and how to log it; or which check had too little to judge."""
    found = summary(counters, [])
    if missing:
        names = " or ".join(f"'{m}'" for m in missing) if len(missing) < 3 else "'sampled', 'consumed' or 'step'"
        how = "; ".join(HOW_TO_LOG[m].split(", or pass")[0] for m in missing)
        rejected = ""
        if "step" in missing and step.rejected:
            r = step.rejected[0]
            rejected = f"; '{visible(r.key)}' ({_fmt(r.last_value)}) is progress, not a count of optimizer steps"
        return (f"inconclusive: no {names} counter found, so the run could not be verified"
                f"{' (found: ' + found + ')' if found else ''}{rejected}; {how} (README: 'Verify a run')")
    unknown = [c for c in checks if c.status == "unknown" and c.id != "online"]
    detail = "; ".join(f"{c.id}: {c.message}" for c in unknown) or "too few reports to judge"
    return f"inconclusive: {found}; {detail}"

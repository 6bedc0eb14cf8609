"""The checks, in the order an engineer debugging an online RL run goes through them.

1. handoff: trajectories were sampled but none consumed -> the handoff is broken.
2. ratio:   sampled > consumed -> expected loss (batching, filtering, in flight), flagged past a threshold.
3. steps:   training steps do not increase -> the link from consumed data to the optimizer is broken.
4. online:  the sampler's policy version does not change across updates -> the loop is not online.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .counters import Collector, CounterView, Series
from .reader import Record

DEFAULT_THRESHOLD = 0.5  # flag when more than half of the sampled trajectories were never consumed
MIN_UPDATES = 2  # updates needed before a frozen policy version is a problem
EVIDENCE_TEXT = 160


@dataclass(frozen=True, slots=True)
class Evidence:
    file: str
    line: int
    text: str

    @classmethod
    def of(cls, rec: Record) -> Evidence:
        text = rec.text if len(rec.text) <= EVIDENCE_TEXT else rec.text[: EVIDENCE_TEXT - 3] + "..."
        return cls(rec.file, rec.line, text)


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
        return Check("handoff", "unknown", "no 'sampled' counter in the logs",
                     "call probe.sampled(n) where the sampler hands trajectories over, or pass --pattern sampled=REGEX")
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
                     "call probe.consumed(n) where the trainer takes trajectories, or pass --pattern consumed=REGEX",
                     _ev(sampled.last_lines()))
    c = consumed.total()
    if c <= 0:
        return Check("handoff", "problem", f"handoff broken: {_fmt(s)} trajectories sampled, 0 consumed",
                     HANDOFF_HINT, _ev(sampled.last_lines() + consumed.last_lines()))
    return Check("handoff", "ok", f"{_fmt(s)} trajectories sampled, {_fmt(c)} consumed",
                 evidence=_ev(sampled.last_lines(1) + consumed.last_lines(1)))


def check_ratio(sampled: CounterView, consumed: CounterView, threshold: float) -> Check:
    if not (sampled.present and consumed.present):
        return Check("ratio", "unknown", "needs both 'sampled' and 'consumed' counters")
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
        return Check("steps", "unknown", "no training-step counter in the logs",
                     "call probe.step() after optimizer.step(), or pass --pattern step=REGEX")
    advanced = max(s.advanced() for s in step.series)
    if advanced <= 0:
        vals = [v for s in step.series for v in s.values]
        if len(vals) < 2:
            return Check("steps", "unknown", f"one step report ({_fmt(vals[0])}): too few to see it move",
                         evidence=_ev(step.last_lines(1)))
        why = " (nothing was consumed)" if consumed.present and consumed.total() <= 0 else ""
        return Check("steps", "problem", f"training steps did not increase: step stayed at {_fmt(max(vals))} "
                     f"over {len(vals)} report(s){why}", STEPS_HINT, _ev(step.first_lines(1) + step.last_lines(2)))
    last = max(s.last() for s in step.series)
    return Check("steps", "ok", f"training steps advanced by {advanced} (last: {_fmt(last)})",
                 evidence=_ev(step.first_lines(1) + step.last_lines(1)))


def _reported_after(version: CounterView | Series, step: CounterView, nth: int) -> bool:
    """Is a version reported, in a file that also logs steps, after the ``nth`` step there?

    A version report older than the updates says nothing about them. Probe lines carry a time,
    which orders reports across files; other reports in other files cannot be ordered against
    the steps and are taken as later.
    """
    step_times = sorted(o.record.t for s in step.series for o in s.obs if o.record.t is not None)
    version_obs = [o for s in (version.series if isinstance(version, CounterView) else [version]) for o in s.obs]
    if len(step_times) >= nth and version_obs and all(o.record.t is not None for o in version_obs):
        return any(o.record.t > step_times[nth - 1] for o in version_obs)  # type: ignore[operator]
    step_lines: dict[str, list[int]] = {}
    for s in step.series:
        for o in s.obs:
            step_lines.setdefault(o.record.file, []).append(o.record.line)
    for s in (version.series if isinstance(version, CounterView) else [version]):
        for o in s.obs:
            lines = sorted(step_lines.get(o.record.file, []))
            if not lines or len(lines) < nth or o.record.line > lines[nth - 1]:
                return True
    return False


def check_online(version: CounterView, step: CounterView) -> Check:
    if not version.present:
        return Check("online", "unknown", "the sampler reports no policy version",
                     "call probe.policy_version(v) in the sampler with the version of the weights it uses, "
                     "or pass --pattern policy_version=REGEX")
    vals = [v for s in version.series for v in s.values]
    lo, hi = min(vals), max(vals)
    updates = max((s.advanced() for s in step.series), default=0) if step.present else None
    ev = _ev(version.first_lines(1) + version.last_lines(2))
    frozen = [s for s in version.series if len(s.obs) >= 2 and max(s.values) == min(s.values)]
    if hi > lo and frozen and updates is not None and updates >= MIN_UPDATES:
        late = [s for s in frozen if _reported_after(s, step, MIN_UPDATES)]
        if late:
            streams = ", ".join(s.stream.rsplit("#", 1)[-1] for s in late[:3])
            return Check("online", "problem", f"policy version moved {_fmt(lo)} -> {_fmt(hi)} in some samplers but "
                         f"stayed at {_fmt(late[0].values[0])} in {len(late)} of {len(version.series)} ({streams}) "
                         f"across {updates} updates: those samplers never receive weights", ONLINE_HINT,
                         _ev([s.obs[0].record for s in late[:2]] + [s.obs[-1].record for s in late[:2]]))
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


def judge(collector: Collector, threshold: float = DEFAULT_THRESHOLD) -> Verdict:
    views = {name: collector.view(name) for name in ("sampled", "consumed", "step", "policy_version")}
    sampled, consumed, step, version = (views[k] for k in ("sampled", "consumed", "step", "policy_version"))
    checks = [
        check_handoff(sampled, consumed),
        check_ratio(sampled, consumed, threshold),
        check_steps(step, consumed),
        check_online(version, step),
    ]
    counters = {
        name: {"present": v.present, "total": v.total() if v.present else None, "source": v.source,
               "reports": sum(len(s.obs) for s in v.series)}
        for name, v in views.items()
    }
    if version.present:
        vals = [x for s in version.series for x in s.values]
        counters["policy_version"]["total"] = None
        counters["policy_version"]["first"] = vals[0]
        counters["policy_version"]["last"] = vals[-1]
    if step.present:
        counters["step"]["advanced"] = max(s.advanced() for s in step.series)
        counters["step"]["total"] = max(s.last() for s in step.series)
    problems = [c for c in checks if c.status == "problem"]
    if problems:
        status, headline = "problem", problems[0].message
    elif any(c.status == "ok" for c in checks):
        status = "healthy"
        headline = "healthy: " + summary(counters, checks)
    elif any(v.present for v in views.values()):
        status, headline = "inconclusive", "inconclusive: counters found, but too few to judge"
    else:
        status, headline = "no-counters", "no run counter found"
    return Verdict(status, headline, checks, counters, threshold)

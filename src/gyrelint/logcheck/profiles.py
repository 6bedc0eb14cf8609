"""Which keys or line patterns count as each of the four run counters.

A rule matches either a record key (full match, case-insensitive) or a raw line (search). Its
mode says how to read the number: ``total`` (a cumulative count; the last value per stream
counts), ``delta`` (an increment; increments add up), ``value`` (a gauge such as a version). A line
regex without a capture group counts one event per matching line.

Key names come from what the frameworks' trainers log (read from their released wheels):
cumulative generated/processed sample counts, ``global_step`` and ``step`` prefixes, a
``*param_version`` gauge in asynchronous trainers, per-step sample counts, dict-style trainer
logs whose ``epoch`` advances at every logging step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..model import COUNTER_ALIASES as ALIASES
from ..model import COUNTER_MODES as MODES
from ..model import COUNTERS

USER_PRECEDENCE = 2  # user patterns: above the profiles' key names, below probe lines (3)


class PatternError(ValueError):
    """A user pattern that cannot be used (bad counter name, bad regex)."""


@dataclass(frozen=True, slots=True)
class Rule:
    counter: str
    mode: str
    source: str  # "profile:<name>", "pattern", "pyproject"
    key: re.Pattern[str] | None = None
    line: re.Pattern[str] | None = None
    needles: tuple[str, ...] = ()  # lowercase words one of which a line must hold before the regex runs
    origin: str = ""  # where a user pattern came from, for messages ("--pattern sampled", "pyproject.toml: ...")

    @property
    def precedence(self) -> int:
        """Higher wins when several sources report the same counter (probe lines are 3)."""
        return USER_PRECEDENCE if self.source in ("pattern", "pyproject") else 1


def _k(counter: str, mode: str, profile: str, regex: str) -> Rule:
    return Rule(counter, mode, f"profile:{profile}", key=re.compile(regex, re.I))


def _l(counter: str, mode: str, profile: str, regex: str, needles: tuple[str, ...]) -> Rule:
    return Rule(counter, mode, f"profile:{profile}", line=re.compile(regex, re.I), needles=needles)


_ITEMS = r"(?:samples|trajectories|trajs|rollouts|episodes|sequences|experiences|responses|completions)"
_TRAIN_PREFIX = r"(?:(?:train|training|trainer)/)?"

GENERIC = (
    # cumulative counts under any namespace: total_generated_samples, num_sampled, rollouts_total ...
    _k("sampled", "total", "generic",
       rf"(?:.*/)?(?:total_|num_|n_)?(?:sampled|generated|produced)(?:_{_ITEMS})?(?:_total|_count)?"),
    _k("sampled", "total", "generic", rf"(?:.*/)?(?:total_|num_)?{_ITEMS}_(?:sampled|generated|produced)(?:_total)?"),
    _k("consumed", "total", "generic",
       rf"(?:.*/)?(?:total_|num_|n_)?(?:consumed|trained|processed)(?:_{_ITEMS})?(?:_total|_count)?"),
    _k("consumed", "total", "generic", rf"(?:.*/)?(?:total_|num_)?{_ITEMS}_(?:consumed|trained|processed)(?:_total)?"),
    _k("consumed", "delta", "generic", rf"(?:.*/)?{_ITEMS}_per_(?:step|update|batch)"),
    _k("step", "total", "generic",
       _TRAIN_PREFIX + r"(?:global_step|step|steps|train_step|training_step|update_step|optimizer_step|"
       r"num_updates|updates|iteration|iter|total_step)"),
    _k("policy_version", "value", "generic",
       r"(?:.*/)?(?:current_|latest_)?(?:policy|param|params|model|weight|weights)_version"),
    # "Train step 5/300 done.", "training step 12"
    _l("step", "total", "generic", r"\btrain(?:ing)?[ _]step\s*(?:[:=]\s*)?(\d+)\b", ("train step", "training step",
                                                                                  "train_step", "training_step")),
    # plain sentences: "sampled 8 trajectories", "trained on 32 samples"
    _l("sampled", "delta", "generic", rf"\b(?:sampled|generated|produced|rolled out)\s+(\d+)\s+{_ITEMS}\b",
       ("sampled", "generated", "produced", "rolled out")),
    _l("consumed", "delta", "generic", rf"\b(?:consumed|trained on|received|dequeued)\s+(\d+)\s+{_ITEMS}\b",
       ("consumed", "trained on", "received", "dequeued")),
)

VERL_LIKE = (
    _k("step", "total", "verl-like", r"step|training/global_step"),
    _k("sampled", "total", "verl-like", r"(?:fully_async/)?count/total_generated_samples"),
    _k("policy_version", "value", "verl-like", r"(?:fully_async/)?count/current_param_version|.*/param_version"),
)

OPENRLHF_LIKE = (
    _k("step", "total", "openrlhf-like", r"global_step|train/global_step"),
    _k("sampled", "total", "openrlhf-like", r"total_consumed_prompts"),  # prompts drawn by the generator
)

TRL_LIKE = (
    _k("step", "total", "trl-like", r"step|global_step"),
    _k("step", "value", "trl-like", r"epoch"),  # dict logs without a step: epoch advances each log
    _k("consumed", "delta", "trl-like", r"batch/samples_per_step"),
    _k("policy_version", "value", "trl-like", r"(?:sample/)?model_version"),  # the version each sample carries
)

AREAL_LIKE = (
    # "Finish and accept rollout. enqueued: 12, running: 4, accepted: 8, rejected: 0." Anchored at the first
    # "rollout": searching ".*accepted" from every "rollout" of a crafted line would be quadratic.
    _l("sampled", "total", "areal-like", r"^(?:(?!\brollouts?\b).)*\brollouts?\b.*\baccepted:\s*(\d+)", ("accepted",)),
    # stats tables: "<scope>/n_seqs" is a summed denominator, the sequences trained in the step
    _k("consumed", "delta", "areal-like", r"(?:.*/)?n_seqs"),
)

PROFILES: dict[str, tuple[Rule, ...]] = {
    "probe": (),  # probe lines are always read; this profile reads nothing else
    "generic": GENERIC,
    "verl-like": VERL_LIKE + GENERIC,
    "openrlhf-like": OPENRLHF_LIKE + GENERIC,
    "trl-like": TRL_LIKE + GENERIC,
    "areal-like": AREAL_LIKE + GENERIC,
}
PROFILES["auto"] = tuple(dict.fromkeys(VERL_LIKE + OPENRLHF_LIKE + TRL_LIKE + AREAL_LIKE + GENERIC))
DEFAULT_PROFILE = "auto"


def counter_name(name: str) -> str:
    n = name.strip().lower().replace("-", "_")
    n = ALIASES.get(n, n)
    if n not in COUNTERS:
        raise PatternError(f"unknown counter {name!r}; use one of {', '.join(COUNTERS)}")
    return n


def user_rule(counter: str, regex: str, source: str, mode: str | None = None, origin: str = "") -> Rule:
    """A line rule from ``--pattern`` or ``[tool.gyrelint.counters]``.

    Without a capture group each matching line counts 1; with one, its number is a running
    total (``value`` for the policy version) unless ``mode`` says ``delta``. It runs in the
    time-bounded matcher (:mod:`.usermatch`), never in this process.
    """
    name = counter_name(counter)
    try:
        rx = re.compile(regex)
    except re.error as exc:
        raise PatternError(f"invalid regex for {name}: {regex!r} ({exc})") from None
    if mode is not None and mode not in MODES:
        raise PatternError(f"invalid mode {mode!r} for {name}; use one of {', '.join(MODES)}")
    if rx.groups == 0:
        mode = "delta"
    elif mode is None:
        mode = "value" if name == "policy_version" else "total"
    return Rule(name, mode, source, line=rx, origin=origin or f"{source} {name}")


def parse_cli_pattern(spec: str) -> Rule:
    """``counter=REGEX`` (a running total) or ``counter+=REGEX`` (an increment)."""
    name, sep, regex = spec.partition("=")
    if not sep or not regex:
        raise PatternError(f"--pattern expects COUNTER=REGEX, got {spec!r}")
    mode = None
    if name.endswith("+"):
        name, mode = name[:-1], "delta"
    return user_rule(name, regex, "pattern", mode, origin=f"--pattern {name.strip()}")


def rules_from_settings(counters: dict[str, Any], file: str = "pyproject.toml") -> list[Rule]:
    """``[tool.gyrelint.counters]``: ``name = "regex"``, a list of them, or ``{pattern=..., mode=...}``."""
    rules: list[Rule] = []
    for name, spec in counters.items():
        items = spec if isinstance(spec, list) else [spec]
        origin = f"{file}: [tool.gyrelint.counters] {name}"
        for item in items:
            if isinstance(item, str):
                rules.append(user_rule(name, item, "pyproject", origin=origin))
            elif isinstance(item, dict) and isinstance(item.get("pattern"), str):
                mode = item.get("mode")
                rules.append(user_rule(name, item["pattern"], "pyproject", mode if isinstance(mode, str) else None,
                                       origin=origin))
            else:
                raise PatternError(f"[tool.gyrelint.counters] {name}: expected a regex string, a list of them, "
                                   "or a table with 'pattern' (and 'mode')")
    return rules


def profile_rules(name: str) -> tuple[Rule, ...]:
    if name not in PROFILES:
        raise PatternError(f"unknown profile {name!r}; use one of {', '.join(sorted(PROFILES))}")
    return PROFILES[name]

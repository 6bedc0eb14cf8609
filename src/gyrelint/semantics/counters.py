"""Which run counters are logged: samples produced, samples consumed, training steps, policy version.

A run can be verified only if it reports these; we look for logging calls
(``wandb.log``, ``logger.log_metrics``, ``writer.add_scalar``, ``tracker.log``...) and
the metric keys near them (literal arguments, dict-literal keys and metric-dict
writes in the same function).
"""

from __future__ import annotations

import re

from ..index import Index
from ..model import COUNTERS, Counters, CounterUse

__all__ = ["COUNTERS", "CounterUse", "Counters", "logged_counters"]

_PRINT_METHODS = frozenset({"print", "info", "warning", "debug", "write"})
_PROBE_RECEIVER = re.compile(r"probe|metric|counter|tracker|stats|monitor|telemetry", re.I)
_LOG_METHODS = frozenset({"log", "log_metrics", "log_dict", "add_scalar", "add_scalars", "log_metric",
                          "log_scalar", "log_scalars", "log_stats", "update_metrics", "record"})
_PATTERNS: dict[str, re.Pattern[str]] = {
    "sampled": re.compile(r"(num|n|total|count)_?(samples|rollouts|trajector\w*|episodes|generated|generations|"
                          r"completions|sequences)|(samples|rollouts|trajector\w*|episodes|completions)_?"
                          r"(sampled|generated|collected|produced|seen|count|total)|rollout/\w*(count|num|samples)|"
                          r"sampled|generated_tokens|num_gen", re.I),
    "consumed": re.compile(r"consum|(samples|tokens|trajector\w*)_?(trained|used)|trained_(samples|on|tokens)|"
                           r"num_train(ed)?_(samples|tokens)|train/(num_)?samples", re.I),
    "step": re.compile(r"global_step|(train|training|optim|optimizer|update|gradient)_?steps?\b|num_updates|"
                        r"(^|/|_)steps?$|(^|/)iteration|epoch_step|\bstep\s*[=:]", re.I),
    "policy_version": re.compile(r"(policy|weight|weights|model|param|params|actor)_?version|staleness|"
                                 r"(^|/|_)version$", re.I),
}


def _logging_scopes(index: Index) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for s in index.summaries.values():
        for c in s.calls:
            attr = c.func.rsplit(".", 1)[-1]
            if attr in _LOG_METHODS and (c.args or c.kwargs or c.star_args):
                head = c.func.split(".", 1)[0]
                if attr == "log" and head in ("math", "np", "numpy", "torch", "jnp") or c.func.endswith("logger.log"):
                    continue
                out.setdefault(s.path, set()).add(c.scope)
    return out


def _probe_and_print_keys(s) -> list[tuple[str, int]]:
    """Counter calls on a probe/metrics object (``probe.sampled(n)``) and printed ``step=`` lines."""
    out: list[tuple[str, int]] = []
    for c in s.calls:
        recv, _, attr = c.func.rpartition(".")
        if recv and _PROBE_RECEIVER.search(recv.rsplit(".", 1)[-1]) and attr not in _LOG_METHODS:
            out.append((attr, c.line))
        elif attr in _PRINT_METHODS or c.func == "print":
            out += [(a.value, c.line) for a in c.args if a.kind == "lit" and isinstance(a.value, str)
                    and "=" in a.value]
    return out


def logged_counters(index: Index) -> Counters:
    """Counter keys found in functions that log metrics (the analysis keeps them: ``Analysis.counters``)."""
    found: dict[str, list[CounterUse]] = {}
    scopes = _logging_scopes(index)
    seen: set[tuple[str, str]] = set()
    for s in index.summaries.values():
        if index.out_of_scope(s.path):  # a test that prints step= is not the run's counter
            continue
        wanted = scopes.get(s.path, set())
        keys: list[tuple[str, int]] = []
        keys += [(x.key, x.line) for x in s.subscripts if x.scope in wanted and x.mode == "write"]
        keys += [(st.value, st.line) for st in s.strings if st.scope in wanted and len(st.value) <= 80
                 and " " not in st.value]
        for c in s.calls:
            if c.scope in wanted and c.func.rsplit(".", 1)[-1] in _LOG_METHODS:
                keys += [(a.value, c.line) for a in c.args if a.kind == "lit" and isinstance(a.value, str)]
        keys += _probe_and_print_keys(s)
        for key, line in keys:
            if name_ok := len(key) <= 120:
                pass
            for name, rx in _PATTERNS.items() if name_ok else ():
                if rx.search(key) and (name, key) not in seen:
                    seen.add((name, key))
                    found.setdefault(name, []).append(CounterUse(key, s.path, line))
    return Counters({name: tuple(sorted(found[name], key=lambda u: (u.file, u.line)))
                     for name in COUNTERS if name in found})

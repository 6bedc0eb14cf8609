"""Where a producer's dict literal goes: a trajectory record, or settings and headers for a library.

Sampling code writes many dicts that never reach the trainer: engine keyword arguments
(``LLM(**{"tensor_parallel_size": 2})``), HTTP headers, a Ray ``runtime_env`` with its
environment variables, metric dicts handed to a logger. Their keys are no trajectory fields,
and listing them buries the few that are. A literal's keys stay in the field contract when the
literal moves on (returned, yielded, stored, passed to a repo function); they leave it when the
literal only goes into a keyword argument that names settings, under a key that does, or into a
local whose name says it holds settings. (Not every library call is a sink: ``TensorDict({...})``
builds the very batch the trainer reads.)
"""

from __future__ import annotations

from collections.abc import Iterator

from ..index import Index
from ..index.summary import Flow
from .facts import FnFacts

# keyword arguments and locals that carry settings, headers or environment, never a trajectory
_SETTINGS_NAMES = frozenset({
    "env", "env_vars", "environ", "environment", "runtime_env", "headers", "extra_headers", "cookies",
    "config", "cfg", "conf", "options", "opts", "settings", "args", "kwargs", "engine_kwargs", "engine_args",
    "sampling_params", "generation_config", "generation_kwargs", "gen_kwargs", "extra_body", "params",
    "metrics", "stats", "timing", "timings", "log", "logs", "tags", "hparams", "overrides",
})
_SETTINGS_SUFFIXES = ("_config", "_cfg", "_args", "_kwargs", "_conf", "_options", "_env", "_headers", "_metrics",
                      "_params", "_overrides")
_MAX_DEPTH = 30


def settings_name(name: str) -> bool:
    low = name.lower()
    return low in _SETTINGS_NAMES or low.endswith(_SETTINGS_SUFFIXES)


def _dict_keys(e: object, depth: int = 0) -> Iterator[tuple[str, bool]]:
    """Keys of every dict literal inside ``e``; each with whether it sits under a settings-named key
    (``{"runtime_env": {"env_vars": {...}}}``: the inner keys are settings)."""
    yield from _keys(e, depth, False)


def _keys(e: object, depth: int, under: bool) -> Iterator[tuple[str, bool]]:
    if depth > _MAX_DEPTH or type(e) is not tuple or not e or e[0] == "c":
        return  # a call inside is a call site of its own: its arguments are judged there
    if e[0] == "d" and len(e) == 3 and type(e[2]) is tuple:
        for item in e[2]:
            if type(item) is not tuple or len(item) != 2:
                continue
            k, v = item
            name = k[1] if type(k) is tuple and len(k) == 2 and k[0] == "k" and isinstance(k[1], str) else None
            if name is not None:
                yield name, under
            yield from _keys(v, depth + 1, under or (name is not None and settings_name(name)))
        return
    for x in e[1:]:
        if type(x) is tuple:
            yield from _keys(x, depth + 1, under)


def _call_parts(expr: object) -> tuple[list[object], list[tuple[str, object]]]:
    if type(expr) is tuple and len(expr) == 4 and expr[0] == "c":
        args = [a[1] if type(a) is tuple and a[:1] == ("*",) and len(a) == 2 else a for a in expr[2]]
        kwargs = [kv for kv in expr[3] if type(kv) is tuple and len(kv) == 2]
        return args, kwargs
    return [], []


def unmoved_keys(fn: FnFacts, flows: list[Flow]) -> frozenset[str]:
    """Dict-literal keys of ``fn`` that only go to settings: a settings-named keyword, key or
    local. A key that also sits in a literal that moves on is kept."""
    settings: set[str] = set()
    moved: set[str] = set()
    for c in fn.calls:
        args, kwargs = _call_parts(c.site.expr)
        for a in args:
            for k, under in _dict_keys(a):
                (settings if under else moved).add(k)
        for name, v in kwargs:
            named = name != "**" and settings_name(name)
            for k, under in _dict_keys(v):
                (settings if named or under else moved).add(k)
    for f in flows:
        if f.op in ("ret", "yield", "yieldfrom"):
            moved.update(k for k, under in _dict_keys(f.value) if not under)
            settings.update(k for k, under in _dict_keys(f.value) if under)
        elif f.op == "=":
            t = f.target
            named = type(t) is tuple and len(t) == 2 and t[0] == "n" and isinstance(t[1], str) and settings_name(t[1])
            for k, under in _dict_keys(f.value):
                (settings if named or under else moved).add(k)
    return frozenset(settings - moved)


def flows_by_scope(index: Index) -> dict[tuple[str, str], list[Flow]]:
    """A file's value-flow facts grouped by scope, for the producers' literals."""
    out: dict[tuple[str, str], list[Flow]] = {}
    for path, s in index.summaries.items():
        for f in s.flows:
            if f.op in ("=", "ret", "yield", "yieldfrom"):
                out.setdefault((path, f.scope), []).append(f)
    return out

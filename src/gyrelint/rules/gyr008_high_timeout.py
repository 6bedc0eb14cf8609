"""GYR008: handoff timeouts or retries set very high."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..graphs.symbols import SymbolTable
from ..index.summary import Arg, CallSite, FileSummary
from ..model import Finding, Location, Severity, Side
from .base import Example, Rule, RuleContext, tokens
from .timeout_handoffs import Queues, describe, off_the_loop, out_of_scope
from .timeout_values import ValueFinder, key_unit, topology_key_values

TIMEOUT_LIMIT = 1800.0  # seconds (torch's historical default); [tool.gyrelint.thresholds] timeout overrides
RETRIES_LIMIT = 20  # [tool.gyrelint.thresholds] retries overrides; logged retries are never flagged

# callees whose calls carry data or weights between processes
_TRANSPORT_HEADS = {
    "ray", "zmq", "requests", "aiohttp", "httpx", "urllib", "socket", "grpc", "queue", "multiprocessing", "mp",
    "redis",
}
_TRANSPORT_ATTRS = {
    "get", "put", "wait", "recv", "send", "post", "request", "ClientTimeout", "Timeout", "connect", "poll",
    "result", "join", "get_nowait", "recv_pyobj", "send_pyobj", "urlopen",
}
_DOC_SUFFIXES = (".md", ".rst", ".txt", ".markdown", ".adoc")
_LOG_CALLS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "print"}
_HANDOFF_WORDS = {
    "nccl", "dist", "distributed", "rollout", "engine", "sync", "weight", "weights", "server", "ray", "rpc", "http",
    "request", "vllm", "sglang", "zmq", "queue", "generate", "generation", "collective", "broadcast", "actor",
    "worker", "inference", "sampler", "client", "handoff", "transfer", "connect", "connection", "gloo",
    "process", "group", "init", "router", "gen", "update",
}


def unit_scale(name: str) -> float | None:
    """Seconds per unit for a timeout-like name, None if the name is not a timeout."""
    toks = tokens(name)
    if "timeout" not in toks and "timeouts" not in toks:
        return None
    last = toks[-1]
    if last in ("ms", "millis", "milliseconds"):
        return 0.001
    if last in ("min", "mins", "minute", "minutes"):
        return 60.0
    if last in ("h", "hour", "hours"):
        return 3600.0
    return 1.0


def is_retries(name: str) -> bool:
    toks = tokens(name)
    return bool(toks) and (toks[-1] in ("retries", "retry", "attempts") or toks[:2] in (["max", "retries"],
                                                                                          ["num", "retries"]))


def _num(v: object) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        if isinstance(v, str):
            try:
                return float(v)
            except ValueError:
                return None
        return None
    return float(v)


def _timedelta_seconds(call: CallSite) -> float | None:
    total = 0.0
    scales = {"weeks": 604800, "days": 86400, "hours": 3600, "minutes": 60, "seconds": 1, "milliseconds": 0.001}
    if call.args:
        n = _num(call.args[0].value) if call.args[0].kind == "lit" else None
        if n is None:
            return None
        total += n * 86400
    for k, a in call.kwargs:
        n = _num(a.value) if a.kind == "lit" else None
        if k not in scales or n is None:
            return None
        total += n * scales[k]
    return total


def constant(symbols: SymbolTable | None, s: FileSummary, name: str) -> tuple[FileSummary, int, Arg] | None:
    """A module-level constant ``NAME = <literal or timedelta(...)>`` in this file or, with the
    symbol table, the module it was imported from (relative imports and re-exports followed)."""
    for a in s.assignments:
        if a.scope == "<module>" and a.target == name and not a.augmented:
            kind = a.value_kind if a.value_kind in ("lit", "call") else "other"
            return s, a.line, Arg(kind, a.value, a.line)
    if symbols is None or "." in name:
        return None
    b = symbols.binding(s.module, "<module>", name)
    target = symbols.imported(s.module, "<module>", name) if b is not None and b.imported is not None else None
    mod, _, attr = (target or "").rpartition(".")
    other = symbols.modules.get(mod)
    return constant(None, other, attr) if other is not None and other is not s else None


def arg_seconds(s: FileSummary, arg: Arg, scale: float, line: int) -> float | None:
    """A timeout argument in seconds: a literal, or ``timedelta(...)`` on the same line."""
    if arg.kind == "lit":
        n = _num(arg.value)
        return None if n is None or n <= 0 else n * scale
    if arg.kind == "call" and isinstance(arg.value, str) and arg.value.rsplit(".", 1)[-1] == "timedelta":
        # the timedelta(...) call sits on the call's first line or a few lines below (multi-line calls)
        near = [c for c in s.calls if c.attr == "timedelta" and line <= c.line <= line + 12]
        if near:
            return _timedelta_seconds(min(near, key=lambda c: c.line))
    return None


_TD_SCALES = {"weeks": 604800.0, "days": 86400.0, "hours": 3600.0, "minutes": 60.0, "seconds": 1.0,
              "milliseconds": 0.001}
_WAITS = {"get", "get_nowait", "put", "put_nowait", "Timeout", "ClientTimeout"}
_VALUE = "\0value\0"  # where a message puts the judged value (repo text never holds a NUL)
_INFINITE = {"math.inf", "numpy.inf", "np.inf", "torch.inf", "float('inf')", 'float("inf")'}


def _shown(secs: float) -> str:
    return f"{secs:.0f} s" if secs < 7200 else f"{secs / 3600:.1f} h"


def _kwarg_expr(call: CallSite, name: str) -> object:
    """The expression tree of one keyword argument (None when the index kept no tree)."""
    expr = call.expr
    if not isinstance(expr, tuple) or len(expr) < 4 or not isinstance(expr[3], tuple):
        return None
    return next((v for k, v in expr[3] if k == name), None)


def _pos_expr(call: CallSite, i: int) -> object:
    expr = call.expr
    if not isinstance(expr, tuple) or len(expr) < 3 or not isinstance(expr[2], tuple) or len(expr[2]) <= i:
        return None
    return expr[2][i]


def _is_timedelta(a: Arg) -> bool:
    return a.kind == "call" and isinstance(a.value, str) and a.value.rsplit(".", 1)[-1] == "timedelta"


def _is_timedelta_expr(expr: object) -> bool:
    return isinstance(expr, tuple) and len(expr) >= 4 and expr[0] == "c" and isinstance(expr[1], tuple) \
        and expr[1][-1] == "timedelta" and isinstance(expr[3], tuple)


def _unbounded(a: Arg, expr: object) -> bool:
    """``None``, ``math.inf`` or ``float("inf")``: a wait with no deadline."""
    if a.kind == "lit":
        return a.value is None or (isinstance(a.value, float) and a.value == float("inf"))
    if a.kind == "name":
        return a.value in _INFINITE
    if a.kind == "call" and a.value == "float" and isinstance(expr, tuple) and len(expr) >= 3:
        args = expr[2]
        return bool(args) and isinstance(args[0], tuple) and args[0][:1] == ("k",) and \
            str(args[0][1]).strip().lower() in ("inf", "infinity", "+inf")
    return False


_BAD = """\
import datetime

import torch.distributed as dist


def init_weight_sync_group(master_address, master_port, rank, world_size):
    return dist.init_process_group(
        backend="nccl",
        init_method=f"tcp://{master_address}:{master_port}",
        rank=rank,
        world_size=world_size,
        timeout=datetime.timedelta(hours=10),  # hides a dead peer for ten hours
    )
"""

_GOOD = """\
import datetime
import logging

import torch.distributed as dist

log = logging.getLogger(__name__)


def init_weight_sync_group(master_address, master_port, rank, world_size):
    log.info("joining weight-sync group at %s:%s as rank %d/%d", master_address, master_port, rank, world_size)
    return dist.init_process_group(
        backend="nccl",
        init_method=f"tcp://{master_address}:{master_port}",
        rank=rank,
        world_size=world_size,
        timeout=datetime.timedelta(minutes=10),
    )
"""


_BAD_YAML = """\
weight_sync:
  push_timeout_s: 36000   # ten hours
"""

_GOOD_YAML = """\
weight_sync:
  push_timeout_s: 120
"""

_PUSH = """\
import requests
import yaml

with open("configs/sync.yaml") as f:
    CFG = yaml.safe_load(f)


def update_weights_from_disk(server_url, path):
    sync = CFG["weight_sync"]
    return requests.post(f"{server_url}/update_weights_from_disk", json={"model_path": path},
                         timeout=sync["push_timeout_s"])
"""


class HighTimeout(Rule):
    id = "GYR008"
    name = "handoff-timeout-too-high"
    severity = Severity.WARNING
    summary = "A handoff timeout or retry count is set very high."
    rationale = ("A timeout of hours or dozens of retries on the handoff does not fix a broken carrier, it hides "
                 "it: the run hangs silently instead of failing where the link broke. Handoff faults are fixed "
                 "by checking the carrier (address, group, queue) and the fields, not by waiting longer. The "
                 "value is judged where it is set: at the call, in a module constant, in a key of the YAML/TOML/"
                 "JSON config the code reads, in a dataclass field or a command-line default (reported at that "
                 "line, the call as evidence). A handoff wait with no deadline at all (`timeout=None`, "
                 "`Timeout(None)`, `float(\"inf\")`, a bare `get()` on a cross-process handoff queue) is reported "
                 "too; test files are not.")
    fix = ("Check the handoff carrier and fields first (the producer's put reaching the queue, every rank "
           "joining the same group, the server being up); keep the timeout/retries near their defaults and log "
           "each retry so a broken link fails fast.")
    bad = (Example({"sync.py": _BAD}, "a ten-hour timeout on the weight-sync group"),
           Example({"configs/sync.yaml": _BAD_YAML, "push.py": _PUSH},
                   "a ten-hour weight push set in the YAML the code reads: reported at the YAML line"))
    good = (Example({"sync.py": _GOOD}, "a bounded timeout and a logged join"),
            Example({"configs/sync.yaml": _GOOD_YAML, "push.py": _PUSH}, "two minutes for one weight push"))
    tags = ("handoff", "topology")

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        limits = ctx.analysis.settings.thresholds if ctx.analysis.settings else None
        t_limit = (limits and limits.timeout) or TIMEOUT_LIMIT
        r_limit = (limits and limits.retries) or RETRIES_LIMIT
        seen: set[tuple[str, int, str]] = set()

        def judge(name: str, value: float | None, where: Location, key: str, note: str,
                  logs: bool = False, scale: float | None = None, evidence: tuple[Location, ...] = (),
                  fix: str | None = None, same_as: str | None = None) -> Finding | None:
            leaf = (same_as or name).rsplit(".", 1)[-1].lstrip("-").replace("-", "_").lower()  # one finding per setting
            ident = (where.file, where.line, leaf)
            if value is None or ident in seen:
                return None
            scale = unit_scale(name) if scale is None else scale
            if scale is not None:
                secs = value * scale
                if secs <= t_limit:
                    return None
                seen.add(ident)
                over = f"{_shown(secs)} (over {t_limit:.0f} s)"
                said = note.replace(_VALUE, over) if _VALUE in note else f"{note} `{name}` is {over}"
                return self.finding(f"{said}: a long wait masks a broken handoff instead of failing where it broke",
                                    where, key,
                                    evidence=(where, *evidence) if evidence else (), fix=fix)
            if is_retries(name) and value > r_limit and not logs:
                seen.add(ident)
                over = f"{value:.0f} (over {r_limit:.0f})"
                said = note.replace(_VALUE, over) if _VALUE in note else f"{note} `{name}` is {over}"
                return self.finding(f"{said}: retries mask a broken "
                                    f"handoff instead of failing where it broke", where, key,
                                    evidence=(where, *evidence) if evidence else (), fix=fix)
            return None

        handoff_scopes = self._handoff_scopes(ctx)
        symbols = ctx.symbols
        finder = ValueFinder(ctx)
        queues = Queues(ctx)
        for s in ctx.summaries():
            logging_scopes = {c.scope for c in s.calls if c.attr in _LOG_CALLS}
            for call in s.calls:
                waits = self._no_deadline(ctx, s, call, handoff_scopes, queues)
                if waits is not None:
                    where, what = waits
                    if (where.file, where.line, "none") not in seen:
                        seen.add((where.file, where.line, "none"))
                        hand = describe(ctx, s, call, queues)
                        yield self.finding(f"{what}: the {hand.what} waits forever, so a broken link hangs the "
                                           "run instead of failing where it broke", where,
                                           f"none\0{call.scope}\0{call.func}", evidence=(where, *hand.evidence),
                                           fix=hand.fix_unbounded)
                    continue
                if not call.kwargs or not self._is_handoff_call(symbols, s, call, handoff_scopes, ctx):
                    continue
                for k, a in call.kwargs:
                    scale = unit_scale(k)
                    if scale is None and not is_retries(k):
                        continue
                    where_s, where_line, arg = s, call.line, a
                    if a.kind == "name" and isinstance(a.value, str):
                        const = constant(symbols, s, a.value)
                        if const is None:
                            yield from self._followed(ctx, finder, queues, judge, s, call, k, scale,
                                                      call.scope in logging_scopes)
                            continue
                        where_s, where_line, arg = const
                    elif a.kind not in ("lit",) and not _is_timedelta(a):
                        yield from self._followed(ctx, finder, queues, judge, s, call, k, scale,
                                                  call.scope in logging_scopes)
                        continue
                    elif _is_timedelta(a) and _kwarg_expr(call, k) is not None and \
                            arg_seconds(s, a, 1.0, call.line) is None:
                        yield from self._followed(ctx, finder, queues, judge, s, call, k, scale,
                                                  call.scope in logging_scopes)
                        continue
                    value = arg_seconds(where_s, arg, 1.0, where_line) if scale is not None else (
                        _num(arg.value) if arg.kind == "lit" else None)
                    hand = describe(ctx, s, call, queues)
                    if where_s is s and where_line == call.line:
                        f = judge(k, value, Location(s.path, call.line, f"{call.func}({k}=...)"),
                                  f"call\0{call.scope}\0{call.func}\0{k}", f"`{call.func}(...)` on the {hand.what}:",
                                  call.scope in logging_scopes, evidence=hand.evidence, fix=hand.fix)
                    else:
                        f = judge(k, value, Location(where_s.path, where_line, f"{a.value}, used by {call.func}"),
                                  f"const\0{a.value}", f"`{a.value}` (the `{k}` of `{call.func}(...)` at "
                                                        f"{s.path}:{call.line}, the {hand.what})",
                                  evidence=(Location(s.path, call.line, f"{call.func}({k}=...) reads it"),
                                            *hand.evidence), fix=hand.fix)
                    if f:
                        yield f
            # timeout parameters with a default, on functions that set up the handoff
            for d in s.functions:
                if (s.path, d.qualname) not in handoff_scopes:
                    continue
                for p in d.params:
                    if p.default is None or unit_scale(p.name) is None and not is_retries(p.name):
                        continue
                    if unit_scale(p.name) is not None:
                        value = arg_seconds(s, p.default, 1.0, d.line)
                    else:
                        value = _num(p.default.value) if p.default.kind == "lit" else None
                    f = judge(p.name, value, Location(s.path, d.line, f"{d.qualname}({p.name}=...)"),
                              f"param\0{d.qualname}\0{p.name}", f"default of `{d.name}({p.name}=...)`",
                              d.qualname in logging_scopes)
                    if f:
                        yield f
        # argparse/click defaults and config dataclass fields whose name says handoff (used or not)
        for s in ctx.summaries():
            for call in s.calls:
                if call.attr not in ("add_argument", "option") or not call.args:
                    continue
                flags = [a.value for a in call.args if a.kind == "lit" and isinstance(a.value, str)]
                default = call.kwarg("default")
                if not flags or default is None or default.kind != "lit":
                    continue
                name = max(flags, key=len).lstrip("-")
                if not set(tokens(name)) & _HANDOFF_WORDS:
                    continue
                f = judge(name, _num(default.value), Location(s.path, call.line, f"option {name}"),
                          f"option\0{name}", "option default")
                if f:
                    yield f
            for cls in s.classes:
                for p in cls.fields:
                    if p.default is None or p.default.kind != "lit":
                        continue
                    if not (set(tokens(p.name)) | set(tokens(cls.name))) & _HANDOFF_WORDS:
                        continue
                    f = judge(p.name, _num(p.default.value), Location(s.path, p.default.line or cls.line,
                                                                       f"{cls.qualname}.{p.name}"),
                              f"field\0{cls.qualname}\0{p.name}", f"config field {cls.name}.")
                    if f:
                        yield f
        for k in topology_key_values(ctx.analysis.topology):
            if k.file.lower().endswith(_DOC_SUFFIXES):
                continue  # a value quoted in documentation is not the project's configuration
            last = k.name.rsplit(".", 1)[-1]
            f = judge(last, _num(k.value), Location(k.file, max(k.line, 1), f"config {k.name}"),
                      f"config\0{k.name}", f"config key `{k.name}`:")
            if f:
                yield f

    def _followed(self, ctx: RuleContext, finder: ValueFinder, queues: Queues, judge: Callable[..., Finding | None],
                  s: FileSummary, call: CallSite, k: str, scale: float | None, logs: bool) -> Iterator[Finding]:
        """A timeout/retry argument read from a config file, a field or an option: judged at its origin."""
        if out_of_scope(ctx, s.path):
            return
        expr = _kwarg_expr(call, k)
        parts: list[tuple[object, float | None]] = [(expr, scale)]
        if _is_timedelta_expr(expr):  # timedelta(seconds=cfg.t): the unit is the timedelta keyword's
            parts = [(v, _TD_SCALES.get(n)) for n, v in expr[3] if n in _TD_SCALES]
        site = Location(s.path, call.line, f"{call.func}({k}=...) reads it")
        hand = None
        for sub, unit in parts:
            for o in finder.origins(s, call.scope, sub):
                kv = o.where
                if kv.file.lower().endswith(_DOC_SUFFIXES) or out_of_scope(ctx, kv.file):
                    continue
                hand = hand or describe(ctx, s, call, queues)
                secs_unit = None if unit is None else key_unit(kv.name, unit)
                src = {"argparse": "CLI default", "click": "CLI default", "dataclass": "dataclass default"}.get(
                    kv.source, "config key")
                where = Location(kv.file, max(kv.line, 1), f"{src} {kv.name}")
                f = judge(k, _num(kv.value), where,
                          f"flow\0{kv.name}\0{call.func}\0{k}",
                          f"{src} `{kv.name}` = {_VALUE} (read as `{o.via}`) sets `{k}` of `{call.func}(...)` at "
                          f"{s.path}:{call.line} on the {hand.what}", logs, scale=secs_unit,
                          evidence=(site, *hand.evidence), fix=hand.fix, same_as=kv.name)
                if f:
                    yield f

    def _no_deadline(self, ctx: RuleContext, s: FileSummary, call: CallSite, scopes: set[tuple[str, str]],
                     queues: Queues) -> tuple[Location, str] | None:
        """A handoff wait with no deadline: ``timeout=None``/``inf``, ``Timeout(None)``, a bare queue ``get()``."""
        attr = call.attr
        if attr not in _WAITS and not any(k in ("timeout", "total") for k, _ in call.kwargs):
            return None  # most calls: nothing that waits
        if out_of_scope(ctx, s.path):
            return None
        on_queue = queues.is_handoff_queue(s, call)
        if call.attr in ("Timeout", "ClientTimeout") and self._is_handoff_call(ctx.symbols, s, call, scopes, ctx):
            bounded = any(n not in ("timeout", "total") and a2.kind == "lit" and _num(a2.value) for n, a2 in call.kwargs)
            key = "timeout" if call.kwarg("timeout") is not None else "total"
            first, expr = (call.args[0], _pos_expr(call, 0)) if call.args else (call.kwarg(key), _kwarg_expr(call, key))
            if first is not None and _unbounded(first, expr) and not bounded:
                return Location(s.path, call.line, f"{call.func}(None)"), f"`{call.func}(...)` sets no limit"
            return None
        for k, a in call.kwargs:
            if k not in ("timeout", "total") or not _unbounded(a, _kwarg_expr(call, k)):
                continue
            if on_queue or (s.path, call.scope) in scopes and self._is_handoff_call(ctx.symbols, s, call, scopes, ctx):
                return Location(s.path, call.line, f"{call.func}({k}=None)"), \
                    f"`{call.func}(...)` sets `{k}` to {'None' if a.value is None else 'infinity'}"
        if on_queue and call.attr == "get" and not call.args and all(k == "block" for k, _ in call.kwargs) \
                and ctx.analysis.topology.verdict == "cross-process" and queues.crosses(s, call):
            return Location(s.path, call.line, f"{call.func}() blocks"), \
                f"`{call.func}()` blocks with no timeout on a cross-process queue"
        return None

    @staticmethod
    def _handoff_scopes(ctx: RuleContext) -> set[tuple[str, str]]:
        """(file, scope) of the functions that carry the handoff (either direction)."""
        out: set[tuple[str, str]] = set()
        names = set(ctx.analysis.handoff.trajectory) | set(ctx.analysis.handoff.weight_sync)
        names |= {f.qualname for f in ctx.functions(Side.HANDOFF)}
        for q in names:
            sc = ctx.scope_of(q)
            if sc:
                out.add((sc[0].path, sc[1]))
        return out

    @staticmethod
    def _is_handoff_call(symbols: SymbolTable, s: FileSummary, call: CallSite, scopes: set[tuple[str, str]],
                         ctx: RuleContext | None = None) -> bool:
        if (s.path, call.scope) in scopes:
            return True
        head = call.func.split(".", 1)[0]
        root = (symbols.imported(s.module, call.scope, head.removesuffix("()")) or head).split(".", 1)[0]
        if not (root in _TRANSPORT_HEADS and (call.attr in _TRANSPORT_ATTRS or call.attr[:1].isupper())):
            return False
        return ctx is None or not off_the_loop(ctx, s, call.scope)


RULE = HighTimeout

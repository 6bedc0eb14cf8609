"""GYR008: handoff timeouts or retries set very high."""

from __future__ import annotations

from collections.abc import Iterator

from ..graphs.symbols import SymbolTable
from ..index.summary import Arg, CallSite, FileSummary
from ..model import Finding, Location, Severity, Side
from .base import Example, Rule, RuleContext, tokens

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


class HighTimeout(Rule):
    id = "GYR008"
    name = "handoff-timeout-too-high"
    severity = Severity.WARNING
    summary = "A handoff timeout or retry count is set very high."
    rationale = ("A timeout of hours or dozens of retries on the handoff does not fix a broken carrier, it hides "
                 "it: the run hangs silently instead of failing where the link broke. Handoff faults are fixed "
                 "by checking the carrier (address, group, queue) and the fields, not by waiting longer.")
    fix = ("Check the handoff carrier and fields first; keep the timeout/retries near their defaults and log "
           "each retry so a broken link fails fast.")
    bad = (Example({"sync.py": _BAD}, "a ten-hour timeout on the weight-sync group"),)
    good = (Example({"sync.py": _GOOD}, "a bounded timeout and a logged join"),)
    tags = ("handoff", "topology")

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        limits = ctx.analysis.settings.thresholds if ctx.analysis.settings else None
        t_limit = (limits and limits.timeout) or TIMEOUT_LIMIT
        r_limit = (limits and limits.retries) or RETRIES_LIMIT
        seen: set[tuple[str, int, str]] = set()

        def judge(name: str, value: float | None, where: Location, key: str, note: str,
                  logs: bool = False) -> Finding | None:
            if value is None or (where.file, where.line, name) in seen:
                return None
            scale = unit_scale(name)
            if scale is not None:
                secs = value * scale
                if secs <= t_limit:
                    return None
                shown = f"{secs:.0f} s" if secs < 7200 else f"{secs / 3600:.1f} h"
                seen.add((where.file, where.line, name))
                return self.finding(f"{note} `{name}` is {shown} (over {t_limit:.0f} s): a long wait masks a "
                                    f"broken handoff instead of failing where it broke", where, key)
            if is_retries(name) and value > r_limit and not logs:
                seen.add((where.file, where.line, name))
                return self.finding(f"{note} `{name}` is {value:.0f} (over {r_limit:.0f}): retries mask a broken "
                                    f"handoff instead of failing where it broke", where, key)
            return None

        handoff_scopes = self._handoff_scopes(ctx)
        symbols = ctx.symbols
        for s in ctx.summaries():
            logging_scopes = {c.scope for c in s.calls if c.attr in _LOG_CALLS}
            for call in s.calls:
                if not call.kwargs or not self._is_handoff_call(symbols, s, call, handoff_scopes):
                    continue
                for k, a in call.kwargs:
                    bounded = any(n != k and a2.kind == "lit" and _num(a2.value) for n, a2 in call.kwargs
                                  if unit_scale(n) is not None or n in ("connect", "sock_read", "sock_connect",
                                                                        "read", "write", "pool"))
                    if k in ("timeout", "total") and a.kind == "lit" and a.value is None and not bounded \
                            and (call.attr in ("ClientTimeout", "Timeout") or (s.path, call.scope) in handoff_scopes):
                        where = Location(s.path, call.line, f"{call.func}({k}=None)")
                        if (where.file, where.line, k) not in seen:
                            seen.add((where.file, where.line, k))
                            yield self.finding(f"`{call.func}(...)` sets `{k}=None`: the handoff waits forever, so a "
                                               f"broken link hangs instead of failing", where,
                                               f"none\0{call.scope}\0{call.func}\0{k}")
                        continue
                    scale = unit_scale(k)
                    if scale is None and not is_retries(k):
                        continue
                    where_s, where_line, arg = s, call.line, a
                    if a.kind == "name" and isinstance(a.value, str):
                        const = constant(symbols, s, a.value)
                        if const is None:
                            continue
                        where_s, where_line, arg = const
                    value = arg_seconds(where_s, arg, 1.0, where_line) if scale is not None else (
                        _num(arg.value) if arg.kind == "lit" else None)
                    if where_s is s and where_line == call.line:
                        f = judge(k, value, Location(s.path, call.line, f"{call.func}({k}=...)"),
                                  f"call\0{call.scope}\0{call.func}\0{k}", f"`{call.func}(...)`",
                                  call.scope in logging_scopes)
                    else:
                        f = judge(k, value, Location(where_s.path, where_line, f"{a.value}, used by {call.func}"),
                                  f"const\0{a.value}", f"`{a.value}` (the `{k}` of `{call.func}(...)` at "
                                                        f"{s.path}:{call.line})")
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
            # argparse/click defaults and config dataclass fields
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
        for k in ctx.analysis.topology.config_keys:
            if k.file.lower().endswith(_DOC_SUFFIXES):
                continue  # a value quoted in documentation is not the project's configuration
            last = k.key.rsplit(".", 1)[-1]
            f = judge(last, _num(k.value), Location(k.file, max(k.line, 1), f"config {k.key}"),
                      f"config\0{k.key}", f"config key `{k.key}`:")
            if f:
                yield f

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
    def _is_handoff_call(symbols: SymbolTable, s: FileSummary, call: CallSite, scopes: set[tuple[str, str]]) -> bool:
        if (s.path, call.scope) in scopes:
            return True
        head = call.func.split(".", 1)[0]
        root = (symbols.imported(s.module, call.scope, head.removesuffix("()")) or head).split(".", 1)[0]
        return root in _TRANSPORT_HEADS and (call.attr in _TRANSPORT_ATTRS or call.attr[:1].isupper())


RULE = HighTimeout

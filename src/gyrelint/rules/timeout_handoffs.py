"""Which handoff a wait belongs to, and what to check first when it times out.

GYR008's advice names the carrier (the queue and both of its ends, the process group, the HTTP
endpoint, the Ray call) and the fields the consumer reads, because a handoff that times out is
almost always a carrier that never delivered or a payload missing a field, not a wait too short.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..index.summary import CallSite, FileSummary
from ..model import HandoffKind, Location, Side
from ..topology.scope import file_scope
from .base import tokens

if TYPE_CHECKING:
    from .base import RuleContext

NOT_THE_RUN = ("tests", "docs", "vendored")  # file scopes (topology.scope) whose values no run reads
_QUEUE_TOKENS = {"queue", "queues", "q"}
_PUTS = {"put", "put_nowait"}
_GETS = {"get", "get_nowait"}
_HTTP = {"requests", "httpx", "aiohttp", "urllib", "urllib3"}
_COLLECTIVE = {"init_process_group", "new_group", "barrier", "broadcast", "all_reduce", "all_gather", "recv", "send",
               "irecv", "isend", "monitored_barrier", "broadcast_object_list", "TCPStore", "init_custom_process_group"}
_IN_PROCESS = {"queue", "asyncio", "janus", "collections", "threading"}  # queues of threads and tasks
_HTTP_VERBS = {"post", "put", "get", "request", "patch"}
_HTTP_RECEIVER = {"session", "client", "http", "requests", "httpx", "aiohttp"}
_JOINS = {"init_process_group", "new_group", "init_custom_process_group", "TCPStore"}
_SHOWN_FIELDS = 5


def _owner(s: FileSummary, scope: str) -> str:
    return f"{s.module}.{scope.split('.', 1)[0]}"


@functools.lru_cache(maxsize=4096)
def _queue_named(name: str) -> bool:
    return bool(_QUEUE_TOKENS & set(tokens(name)))


def out_of_scope(ctx: RuleContext, path: str) -> bool:
    """Tests, docs, benchmarks, vendored code: their waits and values are not the run's.

    A Python file is judged by the index (by content, once: ``index.scope``); a config file,
    which the index does not scope, by the topology's file scope, which its keys carry too.
    """
    if path.endswith(".py"):
        return ctx.analysis.index.out_of_scope(path)
    return file_scope(path) in NOT_THE_RUN


@dataclass(frozen=True, slots=True)
class HandoffView:
    """What a GYR008 finding says about the handoff: its name, where its ends are, what to check."""

    what: str
    evidence: tuple[Location, ...]
    event: str  # "get", "request", "collective": what times out
    check: str  # "check first that ...; waiting longer hides ..."

    @property
    def fix(self) -> str:
        """For a wait that is too long."""
        return f"If this {self.event} times out, {self.check}"

    @property
    def fix_unbounded(self) -> str:
        """For a wait with no deadline at all."""
        return (f"Give this {self.event} a finite limit (a few times the slowest healthy one) so a broken link "
                f"fails; when it then times out, {self.check}")


@dataclass(frozen=True, slots=True)
class QueueEnd:
    qualname: str
    file: str
    line: int
    side: Side | None
    kind: HandoffKind | None
    owner: str = ""  # module + top-level class or function: ends with one owner share a process


class Queues:
    """The put and get ends of every queue-named receiver (``self.traj_queue``, ``result_q``)."""

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx
        self._ends: dict[tuple[str, str], list[QueueEnd]] | None = None
        self._local: set[str] | None = None
        self._bound: dict[str, dict[str, str]] = {}

    @staticmethod
    def name(call: CallSite) -> str | None:
        recv = call.receiver
        if recv is None or "(" in recv:
            return None
        last = recv.rsplit(".", 1)[-1]
        return last if _queue_named(last) else None

    def bound(self, s: FileSummary) -> dict[str, str]:
        """Local name -> imported module of one file (asked for many calls of the file)."""
        got = self._bound.get(s.path)
        if got is None:
            got = self._bound[s.path] = dict(self.ctx.symbols.import_map(s.module))
        return got

    def ends(self) -> dict[tuple[str, str], list[QueueEnd]]:
        if self._ends is None:
            out: dict[tuple[str, str], list[QueueEnd]] = {}
            for s in self.ctx.summaries():
                if out_of_scope(self.ctx, s.path):
                    continue
                for c in s.calls:
                    if c.attr not in _PUTS and c.attr not in _GETS:
                        continue
                    name = self.name(c)
                    if name is None:
                        continue
                    q = f"{s.module}.{c.scope}"
                    fr = self.ctx.analysis.functions.get(q)
                    out.setdefault((name, "put" if c.attr in _PUTS else "get"), []).append(
                        QueueEnd(q, s.path, c.line, fr.side if fr else None, fr.handoff_kind if fr else None,
                                 _owner(s, c.scope)))
            self._ends = out
        return self._ends

    def other_ends(self, s: FileSummary, call: CallSite) -> list[QueueEnd]:
        """The far ends of this put/get that sit on the loop, in other functions."""
        name = self.name(call)
        if name is None or (call.attr not in _PUTS and call.attr not in _GETS):
            return []
        me = f"{s.module}.{call.scope}"
        far = "get" if call.attr in _PUTS else "put"
        return [e for e in self.ends().get((name, far), []) if e.qualname != me and e.side not in (None, Side.NEUTRAL)]

    def crosses(self, s: FileSummary, call: CallSite) -> bool:
        """The two ends may run in different processes: a far end outside this class or top-level
        function (two ends in one are threads or tasks of one process), not an awaited ``get()`` (an asyncio
        queue's), and no constructor of that name builds a thread or asyncio queue."""
        if call.awaited or self.in_process(self.name(call) or ""):
            return False
        mine = _owner(s, call.scope)
        return any(e.owner != mine for e in self.other_ends(s, call))

    def in_process(self, name: str) -> bool:
        """Every ``<name> = ...Queue(...)`` in the repo builds a ``queue``/``asyncio`` queue (threads, tasks)."""
        if self._local is None:
            built: dict[str, set[bool]] = {}
            for s in self.ctx.summaries():
                bound = self.ctx.symbols.import_map(s.module)
                for a in s.assignments:
                    if a.value_kind != "call" or not isinstance(a.value, str) or "queue" not in a.value.lower():
                        continue
                    head, _, rest = a.value.partition(".")
                    full = bound.get(head, head) + ("." + rest if rest else "")
                    local = full.split(".", 1)[0] in _IN_PROCESS
                    built.setdefault(a.target.rsplit(".", 1)[-1], set()).add(local)
            self._local = {n for n, kinds in built.items() if kinds == {True}}
        return name in self._local

    def is_handoff_queue(self, s: FileSummary, call: CallSite) -> bool:
        """A queue both of whose ends are on the loop, one of them a handoff or the two on opposite sides."""
        far = self.other_ends(s, call)
        if not far:
            return False
        fr = self.ctx.analysis.functions.get(f"{s.module}.{call.scope}")
        if fr is None or fr.side == Side.NEUTRAL:
            return False
        if fr.side == Side.HANDOFF or any(e.side == Side.HANDOFF for e in far):
            return True
        sides = {fr.side} | {e.side for e in far}
        return Side.SAMPLING in sides and Side.TRAINING in sides


def off_the_loop(ctx: RuleContext, s: FileSummary, scope: str) -> bool:
    """A neutral function called only from the training side (a checkpoint upload, a metrics post
    from the trainer): its network calls are not the handoff. Unknown callers keep it on the loop."""
    q = f"{s.module}.{scope}"
    fr = ctx.analysis.functions.get(q)
    calls = getattr(ctx.analysis.graphs, "calls", None)
    if fr is None or fr.side != Side.NEUTRAL or calls is None or q not in calls:
        return False
    callers = [ctx.analysis.functions.get(c) for c in calls.predecessors(q)]
    return bool(callers) and all(c is not None and c.side == Side.TRAINING for c in callers)


def _kind_word(kind: HandoffKind | None) -> str:
    return {HandoffKind.TRAJECTORY: "trajectory handoff", HandoffKind.WEIGHT_SYNC: "weight sync"}.get(kind, "handoff") \
        if kind else "handoff"


def _fields(ctx: RuleContext, kind: HandoffKind | None = HandoffKind.TRAJECTORY) -> str:
    """The trajectory fields (read by the trainer, else put by the sampler), for trajectory waits only."""
    if kind == HandoffKind.WEIGHT_SYNC:
        return ""
    contract = ctx.analysis.handoff.fields
    names = sorted(contract.consumed or contract.produced)
    if not names:
        return ""
    more = f", +{len(names) - _SHOWN_FIELDS}" if len(names) > _SHOWN_FIELDS else ""
    return (" (" if contract.consumed else " (the sampler puts ") + ", ".join(names[:_SHOWN_FIELDS]) + more + ")"


def describe(ctx: RuleContext, s: FileSummary, call: CallSite, queues: Queues) -> HandoffView:
    """Name the handoff a call waits on, its ends when known, and what to check before the wait."""
    me = f"{s.module}.{call.scope}"
    fr = ctx.analysis.functions.get(me)
    far = queues.other_ends(s, call)
    kind = fr.handoff_kind if fr and fr.handoff_kind else next((e.kind for e in far if e.kind), None)
    word = _kind_word(kind)
    head = call.func.split(".", 1)[0]
    root = ctx.symbols.import_map(s.module).get(head, head)
    if Queues.name(call) is not None and (call.attr in _PUTS or call.attr in _GETS):
        ev = tuple(Location(e.file, e.line, f"{'get' if call.attr in _PUTS else 'put'} in {e.qualname}")
                   for e in far[:3])
        if call.attr in _GETS:
            producer = far[0].qualname if far else "the producer"
            return HandoffView(
                f"{word} queue `{call.receiver}` from `{producer}` to `{me}`", ev, "get",
                f"check first that `{producer}`'s put reaches this queue (the same queue "
                f"object handed to both processes, the producer still alive) and that its payload has the fields "
                f"`{me.rsplit('.', 1)[-1]}` reads{_fields(ctx, kind)}; waiting longer hides a dropped handoff.")
        consumer = far[0].qualname if far else "the consumer"
        return HandoffView(
            f"{word} queue `{call.receiver}` from `{me}` to `{consumer}`", ev, "put",
            f"check first that `{consumer}` is still draining this queue (the same queue "
            f"object, the consumer alive and not stuck on a missing field{_fields(ctx, kind)}); waiting longer hides a "
            f"stalled consumer.")
    if call.attr in _COLLECTIVE and (root.startswith("torch") or call.attr in _JOINS):
        return HandoffView(
            f"{word} process group of `{call.func}` in `{me}`", (), "collective",
            "check first that every rank joins the same group (master address, "
            "port, world size, rank numbering, backend) and that the receiving side loads what the sender "
            "broadcasts; waiting longer hides a dead or missing peer.")
    if kind == HandoffKind.WEIGHT_SYNC:
        return HandoffView(
            f"{word} call `{call.func}` in `{me}`", (), "weight push",
            "check first that the inference side is up and reachable (address, "
            "port, route or group) and that it loads what is sent (parameter names, shapes, dtypes); waiting "
            "longer hides a dead receiver.")
    http = root.split(".", 1)[0] in _HTTP or (call.attr in _HTTP_VERBS and call.receiver is not None and
                                              _HTTP_RECEIVER & set(tokens(call.receiver.rsplit(".", 1)[-1])))
    if http:
        where = f"in `{me}`"
        if call.scope.endswith("__init__") and "." in call.scope:
            cls = me.rsplit(".", 1)[0]
            users = sorted(q for q, f in ctx.analysis.functions.items() if q.startswith(cls + ".")
                           and f.side in (Side.SAMPLING, Side.HANDOFF))
            where = f"of `{cls}`" + (f", used by `{users[0]}`" if users else "")
        return HandoffView(
            f"{word} HTTP client {where}" if call.attr in ("Timeout", "ClientTimeout") else
            f"{word} HTTP call `{call.func}` {where}", (), "request",
            "check first that the server behind the URL is up and reachable (address, port, route) and that the "
            "request carries the fields its handler reads; waiting longer hides a dead server.")
    if root.split(".", 1)[0] == "ray":
        return HandoffView(
            f"{word} Ray call `{call.func}` in `{me}`", (), "Ray call",
            "check first that the remote actor is alive (actor death, OOM kill) and "
            "that its task returns what the caller unpacks; waiting longer hides a dead actor.")
    return HandoffView(
        f"{word} call `{call.func}` in `{me}`", (), "call",
        f"check the carrier first (address, group, queue) and the fields both ends agree on{_fields(ctx, kind)}; "
        "keep the limit near its default and log each retry so a broken link fails fast.")

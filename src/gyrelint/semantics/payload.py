"""Weight sync by payload: follow the policy's parameters to the call that takes them out of the process.

Catalogs of API names break on the first framework that ships its weights through a transfer
object nobody listed (pattern O). What moves does not: a value derived from a module's
``named_parameters()``/``parameters()``/``state_dict()`` (or a gathered, detached, sliced or
packed view of one) that reaches a call leaving the process (``.remote``, a collective send or
broadcast, HTTP, a queue/socket/pipe send, CUDA IPC handles, the object store, a transfer
object's ``send*``/``push*``, or a library engine's ``refit``/``load_weights`` in the same
process) makes the function a weight-sync *sender*; the repo method a
``.remote`` call hands such a payload to is a *receiver*; so is a body that takes a value off a
transport and loads it into a module. The same check settles the handoff kind of a transport:
a ZMQ socket or a queue that carries a bucket of parameters is the weight sync, not the
trajectory handoff.

Def-use runs over the value-flow facts the index records per file (assignments, loops,
comprehensions, ``with``, returns), flow-insensitively, and joins across calls: a parameter
handed a parameter-derived value is tainted in the callee, a function returning or yielding
one taints its callers' results. Gradients (``.grad``) are not weights.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..index import Index
from ..index.summary import Flow
from .facts import CallFact, Facts, FnFacts
from .generic_send import world_group_collective
from .taint import BodyTaint, FlowIndex, dotted_text

# calls whose result is a module's parameters (the seed of the payload)
_SEED_METHODS = frozenset({"named_parameters", "parameters", "state_dict"})  # buffers (rotary tables) are no trained weights
# receivers whose state_dict() is bookkeeping (data position, optimizer moments, RNG), not model weights
_NOT_MODEL = ("loader", "sampler", "dataset", "optim", "sched", "rng", "random", "scaler", "iterator",
              "tokenizer", "callback", "env", "progress", "counter", "tracker", "logger", "buffer", "queue")
_NOT_WEIGHTS_ATTR = frozenset({"grad", "main_grad", "requires_grad", "numel", "ndim", "device", "is_cuda",
                               "norm", "sum", "mean", "item"})
# library calls that leave the process with their arguments
_IPC = frozenset({"reduce_tensor", "get_ipc_handle", "_share_cuda_", "share_memory_", "rebuild_cuda_tensor"})
_COLLECTIVE = frozenset({"broadcast", "send", "isend", "scatter", "broadcast_object_list", "scatter_object_list",
                         "send_object_list", "batch_isend_irecv"})
_CHANNEL = frozenset({"put", "put_nowait", "send", "send_pyobj", "send_multipart", "send_bytes", "send_json",
                      "send_string"})
_HTTP = frozenset({"post", "put", "request", "apost", "async_post", "arequest", "urlopen"})
_TRANSFER = re.compile(r"^(send|push|transfer|publish|ship|broadcast|put|batch_put|upload_to)(_|$)")
# loading into another object's weights in this process: a compiled or colocated inference engine
# (``engine.refit(sd)``, ``runner.update_weights(named)``); ``load_state_dict`` copies between modules
# (a reference or target network), so it is not here
_ENGINE_LOAD = re.compile(r"^(refit\w*|set_named_weights|load_weights|update_weights?\w*)$")
_NOT_TRANSFER_RECV = ("self", "cls")  # ``self.send(...)`` is a method of this class: its body decides
# taking a value off a transport, and loading one into a module or engine
_RECV = frozenset({"recv", "recv_pyobj", "recv_multipart", "recv_bytes", "recv_json", "get", "get_nowait",
                   "irecv", "broadcast_object_list"})
_LOAD = re.compile(r"^(load_state_dict|load_weights?|load_model_weights|copy_|set_weights?|update_weights?\w*|"
                   r"load_params?\w*|assign_weights?)$")
ROUNDS = 4  # rounds of the join across calls (a callee's taint reaching its callers)


@dataclass(slots=True)
class WeightFlow:
    """Where parameters leave the process (senders) and where they arrive (receivers): function -> line."""

    senders: dict[str, int] = field(default_factory=dict)
    receivers: dict[str, int] = field(default_factory=dict)
    handed: set[str] = field(default_factory=set)  # repo functions a parameter-derived value is passed to


def _model_receiver(base: object) -> bool:
    if isinstance(base, tuple) and base[:1] == ("s",):
        base = base[1]  # ``self.states["model"].state_dict()``: the container's name decides
    last = dotted_text(base).rsplit(".", 1)[-1].lower()
    if not last:
        return isinstance(base, tuple) and bool(base) and base[0] == "c"  # ``unwrap(m).state_dict()``
    return not any(w in last for w in _NOT_MODEL)


class _Body(BodyTaint):
    """Taint of one function body: which names hold parameter-derived values."""

    def __init__(self, fn: FnFacts, flows: list[Flow], tainted_params: set[str],
                 returns_weights: set[str]) -> None:
        super().__init__(flows, tainted_params)
        self.fn = fn
        self.returns_weights = returns_weights

    def attr_holds(self, e: tuple, depth: int) -> bool:
        return e[2] not in _NOT_WEIGHTS_ATTR and super().attr_holds(e, depth)

    def call_holds(self, e: tuple, depth: int) -> bool:
        func = e[1]
        if isinstance(func, tuple) and func and func[0] == "a":
            if func[2] in _SEED_METHODS and _model_receiver(func[1]):
                return True
            if func[2] in _NOT_WEIGHTS_ATTR:
                return False
            if self.holds(func[1], depth):  # ``p.detach().cpu()``, ``sd.items()``
                return True
        if self.args_hold(e, depth):
            return True
        return bool(self.returns_weights) and self._callee_returns_weights(func)

    def _callee_returns_weights(self, func: object) -> bool:
        text = dotted_text(func)
        if not text:
            return False
        for c in self.fn.calls:
            if c.site.func == text and any(t in self.returns_weights for t in c.targets):
                return True
        return False

    def returns(self) -> bool:
        return any(fl.op in ("ret", "yield", "yieldfrom") and self.holds(fl.value) for fl in self.flows)


def _args(expr: tuple) -> list[tuple[int | str, object]]:
    """(position or keyword, value tree) of a call expression's arguments."""
    out: list[tuple[int | str, object]] = []
    for i, a in enumerate(expr[2]):
        out.append((-1 if isinstance(a, tuple) and a[:1] == ("*",) else i, a))
    for k, v in expr[3]:
        out.append((k, v))
    return out


def _crossing(c: CallFact) -> bool:
    """The call takes its arguments out of the process (the callee is no repo code of ours to follow)."""
    if c.ray:
        return True
    m = c.method
    names = c.names
    if any(n.startswith(("torch.distributed.", "ray.util.collective.")) for n in names) and m in _COLLECTIVE:
        return not world_group_collective(c)  # the default group holds the training ranks only
    if m in _IPC or any(n == "ray.put" for n in names):
        return True
    if any(n.startswith(("requests.", "httpx.", "aiohttp.", "urllib.")) for n in names) and m in _HTTP:
        return True
    if c.targets:
        return False  # repo code: followed into its body instead
    recv = c.site.receiver or ""
    if not recv or recv in _NOT_TRANSFER_RECV:
        return False
    if m in _COLLECTIVE or m in _CHANNEL or (m in _HTTP and c.role is None and "session" in recv.lower()):
        return True
    if _ENGINE_LOAD.match(m):
        return True  # leaves the trainer's module for the engine's copy, even in one process
    return bool(_TRANSFER.match(m))


def _param_index(q: str, facts: Facts) -> list[str]:
    fn = facts.functions[q]
    names = [p.name for p in fn.definition.params if p.kind in ("pos", "kwonly")]
    if fn.cls and names and names[0] in ("self", "cls"):
        names = names[1:]
    return names


def weight_flow(index: Index, facts: Facts, flows: FlowIndex | None = None) -> WeightFlow:
    """Senders and receivers of the policy's parameters, repo-wide (``flows``: the run's one index)."""
    out = WeightFlow()
    if flows is None:
        flows = FlowIndex(facts)
    # functions worth a look: they call a seed method, or later get a tainted parameter / callee
    todo = {q for q, fn in facts.functions.items() if fn.called() & _SEED_METHODS}
    params: dict[str, set[str]] = {}
    returns_weights: set[str] = set()
    done: dict[str, tuple[frozenset[str], bool]] = {}
    callers: dict[str, set[str]] = {}
    for q, fn in facts.functions.items():
        for c in fn.calls:
            for t in c.targets:
                callers.setdefault(t, set()).add(q)
    for _ in range(ROUNDS):
        if not todo:
            break
        nxt: set[str] = set()
        for q in sorted(todo):
            fn = facts.functions[q]
            key = (frozenset(params.get(q, ())), bool(returns_weights))
            if done.get(q) == key:
                continue
            done[q] = key
            body = _Body(fn, flows.of(q), params.get(q, set()), returns_weights)
            body.run()
            if body.returns() and q not in returns_weights:
                returns_weights.add(q)
                nxt |= callers.get(q, set())
            for c in fn.calls:
                expr = c.site.expr
                if not isinstance(expr, tuple) or expr[:1] != ("c",):
                    continue
                hot = [(k, v) for k, v in _args(expr) if body.holds(v)]
                if not hot:
                    continue
                if _crossing(c):
                    out.senders.setdefault(q, c.site.line)
                    if c.ray:
                        for t in c.targets[:4]:
                            if t in facts.functions:
                                out.receivers.setdefault(t, facts.functions[t].line)
                elif len(c.targets) <= 3:
                    for t in c.targets:  # a repo callee handed weights: its parameters carry them
                        if t not in facts.functions or t == q:
                            continue
                        names = _param_index(t, facts)
                        got = params.setdefault(t, set())
                        before = len(got)
                        for k, _ in hot:
                            if isinstance(k, int) and 0 <= k < len(names):
                                got.add(names[k])
                            elif isinstance(k, str) and k in names:
                                got.add(k)
                        if len(got) > before:
                            nxt.add(t)
        todo = nxt
    out.handed = {q for q, got in params.items() if got}
    _loaders(facts, out, flows)
    return out


class _Received(BodyTaint):
    """Names holding what a transport delivered: unpacked, indexed or decoded (``torch.load(buf)``)."""

    def call_holds(self, e: tuple, depth: int) -> bool:
        return self.args_hold(e, depth)


def _loaders(facts: Facts, out: WeightFlow, flows: FlowIndex) -> None:
    """Bodies that take a value off a transport and load it into a module or engine: receivers.

    The loaded value may be the received one or derived from it inside the body
    (``version, sd = q.get_nowait(); model.load_state_dict(sd)``).
    """
    for q, fn in facts.functions.items():
        if not (fn.called() & _RECV):
            continue
        got: set[str] = set()
        for c in fn.calls:
            if c.method in _RECV and not c.targets and _crossing_end(c):
                for a in fn.assigns:
                    if a.line == c.site.line and "." not in a.target:
                        got.add(a.target)
        if not got:
            continue
        body = _Received(flows.of(q), got)
        body.run()
        for c in fn.calls:
            if _LOAD.match(c.method) and not c.into_repo(q):
                if any(a.kind == "name" and isinstance(a.value, str) and a.value.split(".")[0] in body.names
                       for a in c.site.args):
                    out.receivers.setdefault(q, c.site.line)
                    break


def _crossing_end(c: CallFact) -> bool:
    """The receiving end of a transport (a socket, a queue, a pipe, a collective), not ``dict.get``."""
    if c.role in ("queue", "zmq_socket", "pg_comm"):
        return True
    if any(n.startswith(("zmq.", "multiprocessing.", "torch.distributed.", "queue.", "ray.util.queue.")) for n in c.names):
        return True
    return c.method.startswith("recv")

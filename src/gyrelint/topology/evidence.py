"""Code evidence for the topology: what the code does to start processes and talk between them.

Each signal describes a *library* API (ray, multiprocessing, torch.distributed,
zmq, grpc, HTTP servers and clients, vLLM/SGLang engine calls), matched on the
canonical callee name, never on a framework's own class or function names.
Link checks are scopes that verify a connection: a health/ready endpoint polled by a
client, a connection attempt retried with a sleep and a log line, a monitored barrier.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from ..graphs import Graphs
from ..index import Index
from ..index.summary import CallSite, FileSummary
from ..model import CodeEvidence
from .names import Namer
from .param_reads import library_reads

_MAX_PER_SIGNAL = 200

# (signal, exact canonical names, canonical prefixes)
_TABLE: list[tuple[str, set[str], tuple[str, ...]]] = [
    ("ray-init", {"ray.init"}, ()),
    ("ray-placement-group", set(), ("ray.util.placement_group",)),
    ("ray-collective", set(), ("ray.util.collective",)),
    ("ray-object-store", {"ray.get", "ray.put", "ray.wait"}, ()),
    ("dist-init", {"torch.distributed.init_process_group", "torch.distributed.new_group",
                   "torch.distributed.new_subgroups", "torch.distributed.device_mesh.init_device_mesh",
                   "torch.distributed.init_device_mesh", "deepspeed.init_distributed",
                   "torch.distributed.distributed_c10d.init_process_group", "torch.distributed.distributed_c10d.new_group",
                   "torch.distributed.distributed_c10d._new_process_group_helper",
                   "vllm.distributed.utils.StatelessProcessGroup.create"}, ("accelerate.Accelerator",)),
    ("nccl-broadcast", {"torch.distributed.broadcast", "torch.distributed.broadcast_object_list",
                        "torch.distributed.distributed_c10d.broadcast"},
     ("vllm.distributed.device_communicators.pynccl", "cupy.cuda.nccl")),
    ("mp-process", {"concurrent.futures.ProcessPoolExecutor"}, ()),
    ("zmq", set(), ("zmq.",)),
    ("grpc", set(), ("grpc.", "grpcio.")),
    ("redis", set(), ("redis.",)),
    ("etcd", set(), ("etcd3.", "etcd.")),
    ("shared-memory", {"multiprocessing.shared_memory.SharedMemory", "multiprocessing.shared_memory.ShareableList"}, ()),
    ("cuda-ipc", {"torch.multiprocessing.reductions.reduce_tensor", "torch.multiprocessing.reductions.rebuild_cuda_tensor"},
     ("cupy.cuda.runtime.ipc",)),
    ("http-server", {"uvicorn.run", "uvicorn.Server", "uvicorn.Config", "flask.Flask", "aiohttp.web.Application",
                     "aiohttp.web.run_app", "aiohttp.web.AppRunner", "http.server.HTTPServer",
                     "http.server.ThreadingHTTPServer", "starlette.applications.Starlette"},
     ("fastapi.FastAPI", "fastapi.APIRouter")),
    ("http-client", {"urllib.request.urlopen"},
     ("requests.", "httpx.", "aiohttp.ClientSession", "aiohttp.request", "openai.OpenAI", "openai.AsyncOpenAI")),
    ("inference-engine", {"vllm.LLM", "vllm.AsyncLLMEngine", "vllm.LLMEngine", "vllm.AsyncLLMEngine.from_engine_args",
                          "vllm.LLMEngine.from_engine_args", "sglang.Engine", "vllm.engine.llm_engine.LLMEngine",
                          "vllm.engine.async_llm_engine.AsyncLLMEngine", "vllm.v1.engine.async_llm.AsyncLLM",
                          "sglang.srt.entrypoints.engine.Engine"},
     ("tensorrt_llm.LLM", "tensorrt_llm.runtime.ModelRunner", "tensorrt_llm.runtime.model_runner",
      "megatron.core.inference.engines.")),
    ("subprocess", {"subprocess.Popen", "subprocess.run", "subprocess.call", "subprocess.check_call",
                    "subprocess.check_output", "asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell",
                    "os.system", "os.posix_spawn"}, ()),
]
_MP_ROOTS = ("multiprocessing.", "torch.multiprocessing.", "multiprocess.")
# RL libraries' vectorized environments that step each env copy in a worker process of its own: processes,
# but they hold environments, never the policy (called, or handed to a factory as ``vec_env_cls=``)
_ENV_WORKERS = ("stable_baselines3.common.vec_env.SubprocVecEnv", "stable_baselines3.common.vec_env.subproc_vec_env.",
                "gym.vector.AsyncVectorEnv", "gymnasium.vector.AsyncVectorEnv", "gym.vector.async_vector_env.",
                "gymnasium.vector.async_vector_env.", "envpool.make")
_MP_PROCESS = {"Process", "Pool", "spawn", "start_processes", "set_start_method", "get_context"}
_MP_QUEUE = {"Queue", "SimpleQueue", "JoinableQueue", "Pipe", "Manager"}
# Engine APIs (vLLM / SGLang) named by the library, matched on the method name.
_ENGINE_METHODS = {
    "update_weights_from_distributed": "nccl-broadcast",
    "init_weights_update_group": "nccl-broadcast",
    "update_weights_from_tensor": "cuda-ipc",
    "update_weights_from_disk": "weights-from-disk",
    "collective_rpc": "engine-rpc",
    "wake_up": "engine-sleep",
    "release_memory_occupation": "engine-sleep",
    "resume_memory_occupation": "engine-sleep",
    "share_memory_": "shared-memory",
    "_share_cuda_": "cuda-ipc",
    "load_weights": "weights-load",
}
_SOCKET = {"socket.socket.bind": "socket-server", "socket.socket.listen": "socket-server", "socket.create_server": "socket-server",
           "socket.socket.connect": "socket-client", "socket.create_connection": "socket-client"}
_SERVER_WORDS = re.compile(r"launch_server|\bserve\b|uvicorn|--port|api_server|entrypoints|--host|http_server|vllm|sglang")
_GEN_PATH = re.compile(r"/generate\b|/v1/completions|/v1/chat/completions|/completions\b|/v1/responses|/generate_", re.I)
_WEIGHT_PATH = re.compile(r"update_weights?|load_weights|init_weights_update_group|init_communicator|update_named_param|"
                          r"weights_update|/set_weights|sync_weights", re.I)
_HEALTH_PATH = re.compile(r"/health\b|/health_generate|/ping\b|/ready\b|/readyz|/healthz|/v1/models\b|/get_model_info|"
                          r"/server_info|/get_server_info", re.I)
# A round trip over the link (ping/health/ready). ``is_alive`` is not one: a live process is not a live link.
_READY_WORDS = re.compile(r"^(?:ping|health|health_check|check_health|is_healthy|ready|is_ready|wait_until_ready|"
                          r"wait_for_server|wait_server_ready|wait_for_ready|heartbeat)$")
_LOG_ROOTS = ("logging.", "logger.", "log.", "warnings.warn", "print", "loguru.")
_SLEEP = {"time.sleep", "asyncio.sleep"}
_WEIGHT_READS = {"state_dict", "named_parameters", "parameters", "get_weights"}
_PUTS = {"put", "put_nowait", "send", "send_pyobj", "send_multipart", "send_bytes"}


@dataclass(slots=True)
class EvidenceResult:
    evidence: list[CodeEvidence]
    link_checks: list[CodeEvidence]
    counts: dict[str, int]
    reached: dict[str, int]  # signal -> sites inside code reached from an entry point (empty without a call graph)
    rank: list[int] = field(default_factory=list)  # per evidence: 0 reached, 1 other code, 2 test code
    # (file, scope) -> (signal, line, dotted argument texts) of each call there that creates processes, servers
    # or sockets
    spawns: dict[tuple[str, str], list[tuple[str, int, tuple[str, ...]]]] = field(default_factory=dict)

    def first(self, signal: str) -> CodeEvidence | None:
        """The site to show for a signal: reached code first, test code last."""
        best: tuple[int, int] | None = None
        for i, e in enumerate(self.evidence):
            if e.signal == signal:
                r = self.rank[i] if i < len(self.rank) else 1
                if best is None or r < best[0]:
                    best = (r, i)
                    if r == 0:
                        break
        return self.evidence[best[1]] if best else None


# library modules/functions whose names say NCCL or IPC (vLLM/SGLang weight-transfer helpers, cupy, pynccl)
_ENGINE_ROOTS = {"vllm", "sglang", "cupy", "ray", "deepspeed", "megatron", "torch"}
_GEN_ROOTS = {"transformers", "peft", "trl"}
_NCCL_NAME = re.compile(r"(?:^|[._])(?:py)?nccl(?:[._]|$)")
_IPC_NAME = re.compile(r"(?:^|[._])(?:cuda_ipc|ipc_handles?|ipc)(?:[._]|$)")
_EXACT = {name: signal for signal, exact, _p in _TABLE for name in exact}
_PREFIXES = [(p, signal) for signal, _e, prefixes in _TABLE for p in prefixes]
_ROOTS = _ENGINE_ROOTS | _GEN_ROOTS | {n.split(".", 1)[0] for n in _EXACT} | {p.split(".", 1)[0] for p, _s in _PREFIXES} | {
    r.rstrip(".").split(".", 1)[0] for r in _MP_ROOTS} | {"socket"}


def _env_workers(call: CallSite, names: tuple[str, ...], namer: Namer) -> bool:
    """The call builds vectorized environments stepped in worker processes (the class called, or passed)."""
    if any(n.startswith(_ENV_WORKERS) for n in names):
        return True
    for a in (*call.args, *(v for _k, v in call.kwargs)):
        if a.kind == "name" and isinstance(a.value, str) and \
                namer.canon(a.value, call.scope).replace("()", "").startswith(_ENV_WORKERS):
            return True
    return False


def _classify_call(call: CallSite, names: tuple[str, ...]) -> str | None:
    for name in names:
        if name.split(".", 1)[0] not in _ROOTS:
            continue
        signal = _EXACT.get(name)
        if signal:
            return signal
        for prefix, signal in _PREFIXES:
            if name.startswith(prefix):
                return signal
        if name.startswith(("transformers.", "peft.", "trl.")) and name.endswith(".generate"):
            return "hf-generate"
        if name.startswith(_MP_ROOTS):
            last = name.rsplit(".", 1)[-1]
            if last in _MP_QUEUE:
                return "mp-queue"
            if last in _MP_PROCESS:
                return "mp-process"
        if name in _SOCKET:
            return _SOCKET[name]
        if name.startswith("socket.socket.") or name == "socket.socket":
            return "socket"
        if name.split(".", 1)[0] in _ENGINE_ROOTS:
            low = name.lower()
            if "available" in low or low.endswith("version"):
                continue
            if _NCCL_NAME.search(low):
                return "nccl-broadcast"
            if _IPC_NAME.search(low):
                return "cuda-ipc"
    attr = call.attr
    if attr == "remote" and "." in call.func:
        return "ray-actor"
    if attr in _ENGINE_METHODS:
        return _ENGINE_METHODS[attr]
    return None


def collect(index: Index, graphs: Graphs | None, namers: dict[str, Namer],
            running: AbstractSet[str] | None = None) -> EvidenceResult:
    """Code evidence of the layout; ``running``: what runs (the semantics stage's reach), else
    what the graphs' entry points reach."""
    evidence: list[CodeEvidence] = []
    links: list[CodeEvidence] = []
    counts: dict[str, int] = defaultdict(int)
    reached: dict[str, int] = defaultdict(int)
    live = running if running is not None else graphs.reached if graphs is not None else set()
    scope_owner = ""

    ranks: list[int] = []
    spawns: dict[tuple[str, str], list[tuple[str, int, tuple[str, ...]]]] = {}
    is_test = False

    def add(signal: str, path: str, line: int, detail: str) -> None:
        counts[signal] += 1
        hit = bool(live) and scope_owner in live
        if hit:
            reached[signal] += 1
        if counts[signal] <= _MAX_PER_SIGNAL:
            evidence.append(CodeEvidence(signal, path, line, detail))
            ranks.append(0 if hit else 2 if is_test else 1)

    for path, s in index.summaries.items():
        if index.out_of_scope(path):  # tests, docs, benchmarks, vendored libraries
            continue
        namer = namers[path]
        # pytest code (imports pytest, or defines test_* functions) is shown last
        is_test = any(i.module.split(".", 1)[0] == "pytest" for i in s.imports) or any(
            f.name.startswith("test_") for f in s.functions)
        scope_owner = s.module
        scope_strings: dict[str, list[str]] = defaultdict(list)
        for st in s.strings:
            scope_strings[st.scope].append(st.value)
        scope_calls: dict[str, list[tuple[CallSite, tuple[str, ...], str | None]]] = defaultdict(list)
        interesting: set[str] = set()
        for call in s.calls:
            names = namer.names(call)
            signal = _classify_call(call, names)
            if signal is None and _env_workers(call, names, namer):
                signal = "env-workers"
            scope_owner = s.module if call.scope == "<module>" else f"{s.module}.{call.scope}"
            scope_calls[call.scope].append((call, names, signal))
            attr = call.attr
            if signal or _READY_WORDS.match(attr if attr != "remote" else call.func.replace("()", "").split(".")[-2:][0]):
                interesting.add(call.scope)
            gpus = call.kwarg("num_gpus") if call.kwargs else None
            if gpus is not None and gpus.kind == "lit" and isinstance(gpus.value, float) and 0 < gpus.value < 1 \
                    and (attr in ("options", "remote") or "ray.remote" in names):
                add("fractional-gpu", path, call.line, f"num_gpus={gpus.value}")
            if signal is None:
                continue
            detail = names[0] if names[0].split(".", 1)[0] in _ROOTS else call.func.replace("()", "")
            if signal == "subprocess":
                text = " ".join(_lit_strings(call)) + " " + " ".join(scope_strings.get(call.scope, ()))
                if _SERVER_WORDS.search(text):
                    signal, detail = "subprocess-server", f"{names[0]} launching a server"
            elif signal == "http-client":
                text = " ".join(_lit_strings(call)) + " " + " ".join(scope_strings.get(call.scope, ()))
                if _WEIGHT_PATH.search(text):
                    signal = "http-weights"
                elif _GEN_PATH.search(text):
                    signal = "http-generate"
            elif signal == "http-server":
                paths = [x for x in _lit_strings(call) if x.startswith("/")]
                detail = f"{names[0]} {paths[0]}" if paths else names[0]
            add(signal, path, call.line, detail)
            if signal in SPAWN_SIGNALS:
                texts = tuple(a.value for a in (*call.args, *(v for _k, v in call.kwargs))
                              if a.kind == "name" and isinstance(a.value, str)) + _get_reads(call, s.calls)
                spawns.setdefault((path, call.scope), []).append((signal, call.line, texts))
        _decorators(s, namer, add)
        for scope, calls in scope_calls.items():
            # weights put on a queue/socket: the scope reads a state_dict/parameters and puts or sends something
            attrs = {c.attr for c, _n, _s in calls}
            if attrs & _WEIGHT_READS and attrs & _PUTS:
                put = next(c for c, _n, _s in calls if c.attr in _PUTS)
                scope_owner = s.module if scope == "<module>" else f"{s.module}.{scope}"
                add("weights-put", path, put.line, f"{put.func.replace('()', '')} after reading parameters")
        for scope, line, detail in _local_loads(s, scope_calls):
            scope_owner = s.module if scope == "<module>" else f"{s.module}.{scope}"
            add("engine-local-load", path, line, detail)
        for scope, calls in scope_calls.items():
            if scope not in interesting:
                continue
            link = _link_check(scope, calls, scope_strings.get(scope, ()))
            if link:
                signal, line, detail = link
                links.append(CodeEvidence(signal, path, line, f"{_scope_name(s, scope)}: {detail}"))
    return EvidenceResult(evidence, links, dict(counts), dict(reached), ranks, spawns)


# calls that start processes, reserve devices, or open servers and sockets: the config a scope reads
# next to one of these decides the layout
SPAWN_SIGNALS = {"ray-actor", "ray-placement-group", "ray-init", "dist-init", "mp-process", "subprocess-server",
                 "http-server", "socket-server", "zmq", "grpc", "inference-engine", "ray-collective", "env-workers"}


_LOCAL_LOADS = {"load_weights", "sync_model_weights", "add_lora"}
# the trained module's weights written out by the module or its trainer, for a load that follows
_WEIGHT_SAVES = {"save_model", "save_pretrained"}
# an inference engine's own class: a method called on an object of it runs on an engine in this process
_ENGINE_TYPES = tuple(sorted(n + "." for signal, exact, _p in _TABLE if signal == "inference-engine" for n in exact)) + \
    tuple(p for signal, _e, prefixes in _TABLE if signal == "inference-engine" for p in prefixes)
_CROSSINGS = {"ray-actor", "ray-object-store", "http-client", "http-generate", "http-weights", "zmq", "grpc",
              "nccl-broadcast", "cuda-ipc", "mp-queue", "socket-client", "redis", "ray-collective", "engine-rpc"}


def _local_loads(s: FileSummary, scope_calls: dict[str, list[tuple[CallSite, tuple[str, ...], str | None]]],
                 ) -> list[tuple[str, int, str]]:
    """Methods that read one attribute's parameters (``self.module.state_dict()``) and load them into the
    model of another attribute of the same instance (``self.engine.sync_model_weights(...)``, or a local
    taken from it, ``m = self.engine.worker.model; m.load_weights(...)``), directly or through a method of
    the instance they call, with nothing leaving the process in between: the trained module and the
    inference engine live in one process (one instance holds both).

    Attributes are compared as paths (``self.state.peft_model`` and ``self.state.vllm.engine`` are two
    objects one attribute holds). The trained module's weights may also be saved first
    (``self.state.trainer.save_model(d)``) and then loaded by a call on an object of an inference
    engine's own class (an adapter added to the engine): an engine object, not a client, so in-process."""
    by_method: dict[str, list[tuple[CallSite, tuple[str, ...], str | None]]] = {
        sc: calls for sc, calls in scope_calls.items() if sc.count(".") == 1}
    if not by_method:
        return []
    locals_from: dict[tuple[str, str], str] = {}  # (scope, local) -> the self attribute path it was taken from
    for a in s.assignments:
        if a.scope in by_method and isinstance(a.value, str) and a.value.startswith("self.") and "." not in a.target:
            locals_from.setdefault((a.scope, a.target), a.value[5:])

    def loads(scope: str) -> tuple[set[str], set[str], int] | None:
        """Attribute paths whose model the scope loads weights into (all; those that are engine objects),
        and the first such line."""
        got: set[str] = set()
        engines: set[str] = set()
        line = 0
        for c, names, _sig in by_method.get(scope, ()):
            if c.attr not in _LOCAL_LOADS or not c.receiver:
                continue
            head = c.receiver.replace("()", "").split(".")
            if head[0] == "self" and len(head) > 1:
                path = ".".join(head[1:])
            else:
                base = locals_from.get((scope, head[0]))
                path = ".".join([base, *head[1:]]) if base else None
            if path:
                got.add(path)
                if any(n.startswith(_ENGINE_TYPES) for n in names):
                    engines.add(path)
                line = line or c.line
        return (got, engines, line) if got else None

    def apart(a: str, b: str) -> bool:
        return not (a == b or a.startswith(b + ".") or b.startswith(a + "."))

    out: list[tuple[str, int, str]] = []
    for scope, calls in sorted(by_method.items()):
        if any(sig in _CROSSINGS for _c, _n, sig in calls):
            continue
        reads = {c.receiver[5:] for c, _n, _s in calls
                 if c.attr in _WEIGHT_READS and c.receiver and c.receiver.startswith("self.")}
        reads |= library_reads(calls)  # ``get_model_state_dict(self.module)``
        saves = {c.receiver[5:] for c, _n, _s in calls
                 if c.attr in _WEIGHT_SAVES and c.receiver and c.receiver.startswith("self.")}
        if not reads and not saves:
            continue
        cls = scope.split(".", 1)[0]
        targets = loads(scope)
        for c, _n, _sig in calls if targets is None else ():
            if c.receiver == "self" and f"{cls}.{c.attr}" in by_method and not any(
                    sig in _CROSSINGS for _c2, _n2, sig in by_method[f"{cls}.{c.attr}"]):
                targets = loads(f"{cls}.{c.attr}")
                if targets is not None:
                    break
        if targets is None:
            continue
        into, engines, line = targets
        pairs = [(src, dst) for src in sorted(reads) for dst in sorted(into) if apart(src, dst)]
        pairs += [(src, dst) for src in sorted(saves) for dst in sorted(engines) if apart(src, dst)]
        if pairs:
            src, dst = pairs[0]
            out.append((scope, line, f"{cls}: parameters of self.{src} loaded into self.{dst}'s model in-process"))
    return out


def _get_reads(call: CallSite, calls: list[CallSite]) -> tuple[str, ...]:
    """``n_envs=cfg.get("n_envs", 1)`` as an argument of ``call``: ``cfg.n_envs`` (the key read there).

    Arguments carry no line of their own: the k-th ``x.get(...)`` argument is the k-th ``x.get`` call of
    the scope from the call's line on, within the few lines a call spans."""
    out: list[str] = []
    taken: dict[str, int] = {}
    for a in (*call.args, *(v for _k, v in call.kwargs)):
        if a.kind != "call" or not isinstance(a.value, str) or not a.value.endswith(".get"):
            continue
        near = sorted((c for c in calls if c.scope == call.scope and c.func == a.value
                       and call.line <= c.line <= call.line + _CALL_SPAN), key=lambda c: c.line)
        k = taken.get(a.value, 0)
        taken[a.value] = k + 1
        if k < len(near) and near[k].args and near[k].args[0].kind == "lit" and isinstance(near[k].args[0].value, str):
            out.append(f"{a.value.removesuffix('.get')}.{near[k].args[0].value}")
    return tuple(out)


_CALL_SPAN = 12


def _decorators(s: FileSummary, namer: Namer, add) -> None:
    """``@ray.remote`` on a class or function makes it a Ray actor or task."""
    for defs in (s.classes, s.functions):
        for d in defs:
            for deco in d.decorators:
                canon = namer.canon(deco.removesuffix("()"), d.qualname).replace("()", "")
                if canon == "ray.remote" and not deco.endswith("()"):
                    add("ray-actor", s.path, d.line, f"@ray.remote {d.qualname}")


def _lit_strings(call: CallSite) -> list[str]:
    out = []
    for a in (*call.args, *(v for _, v in call.kwargs)):
        if a.kind == "lit":
            if isinstance(a.value, str):
                out.append(a.value)
            elif isinstance(a.value, tuple):
                out.extend(x for x in a.value if isinstance(x, str))
    return out


def _scope_name(s: FileSummary, scope: str) -> str:
    return s.module if scope == "<module>" else f"{s.module}.{scope}"


def _link_check(scope: str, calls: list[tuple[CallSite, tuple[str, ...], str | None]],
                strings: list[str]) -> tuple[str, int, str] | None:
    """A scope that verifies a link: polls a health endpoint, or retries a connection with a sleep and a log."""
    for c, names, _sig in calls:
        probe = c.func.replace("()", "").split(".")
        words = [w for w in probe[-2:] if w != "remote"]
        if any("placement_group" in n for n in names):
            continue  # a placement group being ready is reserved resources, not a verified link
        if words and words[-1] == "ready" and probe[-1] != "remote":
            continue  # a bare ``x.ready()`` is a local future/resource; ``actor.ready.remote()`` is a round trip
        if words and _READY_WORDS.match(words[-1]):
            return "ready-wait", c.line, f"calls {c.func}"
    connects = [c for c, _n, sig in calls if sig in {"http-client", "http-generate", "http-weights", "socket-client",
                                                      "zmq", "grpc", "redis", "etcd"}]
    if not connects:
        for c, names, _sig in calls:
            if any(n.endswith("monitored_barrier") for n in names):
                return "monitored-barrier", c.line, "torch.distributed.monitored_barrier"
        return None
    text = " ".join(strings) + " " + " ".join(x for c in connects for x in _lit_strings(c))
    m = _HEALTH_PATH.search(text)
    if m:
        return "health-check", connects[0].line, f"polls {m.group(0)}"
    sleeps = any(any(n in _SLEEP for n in names) for _c, names, _s in calls)
    logs = any(any(n.startswith(_LOG_ROOTS) or n in {"print", "warnings.warn"} for n in names)
               or c.attr in {"warning", "warn", "info", "error", "exception", "debug"} for c, names, _s in calls)
    if sleeps and logs:
        return "retry-with-logging", connects[0].line, "connection retried with sleep and a log line"
    return None

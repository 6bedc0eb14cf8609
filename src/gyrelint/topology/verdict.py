"""One process or many: config keys and code evidence weighed into a verdict.

Every reason carries a weight; the verdict follows the strongest side, and the
reasons are listed strongest first so a reviewer can click through them. Values
matter: ``nnodes=1`` or ``world_size: 1`` is evidence for one process, not many,
and a ``torch.distributed`` group alone only says the trainer is data-parallel
(each rank may still sample in-process).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from ..graphs import Graphs
from ..graphs.symbols import symbols_of
from ..index import Index
from ..index.cache import gc_paused
from ..model import CodeEvidence, ConfigKey, Diagnostic, Evidence, Topology
from ..settings import Settings
from .classify import Vocabulary, tokenize
from .evidence import EvidenceResult, collect
from .keys import key_entries
from .loop_scope import sampler_stays_local
from .names import Namer, resolved_by_file

CROSS, SAME = "cross-process", "same-process"
_STRONG = 5
# process keys whose value is a count of processes/nodes/engines (ranks and ids are not counts)
_COUNT_TOKENS = {"nnodes", "nodes", "world", "gpus", "ngpus", "nproc", "nprocs", "processes", "procs", "replicas",
                 "engines", "workers", "devices", "size", "degree", "instances", "servers", "actors", "machines", "tp",
                 "pp", "dp", "ep", "node"}
_NOT_COUNT = {"rank", "ranks", "id", "ids", "index", "idx", "placement", "colocate", "colocated", "hybrid", "visible"}
_TRUE = {"true", "1", "yes", "on"}

# signal -> (side, weight, words)
_SIGNALS: dict[str, tuple[str, int, str]] = {
    "ray-init": (CROSS, 10, "Ray cluster started (ray.init)"),
    "ray-actor": (CROSS, 10, "Ray actors/tasks (@ray.remote, .remote())"),
    "ray-placement-group": (CROSS, 8, "Ray placement groups"),
    "subprocess-server": (CROSS, 9, "a subprocess launches a server"),
    "http-generate": (CROSS, 9, "HTTP calls to a generation endpoint"),
    "http-weights": (CROSS, 9, "HTTP calls to a weight-update endpoint"),
    "http-server": (CROSS, 7, "an HTTP server is defined"),
    "mp-process": (CROSS, 8, "multiprocessing processes/pools"),
    "mp-queue": (CROSS, 6, "multiprocessing queues/pipes"),
    "zmq": (CROSS, 7, "ZMQ sockets"),
    "grpc": (CROSS, 7, "gRPC"),
    "redis": (CROSS, 5, "Redis client"),
    "etcd": (CROSS, 5, "etcd client"),
    "socket-server": (CROSS, 6, "sockets bound/listening"),
    "socket-client": (CROSS, 4, "socket connections"),
    "cuda-ipc": (CROSS, 6, "CUDA IPC handles shared between processes"),
    "shared-memory": (CROSS, 4, "shared memory"),
    "nccl-broadcast": (CROSS, 5, "NCCL broadcast / communicator between process groups"),
    "ray-collective": (CROSS, 6, "Ray collective groups"),
    "ray-object-store": (CROSS, 4, "Ray object store (ray.get/put)"),
    "dist-init": (CROSS, 3, "torch.distributed process groups (the trainer is multi-process; "
                            "ranks may still sample in-process)"),
    "inference-engine": (SAME, 4, "an inference engine is constructed in-process"),
    "hf-generate": (SAME, 3, "the policy generates in-process (transformers generate)"),
    "engine-rpc": (CROSS, 2, "RPC into the inference engine's workers (collective_rpc)"),
    "subprocess": (CROSS, 1, "subprocesses"),
    # one instance holds the trained module and the inference engine: generation and the update share a process
    "engine-local-load": (SAME, 8, "the trained parameters are loaded straight into an in-process engine's model "
                                   "(one object holds the trainer's module and the engine)"),
    # env copies stepped in worker processes: other processes, but the policy samples and trains elsewhere
    "env-workers": (CROSS, 1, "vectorized environments stepped in worker processes (no policy there)"),
}


@dataclass(slots=True)
class _Reason:
    side: str
    weight: int
    text: str


def analyze_topology(index: Index, graphs: Graphs, settings: Settings,
                     online: list[Evidence] | None = None,
                     reached: AbstractSet[str] | None = None) -> tuple[Topology, list[Diagnostic]]:
    """Config keys (classified), code evidence, link checks, verdict and transports.

    ``online``: the semantics stage's same-process evidence (the sampler acts with the module
    object the optimizer updates), weighed with the rest. ``reached``: what runs, as the
    semantics stage found it (``Semantics.reach``); the graphs' entry-point answer by default.

    The cyclic collector is paused meanwhile, as in the semantics stage: the stage builds
    many small acyclic records, and the full collection their allocations start walked every
    object alive (index, graphs, semantics): 0.45 CPU-s of a code edit on verl in process.
    """
    with gc_paused(promote=True):
        return _analyze_topology(index, graphs, settings, online, reached)


def _analyze_topology(index: Index, graphs: Graphs, settings: Settings, online: list[Evidence] | None,
                      reached: AbstractSet[str] | None) -> tuple[Topology, list[Diagnostic]]:
    diags: list[Diagnostic] = []
    vocab = Vocabulary.from_settings(settings.topology)
    resolved = resolved_by_file(graphs)
    symbols = graphs.symbols if graphs is not None and graphs.symbols is not None else symbols_of(index)
    namers = {p: Namer(s, resolved.get(p), symbols) for p, s in index.summaries.items()}
    ev = collect(index, graphs, namers, reached)
    entries, keys, folded = key_entries(index, graphs, settings, namers, vocab, ev, diags)
    topo = decide(keys, ev, online or [], sampler_stays_local(graphs, ev, online or [], index, entries,
                                                     reached if reached is not None else graphs.reached))
    topo.keys = entries
    topo.folded = folded
    return topo, diags


def _num(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def _is_count(key: ConfigKey) -> bool:
    toks = set(tokenize(key.key.rsplit(".", 1)[-1]))
    return bool(toks & _COUNT_TOKENS) and not toks & _NOT_COUNT


def decide(keys: list[ConfigKey], ev: EvidenceResult, online: Sequence[Evidence] = (),
           local_sampler: str | None = None) -> Topology:
    """The verdict; ``local_sampler``: the loop's sampler that acts with the trained module object and calls
    nothing that leaves the process (``loop_scope.sampler_stays_local``), which outweighs repo-wide evidence."""
    reasons: list[_Reason] = []
    for e in online[:1]:
        if e.signal == "same-object":  # positive evidence: one module object serves both chains
            reasons.append(_Reason(SAME, 6, f"the sampler acts with the very model object the optimizer updates "
                                            f"(same object '{e.via}'), at {e.file}:{e.line}"))
    counts = ev.counts
    for signal, n in counts.items():
        if signal not in _SIGNALS or not n:
            continue
        side, weight, words = _SIGNALS[signal]
        first = ev.first(signal)
        where = f"{first.file}:{first.line}" if first else ""
        reasons.append(_Reason(side, weight, f"{words}: {n} site{'s' if n != 1 else ''}, first at {where}"))
    # config values
    many = [k for k in keys if k.cls == "process" and _is_count(k) and (_num(k.value) or 0) > 1]
    one = [k for k in keys if k.cls == "process" and _is_count(k) and _num(k.value) == 1]
    ports = [k for k in keys if k.cls == "port" and k.value not in (None, "", "null", "None")]
    transports = [k for k in keys if k.cls == "comm" and k.reason.startswith("value")]
    if many:
        reasons.append(_Reason(CROSS, 4, "process counts above 1: " + _sample(many)))
    if ports:
        reasons.append(_Reason(CROSS, 3, "ports/addresses configured: " + _sample(ports)))
    if transports:
        reasons.append(_Reason(CROSS, 3, "transports configured: " + _sample(transports)))
    if one and not many:
        reasons.append(_Reason(SAME, 1, "process counts of 1: " + _sample(one)))
    cross = [r for r in reasons if r.side == CROSS]
    strong_cross = [r for r in cross if r.weight >= _STRONG]
    if not cross and not ports:
        reasons.append(_Reason(SAME, 1, "no ports, queues, Ray or other transports in config or code"))
    reasons.sort(key=lambda r: (-r.weight, r.side, r.text))
    same_score = sum(r.weight for r in reasons if r.side == SAME)
    cross_score = sum(r.weight for r in cross)
    shared = any(e.signal == "same-object" for e in online[:1])
    if counts.get("engine-local-load"):
        # Ray actors, process groups and launcher ports then host or replicate that one process: the engine the
        # sampler generates with sits beside the optimizer, whatever else the run starts
        verdict = SAME
        local = _SIGNALS["engine-local-load"][2]
        reasons.sort(key=lambda r: not r.text.startswith(local))  # the deciding reason first
    elif shared and local_sampler is not None:
        # the loop's own generation runs beside its optimizer: Ray, servers and engines elsewhere in the tree
        # are other paths (off by default, never called by the loop) or replicas of this one process
        verdict = SAME
        reasons.insert(0, _Reason(SAME, 6, f"the online loop's sampler ({local_sampler}) acts with the trained "
                                           "module object and nothing it calls leaves the process; the "
                                           "cross-process evidence lies outside the loop"))
    elif strong_cross:
        verdict = CROSS
    elif shared:
        # one model object samples and trains: launcher ports, rank counts and process groups then describe
        # data-parallel copies of that one process, not a second program
        verdict = SAME
    elif cross_score >= 6 and cross_score > same_score:
        verdict = CROSS
    elif same_score >= 2 and same_score >= cross_score:
        verdict = SAME
    else:
        verdict = "unknown"
    colocated, co_reasons = _colocated(keys, ev)
    topo = Topology(
        verdict=verdict,
        reasons=[f"{r.side}: {r.text}" for r in reasons] + co_reasons,
        colocated=colocated,
        config_keys=keys,
        code_evidence=ev.evidence + [CodeEvidence("same-object", e.file, e.line, f"same object: {e.via}")
                                     for e in online[:1] if e.signal == "same-object"],
        link_checks=ev.link_checks,
    )
    topo.trajectory_transport = _trajectory_transport(verdict, ev, keys)
    topo.weight_transport = _weight_transport(verdict, ev)
    return topo


def _sample(keys: list[ConfigKey], n: int = 3) -> str:
    shown = ", ".join(f"{k.key}={k.value} ({k.file}:{k.line})" for k in keys[:n])
    return shown + (f" and {len(keys) - n} more" if len(keys) > n else "")


def _colocated(keys: list[ConfigKey], ev: EvidenceResult) -> tuple[bool, list[str]]:
    """Sampler and trainer share devices in separate workers (hybrid engine)."""
    out: list[str] = []
    flags = [k for k in keys if set(tokenize(k.key.rsplit(".", 1)[-1])) & {"colocate", "colocated", "colocation", "hybrid"}
             and (k.value or "").lower() in _TRUE]
    if flags:
        out.append("colocated: " + _sample(flags))
    sleep = ev.first("engine-sleep")
    if sleep:
        out.append(f"colocated: the inference engine releases/resumes GPU memory to share devices "
                   f"({ev.counts['engine-sleep']} sites, first at {sleep.file}:{sleep.line})")
    frac = ev.first("fractional-gpu")
    if frac:
        out.append(f"colocated: Ray workers ask for a fraction of a GPU ({frac.file}:{frac.line})")
    return bool(out), out


def _pick(options: list[tuple[tuple[str, ...], bool, str]], ev: EvidenceResult) -> str | None:
    """The first present transport names the link; code reached from an entry point goes first."""
    present = [(sigs, words) for sigs, ok, words in options if ok]
    if not present:
        return None
    if ev.reached:
        present.sort(key=lambda p: not any(ev.reached.get(sig, 0) for sig in p[0]))
    words = [w for _s, w in present]
    return words[0] + (f" (also: {', '.join(words[1:])})" if len(words) > 1 else "")


_HANDOFF_KEY = re.compile(r"dump|handoff|exchange|record")


def _trajectory_transport(verdict: str, ev: EvidenceResult, keys: list[ConfigKey]) -> str:
    c = ev.counts
    ray = ("ray-actor", "ray-init", "ray-object-store")
    files = any(k.cls == "comm" and _HANDOFF_KEY.search(k.key.rsplit(".", 1)[-1].lower()) for k in keys)
    picked = _pick([
        (ray, any(c.get(x, 0) for x in ray), "Ray object store"),
        (("mp-queue",), c.get("mp-queue", 0) > 0, "multiprocessing queue"),
        (("zmq",), c.get("zmq", 0) > 0, "ZMQ"),
        (("http-generate",), c.get("http-generate", 0) > 0, "HTTP from an inference server"),
        (("grpc",), c.get("grpc", 0) > 0, "gRPC"),
        (("redis",), c.get("redis", 0) > 0, "Redis"),
        (("shared-memory",), c.get("shared-memory", 0) > 0, "shared memory"),
        ((), files, "shared files"),
        # an in-process engine next to other transports is a second mode (e.g. colocated generation), unless Ray
        # actors host it — then the Ray object store already names the hop to the trainer
        (("inference-engine", "hf-generate"), not any(c.get(x, 0) for x in ray)
         and (c.get("inference-engine", 0) + c.get("hf-generate", 0)) > 0, "in-process call"),
    ], ev)
    if picked:
        return picked
    return "in-process call" if verdict == SAME else "unknown"


def _weight_transport(verdict: str, ev: EvidenceResult) -> str:
    c = ev.counts
    picked = _pick([
        (("nccl-broadcast", "ray-collective"), c.get("nccl-broadcast", 0) + c.get("ray-collective", 0) > 0, "NCCL broadcast"),
        (("cuda-ipc",), c.get("cuda-ipc", 0) > 0, "CUDA IPC handles"),
        (("http-weights",), c.get("http-weights", 0) > 0, "HTTP to an inference server"),
        (("weights-from-disk",), c.get("weights-from-disk", 0) > 0, "shared files"),
        (("weights-load",), c.get("weights-load", 0) > 0 and c.get("inference-engine", 0) > 0,
         "in-process call (load_weights into the engine)"),
        (("weights-put", "mp-queue"), c.get("weights-put", 0) > 0 and c.get("mp-queue", 0) > 0, "multiprocessing queue"),
        (("weights-put", "zmq"), c.get("weights-put", 0) > 0 and c.get("zmq", 0) > 0, "ZMQ"),
    ], ev)
    if picked:
        return picked
    if verdict == SAME:
        return "in-process call"
    if c.get("ray-actor", 0):
        return "Ray object store"
    return "unknown"

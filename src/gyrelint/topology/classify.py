"""Classify a config key into ``process``, ``port``, ``comm`` or ``layout`` by its tokens and value.

Keys are split into lower-case tokens (``snake_case``, ``kebab-case``, ``camelCase``,
dotted), and rules match whole tokens or runs of tokens, never substrings, so
``report`` is not ``port`` and ``transport_lr`` is nothing. Every hit says which
token (or value) decided it. ``[tool.gyrelint.topology]`` can add tokens per class
and ignore keys.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..settings import TopologySettings

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SPLIT = re.compile(r"[^A-Za-z0-9]+")

CLASSES = ("process", "port", "comm", "layout")


def switched_role(toks: list[str]) -> str | None:
    """The role a switch turns on: ``use_critic`` / ``critic_enable`` → ``critic``; None for anything else."""
    if len(toks) > 1 and toks[0] in _SWITCH and "_".join(toks[1:]) in _ROLE_SWITCH:
        return "_".join(toks[1:])
    if len(toks) > 1 and toks[-1] in _SWITCH and "_".join(toks[:-1]) in _ROLE_SWITCH:
        return "_".join(toks[:-1])
    return None


def tokenize(key: str) -> list[str]:
    """``actor_rollout_ref.rollout.tensorModelParallel-size`` → ``[actor, rollout, ref, ..., size]``."""
    out: list[str] = []
    for part in _SPLIT.split(key):
        if not part:
            continue
        if part.islower() or part.isupper() or part.isdigit():
            out.append(part.lower())
        else:
            out.extend(m.lower() for m in _CAMEL.findall(part))
    return out


# --- the token vocabulary ---------------------------------------------------------
# Single tokens that decide a class on their own.
PROCESS_TOKENS = {
    "nnodes", "nodes", "num_nodes", "rank", "ranks", "local_rank", "node_rank", "devices", "gpus",
    "ngpus", "ngpu", "nproc", "nprocs", "processes", "procs", "replicas", "workers", "engines",
    "hostfile", "tp", "pp", "dp", "ep", "cp", "fsdp", "nworkers",
    "bundles", "actors", "accelerators", "subprocess", "inprocess",
    # a switch that relaunches the program under torchrun (one process per device)
    "torchrun",
}
# tokens that decide only as the whole leaf: ``gpu="H100"`` / ``resources=...`` of a launcher say what a role
# runs on, ``gpu_memory_utilization`` or ``cpu_resources_limit`` are other things
_WHOLE_LEAF_PROCESS = {"gpu", "accelerator", "resources", "launcher", "slurm"}
# Runs of tokens (matched contiguously).
PROCESS_RUNS = [
    ("world", "size"), ("num", "gpus"), ("n", "gpus"), ("gpus", "per"), ("gpu", "per"), ("per", "node"),
    ("num", "gpu"), ("n", "gpu"), ("gpu", "count"), ("gpu", "ids"), ("device", "ids"), ("device", "count"),
    ("num", "devices"), ("num", "servers"), ("engine", "count"), ("device", "mesh"), ("n", "servers"), ("num", "instances"),
    ("num", "processes"), ("num", "proc"), ("num", "engines"), ("num", "actors"), ("num", "machines"),
    ("parallel", "size"), ("parallel", "degree"), ("parallelism", "size"), ("parallelism", "degree"),
    ("tp", "size"), ("pp", "size"), ("dp", "size"), ("ep", "size"), ("cp", "size"), ("sp", "size"),
    ("fsdp", "size"), ("mesh", "shape"), ("start", "method"), ("num", "cpus"),
    # sharded / replicated data-parallel degrees of a trainer mesh
    ("dp", "replicate"), ("dp", "shard"), ("shard", "degree"), ("replicate", "degree"), ("parallel", "shard"),
    ("parallel", "replicate"),
    # counts of a role's copies spelled as ``*_replica_count`` / ``worker_count``
    ("replica", "count"), ("replicas", "count"), ("instance", "count"), ("worker", "count"), ("actor", "count"),
    ("process", "count"), ("node", "count"),
    # API server processes in front of an engine
    ("api", "servers"), ("api", "server", "count"), ("server", "count"), ("num", "api"),
    # sequence (context) parallelism: a sequence split over the ranks of a group (Ulysses, ring attention)
    ("ulysses", "size"), ("ulysses", "degree"), ("ring", "attn", "size"), ("ring", "attention", "size"),
    ("sequence", "parallel"), ("context", "parallel"), ("seq", "parallel"),
    # how many machines a role's processes span (``host_count``), not an address
    ("host", "count"), ("hosts", "count"),
    # one process or two: the service runs in the caller's process or in its own
    ("in", "process"), ("same", "process"), ("separate", "process"), ("own", "process"), ("out", "of", "process"),
]
# Tokens that mean something else when present (a LoRA rank is a matrix rank).
PROCESS_VETO = {"lora", "adapter", "dora", "svd", "peft", "lowrank", "matrix", "rerank", "reranker", "ranking",
                "dataloader", "loader", "data_loader", "tokenizer", "tokenization", "preprocessing", "preprocess",
                "map", "dataset",
                # a length or batch "per rank" is a size, not a process setting
                "seqlen", "batch", "micro", "mini", "len", "length", "bsz", "samples",
                # which ranks a profiler or logger watches says nothing about the topology
                "profiler", "profile", "profiling", "nsys", "trace", "tracing", "logging", "logger"}
# Standalone parallelism abbreviations only count when they are the whole last segment.
_ABBREV = {"tp", "pp", "dp", "ep", "cp", "fsdp"}
# Leaves too generic to classify by themselves.
_GENERIC = {"type", "kind", "mode", "method", "name", "path", "dir", "root", "size", "enabled", "enable", "impl",
            "backend", "protocol"}

PORT_TOKENS = {
    "port", "ports", "host", "hosts", "hostname", "hostnames", "addr", "address", "addresses", "url", "urls",
    "uri", "endpoint", "endpoints", "ip", "ips", "router", "routers", "nic", "ifname", "addrs",
}
PORT_RUNS = [("api", "base"), ("base", "url"), ("server", "address")]
# URLs that locate a download or a web page, not a peer of the run.
PORT_VETO = {"dataset", "data", "hub", "repo", "wandb", "docs", "doc", "homepage", "download", "image", "video",
             "logo", "project", "license", "paper", "website", "github", "git", "email", "mail", "swanlab",
             "mlflow", "tensorboard", "audio", "imgs", "images", "memory", "offload", "pinned", "pin",
             # package indexes and mirrors serve installs, not the run
             "index", "pip", "whl", "wheel", "mirror", "conda", "registry"}
# a mixture-of-experts router is a layer, not a network router: these words veto a ``router`` hit only
ROUTER_VETO = {"coef", "loss", "aux", "dtype", "moe", "expert", "experts", "logits", "replay", "topk", "bias", "jitter",
               "lr", "balance", "capacity", "score", "scores"}
# Checked on the key's own last segment only: the file that configures a router is not an address.
PORT_LEAF_VETO = {"config", "cfg", "path", "file", "checking", "check", "verify", "verification"}
# ... and a server's timeout or retry budget is a setting of the link to it (a transport setting).
LINK_LEAF = {"timeout", "timeouts", "retry", "retries", "interval", "backoff", "delay"}

COMM_TOKENS = {
    "queue", "queues", "shm", "rpc", "grpc", "ray", "nccl", "gloo", "zmq", "zeromq", "http", "https",
    "redis", "etcd", "nfs", "ipc", "mpi", "hccl", "ucx", "rdma", "infiniband", "nvlink", "mooncake",
    "kafka", "rabbitmq", "nats", "pubsub", "websocket", "handoff", "p2p",
}
COMM_RUNS = [
    ("shared", "memory"), ("dump", "dir"), ("dump", "path"), ("dump", "folder"), ("dump", "root"),
    ("handoff", "dir"), ("exchange", "dir"), ("name", "resolve"), ("object", "store"), ("dist", "backend"),
    ("distributed", "backend"), ("executor", "backend"), ("comm", "backend"), ("communication", "backend"),
    ("collective", "backend"), ("process", "group"), ("collective", "group"), ("dist", "init", "method"),
    ("distributed", "init", "method"), ("dist", "url"), ("rendezvous", "backend"), ("rdzv", "backend"), ("weight", "sync"),
    ("weights", "sync"), ("update", "weights", "method"), ("sync", "method"), ("record", "root"),
    ("nfs", "record"),
]
COMM_VETO: set[str] = set()
# how weights reach the engine (a broadcast, a refit of the engine) and how rollouts reach the trainer
COMM_TOKENS |= {"refit"}
COMM_RUNS += [("weight", "broadcast"), ("weights", "broadcast"), ("broadcast", "backend"), ("rollout", "transport"),
              ("rollouts", "transport"), ("trajectory", "transport"), ("experience", "transport"),
              ("sample", "transport"), ("samples", "transport"), ("data", "transport"), ("transport", "backend"),
              ("transport", "type")]
# weight-update settings say how weights move from trainer to sampler
COMM_RUNS += [("update", "weights"), ("update", "weight"), ("weight", "update"), ("weights", "update"),
              ("weight", "transfer"), ("weights", "transfer"), ("sync", "weights"), ("sync", "weight"),
              ("parameter", "sync"), ("param", "sync"), ("params", "sync"), ("sync", "params"),
              # a checkpoint engine (the checkpoint-engine library, a framework's own) pushes weights into the engine
              ("checkpoint", "engine"), ("ckpt", "engine")]

# Mode switches that imply the layout: what shares a device, what runs ahead, which engine or backend.
LAYOUT_TOKENS = {"offload", "offloading", "colocate", "colocated", "colocation", "async", "asynchronous", "staleness",
                 "offpolicyness", "placement", "disaggregated", "disaggregation", "strategy",
                 # the spelling some frameworks use; unloading an engine between phases frees its GPU like offload
                 "collocate", "collocated", "collocation", "unload", "unloading",
                 # parameters unpinned from host memory between the generation and training phases
                 "unpin"}
LAYOUT_RUNS = [
    ("hybrid", "engine"), ("device", "mapping"), ("device", "map"), ("free", "cache"), ("sleep", "mode"),
    ("sleep", "level"), ("allocation", "mode"), ("resource", "pool"), ("resource", "pools"), ("role", "mapping"),
    ("gpu", "memory", "utilization"), ("mem", "fraction"), ("partial", "rollout"), ("scheduling", "strategy"),
    ("placement", "strategy"), ("train", "backend"), ("training", "backend"), ("rollout", "backend"),
    ("inference", "backend"), ("engine", "backend"), ("generation", "backend"), ("use", "ray"),
    ("release", "memory"), ("engine", "type"), ("rollout", "engine"), ("inference", "engine"),
    ("max", "concurrent"), ("max", "off", "policy"),
    # where an agent's sandbox or environment runs (local containers, a remote service)
    ("sandbox", "backend"), ("runtime", "backend"), ("env", "backend"), ("environment", "backend"),
    # the share of a GPU an engine takes, spelled as a ratio or fraction; ZeRO sharding of the trainer
    ("gpu", "ratio"), ("gpu", "fraction"), ("memory", "fraction"), ("gpu", "share"), ("memory", "ratio"),
    ("zero", "stage"), ("engine", "sleep"), ("vllm", "sleep"), ("sglang", "sleep"), ("enable", "sleep"),
    # how much work is kept in flight against an engine or a service
    ("max", "concurrency"), ("concurrency", "limit"), ("parallel", "tasks"), ("parallel", "requests"),
    ("concurrent", "requests"), ("concurrent", "tasks"),
    # agents or environments run in a remote runtime or sandbox service, not in the rollout worker
    ("remote", "runtime"), ("remote", "sandbox"), ("remote", "env"), ("remote", "envs"), ("remote", "environment"),
    # memory residency between the generation and training phases: an engine's cache released, parameters unpinned
    ("release", "cache"), ("release", "inference", "cache"), ("unpin", "parameters"), ("pin", "parameters"),
    # how far behind the policy the consumed batches may lag; requests kept in flight at once against a server
    ("batches", "offpolicy"), ("steps", "offpolicy"), ("max", "offpolicy"), ("requests", "at", "once"),
    # which path the weights take from trainer to engine, chosen by name
    ("weight", "bridge"), ("weights", "bridge"),
    # a switch that splits one model over the visible devices (layer-wise model parallelism) or not
    ("model", "parallel"),
    # how a trainer's parameters are sharded over its ranks (FSDP ``sharding_strategy``)
    ("sharding", "strategy"), ("shard", "strategy"), ("parallelism", "strategy"),
]
# a generic leaf (``rollout.name``, ``actor.backend``) directly under a role's section names that role's engine
_ROLE_SECTIONS = {"rollout", "actor", "critic", "ref", "reward", "trainer", "inference", "generation", "generator",
                  "sampler", "learner", "policy", "teacher", "train"}
_ROLE_LEAF = {"name", "backend", "engine", "impl", "type", "strategy"}
_TIMEOUT = {"timeout", "timeouts"}
# timeouts of work inside one process: profiling, logging, saving, evaluation, compilation
_TIMEOUT_VETO = {"profiler", "profile", "profiling", "log", "logging", "logger", "save", "saving", "checkpoint", "ckpt",
                 "eval", "evaluation", "compile", "compilation", "test", "tests", "lock", "cache"}
# a strategy or an offload of something else (saving, padding, a learning-rate schedule) is not the layout
LAYOUT_VETO = {"save", "saving", "eval", "evaluation", "logging", "log", "padding", "pad", "truncation", "sampling",
               "lr", "checkpoint", "ckpt", "dataloader", "loader", "dataset", "tokenizer", "profiler", "decay",
               "warmup", "search", "selection", "filter", "merge", "dedup", "split", "loss", "kv", "activation",
               "activations"}
# ``worker_cls`` / ``rollout_class``: which class a role runs is a plugin of the layout
_ROLE_WORDS = {"worker", "workers", "engine", "actor", "rollout", "server", "trainer", "manager", "scheduler",
               "launcher", "loop", "agent", "controller", "executor", "backend", "pool", "router", "client"}
_CLASS_LEAF = {"cls", "class", "impl", "factory"}
# values that name an engine or a training backend: the key chooses it
ENGINE_VALUES = {"vllm", "sglang", "hf", "huggingface", "transformers", "trtllm", "tensorrt_llm", "tensorrt-llm",
                 "lmdeploy", "megatron", "mcore", "fsdp", "fsdp1", "fsdp2", "deepspeed", "ddp", "torchtitan", "veomni",
                 "colossalai", "nemo", "automodel", "dtensor", "xla"}
# a switch (``vllm.enable``, ``use_sglang``, ``enable_trtllm``) for an engine or backend chooses it
_SWITCH = {"enable", "enabled", "use", "using", "activate", "on"}
_ENGINE_SECTIONS = ENGINE_VALUES | {"trt_llm", "trt", "tensorrt"}
_ENGINE_VALUE_VETO = {"tokenizer", "template", "chat", "format", "checkpoint", "ckpt", "save", "load", "export",
                      "convert", "dtype", "dataset", "data", "hub", "source", "download", "repo", "model", "prompt"}
# roles a switch turns on (``use_critic``, ``use_reference_policy``): each is a worker group of its own
_ROLE_SWITCH = {"ref", "reference", "ref_policy", "reference_policy", "ref_model", "reference_model", "critic",
                "critic_model", "value_model", "reward_model", "rm", "teacher", "teacher_model"}
# a switch read without a default still says what it does with a server
_SERVER_VERBS = {"use", "launch", "start", "spawn", "run", "combine", "separate", "share", "shared", "merge", "colocate",
                 "skip", "external", "remote"}
# servers of a run's tooling, not of the loop
_SERVER_VETO = {"log", "logging", "logger", "wandb", "tensorboard", "mlflow", "metrics", "profiler", "profile", "debug",
                "dashboard", "ui", "docs", "test", "tests"}
# a key named after a training or generation backend holds that backend's settings
_BACKEND_LEAF = {"deepspeed", "megatron", "vllm", "sglang", "trtllm", "tensorrt_llm", "lmdeploy", "torchtitan",
                 "colossalai", "fsdp2", "fsdp1", "veomni"}
_VERSION = re.compile(r"^\s*(?:[=<>~!]|\d+\.\d)")  # ``vllm==0.15.0`` in an install line pins a package
# values that name a launch or process mode, taken only on a generic leaf (``rollout.mode: async``)
MODE_VALUES = {"async", "sync", "colocate", "colocated", "disaggregated", "separate", "separated", "hybrid", "spmd",
               "server", "remote", "local", "standalone", "ray", "slurm", "k8s", "kubernetes", "spawn", "forkserver",
               "subprocess", "multiprocessing", "torchrun",
               # a role served by a remote API (``reward_model_type: api``) rather than loaded beside the trainer
               "api",
               # how many machines or GPUs a launch spans
               "single_gpu", "single_node", "multi_gpu", "multi_node", "multinode", "singlenode"}
_MODE_LEAF = {"mode", "type", "kind", "backend", "name", "impl", "engine", "launcher", "scheduler", "strategy",
              "method", "runtime", "executor", "launch"}
_IMPORT_PATH = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_]\w*)?$")
_IMPORT_LEAF = {"cls", "class", "path", "module", "impl", "fn", "func", "function", "worker", "factory", "builder",
                "entrypoint", "entry", "plugin", "hook"}
_NOT_CODE = {"data", "output", "outputs", "out", "test", "tests", "example", "examples", "script", "scripts"}
_CODE_FILE = re.compile(r"^[\w./-]*\w\.py(?::\w+)?$")
_CONFIG_CLASS = re.compile(r"(?:Config|Cfg|Args|Arguments|Settings|Params)$")

# Values that name a transport on their own (the whole value, lower-cased).
COMM_VALUES = {"nccl", "gloo", "mpi", "hccl", "ray", "zmq", "zeromq", "grpc", "redis", "etcd", "etcd3", "nfs",
               "ipc", "cuda_ipc", "shm", "shared_memory", "http", "https", "tcp", "ucx", "rdma", "mooncake",
               "nixl", "mp", "multiprocessing"}
_URL_VALUE = re.compile(r"^(?:tcp|http|https|grpc|zmq|ipc|ws|wss|redis|etcd|nccl|env)://", re.I)
_PAGE_URL = re.compile(
    r"^https?://(?:[^/]*\.)?(?:github\.com|gitlab\.com|gitee\.com|huggingface\.co|readthedocs\.io|github\.io|"
    r"arxiv\.org|wikipedia\.org|pypi\.org)(?:[:/]|$)|^https?://\S+\.(?:md|html?|pdf|png|jpe?g|gif|svg|txt)(?:[?#]\S*)?$",
    re.I)
# an http(s) URL names a peer when it has an explicit port or a local/IP host
_PEER_URL = re.compile(r"^[a-z]+://(?:localhost|127\.\d+\.\d+\.\d+|\d{1,3}(?:\.\d{1,3}){3}|0\.0\.0\.0|\[[0-9a-f:]+\]"
                       r"|[^/:]+:\d+)(?:[:/]|$)", re.I)
_IPV4 = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?$")


@dataclass(slots=True)
class Vocabulary:
    """The token rules, extended and filtered by ``[tool.gyrelint.topology]``."""

    tokens: dict[str, set[str]] = field(default_factory=lambda: {
        "process": set(PROCESS_TOKENS), "port": set(PORT_TOKENS), "comm": set(COMM_TOKENS),
        "layout": set(LAYOUT_TOKENS)})
    runs: dict[str, list[tuple[str, ...]]] = field(default_factory=lambda: {
        "process": list(PROCESS_RUNS), "port": list(PORT_RUNS), "comm": list(COMM_RUNS), "layout": list(LAYOUT_RUNS)})
    key_globs: dict[str, list[str]] = field(default_factory=lambda: {c: [] for c in CLASSES})
    ignore_tokens: set[str] = field(default_factory=set)
    ignore_globs: list[str] = field(default_factory=list)
    memo: dict[tuple[str, object, str], tuple[str, str] | None] = field(default_factory=dict)  # per-run caches
    tok_memo: dict[str, list[str]] = field(default_factory=dict)
    leaf_memo: dict[tuple[str, frozenset[str]], tuple[str, str] | None] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, topology: TopologySettings | None) -> Vocabulary:
        """The built-in vocabulary extended by ``[tool.gyrelint.topology]`` (checked when read)."""
        vocab = cls()
        for name, items in (topology.items() if topology is not None else ()):
            for item in items:
                vocab._add(name, item)
        return vocab

    def _add(self, cls: str, item: str) -> None:
        if "*" in item or "?" in item or "." in item:
            (self.ignore_globs if cls == "ignore" else self.key_globs[cls]).append(item)
            return
        toks = tuple(tokenize(item))
        if not toks:
            return
        if cls == "ignore":
            if len(toks) == 1:
                self.ignore_tokens.add(toks[0])
            else:
                self.ignore_globs.append(item)
            return
        if len(toks) == 1:
            self.tokens[cls].add(toks[0])
        else:
            self.runs[cls].append(toks)


def _ngrams(tokens: list[str]) -> set[tuple[str, ...]]:
    """Every run of 2 or 3 adjacent tokens, to test token runs by set lookup."""
    out: set[tuple[str, ...]] = set()
    for n in (2, 3):
        for i in range(len(tokens) - n + 1):
            out.add(tuple(tokens[i : i + n]))
    return out


def _joined(tokens: list[str]) -> set[str]:
    """Adjacent pairs joined with ``_`` so ``local_rank``/``num_nodes`` match as one token."""
    return {f"{a}_{b}" for a, b in zip(tokens, tokens[1:], strict=False)}


def classify(key: str, value: object = None, vocab: Vocabulary | None = None,
             context: str = "") -> tuple[str, str] | None:
    """``(class, reason)`` for a key, or None when it is none of the three classes.

    ``context`` (e.g. the dataclass that declares the field) only feeds the vetoes."""
    vocab = vocab or Vocabulary()
    memo_key = (key, value if isinstance(value, (str, int, float, bool)) or value is None else str(value), context)
    if memo_key in vocab.memo:
        return vocab.memo[memo_key]
    result = _classify(key, value, vocab, context)
    vocab.memo[memo_key] = result
    return result


def _tokens(vocab: Vocabulary, segment: str) -> list[str]:
    toks = vocab.tok_memo.get(segment)
    if toks is None:
        toks = vocab.tok_memo[segment] = tokenize(segment)
    return toks


_VETOES = {"process": PROCESS_VETO, "port": PORT_VETO, "comm": COMM_VETO, "layout": LAYOUT_VETO}
# Single tokens with a second meaning in some contexts: data workers, nodes of a tree.
TOKEN_VETO = {
    "workers": {"data", "prompts", "prompt", "filter", "preprocess", "tokenize", "dataloader", "loader", "io"},
    "nodes": {"trie", "tree", "graph", "dag", "ast", "children", "child", "parent", "leaf", "leaves"},
    "rank": {"sort", "sorted", "order", "top", "topk"},
    "router": ROUTER_VETO, "routers": ROUTER_VETO,
}
_VETOED = ("vetoed", "")


def _leaf(vocab: Vocabulary, last: str, vetoes: frozenset[str]) -> tuple[str, str] | None:
    """Class of the last key segment given which classes the parents veto (memoized)."""
    memo = (last, vetoes)
    if memo in vocab.leaf_memo:
        return vocab.leaf_memo[memo]
    toks = _tokens(vocab, last)
    result: tuple[str, str] | None = None
    if toks and not vocab.ignore_tokens & set(toks):
        words = set(toks) | _joined(toks)
        grams = _ngrams(toks)
        hits: list[tuple[str, str]] = []
        for cls in ("port", "comm", "process", "layout"):
            runs = [r for r in vocab.runs[cls] if r in grams or (len(r) > 3 and _contains(toks, r))]
            found = sorted(words & vocab.tokens[cls])
            if cls == "process":
                found = [t for t in found if t not in _ABBREV or toks == [t] or _after_engine(toks, t)]
                if not found and toks and len(toks) == 1 and toks[0] in _WHOLE_LEAF_PROCESS:
                    found = [toks[0]]
                if not found and _engine_device(toks):
                    found = [toks[1]]
            elif cls == "layout":
                found = [t for t in found if t != "strategy" or toks == [t]]
                if not found and not runs and toks[-1] in _CLASS_LEAF and _ROLE_WORDS & set(toks):
                    found = [toks[-1]]  # ``worker_cls``: the class a role runs
            if any(f"token:{t}" in vetoes for t in found):
                found = []
                if not runs:
                    hits = [_VETOED]
                    break
            if cls == "port" and LINK_LEAF & set(toks) and (runs or found) and "port" not in vetoes:
                what = "_".join(runs[0]) if runs else found[0]
                hits.append(("comm", f"timeout/retry of a link (token '{what}')"))
                continue
            if cls in vetoes or (cls == "port" and PORT_LEAF_VETO & set(toks)):
                if runs or found:
                    hits = [_VETOED]  # the key names this class but a context token says it means something else
                    break
                continue
            if runs:
                hits.append((cls, f"tokens '{'_'.join(runs[0])}'"))
            elif found:
                hits.append((cls, f"token '{found[0]}'"))
        if hits:
            result = _VETOED if hits == [_VETOED] else _pick(hits, toks)
    vocab.leaf_memo[memo] = result
    return result


def _after_engine(toks: list[str], abbrev: str) -> bool:
    """``vllm_tp`` / ``sglang_dp_size``: a parallelism abbreviation right after an engine's name is its size."""
    return abbrev != "fsdp" and any(a in ENGINE_VALUES and b == abbrev for a, b in zip(toks, toks[1:], strict=False))


def _engine_device(toks: list[str]) -> bool:
    """``vllm_gpu`` / ``sglang_gpus``: the GPU an engine's process runs on (a leaf ending in an engine's GPU)."""
    return len(toks) == 2 and toks[0] in ENGINE_VALUES and toks[1] in ("gpu", "gpus", "device", "devices")


def _contains(toks: list[str], run: tuple[str, ...]) -> bool:
    return any(tuple(toks[i : i + len(run)]) == run for i in range(len(toks)))


def _classify(key: str, value: object, vocab: Vocabulary, context: str = "") -> tuple[str, str] | None:
    if vocab.ignore_globs and any(fnmatch.fnmatchcase(key, g) for g in vocab.ignore_globs):
        return None
    for cls in CLASSES:
        for g in vocab.key_globs[cls]:
            if fnmatch.fnmatchcase(key, g):
                return cls, f"key matches '{g}'"
    # the last dotted segment names the key; parents only give context for vetoes
    segments = key.split(".")
    last = segments[-1]
    ctx: set[str] = set()
    for seg in segments:
        ctx.update(_tokens(vocab, seg))
    if context:
        ctx.update(_tokens(vocab, context))
    if vocab.ignore_tokens & ctx and vocab.ignore_tokens & set(_tokens(vocab, last)):
        return None
    vetoes = frozenset([*(cls for cls, veto in _VETOES.items() if veto & ctx),
                        *(f"token:{tok}" for tok, veto in TOKEN_VETO.items() if veto & ctx)])
    hit = _leaf(vocab, last, vetoes)
    if hit == _VETOED:
        return None
    if hit is not None:
        if hit[0] == "port" and isinstance(value, str) and _PAGE_URL.search(value.strip()):
            return None  # a link to a web page or a code/model hub is not a peer of the run
        return hit
    toks = _tokens(vocab, last)
    if len(toks) == 1 and toks[0] in _GENERIC and len(segments) > 1:
        # ``name_resolve.type`` / ``queue.size``: a generic leaf takes its meaning from the parent
        parent = segments[-2]
        res = classify(parent, None, vocab)
        if res is not None and not res[1].startswith("named after"):  # (the engine switch rule judges those)
            return res[0], f"{res[1]} (parent '{parent}')"
    if (_TIMEOUT & set(toks) or (len(segments) > 1 and _TIMEOUT & set(_tokens(vocab, segments[-2])))) \
            and not ctx & _TIMEOUT_VETO and str(value).lower() not in ("true", "false"):
        # (``raise_timeout=True`` is what to do on a timeout, not how long to wait)
        # a wait on another process or service (a server's start-up, a request, a queue get, a collective)
        return "comm", "a timeout: how long a wait on another process or service may last"
    if len(toks) == 1 and toks[0] in _ROLE_LEAF and len(segments) > 1:
        ptoks = _tokens(vocab, segments[-2])
        if ptoks and set(ptoks) <= _ROLE_SECTIONS:
            return "layout", f"the {toks[0]} of the '{segments[-2]}' role (engine or backend it runs)"
    if len(segments) == 1 and toks in (["backend"], ["engine"]) and context:
        # ``AgentTrainer(backend="verl")``: the backend keyword of a role's own class
        owner = _tokens(vocab, context.split(".", 1)[0])
        if owner and owner[-1] in _ROLE_SECTIONS | {"trainer", "runner", "engine"}:
            return "layout", f"the {toks[0]} of '{context.split('.', 1)[0]}' (what it runs on)"
    if "_".join(toks) in _BACKEND_LEAF and not ctx & _ENGINE_VALUE_VETO and not _VERSION.match(str(value or "")):
        # ``trainer_args.deepspeed: ds.json``: the settings of a backend, given, turn that backend on
        return "layout", f"named after the '{last}' backend (setting it turns that backend on)"
    if {"server", "servers"} & set(toks) and toks[-1] in ("server", "servers") and not ctx & _SERVER_VETO \
            and (str(value).lower() in ("true", "false") or toks[0] in _SERVER_VERBS):
        # ``combine_rm_and_critic_server: true`` / ``launch_server``: a switch that starts, merges or skips a server
        return "process", "switches a server process (one process or another)"
    engine = _engine_switch(segments, toks, ctx)
    if engine is not None:
        return engine
    role = switched_role(toks)
    if role is not None:
        # ``use_critic`` / ``use_ref`` (or ``critic_enable``): turning a role on starts (or spares) its workers
        return "process", f"switches the '{role}' role's workers on or off"
    by_layout = _layout_by_value(last, value, ctx, vocab)
    if by_layout is not None:
        return by_layout
    launcher = _launcher_section(segments[:-1], vocab)
    if launcher is not None and not ctx & _SERVER_VETO:
        return "process", f"a setting of the '{launcher}' launcher section (how the run's processes are started)"
    by_value = classify_value(value)
    if by_value is None and len(segments) > 1 and last.strip("_") != "target":  # (``_target_`` names a class)
        # a key inside a transport's own section (``queue.trajectory_maxsize``, ``zmq.hwm``) is about that transport
        parent = segments[-2]
        hit = _leaf(vocab, parent, vetoes)
        if hit is not None and hit != _VETOED and hit[0] == "comm" and hit[1] != "token 'ray'":
            # (a Ray section holds cluster resources — CPUs, GPUs, runtime env — rather than transport settings)
            return "comm", f"{hit[1]} (section '{parent}')"
    return by_value


# cluster launchers and schedulers a section can be named after; ``local``/``docker`` only beside a runner word
_LAUNCH_PLACES = {"k8s", "kubernetes", "slurm", "skypilot", "kuberay", "mast", "lsf", "pbs"}
_LOCAL_PLACES = {"local", "docker", "ray", "process", "subprocess"}
_RUNNER_WORDS = {"runner", "runners", "launcher", "launchers", "scheduler", "executor", "executors"}


def _launcher_section(parents: list[str], vocab: Vocabulary) -> str | None:
    """The section a key sits in when it is named after a cluster launcher (``k8s_runner``, ``slurm``) or a
    local runner (``local_runner``): its settings say how the run's processes are started."""
    for seg in parents:
        ptoks = set(_tokens(vocab, seg))
        if ptoks & _LAUNCH_PLACES or (ptoks & _LOCAL_PLACES and ptoks & _RUNNER_WORDS):
            return seg
    return None


def _engine_switch(segments: list[str], toks: list[str], ctx: set[str]) -> tuple[str, str] | None:
    """``trt_llm.enable`` / ``use_vllm``: a switch that turns an engine or backend on decides the layout."""
    if not toks or toks[0] not in _SWITCH or ctx & (_ENGINE_VALUE_VETO - {"model"}):
        return None
    rest = "_".join(toks[1:])
    if rest in _ENGINE_SECTIONS:
        return "layout", f"switches the '{rest}' engine or backend"
    if len(toks) == 1 and len(segments) > 1:
        parent = segments[-2].lower().replace("-", "_")
        if parent in _ENGINE_SECTIONS:
            return "layout", f"switch of the '{segments[-2]}' engine or backend section"
    return None


def _layout_by_value(last: str, value: object, ctx: set[str], vocab: Vocabulary) -> tuple[str, str] | None:
    """A value that names an engine, a launch mode or a class to import decides the layout."""
    if not isinstance(value, str):
        return None
    v = value.strip().strip("'\"")
    low = v.lower()
    toks = _tokens(vocab, last)
    if not toks or last.strip("_") == "target":
        return None  # ``_target_`` selects a config class, not a plugin
    if _IMPORT_PATH.match(v) and (v.count(".") >= 2 or ":" in v) and set(toks) & _IMPORT_LEAF \
            and not _CONFIG_CLASS.search(v.rsplit(".", 1)[-1].rsplit(":", 1)[-1]):
        return "layout", f"value '{v[:60]}' is an import path (which class runs)"
    if _CODE_FILE.match(v) and set(toks) & _IMPORT_LEAF and not ctx & (LAYOUT_VETO | _NOT_CODE):
        # ``--workflow_func_path pkg/flows/debate.py``: a Python file the run loads, which code runs
        return "layout", f"value '{v[:60]}' is a Python file the run loads (which code runs)"
    if low in ENGINE_VALUES and not ctx & _ENGINE_VALUE_VETO:
        return "layout", f"value '{v}' names an engine or backend"
    if low in MODE_VALUES and toks[-1] in _MODE_LEAF and not ctx & LAYOUT_VETO:
        return "layout", f"value '{v}' names a launch or process mode"
    return None


def _pick(hits: list[tuple[str, str]], toks: list[str]) -> tuple[str, str]:
    """Several classes matched: the token nearest the end of the key wins (``rank_port`` is a port)."""
    if len(hits) == 1:
        return hits[0]

    def pos(hit: tuple[str, str]) -> int:
        tok = hit[1].split("'")[1].split("_")[-1]
        return max((i for i, t in enumerate(toks) if t == tok), default=-1)

    return max(hits, key=pos)


def classify_value(value: object) -> tuple[str, str] | None:
    """A value can decide on its own: ``tcp://host:port``, ``nccl``, an IPv4 address."""
    if not isinstance(value, str):
        return None
    v = value.strip().strip("'\"")
    low = v.lower()
    if low in COMM_VALUES:
        return "comm", f"value '{v}'"
    if _URL_VALUE.match(v):
        scheme = low.split(":", 1)[0]
        if scheme in {"http", "https", "ws", "wss"} and not _PEER_URL.match(v):
            return None  # a web address on its own (homepage, repo, docs) is not a peer of the run
        return ("port" if scheme in {"tcp", "http", "https", "ws", "wss"} else "comm"), f"value '{v[:40]}'"
    if _IPV4.match(v):
        return "port", f"value '{v}' is an address"
    return None


def classify_many(keys: Iterable[tuple[str, object]], vocab: Vocabulary | None = None) -> list[tuple[str, str] | None]:
    return [classify(k, v, vocab) for k, v in keys]



def explain(key: str, value: object = None, vocab: Vocabulary | None = None, context: str = "") -> str:
    """Why ``classify`` leaves a key unclassified: the veto that fired (and the context token behind it), a
    page URL, or no rule at all (for the per-key diagnostic of the recall bench; never used to decide)."""
    vocab = vocab or Vocabulary()
    hit = classify(key, value, vocab, context)
    if hit is not None:
        return f"classified {hit[0]}: {hit[1]}"
    if vocab.ignore_globs and any(fnmatch.fnmatchcase(key, g) for g in vocab.ignore_globs):
        return "ignored by [tool.gyrelint.topology]"
    segments = key.split(".")
    ctx: set[str] = set()
    for seg in segments:
        ctx.update(_tokens(vocab, seg))
    if context:
        ctx.update(_tokens(vocab, context))
    toks = _tokens(vocab, segments[-1])
    vetoes = [f"{cls} veto by {sorted(veto & ctx)}" for cls, veto in _VETOES.items() if veto & ctx]
    vetoes += [f"'{tok}' veto by {sorted(veto & ctx)}" for tok, veto in TOKEN_VETO.items() if veto & ctx]
    if _leaf(vocab, segments[-1], frozenset()) not in (None, _VETOED):
        if PORT_LEAF_VETO & set(toks):
            vetoes.append(f"port leaf veto by {sorted(PORT_LEAF_VETO & set(toks))}")
        return "vetoed: " + ("; ".join(vetoes) or "page URL value")
    if _leaf(vocab, segments[-1], frozenset()) == _VETOED:
        return "vetoed: " + ("; ".join(vetoes) or "leaf veto")
    return f"no rule for tokens {toks}" + (f" (context {sorted(ctx - set(toks))[:6]})" if ctx - set(toks) else "")

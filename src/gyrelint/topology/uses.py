"""Classify a key by its use: config read by code that starts processes or opens servers.

A knob whose name says nothing (``rollout.n_workers_per_pool``, ``launch_mode``) still
decides the layout when the function that creates Ray actors, placement groups, process
groups, servers or sockets reads it. The topology evidence already records those scopes;
here the config attributes and subscripts each scope reads are collected by leaf name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..index import Index
from .classify import tokenize
from .evidence import EvidenceResult

_CONFIG_RECEIVER = re.compile(
    r"(?:^|[._])(?:config|cfg|conf|args|opts?|options|settings|hparams|params|spec)(?:$|[._])|(?:_config|_cfg|_args)$",
    re.I)
_SIGNAL_CLASS = {"ray-actor": "process", "ray-placement-group": "process", "ray-init": "process",
                 "mp-process": "process", "inference-engine": "process", "dist-init": "process",
                 "subprocess-server": "process", "http-server": "port", "socket-server": "port", "zmq": "port",
                 "grpc": "port", "ray-collective": "comm", "env-workers": "process"}
_WORDS = {"ray-actor": "Ray actors are created", "ray-placement-group": "Ray placement groups are made",
          "ray-init": "the Ray cluster is started", "mp-process": "processes are started",
          "inference-engine": "the inference engine is built", "dist-init": "process groups are set up",
          "subprocess-server": "a server process is launched", "http-server": "an HTTP server is defined",
          "socket-server": "a socket is bound", "zmq": "ZMQ sockets are opened", "grpc": "a gRPC channel is opened",
          "ray-collective": "Ray collective groups are made",
          "env-workers": "environment worker processes are started"}
# leaves that say what a value is about other than the layout: read everywhere, decide nothing
_STOP = {"path", "dir", "name", "model", "tokenizer", "seed", "dtype", "lr", "batch", "bsz", "len", "length", "log",
         "logger", "logging", "verbose", "debug", "project", "experiment", "trial", "wandb", "save", "checkpoint",
         "ckpt", "data", "dataset", "prompt", "prompts", "template", "temperature", "top", "epochs", "epoch", "steps",
         "step", "warmup", "weight", "decay", "eps", "beta", "betas", "clip", "grad", "loss", "reward", "kl",
         "entropy", "file", "files", "trust", "remote", "code", "revision", "cache", "profile", "profiler",
         "timeout", "max", "min", "response", "micro", "mini", "tokens", "token"}


@dataclass(frozen=True, slots=True)
class UseHit:
    cls: str
    reason: str
    file: str
    line: int


def spawn_reads(index: Index, ev: EvidenceResult) -> dict[str, UseHit]:
    """Leaf name (lower-case, ``_``-joined) → the first call creating processes or servers that reads it: as
    one of its arguments (``placement_group(bundles=cfg.pool_shape)``), or on the call's own line."""
    out: dict[str, UseHit] = {}
    if not ev.spawns:
        return out
    for (path, scope), calls in sorted(ev.spawns.items()):
        s = index.summaries.get(path)
        if s is None:
            continue
        reads = [(a.line, a.attr, a.receiver) for a in s.attrs if a.scope == scope and a.mode == "read"]
        reads += [(x.line, x.key, x.receiver) for x in s.subscripts if x.scope == scope and x.mode == "read"]
        for signal, line, texts in calls:
            cls = _SIGNAL_CLASS.get(signal)
            if cls is None:
                continue
            reason = f"read where {_WORDS.get(signal, signal)} ({path}:{line})"
            for text in texts:
                receiver, _, leaf = text.rpartition(".")
                if receiver and _CONFIG_RECEIVER.search(receiver):
                    _add(out, leaf, UseHit(cls, reason, path, line))
            for at, leaf, receiver in reads:
                if at == line and _CONFIG_RECEIVER.search(receiver):
                    _add(out, leaf, UseHit(cls, reason, path, at))
    return out


def _add(out: dict[str, UseHit], leaf: str, hit: UseHit) -> None:
    toks = tokenize(leaf)
    if len(toks) < 2 or set(toks) & _STOP:
        return  # a one-word leaf (``n``, ``size``) or a non-layout word is too weak to decide on by use
    out.setdefault("_".join(toks), hit)


def use_hit(key: str, reads: dict[str, UseHit]) -> UseHit | None:
    """The use that classifies ``key`` (matched on its last segment)."""
    if not reads:
        return None
    leaf = key.lstrip("-").rsplit(".", 1)[-1]
    return reads.get("_".join(tokenize(leaf)))

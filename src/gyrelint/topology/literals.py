"""Classify a key by the literal values code compares it with, gives it, or allows for it.

A knob whose name says nothing (``checkpoint_engine.backend``, ``launch.kind``) still decides the
layout when code tests it against an engine, transport or launch-mode name
(``if cfg.sync.backend == "nccl":``, ``if mode in ("colocate", "disaggregated"):``), writes one into
it (``cfg.sync.backend = "nccl"``), or declares the values it may take
(``backend: Literal["vllm", "sglang"]``, ``add_argument("--via", choices=["nccl", "gloo"])``). The
index keeps every string literal with its line; a literal counts for a key when it sits on the line
of that key's occurrence in Python and no other key is read there, so a condition over two keys
decides neither, and when no call on that line takes it as an argument (``print("nccl", cfg.x)`` says
nothing about ``x``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ..index import Index
from ..index.summary import CallSite
from .classify import COMM_VALUES, ENGINE_VALUES, LAYOUT_VETO, MODE_VALUES, tokenize
from .sources import RawKey

# launch modes that mean a layout wherever they are compared; the weaker words (``local``, ``server``,
# ``sync``...) only on a leaf that names a mode
_STRONG_MODES = {"async", "colocate", "colocated", "disaggregated", "separated", "hybrid", "spmd", "standalone",
                 "slurm", "k8s", "kubernetes", "forkserver", "torchrun"}
_MODE_LEAF = {"mode", "type", "kind", "backend", "name", "impl", "engine", "launcher", "scheduler", "strategy",
              "method", "runtime", "executor", "launch", "placement", "topology", "layout"}
# what an engine name next to these words is about: a chat template, a checkpoint format, a download source
_ENGINE_VETO = {"tokenizer", "template", "chat", "format", "checkpoint", "ckpt", "save", "load", "export", "convert",
                "converter", "conversion", "merge", "merger", "dtype", "dataset", "data", "hub", "source", "download",
                "repo", "prompt"}
# a transport name compared with a logging, metrics or telemetry key is where logs go, not a link of the run
_COMM_VETO = {"log", "logging", "logger", "wandb", "tensorboard", "mlflow", "metrics", "report", "profiler", "debug",
              "dashboard", "tracker", "tracking", "telemetry", "exporter", "exporters", "trace", "tracing", "monitor",
              "monitoring", "observability"}


def _decide(values: Iterable[str], toks: set[str], leaf: str) -> tuple[str, str] | None:
    """The class the literals give a key with these tokens, strongest first: transport, engine, mode."""
    vals = [v.strip().lower() for v in values]
    for v in vals:
        if v in COMM_VALUES and not toks & _COMM_VETO:
            return "comm", f"compared with or set to '{v}' (a transport)"
    for v in vals:
        if v in ENGINE_VALUES and not toks & _ENGINE_VETO:
            return "layout", f"compared with or set to '{v}' (an engine or backend)"
    for v in vals:
        if v in MODE_VALUES and not toks & LAYOUT_VETO and (v in _STRONG_MODES or leaf in _MODE_LEAF):
            return "layout", f"compared with or set to '{v}' (a launch or process mode)"
    return None


def _python(raw: RawKey) -> bool:
    return raw.file.endswith(".py") and raw.line > 0


def literal_hits(index: Index, raws: Iterable[RawKey]) -> dict[tuple[str, int], tuple[str, str]]:
    """(file, line) of a key occurrence in Python → the class the literals on that line give the key."""
    leaves: dict[tuple[str, int], set[str]] = {}
    keys: dict[tuple[str, int], RawKey] = {}
    for r in raws:
        if not _python(r):
            continue
        at = (r.file, r.line)
        leaves.setdefault(at, set()).add("_".join(tokenize(r.key.rsplit(".", 1)[-1])))
        keys.setdefault(at, r)
    wanted: dict[str, set[int]] = {}
    for (file, line), names in leaves.items():
        if len(names) == 1:
            wanted.setdefault(file, set()).add(line)
    out: dict[tuple[str, int], tuple[str, str]] = {}
    for file, lines in wanted.items():
        s = index.summaries.get(file)
        if s is None:
            continue
        on: dict[int, Counter[str]] = {}
        for st in s.strings:
            if st.line in lines and len(st.value) <= 40:
                on.setdefault(st.line, Counter())[st.value] += 1
        for c in s.calls:
            if c.line in on:
                on[c.line] -= Counter(_call_literals(c))
        for line in lines:
            raw = keys[(file, line)]
            values = [*on.get(line, Counter()).elements(), *raw.choices]
            if not values:
                continue
            segs = {p.lower() for p in raw.key.lstrip("-").split(".")}
            values = [v for v in values if v.lstrip("-").lower() not in segs]  # ``cfg["backend"]``: the key itself
            # the key's words, its declaring class's and its file's (a converter script's ``--backend``) veto
            toks = {t for seg in (*raw.key.split("."), raw.context, file.rsplit("/", 1)[-1][:-3]) for t in tokenize(seg)}
            leaf = "_".join(tokenize(raw.key.rsplit(".", 1)[-1]))
            got = _decide(values, toks, leaf.rsplit("_", 1)[-1] if leaf else "")
            if got is not None:
                out[(file, line)] = got
    return out


def _call_literals(call: CallSite) -> list[str]:
    """String literals a call takes as arguments (``print("nccl")``, ``f(modes=["a"])``): about the call."""
    out: list[str] = []
    for a in (*call.args, *(v for _k, v in call.kwargs)):
        if a.kind != "lit":
            continue
        items = a.value if isinstance(a.value, (list, tuple, set, frozenset)) else (a.value,)
        out.extend(v for v in items if isinstance(v, str))
    return out

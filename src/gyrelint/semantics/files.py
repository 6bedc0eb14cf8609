"""Trajectories handed over through files: one side writes each step's batch, the other reads it.

Split-process designs often share no transport object at all: the rollout process writes a
step's rollouts to a shared folder (``to_parquet``, ``json.dump``, ``torch.save``,
``save_to_disk``) and the trainer process polls for the file and reads it back
(``read_parquet``, ``json.load``, ``torch.load``, ``load_from_disk``/``load_dataset``). Neither
body calls a queue or a socket, so both stayed neutral, or took the side of their callers.

The pair decides, by value flow and structure, not by names: a helper with no evidence of its
own that writes data in some format, called inside a loop of sampling-side code (and by no
training code), is the producer end; a helper with no evidence of its own that reads the same
format and hands the result back, called inside a loop of training-side code (and by no
sampling code), is the consumer end, but only when a producer of that format exists. A file
read once before the loop (settings, a dataset) or by code of both sides is no handoff.
"""

from __future__ import annotations

from ..model import Evidence, HandoffKind, Side
from .facts import CallFact, Facts
from .sides import SideResult

# (format, end): library names and method names of writers and readers
_WRITE_NAMES = {"json.dump": "json", "torch.save": "torch", "numpy.save": "numpy", "numpy.savez": "numpy",
                "pyarrow.parquet.write_table": "parquet"}
_WRITE_METHODS = {"to_parquet": "parquet", "to_json": "json", "save_to_disk": "datasets", "write_table": "parquet"}
_READ_NAMES = {"json.load": "json", "torch.load": "torch", "numpy.load": "numpy",
               "pyarrow.parquet.read_table": "parquet", "pandas.read_parquet": "parquet", "pandas.read_json": "json",
               "datasets.load_from_disk": "datasets"}
_READ_METHODS = {"read_parquet": "parquet", "read_json": "json", "load_from_disk": "datasets", "read_table": "parquet"}
_ANY_FORMAT = ("datasets.load_dataset",)  # reads parquet, json lines or a saved dataset folder


def _formats(c: CallFact, names: dict[str, str], methods: dict[str, str]) -> set[str]:
    if c.targets and all(not t.startswith(("<", "json.", "torch.", "numpy.", "pandas.", "pyarrow.", "datasets."))
                         for t in c.targets):
        return set()  # repo code of that name: its body decides
    out = {names[n] for n in c.names if n in names}
    if c.method in methods:
        out.add(methods[c.method])
    return out


def _data_arg(c: CallFact) -> bool:
    """The call hands on a value (a name or an expression), not only literals."""
    return any(a.kind != "lit" for a in c.site.args) or any(a.kind != "lit" for _, a in c.site.kwargs)


def _callers(edges: dict[str, dict[str, float]]) -> dict[str, list[str]]:
    """Callee -> the functions calling it (any edge, self-calls aside), in edge order."""
    callers: dict[str, list[str]] = {}
    for u, row in edges.items():
        for v in row:
            if v != u:
                callers.setdefault(v, []).append(u)
    return callers


def _in_loop(caller: str, line: int, loops: dict[str, list[int]]) -> bool:
    return any(start < line for start in loops.get(caller, ()))


def file_handoffs(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult],
                  loops: dict[str, list[int]]) -> None:
    """Label the producer and consumer ends of a file handoff (see the module doc). After propagation."""
    callers = _callers(edges)
    sites: dict[tuple[str, str], int] = {}  # (caller, callee) -> first call line
    for q, fn in facts.functions.items():
        for c in fn.calls:
            for t in c.targets:
                sites.setdefault((q, t), c.site.line)

    def per_step(q: str, side: Side) -> bool:
        """Called inside a loop of ``side`` code, and by no code of the other side."""
        other = Side.TRAINING if side == Side.SAMPLING else Side.SAMPLING
        ups = callers.get(q, [])
        if any(results[u].side in (other, Side.DRIVER) for u in ups if u in results):
            return False
        return any(results[u].side == side and _in_loop(u, sites.get((u, q), 0), loops) for u in ups if u in results)

    def bare(q: str) -> bool:
        r = results.get(q)
        fn = facts.functions.get(q)
        if r is None or fn is None or r.has_own or facts.out_of_scope(fn.module):
            return False
        # neutral, or on a side only because its callers are (``sides.caller_context``)
        return r.side == Side.NEUTRAL or r.side in (Side.SAMPLING, Side.TRAINING) and bool(r.evidence) \
            and all(e.via.startswith("caller:") for e in r.evidence)

    written: dict[str, list[tuple[str, int]]] = {}
    for q, fn in facts.functions.items():
        if not bare(q):
            continue
        for c in fn.calls:
            for f in _formats(c, _WRITE_NAMES, _WRITE_METHODS):
                if _data_arg(c) and per_step(q, Side.SAMPLING):
                    written.setdefault(f, []).append((q, c.site.line))
    if not written:
        return
    for ends in written.values():
        for q, line in ends:
            _mark(results[q], facts.functions[q].file, line)
    for q, fn in facts.functions.items():
        if not bare(q) or not fn.definition.returned or q in results and results[q].side == Side.HANDOFF:
            continue
        for c in fn.calls:
            got = _formats(c, _READ_NAMES, _READ_METHODS)
            if any(n in _ANY_FORMAT for n in c.names):
                got = set(written)
            if got & set(written) and per_step(q, Side.TRAINING):
                _mark(results[q], fn.file, c.site.line)
                break


_SAVE_METHODS = frozenset({"save_pretrained", "save_model", "save_file"})  # a model folder / safetensors file
_OPTIM_WORDS = ("optim", "scheduler", "sched", "scaler", "rng")


def published_weights(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult],
                      loops: dict[str, list[int]]) -> None:
    """Weights published as a checkpoint the sampler reloads: the trainer-side end of the weight sync.

    A helper with no evidence of its own that saves the model (``save_pretrained``, a safetensors
    ``save_file``, ``torch.save`` of a ``state_dict()``) inside a loop of training-side code, when
    the sampling side reloads weights (a weight-sync function some sampling-side code calls: the
    server's reload route with the path, an engine's load), is the weight sync's publishing end. A
    checkpoint that also holds optimizer, scheduler or RNG state is for resuming the run: neutral.
    """
    callers = _callers(edges)
    reloads = any(r.side == Side.HANDOFF and r.kind == HandoffKind.WEIGHT_SYNC and
                  any(results[u].side == Side.SAMPLING for u in callers.get(q, ()) if u in results)
                  for q, r in results.items())
    if not reloads:
        return
    for q, fn in facts.functions.items():
        r = results.get(q)
        if r is None or r.has_own or facts.out_of_scope(fn.module):
            continue
        if r.side != Side.NEUTRAL and not (r.side == Side.TRAINING and r.evidence and
                                           all(e.via.startswith("caller:") for e in r.evidence)):
            continue  # on the trainer's side only because its callers are: still a candidate
        ups = [u for u in callers.get(q, ()) if u in results]
        if not ups or any(results[u].side != Side.TRAINING for u in ups):
            continue
        if not any(_in_loop(u, line, loops) for u in ups for line in _lines(facts, u, q)):
            continue
        for c in fn.calls:
            text = repr(c.site.expr).lower()
            saves = c.method in _SAVE_METHODS or ("torch.save" in c.names and "state_dict" in text)
            if saves and not any(w in text for w in _OPTIM_WORDS):
                r.side, r.kind = Side.HANDOFF, HandoffKind.WEIGHT_SYNC
                r.evidence = [Evidence("checkpoint-publish", fn.file, c.site.line, "own"),
                              *(e for e in r.evidence if not e.via.startswith("caller:"))]
                break


def _lines(facts: Facts, caller: str, callee: str) -> list[int]:
    return [c.site.line for c in facts.functions[caller].calls if callee in c.targets]


def _mark(r: SideResult, file: str, line: int) -> None:
    r.side, r.kind = Side.HANDOFF, HandoffKind.TRAJECTORY
    r.evidence = [Evidence("file-handoff", file, line, "own"), *(e for e in r.evidence if not e.via.startswith("caller:"))]

"""The topology stage on the second core, beside semantics (issue 18 item 2).

Topology reads the index, the graphs and two things semantics finds: what runs (``reach``) and
the same-process evidence (``online``). What runs is, by ``graphs.reach.loop_reach``, what the
entry points reach unless none of the loop is among it; the evidence is empty unless the
sampler acts with the very object the optimizer updates (a one-process loop). The child
assumes both common answers and the parent checks them once semantics is done. The child
sends its answer as soon as it has it and exits, so its copy of the memory goes early (on
transformers a child kept alive until semantics ended held 0.7-0.9 GiB of pages the parent
had written meanwhile). A wrong guess, a failed child or a platform without ``fork`` all end
in the in-process call, so the result is always the one it was.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Set as AbstractSet

from . import sidecar
from .codec import CodecError, Registry
from .graphs.model import Graphs
from .index import Index
from .model import Diagnostic, Evidence, Topology
from .settings import Settings

# below this many call sites the fork costs more than the stage (a fixture, a small repo)
MIN_CALLS = 20_000


@dataclasses.dataclass(frozen=True, slots=True)
class _Answer:
    """What the child sends back: the stage's own return value."""

    topology: Topology
    diagnostics: list[Diagnostic]


@functools.cache
def _registry() -> Registry:
    from . import model as M

    return Registry((M.Severity, M.Diagnostic, M.Evidence, M.ConfigKey, M.KeyEntry, M.Location, M.CodeEvidence, M.Topology,
                     _Answer))


def _dumps(value: object) -> bytes:
    return _registry().dumps(value, type(value))


def _loads(data: bytes, hint: type) -> object:
    return _registry().loads(data, hint)


class TopologyBeside:
    """``analyze_topology`` started in a forked child right after the graphs stage."""

    def __init__(self, index: Index, graphs: Graphs, settings: Settings) -> None:
        self.guess = frozenset(graphs.reached)  # what the child assumes runs

        def work() -> bytes:
            from .topology import analyze_topology

            topo, diags = analyze_topology(index, graphs, settings, online=[], reached=self.guess)
            return _dumps(_Answer(topo, list(diags)))

        self.car = sidecar.Sidecar(work)

    def finish(self, online: list[Evidence], reached: AbstractSet[str]) -> tuple[Topology, list[Diagnostic]] | None:
        """The child's answer when its guesses were right; None: compute it in-process."""
        if online or reached != self.guess:
            self.cancel()
            return None
        data = self.car.result()
        if data is None:
            return None
        try:
            got = _loads(data, _Answer)
        except CodecError:
            return None
        assert isinstance(got, _Answer)
        return got.topology, list(got.diagnostics)

    def cancel(self) -> None:
        self.car.close()


def start(index: Index, graphs: Graphs, settings: Settings) -> TopologyBeside | None:
    """The stage started beside the next one, or None where that does not pay or cannot be done
    (a small repo, no ``fork``, other threads running)."""
    if not sidecar.can_fork() or sum(len(s.calls) for s in index.summaries.values()) < MIN_CALLS:
        return None
    try:
        return TopologyBeside(index, graphs, settings)
    except OSError:  # no process or pipe left: the stage runs in-process
        return None

"""The topology stage on the second core, beside semantics (issue 18 item 2).

Topology reads the index, the graphs and two things semantics finds: what runs (``reach``) and
the same-process evidence (``online``). What runs is, by ``graphs.reach.loop_reach``, what the
entry points reach unless none of the loop is among it: the child assumes the common case and
the parent checks the guess once semantics is done. ``online`` is read only when the verdict is
weighed, at the very end of ``analyze_topology``: the child gets it as a sequence that waits for
the parent's message when first read, so everything before (evidence, config keys, the bulk of
the stage) overlaps with semantics. A wrong guess, a failed child or a platform without
``fork`` all end in the in-process call, so the result is always the one it was.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator, Sequence
from collections.abc import Set as AbstractSet

from . import sidecar
from .codec import CodecError, Registry
from .graphs.model import Graphs
from .index import Index
from .model import Diagnostic, Evidence, Topology
from .settings import Settings

# below this many call sites the fork costs more than the stage (a fixture, a small repo)
MIN_CALLS = 20_000
_GO, _STOP = 1, 0


@dataclasses.dataclass(frozen=True, slots=True)
class _Answer:
    """What the child sends back: the stage's own return value."""

    topology: Topology
    diagnostics: list[Diagnostic]


@dataclasses.dataclass(frozen=True, slots=True)
class _Request:
    """What the parent sends once semantics is done: go on with this evidence, or stop."""

    go: int
    online: list[Evidence]


@functools.cache
def _registry() -> Registry:
    from . import model as M

    return Registry((M.Severity, M.Diagnostic, M.Evidence, M.ConfigKey, M.KeyEntry, M.Location, M.CodeEvidence, M.Topology,
                     _Answer, _Request))


def _dumps(value: object) -> bytes:
    return _registry().dumps(value, type(value))


def _loads(data: bytes, hint: type) -> object:
    return _registry().loads(data, hint)


class _Online(Sequence[Evidence]):
    """``online`` for the child: empty of content until first read, then the parent's evidence
    (or a stop, raised, when the parent's semantics did not confirm the child's reach)."""

    def __init__(self, receive: Callable[[], bytes]) -> None:
        self._receive = receive
        self._got: list[Evidence] | None = None

    def _load(self) -> list[Evidence]:
        if self._got is None:
            req = _loads(self._receive(), _Request)
            assert isinstance(req, _Request)
            if req.go != _GO:
                raise _Stopped
            self._got = list(req.online)
        return self._got

    def __len__(self) -> int:
        return len(self._load())

    def __getitem__(self, i):  # type: ignore[override]
        return self._load()[i]

    def __iter__(self) -> Iterator[Evidence]:
        return iter(self._load())

    def __bool__(self) -> bool:
        return bool(self._load())


class _Stopped(Exception):
    """The parent told the child its work is not wanted."""


class TopologyBeside:
    """``analyze_topology`` started in a forked child right after the graphs stage."""

    def __init__(self, index: Index, graphs: Graphs, settings: Settings) -> None:
        self.guess = frozenset(graphs.reached)  # what the child assumes runs

        def work(receive: Callable[[], bytes]) -> bytes:
            from .topology import analyze_topology

            topo, diags = analyze_topology(index, graphs, settings, online=_Online(receive), reached=self.guess)
            return _dumps(_Answer(topo, list(diags)))

        self.car = sidecar.Sidecar(work)

    def finish(self, online: list[Evidence], reached: AbstractSet[str]) -> tuple[Topology, list[Diagnostic]] | None:
        """The child's answer when its reach was the right one; None: compute it in-process."""
        if reached != self.guess:
            self.cancel()
            return None
        try:
            self.car.send(_dumps(_Request(_GO, list(online))))
        except ValueError:  # evidence the codec cannot store: let the child go
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

"""Build an ``Analysis`` by hand, for rule tests that must not wait on the upstream stages."""

from __future__ import annotations

from pathlib import Path

from ..graphs.model import Graphs
from ..index import Index
from ..index.summary import FileSummary
from ..model import EntryPoint, FunctionReport, Handoff, HandoffKind, Side, Topology
from ..repo import RepoFiles
from ..settings import Settings


def fn(qualname: str, side: Side | str = Side.NEUTRAL, *, file: str | None = None, line: int = 1,
       reached: bool = True, kind: HandoffKind | str | None = None) -> FunctionReport:
    """A function report; the file defaults to the module path of the qualname."""
    if file is None:
        file = "/".join(qualname.split(".")[:-1]) + ".py"
    return FunctionReport(qualname, file, line, Side(side), HandoffKind(kind) if kind else None, reached)


def make_analysis(functions: list[FunctionReport] = (), *, summaries: list[FileSummary] = (),
                  entry_points: list[EntryPoint] = (), handoff: Handoff | None = None,
                  topology: Topology | None = None, settings: Settings | None = None,
                  other_files: list[str] = (), root: str | Path = ".", boundary_modules: list[str] = ()):
    """An Analysis with only the given parts filled; everything else empty."""
    from ..analysis import Analysis

    root = Path(root)
    files = RepoFiles(root=root, python=sorted(s.path for s in summaries), other=list(other_files),
                      modules={s.path: s.module for s in summaries})
    index = Index(root=root, files=files, summaries={s.path: s for s in summaries})
    from ..semantics.counters import logged_counters
    return Analysis(
        root=root, given_root=str(root), settings=settings or Settings(), index=index,
        entry_points=list(entry_points), graphs=Graphs(), functions={f.qualname: f for f in functions},
        modules=[], boundary_modules=list(boundary_modules), handoff=handoff or Handoff(),
        topology=topology or Topology(), counters=logged_counters(index))

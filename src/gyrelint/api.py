"""The Python API; the CLI is a thin layer over these functions.

>>> from gyrelint.api import analyze
>>> result = analyze("path/to/repo")          # doctest: +SKIP
>>> result.handoff.online, result.topology.verdict   # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from . import analysis_cache
from .analysis import Analysis
from .compare import DiffReport, compare  # noqa: F401 - `gyrelint diff`'s comparison is part of the API
from .index import Index, Progress, build_index
from .model import Diagnostic, Stats
from .repo import RepoFiles, discover
from .settings import Settings, SettingsError, read_settings

if TYPE_CHECKING:
    from .baseline import OldFindings
    from .progress import StageSink


class InputError(Exception):
    """Bad input the user can fix (unknown path, no Python files...): exit code 2."""


def resolve_root(path: str | Path) -> Path:
    root = Path(path)
    if not root.exists():
        raise InputError(f"{path}: no such file or directory; pass the root folder of a repository")
    if not root.is_dir():
        raise InputError(f"{path}: not a directory; pass the root folder of a repository")
    return root.resolve()


def demo_root() -> Path:
    """The online-RL mini repo shipped inside the package."""
    return Path(__file__).parent / "demo" / "minirl"


def load(path: str | Path, settings: Settings | None = None, *, config: str | Path | None = None,
         **overrides) -> tuple[Path, Settings, list[Diagnostic]]:
    """The repo root and its checked settings: ``settings`` as given, else read from the repo's
    pyproject.toml (or ``config``), the user's config file and the environment; ``overrides``
    (CLI flags) go over either. Bad settings are an InputError naming the file and the key."""
    root = resolve_root(path)
    if settings is None:
        try:
            from .rules.registry import BY_ID

            settings = read_settings(root, config=config, cache_dir=overrides.get("cache_dir"),
                                     label=str(Path(path) / "pyproject.toml"), rule_ids=frozenset(BY_ID))
        except SettingsError as exc:
            raise InputError(str(exc)) from None
    return root, settings.with_overrides(**overrides), []


def discover_python(root: Path, path: str | Path, settings: Settings) -> RepoFiles:
    """The repo's files, or an input error when none of them is Python (checked before parsing)."""
    files = discover(root, settings)
    if not files.python:
        raise InputError(f"{path}: no Python files found; pass the root of a Python repository (check [tool.gyrelint] exclude)")
    return files


def index_repo(path: str | Path, settings: Settings | None = None, progress: Progress | None = None,
               **overrides) -> Index:
    root, settings, diags = load(path, settings, **overrides)
    index = build_index(root, settings, progress, files=discover_python(root, path, settings))
    index.diagnostics[:0] = diags
    return index


def analyze(path: str | Path, settings: Settings | None = None, *, progress: Progress | None = None,
            run_rules: bool = True, extra_entries: list[str] | None = None, stages: StageSink | None = None,
            **overrides) -> Analysis:
    """Run the whole pipeline on a repository and return the analysis.

    ``stages`` is told each finished stage with its counts and seconds (the CLI prints them for CI
    logs); the API itself never prints."""
    start = time.perf_counter()
    lap = [start]

    def done(name: str, **counts: int | str) -> None:
        now = time.perf_counter()
        if stages is not None:
            stages.stage(name, now - lap[0], counts)
        lap[0] = now

    root, settings, diags = load(path, settings, **overrides)
    if extra_entries:
        settings = settings.with_overrides(entry_points=tuple(settings.entry_points) + tuple(extra_entries))
    files = discover_python(root, path, settings)
    fp = analysis_cache.fingerprint(root, files, settings, run_rules) if settings.use_cache else None
    reparsed: list[str] = []
    hit = analysis_cache.find(settings, root, files, fp, reparsed) if fp is not None else None
    if hit is not None:
        hit.given_root = str(path)
        hit.stats = Stats(files=hit.stats.files, parsed=0, cached=hit.stats.files, functions=hit.stats.functions,
                          seconds=round(time.perf_counter() - start, 3))
        done("cache", files=hit.stats.files, findings=len(hit.findings))
        return hit
    index = build_index(root, settings, progress, files=files, keys=fp.file_keys if fp is not None else None)
    if reparsed:  # parsed by the early-cutoff check just above, then read back from the cache
        index.stats.parsed += len(reparsed)
        index.stats.cached -= len(reparsed)
    done("index", files=index.stats.parsed + index.stats.cached, parsed=index.stats.parsed,
         cached=index.stats.cached)
    diagnostics = list(diags) + list(index.diagnostics)
    # the stages are imported here: a cache hit above needs none of them
    from . import topology_beside
    from .entrypoints import find_entry_points
    from .graphs import build_graphs
    from .graphs.symbols import symbols_of
    from .semantics import tag
    from .semantics.counters import logged_counters
    from .topology import analyze_topology

    symbols = symbols_of(index)  # one symbol table: the entry points and the graphs share it
    entries, entry_diags = find_entry_points(index, settings, symbols)
    diagnostics += entry_diags
    graphs = build_graphs(index, entries, cache_dir=settings.cache_dir if settings.use_cache else None,
                          symbols=symbols)
    from .graphs.incremental import last_path, last_replayed

    done("graphs", **{"entry points": len(entries)}, functions=graphs.calls.number_of_nodes(),
         edges=graphs.calls.number_of_edges(), resolution=last_path[0].partition(":")[0],
         replayed=last_replayed[0])
    beside = topology_beside.start(index, graphs, settings)  # topology on the second core, if it pays
    try:
        sem = tag(index, graphs, settings)
    except BaseException:
        if beside is not None:
            beside.cancel()
        raise
    diagnostics += getattr(sem, "diagnostics", [])
    done("semantics", **{"on a side": sum(f.side.value != "neutral" for f in sem.functions.values())})
    got = beside.finish(sem.handoff.online_evidence, sem.reach.reached) if beside is not None else None
    topology, topo_diags = got if got is not None else analyze_topology(
        index, graphs, settings, online=sem.handoff.online_evidence, reached=sem.reach.reached)
    diagnostics += topo_diags
    done("topology", verdict=topology.verdict, **{"config keys": len(topology.config_keys)})
    result = Analysis(
        root=root,
        given_root=str(path),
        settings=settings,
        index=index,
        entry_points=entries,
        graphs=graphs,
        functions=sem.functions,
        modules=sem.modules,
        boundary_modules=sem.boundary_modules,
        handoff=sem.handoff,
        topology=topology,
        diagnostics=diagnostics,
        stats=index.stats,
        counters=logged_counters(index),
        reach_roots=sem.reach.roots,
    )
    if run_rules:
        from .rules import run_rules as _run

        result.findings = _run(result, settings)
        done("rules", findings=len(result.findings))
    result.stats.seconds = round(time.perf_counter() - start, 3)
    if fp is not None:
        analysis_cache.store(settings, fp.key, result, fp)
    return result


def analyze_graphs(path: str | Path, settings: Settings | None = None, *, progress: Progress | None = None,
                   **overrides) -> Analysis:
    """The pipeline up to the call and import graphs (what ``gyrelint graph`` prints): an
    ``Analysis`` whose index, entry points and graphs are filled and whose later stages are
    empty. A whole analysis of the same inputs in the cache answers too (``analyze`` then
    ``graph`` parses nothing twice); otherwise the partial result is cached under its own key."""
    start = time.perf_counter()
    root, settings, diags = load(path, settings, **overrides)
    files = discover_python(root, path, settings)
    fp = analysis_cache.fingerprint(root, files, settings, "graph") if settings.use_cache else None
    if fp is not None:
        whole = analysis_cache.fingerprint_as(fp, files, settings, True)
        hit = analysis_cache.load(settings, whole.key, root) or analysis_cache.find(settings, root, files, fp)
        if hit is not None:
            hit.given_root = str(path)
            hit.stats = Stats(files=hit.stats.files, parsed=0, cached=hit.stats.files, functions=hit.stats.functions,
                              seconds=round(time.perf_counter() - start, 3))
            return hit
    index = build_index(root, settings, progress, files=files, keys=fp.file_keys if fp is not None else None)
    from .entrypoints import find_entry_points
    from .graphs import build_graphs
    from .graphs.symbols import symbols_of
    from .model import Handoff, Topology

    symbols = symbols_of(index)  # one symbol table for both stages, as in analyze
    entries, entry_diags = find_entry_points(index, settings, symbols)
    graphs = build_graphs(index, entries, cache_dir=settings.cache_dir if settings.use_cache else None,
                          symbols=symbols)
    result = Analysis(root=root, given_root=str(path), settings=settings, index=index, entry_points=entries,
                      graphs=graphs, functions={}, modules=[], boundary_modules=[], handoff=Handoff(),
                      topology=Topology(), diagnostics=list(diags) + list(index.diagnostics) + list(entry_diags),
                      stats=index.stats)
    result.stats.seconds = round(time.perf_counter() - start, 3)
    if fp is not None:
        analysis_cache.store(settings, fp.key, result, fp)
    return result


def graph_roots(a: Analysis, entries: tuple[str, ...] | list[str]) -> list[str]:
    """The module nodes of ``--entry`` files (a path, relative to the working folder or the repo
    root, or a dotted module); an InputError names one that is not a module of the repo."""
    by_path = dict(a.index.files.modules)
    mods = set(by_path.values())
    roots = []
    for e in entries:
        p = Path(e)
        try:
            rel = (p if p.is_absolute() else Path.cwd() / p).resolve().relative_to(a.index.root).as_posix()
        except ValueError:
            rel = None
        found = by_path.get(rel or "") or by_path.get(e) or (e if e in mods else None)
        if found is None:
            from .escape import term

            raise InputError(f"--entry {term(e)}: not a Python file or module of {term(a.index.root)}; "
                             "pass a .py file inside PATH")
        roots.append(found)
    return roots


def graph_selection(a: Analysis, entries: tuple[str, ...] | list[str], *, imports: bool) -> set[str] | None:
    """The graph nodes ``--entry`` keeps: what the entry modules reach by calls (and, with
    ``imports``, every module they import transitively); None (everything) without entries."""
    if not entries:
        return None
    from .graphs.reach import reachable

    roots = graph_roots(a, entries)
    nodes = reachable(a.graphs, roots)
    if imports:
        g, seen, stack = a.graphs.imports, set(), list(roots)
        while stack:
            n = stack.pop()
            if n in seen or n not in g:
                continue
            seen.add(n)
            stack.extend(g.adj[n])
        nodes |= seen
    return nodes


def head_findings(path: str | Path, *, warn: Callable[[str], None], progress: Progress | None = None,
                  extra_entries: list[str] | None = None, **overrides) -> OldFindings | None:
    """The findings of the last commit, for ``check --new-only``: ``HEAD`` exported with ``git
    archive`` to a temporary folder and analyzed there with the same options (the user's checkout,
    index and hooks are never touched; the whole-run cache, keyed by content, makes it cheap after
    the first commit). None outside a git repository or before the first commit, and when HEAD's
    own input is bad (a broken config the change fixes): then every finding is new, and ``warn``
    gets one line saying why."""
    import os
    import tempfile

    from .baseline import OldFindings
    from .gitrev import GitError, export, repo_prefix, resolve

    try:
        top, prefix = repo_prefix(Path(path).resolve())
        sha = resolve(top, "HEAD")
    except (GitError, OSError):
        return None
    with tempfile.TemporaryDirectory(prefix="gyrelint-head-") as tmp:
        try:
            head_dir = export(top, sha, prefix, Path(tmp) / "head")
        except GitError as exc:
            raise InputError(f"cannot read HEAD of {top}: {exc}; pass --baseline FILE or --all") from None
        try:
            analysis = analyze(str(head_dir), progress=progress, extra_entries=extra_entries, **overrides)
        except (InputError, SettingsError) as exc:
            reason = str(exc).replace(f"{head_dir}{os.sep}", f"HEAD:{prefix}/" if prefix else "HEAD:")
            warn(f"cannot analyze the last commit ({reason}); every finding counts as new")
            return None
    return OldFindings.of(analysis.findings, "in HEAD")

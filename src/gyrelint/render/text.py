"""The human report of ``gyrelint analyze``: the five questions, each with file:line evidence."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ..escape import term, term_block
from ..model import COUNTERS, FunctionReport, HandoffKind, Side
from .paths import REPO_RELATIVE, PathContext, prose

if TYPE_CHECKING:
    from ..analysis import Analysis
    from ..index import Index

_MAX_LIST = 8
_COUNTER_TITLES = {
    "sampled": "trajectories sampled",
    "consumed": "trajectories consumed",
    "step": "training steps",
    "policy_version": "policy version",
}


def _loc(file: str, line: int, paths: PathContext = REPO_RELATIVE) -> str:
    return term(paths.loc(file, line))


def _short(text: str, limit: int = 48) -> str:
    text = term(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _why(f: FunctionReport, paths: PathContext) -> str:
    """The strongest evidence of a function: its own signal, else the callee it delegates to."""
    if not f.evidence:
        return ""
    own = [e for e in f.evidence if e.via == "own"]
    e = own[0] if own else f.evidence[0]
    if e.via == "own":
        via = ""
    elif e.via.startswith("offline:"):
        via = f" reached only from offline entry points: {term(e.via.removeprefix('offline:'))}"
    else:
        via = f" via {term(e.via.removeprefix('callee:'))}"
    return f"  [{term(e.signal)} at {_loc(e.file, e.line, paths)}{via}]"


def _rank(f: FunctionReport, index: Index) -> tuple:
    """Product functions first (the index's scope, not the module name), reached ones, then evidence."""
    own = sum(1 for e in f.evidence if e.via == "own")
    return (index.out_of_scope(f.file), not f.reached, -own, f.qualname)


def _listing(out: list[str], fns: list[FunctionReport], paths: PathContext, index: Index,
             indent: str = "   ") -> None:
    fns = sorted(fns, key=lambda f: _rank(f, index))
    for f in fns[:_MAX_LIST]:
        out.append(f"{indent}{term(f.qualname)}  {_loc(f.file, f.line, paths)}{_why(f, paths)}")
    if len(fns) > _MAX_LIST:
        out.append(f"{indent}… {len(fns) - _MAX_LIST} more (--format json lists all)")


API_ROOTS = "no entry point reaches the RL loop; the package's public API was taken as roots"


def from_public_api(a: Analysis) -> bool:
    """No entry point reaches the loop: what counts as reached ran from the package's public
    functions (``graphs.reach.loop_reach``), and the reports must not say "from an entry point"."""
    from ..graphs.reach import PUBLIC_API

    return a.reach_roots == PUBLIC_API


def ignored_line(a: Analysis) -> str:
    """``ignored: 12 test modules, 3 vendored trees (--include-tests to include tests)``, or ""."""
    from ..index.scope import BENCH, DOCS, TEST, VENDORED, counts, vendored_roots

    index = a.index
    left = {p: s for p, s in index.scopes.items() if index.out_of_scope(p)}
    n = counts(left.values())
    trees = len(vendored_roots(left))
    parts = [f"{n[TEST]} test module{'s' * (n[TEST] != 1)}" if n[TEST] else "",
             f"{n[DOCS]} docs module{'s' * (n[DOCS] != 1)}" if n[DOCS] else "",
             f"{n[BENCH]} benchmark module{'s' * (n[BENCH] != 1)}" if n[BENCH] else "",
             f"{trees} vendored tree{'s' * (trees != 1)} ({n[VENDORED]} modules)" if n[VENDORED] else ""]
    parts = [p for p in parts if p]
    if not parts:
        return ""
    hint = " (--include-tests to include tests)" if n[TEST] else ""
    return f"ignored: {', '.join(parts)}{hint}"


def render_text(a: Analysis, paths: PathContext = REPO_RELATIVE) -> str:
    """The report; files are shown through ``paths`` (from the cwd, or repo-relative)."""
    out: list[str] = []
    w = out.append
    fns = list(a.functions.values())
    by_side: dict[Side, list[FunctionReport]] = {}
    for f in fns:
        by_side.setdefault(f.side, []).append(f)
    reached = Counter(f.side for f in fns if f.reached)
    w(f"gyrelint — {term(a.given_root)}")
    w(f"{a.stats.files} files ({a.stats.parsed} parsed, {a.stats.cached} from cache), "
      f"{a.stats.functions} functions, {len(a.entry_points)} entry points, {a.stats.seconds:.2f}s")
    ignored = ignored_line(a)
    if ignored:
        w(ignored)
    api = from_public_api(a)
    if api:
        w(API_ROOTS)
    w("")
    # 1 and 2: the chains
    for side, title in ((Side.SAMPLING, "1. Sampling chain"), (Side.TRAINING, "2. Training chain")):
        got = by_side.get(side, [])
        w(f"{title}: {len(got)} functions ({reached.get(side, 0)} reached from "
          f"{'the public API' if api else 'an entry point'})")
        if got:
            _listing(out, got, paths, a.index)
        else:
            w("   not found: no function calls an inference engine/environment" if side == Side.SAMPLING
              else "   not found: no backward, optimizer step or RL loss in the code")
    drivers = by_side.get(Side.DRIVER, [])
    if drivers:
        w(f"   drivers (run both chains): {len(drivers)}")
        _listing(out, drivers, paths, a.index, indent="     ")
    # 3: the handoff both ways
    h = a.handoff
    handoffs = by_side.get(Side.HANDOFF, [])
    traj = [f for f in handoffs if f.handoff_kind == HandoffKind.TRAJECTORY]
    sync = [f for f in handoffs if f.handoff_kind == HandoffKind.WEIGHT_SYNC]
    w("3. Handoff")
    w(f"   trajectory (sampler → trainer): {len(traj) or 'not found'}")
    if traj:
        _listing(out, traj, paths, a.index, indent="     ")
    fc = h.fields
    if fc.produced or fc.consumed:
        w(f"   trajectory fields: {len(fc.produced)} written on the sampling side, {len(fc.consumed)} read by training")
        for name in fc.missing[:_MAX_LIST]:
            uses = fc.consumed.get(name, [])
            where = ", ".join(_loc(u.file, u.line, paths) for u in uses[:3])
            w(f"     missing: '{term(name)}' is read at {where} but never produced")
        if not fc.missing:
            w("     every field the trainer reads is produced")
    w(f"   weight sync (trainer → sampler): {len(sync) or 'not found'}")
    if sync:
        _listing(out, sync, paths, a.index, indent="     ")
    if a.boundary_modules:
        shown = [m for m in a.boundary_modules][:_MAX_LIST]
        more = len(a.boundary_modules) - len(shown)
        w(f"   boundary modules: {', '.join(map(term, shown))}{f' (+{more} more)' if more > 0 else ''}")
    # 4: processes
    t = a.topology
    w(f"4. Processes: {term(t.verdict)}{' (colocated)' if t.colocated else ''}")
    for r in t.reasons[:5]:
        w(f"   - {term(prose(paths, r))}")
    for c in t.code_evidence[:4]:
        w(f"   code: {term(c.signal)} at {_loc(c.file, c.line, paths)}{' — ' + term(c.detail) if c.detail else ''}")
    listed = [k for k in t.keys if not k.scope]
    for k in listed[:4]:
        w(f"   config: {term(k.name)} = {term(k.value)} ({term(k.cls)}) at {_loc(k.file, k.line, paths)}"
          f"{f' +{k.uses} more' if k.uses else ''}")
    if len(listed) > 4:
        w(f"   config: {len(listed) - 4} more keys decide the layout (gyrelint topology PATH)")
    w(f"   trajectory transport: {term(t.trajectory_transport)}; weight transport: {term(t.weight_transport)}")
    # 5: online?
    w(f"5. Loop online: {'yes' if h.online else 'no'}")
    if h.weight_sync_path:
        w("   path of the weights from the sender to the sampler:")
        for q in h.weight_sync_path:
            f = a.functions.get(q)
            w(f"     → {term(q)}  {_loc(f.file, f.line, paths) if f else ''}".rstrip())
    elif sync:
        w("   weight-sync code exists but no call path joins it to a parameter update")
    else:
        w("   no code pushes trainer weights into the sampler")
    # counters
    counters = a.counters
    w("Counters logged (to verify a run):")
    for name in COUNTERS:
        uses = counters.found.get(name, [])
        if uses:
            keys = ", ".join(f"'{_short(u.key)}' ({_loc(u.file, u.line, paths)})" for u in uses[:3])
            more = f" +{len(uses) - 3} more" if len(uses) > 3 else ""
            w(f"   {_COUNTER_TITLES[name]}: {keys}{more}")
        else:
            w(f"   {_COUNTER_TITLES[name]}: not logged")
    if a.findings:
        w("")
        w(f"Findings ({len(a.findings)}):")
        for f in a.findings:
            w(f"   {_loc(f.file, f.line, paths)}: {term(f.rule)} [{f.severity.value}] {term(prose(paths, f.message))}")
            if f.fix:
                w(f"      what to do: {term(f.fix)}")
    if a.diagnostics:
        w("")
        w(f"Input problems ({len(a.diagnostics)}):")
        for d in a.diagnostics[:20]:
            w(f"   {term(paths.diagnostic(d))}")
        if len(a.diagnostics) > 20:
            w(f"   … {len(a.diagnostics) - 20} more")
    return term_block("\n".join(out))

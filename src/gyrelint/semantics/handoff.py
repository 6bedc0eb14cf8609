"""The weight-sync path (is the loop online?), module sides and boundary modules."""

from __future__ import annotations

import ast
from collections import Counter, deque
from collections.abc import Set as AbstractSet

from ..model import HandoffKind, ModuleReport, Side
from .facts import Facts
from .scoring_calls import SCORING_SIGNALS
from .sides import INHERITED_THRESHOLD, SHAPING, SideResult
from .signals import SAMPLING, TRAINING

# parameter-update evidence, strongest first
_UPDATE_SIGNALS = ("optimizer-step", "megatron-forward-backward", "engine-backward", "tensor-backward",
                   "trainer-loss-hook")
# the receiving end inside the inference engine
_RECEIVER_SIGNALS = frozenset({"engine-load-weights", "rollout-load-state-dict", "collective-rpc",
                               "weight-payload-receive"})


# weight-sync evidence that prepares a push (a group, a parameter stream) but does not push
_SETUP_ONLY = frozenset({"param-stream", "weight-sync-group"})
_SYNC_PUSH = frozenset({"engine-load-weights", "engine-update-weights-api", "weight-update-endpoint", "collective-rpc",
                        "param-broadcast", "cuda-ipc", "rollout-load-state-dict", "ray-collective", "weight-queue",
                        "weight-update-call", "weight-payload-send", "weight-payload-receive"})


def _own_ids(r: SideResult) -> set[str]:
    return {m.signal.id for m in r.own_matches}


def _bfs(sources: list[str], adj: dict[str, list[str]], limit: int = 12) -> dict[str, tuple[int, str | None]]:
    """Multi-source BFS: node -> (distance, predecessor towards the source)."""
    seen: dict[str, tuple[int, str | None]] = {s: (0, None) for s in sources}
    dq = deque(sources)
    while dq:
        u = dq.popleft()
        d = seen[u][0]
        if d >= limit:
            continue
        for v in adj.get(u, ()):
            if v not in seen:
                seen[v] = (d + 1, u)
                dq.append(v)
    return seen


def _walk(node: str, seen: dict[str, tuple[int, str | None]]) -> list[str]:
    out = [node]
    while True:
        prev = seen[out[-1]][1]
        if prev is None or prev in out:
            return out
        out.append(prev)


def weight_sync_path(sides: dict[str, SideResult], edges: dict[str, dict[str, float]],
                     reached: AbstractSet[str], outside: frozenset[str] = frozenset(),
                     senders: AbstractSet[str] = frozenset(), receivers: AbstractSet[str] = frozenset(),
                     defines: AbstractSet[tuple[str, str]] = frozenset(),
                     instances: dict[str, tuple[str, ...]] | None = None) -> tuple[bool, list[str]]:
    """Is the loop online, and the headline weight-sync path: from the sender to the receiver.

    Online when a call path joins a parameter update and a weight push (the update calls the
    push, or one caller, the step loop, reaches both: ``_update_to_sync``). The path shown is
    the weights' own way (``sender_path``): from the function that takes the parameters out of
    the trainer, down the calls, to the engine-side method that loads them; not the climb from
    the optimizer step up to the loop and back down. ``senders``/``receivers``: the payload
    analysis's ends (``payload.weight_flow``). Functions ``outside`` the product rank last.
    ``instances``: method -> the repo classes whose instances have it (:func:`instance_methods`).
    """
    online, joined = _update_to_sync(sides, edges, reached, outside, instances or {})
    if not online:
        # a step that trains and pushes in its own body: online, with no weight-sync function to show
        return _step_that_pushes(sides, reached, outside) is not None, []
    path = sender_path(sides, edges, reached, outside, senders, receivers, defines)
    # the rules and ``diff`` read a path without a weight-sync function as a broken loop
    return True, path if any(_is_sync(sides.get(q)) for q in path) else joined


def _forward(edges: dict[str, dict[str, float]], min_decay: float,
             hubs: set[str]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Call edges of at least ``min_decay`` (strongest first per caller), hubs left out, both ways."""
    fwd: dict[str, list[str]] = {}
    rev: dict[str, list[str]] = {}
    for u, row in edges.items():
        if u in hubs:
            continue
        for v, d in sorted(row.items(), key=lambda kv: -kv[1]):
            if d >= min_decay and v not in hubs:
                fwd.setdefault(u, []).append(v)
                rev.setdefault(v, []).append(u)
    return fwd, rev


def _hubs(edges: dict[str, dict[str, float]]) -> set[str]:
    """Decorator wrappers, dynamic importers, dispatchers: they connect everything to everything,
    so a path through one says nothing about the loop."""
    indeg: dict[str, int] = {}
    for row in edges.values():
        for v in row:
            indeg[v] = indeg.get(v, 0) + 1
    return {q for q in set(indeg) | set(edges)
            if (indeg.get(q, 0) > 25 and len(edges.get(q, ())) > 5) or len(edges.get(q, ())) > 60}


def _is_sync(r: SideResult | None) -> bool:
    return r is not None and r.side == Side.HANDOFF and r.kind == HandoffKind.WEIGHT_SYNC


SENDER_CLIMB = 4  # how many weight-sync callers above the first sender the path may start


_MOVES_WEIGHTS = frozenset({"param-broadcast", "cuda-ipc", "weight-payload-send", "ray-collective", "weight-queue"})


def sender_path(sides: dict[str, SideResult], edges: dict[str, dict[str, float]], reached: AbstractSet[str],
                outside: frozenset[str], senders: AbstractSet[str], receivers: AbstractSet[str],
                defines: AbstractSet[tuple[str, str]] = frozenset()) -> list[str]:
    """The weights' way: sender → … → receiver over call edges (``.remote`` included), or [].

    Senders are the weight-sync functions that push (parameters reach a crossing, or a push
    signal of their own that is no receiving end); receivers the weight-sync functions that load
    what arrives into the engine (own receiving evidence, or a payload receiver). The shortest
    forward path from a sender to a receiver wins, reached and product code first, exact edges
    before name guesses; it then starts at the topmost weight-sync caller of its sender (the
    orchestrator of the push, not the trainer's loop above it). With no receiver in the repo (an
    HTTP route of an external server), the path runs from the sender down to its last push.
    ``defines``: (parent, nested function) edges that only define the nested one (a route handler
    an app factory registers): the factory does not call it.
    """
    recv = {q for q, r in sides.items() if _is_sync(r) and (_own_ids(r) & _RECEIVER_SIGNALS or q in receivers)}
    push = {q for q, r in sides.items() if q not in recv and (_own_ids(r) & _SYNC_PUSH or q in senders)
            and (_is_sync(r) or r.own.get("weight_sync", 0) >= 1.0)}
    if not push:
        return []
    # the parameters themselves leave here (a payload sender, a broadcast, IPC handles), not a
    # request builder or a group's set-up
    moving = {q for q in push if q in senders or _own_ids(sides[q]) & _MOVES_WEIGHTS}
    hubs = _hubs(edges)
    calls = {u: {v: d for v, d in row.items() if (u, v) not in defines} for u, row in edges.items()}

    def rank(q: str, dist: int) -> tuple:
        return (q in outside, q not in reached, dist, q)

    graphs = {d: _forward(calls, d, hubs) for d in (0.5, 0.0)}  # exact edges first, then name guesses
    for srcs in (moving, push):
        for min_decay in (0.5, 0.0):
            fwd, rev = graphs[min_decay]
            seen = _bfs(sorted(q for q in srcs if q not in hubs), fwd, limit=10)
            hits = sorted(rank(q, d) for q, (d, _) in seen.items() if q in recv and d > 0)
            if hits:
                path = list(reversed(_walk(hits[0][-1], seen)))
                return _climb(path, rev, sides, reached, outside, recv)
    # no receiver the calls reach (a transport between processes, an external server's route): the
    # longest way from a weight-sync function down to a push that moves the parameters
    fwd, rev = graphs[0.5]
    best: tuple | None = None
    for q in sorted(push):
        seen = _bfs([q], fwd, limit=6)
        for t, (d, _) in seen.items():
            if t in (moving or push):
                key = (q in outside or t in outside, q not in reached, -d, q, t)
                if best is None or key < best[0]:
                    best = (key, list(reversed(_walk(t, seen))))
    if best is None:
        return []
    path = _climb(best[1], rev, sides, reached, outside, recv)
    far = _far_end(path[-1], sides, recv, reached, outside)
    return [*path, far] if far is not None and far not in path else path


# carriers named by a signal at both ends: the pushing end and the receiving end match the same one
_CARRIERS = frozenset({"weight-queue", "zmq-transport", "param-broadcast", "cuda-ipc", "tensor-store-weights",
                       "ray-collective", "collective-rpc", "shared-memory", "pipe-transport"})


def _far_end(sender: str, sides: dict[str, SideResult], recv: set[str], reached: AbstractSet[str],
             outside: frozenset[str]) -> str | None:
    """The receiver across the transport from ``sender`` when no call joins them (two processes).

    The trainer puts its state dict on a weight queue and the sampler process takes it off and
    loads it: no call path, one carrier. A receiver whose own evidence names the same carrier as
    the sender's push is the path's far end; the product's, reached ones first.
    """
    carrier = _own_ids(sides[sender]) & _CARRIERS
    if not carrier:
        return None
    hits = sorted((q in outside, q not in reached, q) for q in recv if _own_ids(sides[q]) & carrier)
    return hits[0][-1] if hits else None


def _climb(path: list[str], rev: dict[str, list[str]], sides: dict[str, SideResult], reached: AbstractSet[str],
           outside: frozenset[str], recv: set[str]) -> list[str]:
    """Start the path at the topmost weight-sync function above its sender (weight-sync callers only)."""
    for _ in range(SENDER_CLIMB):
        ups = sorted((q in outside, q not in reached, q) for q in rev.get(path[0], ())
                     if q not in path and q not in recv and _is_sync(sides.get(q)))
        if not ups:
            break
        path.insert(0, ups[0][-1])
    return _no_loops(path)


def _update_to_sync(sides: dict[str, SideResult], edges: dict[str, dict[str, float]],
                    reached: AbstractSet[str], outside: frozenset[str] = frozenset(),
                    instances: dict[str, tuple[str, ...]] | None = None) -> tuple[bool, list[str]]:
    """Path from the parameter update to the sampler's weights, through the call graph.

    Returns ``(online, path)``; the path reads update → … → common caller → … → sender
    → … → receiver. A training function that calls the weight push itself gives a
    direct path; otherwise the closest common caller of an update and a weight-sync
    function (the step loop) joins them. Functions ``outside`` the product (the index's
    scope: tests, docs...) rank after the product's.
    """
    # the pushes themselves (weight-sync evidence in the body) first; then any weight-sync function
    pushes = [q for q, r in sides.items() if (_own_ids(r) & _SYNC_PUSH) and
              (r.side == Side.HANDOFF and r.kind == HandoffKind.WEIGHT_SYNC or r.own.get("weight_sync", 0) >= 1.0)]
    labelled = [q for q, r in sides.items() if r.side == Side.HANDOFF and r.kind == HandoffKind.WEIGHT_SYNC
                and not (r.origins.get("weight_sync") and r.origins["weight_sync"].signal in _SETUP_ONLY)]
    if not labelled and not pushes:
        return False, []
    updates: list[str] = []
    for sig in _UPDATE_SIGNALS:
        updates = [q for q, r in sides.items() if sig in _own_ids(r) and r.side in (Side.TRAINING, Side.DRIVER)]
        if updates:
            break
    if not updates:
        updates = [q for q, r in sides.items() if r.side == Side.TRAINING and r.own.get("training", 0) >= 1.0]
    if not updates:
        return False, []
    receivers = {q for q in labelled if _own_ids(sides[q]) & _RECEIVER_SIGNALS}
    drivers = {q for q, r in sides.items() if r.side == Side.DRIVER}
    hubs = _hubs(edges)
    for sync in (pushes, labelled):
        if not sync:
            continue
        # exact call edges first; name-only (weak) edges only when nothing exact connects
        for min_decay in (0.5, 0.0):
            fwd, rev = _forward(edges, min_decay, hubs)
            best = _join(sorted(updates), set(sync), receivers, drivers, fwd, rev, reached, outside)
            if best:
                return True, _no_loops(best)
    if instances:
        _fwd, rev = _forward(edges, 0.5, hubs)
        for sync in (pushes, labelled):
            best = _instance_join(sorted(updates), sorted(set(sync) - set(updates)), rev, instances, reached, outside)
            if best:
                return True, _no_loops(best)
    return False, []


_INSTANCE_HOPS = 4  # exact calls from a method of the instance down to the update / the push


def instance_methods(classes: dict, mro) -> dict[str, tuple[str, ...]]:
    """Method qualname -> the repo classes whose instances have it: the defining class and the
    repo classes that inherit it (``mro(cls)``: the class and its repo bases)."""
    out: dict[str, list[str]] = {}
    for cq in sorted(classes):
        for b in mro(cq):
            info = classes.get(b)
            for m in sorted(info.methods) if info is not None else ():
                out.setdefault(f"{b}.{m}", []).append(cq)
    return {q: tuple(cs) for q, cs in out.items()}


def _instance_join(updates: list[str], sync: list[str], rev: dict[str, list[str]],
                   instances: dict[str, tuple[str, ...]], reached: AbstractSet[str],
                   outside: frozenset[str]) -> list[str] | None:
    """One instance trains and pushes: a method of a class reaches the parameter update and another
    method of the same class (own or inherited) reaches the weight push, over exact calls. No repo
    function calls both (a library's worker-group dispatch or an RPC layer calls each method of the
    worker), so no common caller exists; the instance that holds the trained module and the engine
    the push loads into is the joint. Both methods are the product's; classes whose methods run
    (reached) rank first. Returns update → … → method, method → … → push, or None."""
    if not updates or not sync:
        return None
    up_anc = _bfs(updates, rev, limit=_INSTANCE_HOPS)
    sync_anc = _bfs(sync, rev, limit=_INSTANCE_HOPS)

    def per_class(anc: dict[str, tuple[int, str | None]]) -> dict[str, tuple]:
        best: dict[str, tuple] = {}
        for q, (d, _) in anc.items():
            if q in outside:
                continue
            key = (q not in reached, d, q)
            for c in instances.get(q, ()):
                if c not in best or key < best[c]:
                    best[c] = key
        return best

    ups, syncs = per_class(up_anc), per_class(sync_anc)
    cands = sorted((ups[c][0] and syncs[c][0], ups[c][1] + syncs[c][1], c) for c in set(ups) & set(syncs))
    for _not_run, _d, c in cands:
        mu, ms = ups[c][2], syncs[c][2]
        if mu == ms:
            continue  # one method reaching both has a common-caller path already (or none by design)
        return list(reversed(_walk(mu, up_anc))) + _walk(ms, sync_anc)
    return None


def _step_that_pushes(sides: dict[str, SideResult], reached: AbstractSet[str],
                      outside: frozenset[str]) -> str | None:  # the driver, or None
    """A step function that trains and pushes the weights in its own body (pattern: the update is a
    library base class's method, so no update function of the repo exists to join): online.

    The body itself must carry training evidence (advantages, losses, KL terms) and a weight push
    (any weight-sync signal, the weak name hint included), and it must run (reached)."""
    for q in sorted(sides):
        r = sides[q]
        if r.side != Side.DRIVER or q in outside or q not in reached:
            continue
        if r.own.get("training", 0.0) >= 1.0 and r.own.get("weight_sync", 0.0) > 0 and _own_ids(r) & _SYNC_PUSH:
            return q
    return None


def _no_loops(path: list[str]) -> list[str]:
    """Cut a detour that comes back to a node already on the path."""
    out: list[str] = []
    for q in path:
        if q in out:
            del out[out.index(q) + 1:]
        else:
            out.append(q)
    return out


def _join(updates: list[str], sync_set: set[str], receivers: set[str], drivers: set[str],
          fwd: dict[str, list[str]], rev: dict[str, list[str]], reached: AbstractSet[str],
          outside: frozenset[str]) -> list[str] | None:
    """Best path: through a driver (the step loop) when one joins both, else the closest link."""
    up_anc = _bfs(updates, rev)
    sync_anc = _bfs(sorted(sync_set - set(updates)), rev)

    def rank(q: str, dist: int) -> tuple:
        return (q not in drivers, q in outside, q not in reached, dist, q)

    common = [rank(q, up_anc[q][0] + sync_anc[q][0]) for q in up_anc if q in sync_anc
              and up_anc[q][0] > 0 and sync_anc[q][0] > 0]
    best: list[str] | None = None
    if common:
        common.sort()
        if not common[0][0] or not common[0][1]:
            d = common[0][-1]
            best = list(reversed(_walk(d, up_anc))) + _walk(d, sync_anc)[1:]
    if best is None or (common and common[0][0]):
        # an update function that reaches a weight push itself
        from_update = _bfs(updates, fwd, limit=6)
        direct = sorted((q in outside, q not in reached, d, q) for q, (d, _) in from_update.items()
                        if q in sync_set and d > 0)
        if direct and (best is None or not direct[0][0]):
            best = list(reversed(_walk(direct[0][-1], from_update)))
    if best is None:
        return None
    # extend from the sender to the receiving end inside the engine, when linked
    last = best[-1]
    if last not in receivers and receivers:
        to_recv = _bfs([last], fwd, limit=8)
        hits = sorted((to_recv[q][0], q) for q in receivers if q in to_recv)
        if hits:
            tail = list(reversed(_walk(hits[0][1], to_recv)))
            best += [q for q in tail[1:] if q not in best]
    return best


def module_sides(facts: Facts, sides: dict[str, SideResult]) -> dict[str, Side]:
    """Majority side of a module's labelled functions (neutral when none is labelled)."""
    per: dict[str, Counter] = {}
    for q, fn in facts.functions.items():
        per.setdefault(fn.module, Counter())
        r = sides.get(q)
        if r is not None and r.side != Side.NEUTRAL:
            per[fn.module][r.side] += 1
    for m in facts.summaries:
        per.setdefault(m, Counter())
    out: dict[str, Side] = {}
    for m, cnt in per.items():
        out[m] = cnt.most_common(1)[0][0] if cnt else Side.NEUTRAL
    return out


def boundary_modules(facts: Facts, sides: dict[str, SideResult], containers: set[str],
                     reached: set[str] | None = None) -> list[str]:
    """Modules that define the handoff surface: trajectory containers, transports, weight pushes.

    Judged by what a module defines, not by who imports it: a module qualifies when it
    defines a trajectory container class, or when handoff *carriers* (own handoff evidence,
    not delegation to one) are a real share of what it defines publicly. When entry points
    reach some carrier, a module whose carriers no entry point reaches (an offline trainer,
    a converter, a demo) is not on the online loop's boundary (pattern P).
    """
    def carrier(q: str, r: SideResult) -> bool:
        key = "trajectory" if r.kind == HandoffKind.TRAJECTORY else "weight_sync"
        return r.side == Side.HANDOFF and r.own.get(key, 0.0) > 0

    online = reached is not None and any(q in reached and carrier(q, r) for q, r in sides.items())
    handoff: Counter = Counter()
    labelled: Counter = Counter()
    for q, fn in facts.functions.items():
        r = sides.get(q)
        if r is None or r.side == Side.NEUTRAL:
            continue
        public = not fn.definition.name.startswith("_") or fn.definition.name == "__init__"
        labelled[fn.module] += 1
        if carrier(q, r) and public and (not online or q in reached):  # type: ignore[operator]
            handoff[fn.module] += 1
    out = {facts.classes[c].module for c in containers if c in facts.classes}
    for m, n in handoff.items():
        if n >= 2 and n >= 0.4 * labelled[m] or n >= 1 and n >= 0.75 * labelled[m]:
            out.add(m)
    return sorted(m for m in out if not facts.out_of_scope(m))


def module_reports(facts: Facts, sides: dict[str, SideResult], boundary: list[str]) -> list[ModuleReport]:
    ms = module_sides(facts, sides)
    b = set(boundary)
    return [ModuleReport(m, s, m in b) for m, s in sorted(ms.items())]


QUEUE_SIGNALS = frozenset({"queue-put", "queue-get"})
_QUEUE_PUT = frozenset({"put", "put_nowait", "put_async"})
_QUEUE_GET = frozenset({"get", "get_nowait", "get_async"})


def internal_queue_sites(facts: Facts, sides: dict[str, SideResult]) -> dict[str, tuple[str, set[int]]]:
    """Queue put/get lines whose queue never leaves one side: function -> (that side, lines) (pattern E2).

    A queue is the trajectory handoff only when its producer and its consumer sit on different
    sides. A queue held by a class (``self.pending``) whose putting and getting methods carry
    sampling evidence only (a rollout worker's prompt queue, its finished-generations queue) or
    training evidence only is that side's plumbing. The side of a method is read from its
    sampling and training scores, which the queue signals (trajectory evidence) do not feed.
    A queue with no method on any side (a carrier class between the sides) keeps its signals.
    """
    ends: dict[tuple[str, str], list[tuple[str, int, bool]]] = {}
    for q, fn in facts.functions.items():
        if fn.cls is None:
            continue
        for c in fn.calls:
            rec = c.site.receiver or ""
            if c.role != "queue" or not rec.startswith("self.") or rec.count(".") != 1:
                continue
            if c.method in _QUEUE_PUT or c.method in _QUEUE_GET:
                ends.setdefault((fn.cls, rec[5:]), []).append((q, c.site.line, c.method in _QUEUE_PUT))
    out: dict[str, tuple[str, set[int]]] = {}
    for _, uses in sorted(ends.items()):
        if not any(put for _, _, put in uses) or all(put for _, _, put in uses):
            continue  # one end only here: the other end is elsewhere
        found = {_lean(sides.get(q), facts.functions[q]) for q, _, _ in uses} - {None}
        if len(found) == 1:
            side = found.pop()
            for q, line, _ in uses:
                out.setdefault(q, (side, set()))[1].add(line)
    return out


def _lean(r: SideResult | None, fn) -> str | None:
    """The side a function's sampling/training scores point to, if they clearly point to one."""
    if r is None or r.between:
        return None  # a collector queuing what it shaped is the handoff's put end, on neither side
    s, t = r.total.get(SAMPLING, 0.0), r.total.get(TRAINING, 0.0)
    o = r.origins.get(TRAINING)
    if o is not None and o.via != "own" and o.signal in SHAPING and not r.own.get(TRAINING):
        t = 0.0  # advantages computed by one call before the put: shaping between the sides, not a trainer (R)
    if s >= INHERITED_THRESHOLD and s > 2 * t:
        return SAMPLING
    if t >= INHERITED_THRESHOLD and t > 2 * s:
        return TRAINING
    return None


_OPTIM_CTOR = ("torch.optim.", "bitsandbytes.optim.", "apex.optimizers.", "deepspeed.ops.", "transformers.AdamW",
               "transformers.Adafactor", "transformers.optimization.")


def same_object(facts: Facts, sides: dict[str, SideResult], loops: dict[str, list[int]]) -> tuple[str, int, str] | None:
    """Where the sampler acts with the very module object the optimizer updates, in one process.

    Positive evidence of an online loop without any weight push (item 5): a body hands one value
    (a local or ``self.<attr>``) both to a sampling function that uses it (calls it, calls a
    method on it or passes it on) and to the optimizer (``Adam(policy.parameters())``) or to a
    training function that runs it as a module, by a direct call or a thread callback, never
    over ``.remote``. A channel both sides merely use is no shared model. Sampling once and then
    learning once is no loop: a loop (``loops``: lines of the body's ``for`` statements) must
    start before the sampling call, or the sampler runs in a thread of its own beside the learner.
    Returns (file, line of the sampling call, the value's text).
    """
    for q in sorted(facts.functions):
        fn = facts.functions[q]
        if not fn.calls:
            continue
        sampled: dict[str, int] = {}
        trained: set[str] = set()
        first_loop = min(loops.get(q, ()), default=None)
        for c in fn.calls:
            if c.ray:
                continue
            if any(n.startswith(_OPTIM_CTOR) for n in c.names):
                for a in c.site.args:
                    v = a.value if a.kind == "call" and isinstance(a.value, str) else ""
                    if v.endswith((".parameters", ".named_parameters")):
                        trained.add(v.rsplit(".", 1)[0])
            for t, bound in _bindings(c, facts):
                r = sides.get(t)
                if r is None:
                    continue
                if r.side == Side.TRAINING:
                    trained.update(_run_as_module(facts.functions[t], bound))
                elif r.side == Side.SAMPLING and (c.site.kwarg("target") is not None or
                                                  (first_loop is not None and first_loop < c.site.line)):
                    for v in _used(facts.functions[t], bound):
                        sampled.setdefault(v, c.site.line)
        for v in sorted(set(sampled) & trained):
            return fn.file, sampled[v], v
    return None


def _params(callee) -> list[str]:
    params = [p.name for p in callee.definition.params if p.kind in ("pos", "kwonly")]
    if callee.cls and params and params[0] in ("self", "cls"):
        params = params[1:]
    return params


def _bindings(call, facts: Facts) -> list[tuple[str, dict[str, str]]]:
    """(repo callee, its parameter -> the caller's value text) for a direct call or a callback."""
    out: list[tuple[str, dict[str, str]]] = []
    names = [a.value if a.kind == "name" and isinstance(a.value, str) else None for a in call.site.args]
    kw = {k: a.value for k, a in call.site.kwargs if a.kind == "name" and isinstance(a.value, str)}
    target = kw.get("target")
    if target is not None:  # Thread/Process(target=f, args=(...)): the arguments go to f
        expr = call.site.expr
        args = next((v for k, v in expr[3] if k == "args"), None) if isinstance(expr, tuple) and len(expr) > 3 else None
        names = [it[1] if isinstance(it, tuple) and it[:1] == ("n",) else None
                 for it in (args[2] if isinstance(args, tuple) and args[:1] == ("l",) else ())]
        kw = {}
        ctx_targets = [t for t in call.targets if t.rsplit(".", 1)[-1] == target.rsplit(".", 1)[-1]]
        cands = ctx_targets or [q for q in facts.functions if q.endswith("." + target)]
    else:
        cands = list(call.targets)
    for t in cands[:3]:
        callee = facts.functions.get(t)
        if callee is None:
            continue
        params = _params(callee)
        bound = {params[i]: v for i, v in enumerate(names) if v is not None and i < len(params)}
        bound.update({k: v for k, v in kw.items() if k in params})
        if bound:
            out.append((t, bound))
    return out


def _run_as_module(callee, bound: dict[str, str]) -> list[str]:
    """The caller's values the training callee runs as a module: ``p(x)``, ``p.forward``, ``p.parameters()``."""
    run: set[str] = set()
    for c in callee.calls:
        head, _, rest = c.site.func.partition(".")
        if not rest or rest in ("forward", "parameters", "named_parameters"):
            run.add(head)
    return [v for p, v in bound.items() if p in run]


def _used(callee, bound: dict[str, str]) -> list[str]:
    """The caller's values whose parameters the callee calls, calls a method on or passes on."""
    used: set[str] = set()
    for c in callee.calls:
        used.add(c.site.func.split(".", 1)[0])
        used.update(a.value.split(".", 1)[0] for a in c.site.args if a.kind == "name" and isinstance(a.value, str))
    return [v for p, v in bound.items() if p in used]


def _mentions(tree: object, names: set[str], depth: int = 0) -> bool:
    """An expression tree reads one of ``names`` (a local) anywhere inside."""
    if not isinstance(tree, tuple) or not tree or depth > 20:
        return False
    if tree[0] == "n":
        return tree[1] in names
    return any(_mentions(x, names, depth + 1) for x in tree if isinstance(x, tuple))


def _generated(fn, sides: dict[str, SideResult]) -> set[str]:
    """Locals holding what a sampling function returned, or values built from them (two hops)."""
    by_line: dict[int, list] = {}
    for c in fn.calls:
        by_line.setdefault(c.site.line, []).append(c)
    got: set[str] = set()
    for _ in range(2):
        for a in fn.assigns:
            if a.value_kind != "call" or "." in a.target or a.target in got:
                continue
            for c in by_line.get(a.line, ()):
                if any(sides.get(t) is not None and sides[t].side == Side.SAMPLING for t in c.targets) \
                        or (got and _mentions(c.site.expr, got)):
                    got.add(a.target)
                    break
    return got


def rollout_carriers(facts: Facts, sides: dict[str, SideResult]) -> dict[str, int]:
    """Methods of an opaque carrier that rollouts pass through: method -> line (item 5).

    A wrapper whose backend nobody can type (``self._wire`` built by a factory) is a queue when
    what goes in is built from a sampling function's output: the repo method handed such a value
    passes it to a call on one of its ``self`` attributes that resolves to no repo code (the put
    end), and a method of the same class returning what a call on that attribute gives back is
    the get end. Neither needs a known queue type or a payload word.
    """
    ends: dict[str, int] = {}
    wires: dict[str, set[str]] = {}
    for fn in facts.functions.values():
        if facts.out_of_scope(fn.module):
            continue
        gen = _generated(fn, sides) if fn.calls else set()
        if not gen:
            continue
        for c in fn.calls:
            if c.ray or not c.targets or len(c.targets) > 3 or not _mentions(c.site.expr, gen):
                continue
            positions = [i for i, a in enumerate(c.site.expr[2]) if _mentions(a, gen)] \
                if isinstance(c.site.expr, tuple) and len(c.site.expr) > 2 else []
            for t in c.targets:
                m = facts.functions.get(t)
                r = sides.get(t)
                if m is None or m.cls is None or r is None or r.side != Side.NEUTRAL:
                    continue
                params = _params(m)
                handed = {params[i] for i in positions if i < len(params)}
                for mc in m.calls:
                    rec = mc.site.receiver or ""
                    if mc.targets or not rec.startswith("self.") or rec.count(".") != 1:
                        continue
                    if any(a.kind == "name" and a.value in handed for a in mc.site.args):
                        ends.setdefault(t, mc.site.line)
                        wires.setdefault(m.cls, set()).add(rec)
    for q, fn in facts.functions.items():
        recs = wires.get(fn.cls or "")
        r = sides.get(q)
        if not recs or q in ends or r is None or r.side != Side.NEUTRAL:
            continue
        if any(text.startswith(rec + ".") for text in fn.definition.returned for rec in recs):
            ends[q] = fn.line
    return ends


# library calls that start a child process from an argument vector
_LAUNCH = ("subprocess.Popen", "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
           "asyncio.create_subprocess_exec", "asyncio.subprocess.create_subprocess_exec")


def _literals(e: object, out: list[str], depth: int = 0) -> None:
    if not isinstance(e, tuple) or depth > 12:
        return
    if e[:1] == ("k",) and len(e) > 1 and isinstance(e[1], str):
        out.append(e[1])
        return
    if e == ("n", "__file__"):
        out.append("__file__")  # the module relaunching itself (``Popen([python, __file__, "--serve"])``)
        return
    for x in e:
        if isinstance(x, tuple):
            _literals(x, out, depth + 1)


def _script_module(lit: str, fn, facts: Facts) -> str | None:
    """The repo module a launch literal names: a ``*.py`` path (by file stem, the launcher's own
    package first) or a dotted module name handed to ``-m``."""
    if lit == "__file__":
        return fn.module
    if lit in facts.summaries and "." in lit:
        return lit
    if not lit.endswith(".py"):
        return None
    stem = lit.replace("\\", "/").rsplit("/", 1)[-1][:-3]
    if not stem.isidentifier():
        return None
    named = [m for m in facts.summaries if m.rsplit(".", 1)[-1] == stem]
    pkg = fn.module.rpartition(".")[0]
    near = [m for m in named if m.rpartition(".")[0] == pkg]
    got = near or named
    return got[0] if len(got) == 1 else None


_INLINE_MAX = 4000  # a ``-c`` program longer than this is not a one-line bootstrap


def _inline_functions(lit: str, facts: Facts) -> list[str]:
    """Repo functions an inline ``python -c`` program imports and calls (``from pkg.mod import
    main; sys.exit(main(sys.argv[1]))``). The literal is parsed, never run."""
    if "import" not in lit or len(lit) > _INLINE_MAX:
        return []
    try:
        tree = ast.parse(lit, mode="exec")
    except (SyntaxError, ValueError, RecursionError):
        return []
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                bound[a.asname or a.name] = f"{node.module}.{a.name}"
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            q = bound.get(node.func.id)
            if q is not None and q in facts.functions and q not in out:
                out.append(q)
    return out


def _starts_sampler(q: str, sides: dict[str, SideResult]) -> bool:
    """The function generates (its sampling is not only reward scoring or prompt intake) and trains nothing."""
    r = sides.get(q)
    if r is None or r.side != Side.SAMPLING:
        return False
    o = r.origins.get(SAMPLING)
    return o is None or o.signal not in (*SCORING_SIGNALS, "prompt-intake")


def launched_samplers(facts: Facts, sides: dict[str, SideResult]) -> dict[str, int]:
    """Functions starting the repo's inference-server script as a child process: launcher -> line.

    The script is named by a literal of the body (``os.path.join(here, "serve.py")`` or
    ``-m pkg.serve``) that flows into the argument vector of ``subprocess.Popen``/``run``/
    ``create_subprocess_exec``; the child's module generates (one of its functions is sampling
    with generation evidence) and trains nothing. Such a launcher starts the sampling side, as
    ``Process(target=f)`` does for a function (see ``sides._spawned_side``). An inline ``-c``
    program that imports and calls one repo function names that function instead: the child is
    a sampler when the function is (on its own or through its callees), even in the launcher's
    own module."""
    gen_mods: set[str] = set()
    train_mods: set[str] = set()
    for q, r in sides.items():
        fn = facts.functions.get(q)
        if fn is None:
            continue
        if r.side == Side.SAMPLING and r.has_own:
            o = r.origins.get(SAMPLING)
            if o is None or o.signal not in (*SCORING_SIGNALS, "prompt-intake"):
                gen_mods.add(fn.module)
        elif r.side in (Side.TRAINING, Side.DRIVER):
            train_mods.add(fn.module)
    if not gen_mods:
        return {}
    out: dict[str, int] = {}
    for q, fn in facts.functions.items():
        launch = [c for c in fn.calls if any(n in _LAUNCH for n in c.names or ())]
        if not launch or facts.out_of_scope(fn.module):
            continue
        lits: list[str] = []
        for c in fn.calls:
            _literals(c.site.expr, lits)
        for a in fn.assigns:
            if a.value_kind == "lit" and isinstance(a.value, str):
                lits.append(a.value)
        for lit in lits:
            if any(_starts_sampler(t, sides) for t in _inline_functions(lit, facts)):
                out[q] = launch[0].site.line
                break
            m = _script_module(lit, fn, facts)
            if m is not None and (m != fn.module or lit == "__file__") and m in gen_mods and m not in train_mods:
                out[q] = launch[0].site.line
                break
    return out

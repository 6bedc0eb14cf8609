"""Trajectories that cross processes over HTTP: the repo's clients paired with the repo's own routes.

A rollout worker POSTs its scored groups to a small web app (``@app.post("/groups")``), whose
handler queues them; the trainer GETs its next batch from another route of the same app. No call
joins the two processes, yet the URL path does: a path literal of a client call (an f-string or a
concatenation whose constant tail is ``/groups``) names a route the repo registers (a decorator
``@app.post(path)``/``@router.get(path)``/``@app.route(path, methods=...)`` or a registration call
``add_api_route``/``add_route``/``add_url_rule``/``router.add_post``). Each such pair is a
cross-process call edge, client → handler.

The kind follows what moves, not the transport (DESIGN). A push route carries trajectories when
a client on the sampling side posts to it and what its handler stores (a global or ``app.state``
chain, ``self.<attr>``) is read on the training side: by a route the trainer pulls, or by
training code in the server's own process. A pull route carries trajectories when a client on the
training side gets from it and what its handler reads is written on the sampling side. The same
two ends the other way round, with a weight-sync function posting, are the weight sync. Control
routes (health, status, registration, metrics, configuration, tokenizer) carry neither, whatever
they read. Only functions with no side are labelled: the handlers, their private helpers, the thin
client functions holding the path and the helper that makes their request. Applied after
propagation, like the caller context: it passes nothing up.

Bounded: routes are indexed by their last constant path segment, so each client literal looks up
a handful of routes; literals, paths and the closures of handlers have fixed limits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..graphs.model import EXACT
from ..index.summary import MODULE_SCOPE
from ..model import Evidence, HandoffKind, Side
from .catalog import _is_http
from .facts import Facts, FnFacts
from .sides import _SERVICE_NAME, SideResult, _only_defines, reports

SIGNAL = "http-route-pair"  # the evidence a labelled function gets: the pair it belongs to

_DECORATOR_VERBS = frozenset({"get", "post", "put", "patch", "delete", "route", "api_route"})
_VERBS = frozenset({"get", "post", "put", "patch", "delete"})
_PUSH = frozenset({"post", "put", "patch"})
_REGISTER_VERB = {"add_get": "get", "add_post": "post", "add_put": "put", "add_patch": "patch",
                  "add_delete": "delete"}
_REGISTER = frozenset({"add_api_route", "add_route", "add_url_rule", "Route", *_REGISTER_VERB})
_HANDLER_KWARGS = ("endpoint", "view_func", "handler")
# a path segment that names control, not data: nothing that moves rollouts or weights
_CONTROL = re.compile(r"^(health\w*|healthz|ping|ready|readyz|live|livez|alive|info|status\w*|register\w*|"
                      r"unregister\w*|metrics?|stats|version|models?|config\w*|settings|tokeni[sz]er\w*|wandb\w*|"
                      r"login|logout|auth\w*|docs|openapi\w*|reset\w*|shutdown|disconnect\w*|heartbeat|"
                      r"pause\w*|resume\w*|abort\w*|flush\w*|sleep|wake\w*|debug|list\w*)$")
_WEIGHTS = re.compile(r"weight|lora|adapter|state_dict|param|checkpoint|ckpt")
_MUTATORS = frozenset({"append", "extend", "insert", "appendleft", "put", "put_nowait", "add", "update",
                       "setdefault", "pop", "popleft", "clear", "remove"})
MAX_PATH = 200
MAX_SEGMENTS = 12
MAX_MATCHES = 8  # routes one client literal may pair with
CLOSURE_HOPS = 2  # how far below a handler its private helpers reach
MAX_CLOSURE = 24
CONTEXT_HOPS = 3  # how far above a client its side is looked for
MAX_CONTEXT = 64


@dataclass(slots=True)
class _Route:
    handler: str
    segments: tuple[str, ...]
    verbs: frozenset[str]
    line: int
    clients: list[tuple[str, int, tuple[str, ...]]] = field(default_factory=list)  # (client, line, transports)

    @property
    def push(self) -> bool:
        return bool(self.verbs & _PUSH)


def segments(text: str, client: bool = False) -> tuple[str, ...] | None:
    """The path of a URL or route text as segments, ``*`` for a hole (``{}``, ``{id}``, ``<id>``,
    ``:id``); the scheme and host are dropped. A client's text ending in a slash is a prefix that
    something completes (``"/api/rollouts/" + rid``): a hole follows. None when the text is no path."""
    if not text or len(text) > MAX_PATH or "/" not in text or any(ch.isspace() for ch in text):
        return None
    t = text.split("?", 1)[0].split("#", 1)[0]
    if client and t.endswith("/") and t.strip("/"):
        t += "{}"
    if "://" in t:
        t = t.split("://", 1)[1]
        t = t[t.find("/"):] if "/" in t else ""
    out: list[str] = []
    for p in t.split("/"):
        if not p:
            continue
        out.append("*" if ("{" in p or "<" in p or p.startswith(":")) else p)
    return tuple(out[-MAX_SEGMENTS:]) if out else None


def _key(segs: tuple[str, ...]) -> str | None:
    return next((s for s in reversed(segs) if s != "*"), None)


def matches(client: tuple[str, ...], route: tuple[str, ...]) -> bool:
    """The route's path is the tail of the client's (a router prefix or host may stand before it):
    aligned from the end, constants equal, a hole on either side matches anything."""
    if len(route) > len(client) or not route:
        return False
    same = 0
    for c, r in zip(reversed(client), reversed(route), strict=False):
        if c != "*" and r != "*":
            if c != r:
                return False
            same += 1
    return same > 0


def _literal_path(args, kwargs, names: tuple[str, ...]) -> str | None:
    for a in args[:1]:
        if a.kind == "lit" and isinstance(a.value, str) and a.value.startswith("/"):
            return a.value
    for k, a in kwargs:
        if k in names and a.kind == "lit" and isinstance(a.value, str) and a.value.startswith("/"):
            return a.value
    return None


def _methods(kwargs, default: frozenset[str]) -> frozenset[str]:
    for k, a in kwargs:
        if k == "methods" and a.kind == "lit" and isinstance(a.value, (tuple, list)):
            got = frozenset(str(v).lower() for v in a.value if isinstance(v, str))
            return got & _VERBS or default
    return default


def _handler(name: str, module: str, scope: str, facts: Facts) -> str | None:
    """The repo function a registration names: nested in the registering scope, a method of its
    class (``self.handle``), or a function of the module."""
    if not name or len(name) > 120:
        return None
    cands: list[str] = []
    if name.startswith("self.") and name.count(".") == 1 and scope != MODULE_SCOPE:
        fn = facts.functions.get(f"{module}.{scope}")
        if fn is not None and fn.cls:
            cands.append(f"{fn.cls}.{name[5:]}")
    elif "." not in name:
        if scope != MODULE_SCOPE:
            cands.append(f"{module}.{scope}.{name}")
        cands.append(f"{module}.{name}")
    return next((c for c in cands if c in facts.functions), None)


def route_index(facts: Facts) -> dict[str, list[_Route]]:
    """Routes of the repo's web apps, by the last constant segment of their path."""
    out: dict[str, list[_Route]] = {}

    def add(handler: str, path: str, verbs: frozenset[str], line: int) -> None:
        segs = segments(path)
        k = _key(segs) if segs else None
        if k is None or not verbs:
            return
        out.setdefault(k, []).append(_Route(handler, segs, verbs, line))  # type: ignore[arg-type]

    by_module: dict[str, list[FnFacts]] = {}
    for fn in facts.functions.values():
        if fn.definition.decorators:
            by_module.setdefault(fn.module, []).append(fn)
    for module, s in facts.summaries.items():
        if facts.out_of_scope(module):
            continue
        decorated = [fn for fn in by_module.get(module, ())
                     if any(d.rsplit(".", 1)[-1].replace("()", "") in _DECORATOR_VERBS for d in fn.definition.decorators)]
        deco_calls: dict[int, list] = {}
        for c in s.calls:
            last = c.func.rsplit(".", 1)[-1]
            if "." in c.func and last in _DECORATOR_VERBS and decorated:
                deco_calls.setdefault(c.line, []).append(c)
            if last not in _REGISTER and not (last in _VERBS and len(c.args) >= 2):
                continue
            args, kwargs = c.args, c.kwargs
            verbs: frozenset[str]
            if last == "add_route" and args and args[0].kind == "lit" and isinstance(args[0].value, str) \
                    and args[0].value.lower() in _VERBS:  # ``router.add_route("POST", path, handler)``
                verbs, args = frozenset({args[0].value.lower()}), args[1:]
            elif last in _REGISTER_VERB:
                verbs = frozenset({_REGISTER_VERB[last]})
            elif last in _VERBS:
                verbs = frozenset({last})  # ``web.post(path, handler)`` in a route table
            else:
                verbs = _methods(kwargs, frozenset({"get"}))
            path = _literal_path(args, kwargs, ("path", "rule"))
            if path is None:
                continue
            name = next((a.value for k, a in kwargs if k in _HANDLER_KWARGS and a.kind == "name"), None)
            if name is None:
                name = next((a.value for a in args[1:3] if a.kind == "name"), None)
            h = _handler(name, module, c.scope, facts) if isinstance(name, str) else None
            if h is not None:
                add(h, path, verbs, c.line)
        for fn in decorated:
            lo = fn.line - 8 - len(fn.definition.decorators)
            decos = {d.replace("()", "") for d in fn.definition.decorators}
            for line in range(fn.line - 1, lo - 1, -1):
                hit = None
                for c in deco_calls.get(line, ()):
                    if c.func not in decos:
                        continue  # another call above the ``def``, not its decorator
                    verb = c.func.rsplit(".", 1)[-1]
                    path = _literal_path(c.args, c.kwargs, ("path", "rule"))
                    if path is None:
                        continue
                    hit = (path, frozenset({verb}) if verb in _VERBS else _methods(c.kwargs, frozenset({"get"})), line)
                if hit is not None:
                    add(fn.qualname, *hit)
                    break
    return out


def _own_verbs(fn: FnFacts, line: int | None = None) -> set[str]:
    verbs: set[str] = set()
    for c in fn.calls:
        if line is not None and c.site.line != line:
            continue
        if c.method in _VERBS and _is_http(c):
            verbs.add(c.method)
        elif c.method == "request" and _is_http(c) and c.site.args and c.site.args[0].kind == "lit" \
                and isinstance(c.site.args[0].value, str) and c.site.args[0].value.lower() in _VERBS:
            verbs.add(c.site.args[0].value.lower())
    return verbs


def _requests(fn: FnFacts, line: int, facts: Facts) -> tuple[set[str], tuple[str, ...]]:
    """The HTTP verbs of the request a path literal on ``line`` goes to, and the functions making it:
    this body (the call on that line first), or one repo helper it calls (``self._post(session, url)``)."""
    here = _own_verbs(fn, line) or _own_verbs(fn)
    if here:
        return here, (fn.qualname,)
    verbs: set[str] = set()
    via: list[str] = []
    for c in fn.calls:
        if c.kind != EXACT or not c.targets or len(c.targets) > 2 or c.site.line < line:
            continue
        if not any(a.kind == "name" for a in c.site.args) and not any(a.kind == "name" for _, a in c.site.kwargs):
            continue
        for t in c.targets:
            tf = facts.functions.get(t)
            v = _own_verbs(tf) if tf is not None and t != fn.qualname else set()
            if v:
                verbs |= v
                via.append(t)
    return verbs, tuple(sorted(set(via)))


def _pair_clients(facts: Facts, index: dict[str, list[_Route]]) -> None:
    handlers = {r.handler for rs in index.values() for r in rs}
    for q, fn in facts.functions.items():
        if q in handlers or facts.out_of_scope(fn.module):
            continue
        lits = fn.literals()
        if not lits or len(lits) > 400:
            continue
        seen: set[tuple[str, int]] = set()
        for value, line in lits:
            if "/" not in value or (value, line) in seen:
                continue
            seen.add((value, line))
            segs = segments(value, client=True)
            k = _key(segs) if segs else None
            routes = index.get(k) if k is not None else None
            if not routes:
                continue
            hits = [r for r in routes if matches(segs, r.segments)]  # type: ignore[arg-type]
            if not hits or len(hits) > MAX_MATCHES:
                continue
            verbs, via = _requests(fn, line, facts)
            if not verbs:
                continue
            for r in hits:
                if r.verbs & verbs and not any(c == q for c, _, _ in r.clients):
                    r.clients.append((q, line, via))


def _callers(facts: Facts, edges: dict[str, dict[str, float]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for u, row in edges.items():
        fu = facts.functions.get(u)
        if fu is None or facts.out_of_scope(fu.module):
            continue  # a test calling the helper says nothing about who runs it
        for v, d in row.items():
            if v != u and d >= 0.5 and not _only_defines(u, v, facts):
                out.setdefault(v, set()).add(u)
    return out


_SIDES = (Side.SAMPLING, Side.TRAINING, Side.DRIVER)


def context(q: str, callers: dict[str, set[str]], results: dict[str, SideResult]) -> frozenset[Side]:
    """The sides a function runs on: its own, else the first sides met climbing its exact callers."""
    r = results.get(q)
    if r is not None and r.side in _SIDES:
        return frozenset({r.side})
    found: set[Side] = set()
    frontier, seen = [q], {q}
    for _ in range(CONTEXT_HOPS):
        nxt: list[str] = []
        for u in frontier:
            for c in sorted(callers.get(u, ())):
                if c in seen:
                    continue
                seen.add(c)
                cr = results.get(c)
                if cr is not None and cr.side in _SIDES:
                    found.add(cr.side)
                elif cr is not None:
                    nxt.append(c)
        frontier = nxt
        if not frontier or len(seen) > MAX_CONTEXT:
            break
    return frozenset(found)


def _closure(h: str, facts: Facts) -> list[str]:
    """The handler and the repo helpers it calls (exact calls, a few hops, the product's code)."""
    out = [h]
    seen = {h}
    frontier = [h]
    for _ in range(CLOSURE_HOPS):
        nxt = []
        for u in frontier:
            fn = facts.functions[u]
            for c in fn.calls:
                if c.kind != EXACT or len(c.targets) != 1:
                    continue
                t = c.targets[0]
                tf = facts.functions.get(t)
                if t in seen or tf is None or facts.out_of_scope(tf.module):
                    continue
                seen.add(t)
                out.append(t)
                nxt.append(t)
                if len(out) >= MAX_CLOSURE:
                    return out
        frontier = nxt
    return out


def _globals(module: str, facts: Facts, memo: dict[str, dict[str, str]]) -> dict[str, str]:
    """Names bound at a module's top level -> what they name (``pkg.mod.name``; an imported
    object's definition, as the symbol table resolves it)."""
    got = memo.get(module)
    if got is None:
        got = {}
        s = facts.summaries.get(module)
        if s is not None:
            for a in s.assignments:
                if a.scope == MODULE_SCOPE and "." not in a.target and "[" not in a.target:
                    got[a.target] = f"{module}.{a.target}"
        sym = facts.symbols
        if sym is not None:
            for n in sorted(sym.from_imported(module)):
                t = sym.imported(module, MODULE_SCOPE, n)
                if t:
                    got.setdefault(n, t)
        memo[module] = got
    return got


def _chain(text: str) -> str:
    return text.split("[", 1)[0].split("(", 1)[0]


def state_of(fn: FnFacts, facts: Facts, memo: dict[str, dict[str, str]],
             chains: dict[str, dict[str, list]]) -> tuple[set[str], set[str]]:
    """(written, touched) long-lived state of a body: chains on ``self`` (``Cls:self.x``) or rooted
    at a module-level name (``pkg.server.app.state.queue``, an imported store dict by its definition)."""
    g = _globals(fn.module, facts, memo)
    local = {a.target for a in fn.assigns if "." not in a.target} | set(fn.params)
    by_scope = chains.get(fn.module)
    if by_scope is None:
        by_scope = chains[fn.module] = {}
        s = facts.summaries.get(fn.module)
        for ch in s.chains if s is not None else ():
            by_scope.setdefault(ch.scope, []).append(ch)

    def name(root: str, path: tuple[str, ...]) -> str | None:
        if root == "self":
            return f"{fn.cls}:self.{path[0]}" if fn.cls and path else None
        if root in local or root not in g:
            return None
        return ".".join((g[root], *path[:2]))

    def split(text: str) -> tuple[str, tuple[str, ...]]:
        parts = _chain(text).split(".")
        return parts[0], tuple(parts[1:])

    written: set[str] = set()
    touched: set[str] = set()
    for ch in by_scope.get(fn.definition.qualname, ()):
        n = name(ch.root, tuple(p for p in ch.path if isinstance(p, str) and p.isidentifier()))
        if n is not None:
            touched.add(n)
            if ch.mode == "write":
                written.add(n)
    for c in fn.calls:
        if c.site.receiver:
            n = name(*split(c.site.receiver))
            if n is not None:
                touched.add(n)
                if c.method in _MUTATORS:
                    written.add(n)
    for a in fn.assigns:
        n = name(*split(a.target)) if "." in a.target else None
        if n is not None:
            touched.add(n)
            written.add(n)
    for sb in fn.subs:
        n = name(*split(sb.receiver))
        if n is not None:
            touched.add(n)
            if sb.mode == "write":
                written.add(n)
    # a chain that only leads to a longer one (``app.state`` of ``app.state.queue``) is no state of its own
    longer = {t.rsplit(".", 1)[0] for t in touched}
    return written - longer, touched - longer


def _open(r: SideResult) -> bool:
    """No side, or only the one its callers lent it (``sides.caller_context``): a helper with no
    evidence of its own, which a transport end it turns out to be outranks."""
    if r.side == Side.NEUTRAL:
        return True
    return r.side in (Side.SAMPLING, Side.TRAINING) and not r.has_own and bool(r.evidence) \
        and all(e.via.startswith("caller:") for e in r.evidence)


_CONTROL_WORDS = frozenset({"health", "healthz", "status", "info", "register", "registration", "metrics", "version",
                            "config", "tokenizer", "ping", "heartbeat", "wandb", "readiness", "liveness"})
_PIECES = re.compile(r"[-_.]+")


def _control(segs: tuple[str, ...]) -> bool:
    """A path naming a control operation: a segment that is a control word, starts with one
    (``register-env``, ``status_env``) or holds a plain one among its words (``wandb_info``)."""
    for seg in segs:
        if seg == "*":
            continue
        low = seg.lower()
        pieces = [p for p in _PIECES.split(low) if p]
        if _CONTROL.match(low) or (pieces and _CONTROL.match(pieces[0])) or _CONTROL_WORDS.intersection(pieces):
            return True
    return False


def http_trajectories(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult]) -> list[str]:
    """Label the ends of the repo's HTTP routes that carry rollouts (or weights) between the sides.
    Returns the functions labelled."""
    index = route_index(facts)
    if not index:
        return []
    _pair_clients(facts, index)
    routes = [r for rs in index.values() for r in rs if r.clients and not _control(r.segments)]
    if not routes:
        return []
    callers = _callers(facts, edges)
    memo: dict[str, dict[str, str]] = {}
    chains: dict[str, dict[str, list]] = {}
    ctx_memo: dict[str, frozenset[Side]] = {}

    def ctx(q: str) -> frozenset[Side]:
        got = ctx_memo.get(q)
        if got is None:
            got = ctx_memo[q] = context(q, callers, results)
        return got

    def is_sync(q: str) -> bool:
        r = results.get(q)
        return q in facts.weight_senders or (r is not None and r.side == Side.HANDOFF
                                               and r.kind == HandoffKind.WEIGHT_SYNC)

    # the state each route's handler (with its helpers) writes and touches
    closures = {id(r): _closure(r.handler, facts) for r in routes}
    states: dict[str, tuple[set[str], set[str]]] = {}

    def state(q: str) -> tuple[set[str], set[str]]:
        got = states.get(q)
        if got is None:
            got = states[q] = state_of(facts.functions[q], facts, memo, chains)
        return got

    wrote: dict[int, set[str]] = {}
    touch: dict[int, set[str]] = {}
    for r in routes:
        w, t = set(), set()
        for q in closures[id(r)]:
            fw, ft = state(q)
            w |= fw
            t |= ft
        wrote[id(r)], touch[id(r)] = w, t

    def ends(r: _Route) -> tuple[bool, bool, bool, bool]:
        """(sampling pushes, training pulls, weights pushed, weights pulled) at this route."""
        s_push = t_pull = w_push = w_pull = False
        for q, _, via in r.clients:
            side = ctx(q)
            if r.push:
                if any(is_sync(x) for x in (q, *via)):
                    w_push = True
                elif side == {Side.SAMPLING}:
                    s_push = True
            else:
                if any(is_sync(x) for x in (q, *via)):
                    w_pull = True
                elif side == {Side.TRAINING}:
                    t_pull = True
        return s_push, t_pull, w_push, w_pull

    flags = {id(r): ends(r) for r in routes}
    pulled_by: dict[str, list[_Route]] = {}  # state -> the pull routes touching it
    for g in routes:
        if not g.push:
            for st in sorted(touch[id(g)]):
                pulled_by.setdefault(st, []).append(g)
    in_routes = {q for r in routes for q in closures[id(r)]}
    module_fns: dict[str, list[str]] = {}
    for q, fn in facts.functions.items():
        module_fns.setdefault(fn.module, []).append(q)

    def in_process(r: _Route, side: Side, held: set[str], writes: bool) -> bool:
        """Code of the handler's own module on ``side`` that touches (reads, or with ``writes``
        writes) the route's state: the server runs inside that side's process."""
        for q in module_fns.get(facts.functions[r.handler].module, ()):
            if q in in_routes or ctx(q) != {side}:
                continue
            w, t = state(q)
            if (w if writes else t) & held:
                return True
        return False

    kinds: dict[int, HandoffKind] = {}
    for p in routes:
        fp = flags[id(p)]
        if not p.push or not (fp[0] or fp[2]) or not wrote[id(p)]:
            continue
        pulls = {id(g): g for st in wrote[id(p)] for g in pulled_by.get(st, ())}
        for g in pulls.values():
            fg = flags[id(g)]
            if fp[0] and fg[1] and not _WEIGHTS.search("/".join(p.segments + g.segments).lower()):
                kinds.setdefault(id(p), HandoffKind.TRAJECTORY)
                kinds.setdefault(id(g), HandoffKind.TRAJECTORY)
            elif fp[2] and (fg[3] or any(ctx(q) == {Side.SAMPLING} for q, _, _ in g.clients)):
                kinds.setdefault(id(p), HandoffKind.WEIGHT_SYNC)
                kinds.setdefault(id(g), HandoffKind.WEIGHT_SYNC)
        if fp[0] and id(p) not in kinds and not _WEIGHTS.search("/".join(p.segments).lower()) \
                and in_process(p, Side.TRAINING, wrote[id(p)], writes=False):
            kinds[id(p)] = HandoffKind.TRAJECTORY  # the trainer hosts the inbox its loop drains
    for g in routes:  # the sampler hosts the outbox the trainer pulls from
        if not g.push and id(g) not in kinds and flags[id(g)][1] and touch[id(g)] \
                and not _WEIGHTS.search("/".join(g.segments).lower()) \
                and in_process(g, Side.SAMPLING, touch[id(g)], writes=True):
            kinds[id(g)] = HandoffKind.TRAJECTORY
    for p in routes:  # weights posted straight to an engine's route: the handler is the receiving end
        if p.push and id(p) not in kinds and flags[id(p)][2] and _WEIGHTS.search("/".join(p.segments).lower()):
            kinds[id(p)] = HandoffKind.WEIGHT_SYNC
    if not kinds:
        return []
    out: dict[str, tuple[HandoffKind, Evidence]] = {}

    def label(q: str, kind: HandoffKind, ev: Evidence) -> None:
        r = results.get(q)
        fn = facts.functions.get(q)
        if r is None or fn is None or not _open(r) or q in out or facts.out_of_scope(fn.module):
            return
        name = fn.definition.name
        if name.startswith("__") or reports(name):
            return
        out[q] = (kind, ev)

    by_id = {id(r): r for r in routes}
    handlers = {by_id[rid].handler for rid in kinds}
    for rid, kind in sorted(kinds.items(), key=lambda kv: (by_id[kv[0]].handler, by_id[kv[0]].line)):
        r = by_id[rid]
        hf = facts.functions[r.handler]
        where = f"route:{'/' + '/'.join(r.segments)}"
        label(r.handler, kind, Evidence(SIGNAL, hf.file, r.line, where))
        for q, line, via in r.clients:
            if kind == HandoffKind.TRAJECTORY and ctx(q) != ({Side.SAMPLING} if r.push else {Side.TRAINING}):
                continue
            cf = facts.functions[q]
            label(q, kind, Evidence(SIGNAL, cf.file, line, f"handler:{r.handler}"))
            for t in via:  # the helper that makes the request, when only these clients call it
                if callers.get(t, set()) <= set(out):
                    label(t, kind, Evidence(SIGNAL, cf.file, line, f"client:{q}"))
    # the caller that checks and ships what the sampler made (or takes in what the trainer pulls):
    # one hop above a labelled client, on the client's side, with no other side among its callees
    clients = {q: kind for q, (kind, _) in out.items() if q not in handlers and kind == HandoffKind.TRAJECTORY}
    for q in sorted(clients):
        want = ctx(q)
        for c in sorted(callers.get(q, ())):
            cr = results.get(c)
            cf = facts.functions.get(c)
            if cr is None or cf is None or cr.side != Side.NEUTRAL or cr.has_own or c in out:
                continue
            if _SERVICE_NAME.search(cf.definition.name.lower()) or ctx(c) != want:
                continue
            row = edges.get(c, {})
            if any((tr := results.get(t)) is not None and tr.side != Side.NEUTRAL and t not in out for t in row):
                continue
            label(c, HandoffKind.TRAJECTORY, Evidence(SIGNAL, cf.file, cf.line, f"client:{q}"))
    # the handlers' private helpers: called by the labelled ends only
    for _ in range(CLOSURE_HOPS + 1):
        grown = False
        for rid in kinds:
            for q in closures[rid][1:]:
                cs = callers.get(q, set())
                fn = facts.functions[q]
                if q in out or not cs or not cs <= set(out) or _SERVICE_NAME.search(fn.definition.name.lower()):
                    continue
                if results.get(q) is not None and results[q].has_own:
                    continue
                c = min(cs)
                before = len(out)
                label(q, out[c][0], Evidence(SIGNAL, fn.file, fn.line, f"caller:{c}"))
                grown = grown or len(out) > before
        if not grown:
            break
    for q, (kind, ev) in out.items():
        r = results[q]
        r.side, r.kind = Side.HANDOFF, kind
        r.evidence = [*r.evidence, ev]
    return sorted(out)

"""Conversion chains: the code between a sampled record and the batch the trainer reads.

Sampled output rarely reaches the trainer in one call. A proxy records each completion in a
store; a route reads the store back, trims each record and pulls the log-probs out of it; the
trainer's client fetches that view, builds completed rollouts from it, and a batch builder pads
their token ids into the rows the update consumes. None of these bodies calls a library with a
side (dict shuffling, list slicing), so neither their bodies nor the caller context say what they
are. What moves does: a value that leaves a body with sampling evidence of its own is followed
through calls (into the callee's parameters, back out of its return), through long-lived state
(a module-level store or an attribute of ``self`` one body grows and another reads, also read
through a comprehension or ``len``), through the repo's own HTTP routes (handler's return to the
client that requests it) and through a nested function's writes into its parent's names. Every
body on such a path that also reaches a training sink (a call into solid training code or into a
trajectory carrier, the carrier's own return, or training code's own training lines) is the
trajectory handoff.

Precision: only bodies with no side of their own (or one their callers lent them) are walked
through and labelled; a helper whose result goes back into the sampling body is the rollout's
own code, not the chain; a helper's result goes back only to the callers that handed it the
sampled values, and stays so bound through their walk of it (a concatenation helper the rollout
and the reset both call does not carry the rollout's tokens into the reset); training code (by
its own evidence or its callees') ends the chain: it is walked, never labelled, and counts as the
sink only when what it is handed reaches a training callee or its own training lines (the update
step that fetches its rows itself), not when it only logs it; a helper is labelled only when every
in-scope caller is on the chain (a padding helper evaluation also calls stays neutral), except a
store writer, since whatever it writes lands in the handoff; the body that sends its own input
out as a request (the rollout call, polling for the answers) is left to the sides.

Bounded: a fixed number of body walks in all and per body, each a flow-insensitive fixed point
over the body's value-flow facts.
Applied after propagation, like the caller context: it passes nothing up.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Set as AbstractSet

from ..graphs.model import EXACT
from ..model import Evidence, HandoffKind, Side
from .facts import Facts, FnFacts
from .http_routes import _PUSH, _globals, route_index
from .sides import SideResult, calling_bodies, reports
from .signals import SAMPLING, TRAINING, TRAJECTORY
from .taint import BodyTaint, FlowIndex, call_values, dotted_text

Node = tuple[str, str, str]  # ("b", body, how values entered it) | ("o", body, "") | ("s", store, "")
# how values entered: "src", "in" (arguments), "c:<callee>" (its result; "|in" when bound to the
# callers that handed the arguments), "s:<store>", "n:<name>" (a nested function filled it)
CHAIN = "conversion-chain"  # the evidence: the body upstream on the chain that hands the value on

MAX_WALKS = 6000  # body walks in all
MAX_RUNS = 6  # walks of one body (its seeds grow a few times)
MAX_READERS = 200  # bodies a store's readers are looked for among

# methods that store their argument in the receiver (a value write)
_GROWS = frozenset({"append", "extend", "insert", "appendleft", "add", "update", "put", "put_nowait",
                    "setdefault", "push"})
# methods whose result is a key, a count or a position, not a stored value
_KEYS_ONLY = frozenset({"keys", "count", "index", "__len__", "__contains__", "startswith", "endswith",
                        "isdigit", "issubset", "is_set"})
# methods whose argument is a key: what they return comes from the receiver only
_LOOKUP = frozenset({"get", "pop", "setdefault", "__getitem__"})
# builtins returning a number, a flag or a type: no record passes through them
_SCALAR = frozenset({"len", "isinstance", "issubclass", "bool", "id", "hash", "type", "callable", "hasattr",
                     "any", "all", "print", "repr"})


class _Held(BodyTaint):
    """Names of one body holding sampled output: its seeded names, and what the seeded calls return."""

    def __init__(self, flows, names: set[str], sources: set[str], every_call: bool) -> None:
        super().__init__(flows, names)
        self.sources = sources
        self.every_call = every_call
        self._grow_targets: list[tuple] = []

    def call_holds(self, e: tuple, depth: int) -> bool:
        func = e[1]
        text = dotted_text(func)
        if text and text in self.sources:
            return True
        if isinstance(func, tuple) and func[:1] == ("a",):
            if func[2] in _KEYS_ONLY:
                return False
            if self.holds(func[1], depth):
                return True
            if func[2] in _LOOKUP:
                return False
        elif isinstance(func, tuple) and func[:1] == ("n",) and func[1] in _SCALAR:
            return False
        if self.every_call:
            return True
        return self.args_hold(e, depth)

    def holds(self, e: object, depth: int = 0) -> bool:
        if isinstance(e, tuple) and e[:1] == ("**",):  # ``{"k": v, **record}``: the record's items
            return self.holds(e[1], depth + 1)
        return super().holds(e, depth)

    def bind(self, target: object) -> bool:
        if isinstance(target, tuple) and target[:1] == ("s",):  # ``rows[k] = record`` makes ``rows`` hold it
            return super().bind(target[1])
        return super().bind(target)

    def grow(self) -> bool:
        grew = False
        for e in self._grow_targets:
            if any(self.holds(a) for a in call_values(e)):
                grew |= super().bind(e[1][1])
        return grew


def _root(e: object) -> str:
    """The name or ``self.<attr>`` an expression reads through (``_store[k].get(x)`` → ``_store``)."""
    for _ in range(12):
        if not isinstance(e, tuple) or not e:
            return ""
        if e[0] == "n":
            return str(e[1])
        if e[0] == "a" and isinstance(e[1], tuple) and e[1][:2] == ("n", "self"):
            return f"self.{e[2]}"
        if e[0] in ("a", "s"):
            e = e[1]
        elif e[0] == "c" and isinstance(e[1], tuple) and e[1][:1] == ("a",) and e[1][2] in _LOOKUP:
            e = e[1][1]
        else:
            return ""
    return ""


def _locals(fn: FnFacts, flows) -> set[str]:
    got = set(fn.params) | {"self", "cls"}
    for fl in flows:
        if fl.op in ("=", "for", "with"):
            t = fl.target
            stack = [t]
            while stack:
                x = stack.pop()
                if isinstance(x, tuple) and x[:1] == ("n",):
                    got.add(str(x[1]))
                elif isinstance(x, tuple) and x[:1] == ("l",) and len(x) > 2 and isinstance(x[2], (list, tuple)):
                    stack.extend(i[1] if isinstance(i, tuple) and i[:1] == ("*",) else i for i in x[2])
    return got


def _open(r: SideResult) -> bool:
    """No side, or only the one its callers lent it: a body the chain may walk through and label."""
    if r.side == Side.NEUTRAL:
        return not r.has_own
    return r.side in (Side.SAMPLING, Side.TRAINING) and not r.has_own and bool(r.evidence) \
        and all(e.via.startswith("caller:") for e in r.evidence)


def _source(r: SideResult) -> bool:
    """A body on the sampling side by its own generation evidence (not only a sampler's set-up)."""
    return r.side == Side.SAMPLING and any(m.signal.side == SAMPLING and not m.signal.setup for m in r.own_matches)


def _terminal(r: SideResult) -> bool:
    """Training code that holds its side by itself or by what it calls (the update step that
    fetches its rows, a loss): where the chain ends. It is walked to see whether what it is handed
    reaches its training work, and it hands nothing further on, nor takes the chain's label."""
    return r.side == Side.TRAINING and not _open(r)


def _training_lines(r: SideResult) -> frozenset[int]:
    """Lines of the body's own training work (a backward, a loss, a step; not its set-up)."""
    return frozenset(m.line for m in r.own_matches if m.signal.side == TRAINING and not m.signal.setup)


def _carrier(r: SideResult) -> bool:
    return r.side == Side.HANDOFF and r.kind == HandoffKind.TRAJECTORY and r.own.get(TRAJECTORY, 0.0) > 0


def _sink(r: SideResult) -> bool:
    """Code the training side reads its batch through: solid training code, or a trajectory carrier."""
    return (r.side == Side.TRAINING and r.solid) or _carrier(r)


def conversion_chains(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult],
                      flows: FlowIndex) -> list[str]:
    """Label the bodies on a value path from sampled output to a training sink as the trajectory
    handoff. Returns them."""
    funcs = facts.functions

    def usable(q: str) -> bool:
        fn = funcs.get(q)
        r = results.get(q)
        return fn is not None and r is not None and not facts.out_of_scope(fn.module)

    def walkable(q: str) -> bool:
        r = results[q]
        return _open(r) or (r.side == Side.HANDOFF and r.kind == HandoffKind.TRAJECTORY)

    sources = [q for q in sorted(results) if usable(q) and _source(results[q])]
    if not sources:
        return []
    if not any(_sink(r) for r in results.values()):
        return []
    callers = calling_bodies(facts, edges)
    # a body is walked once per way sampled values enter it (its parameters, one callee's result,
    # one store, one name its nested function fills), so a value arriving on the chain's way in does
    # not make every other value of the body look like the chain's
    names: dict[tuple[str, str], set[str]] = {}
    calls_in: dict[tuple[str, str], set[str]] = {}
    back: dict[Node, set[Node]] = {}
    runs: dict[tuple[str, str], int] = {}
    queue: deque[tuple[str, str]] = deque()
    queued: set[tuple[str, str]] = set()
    tainted_state: set[str] = set()
    state_readers_done: set[str] = set()
    # a value handed in as arguments goes back only to whoever handed it, and stays so bound through
    # that caller's walk of the result (origin ``c:<callee>|in``): a helper both sides call does not
    # carry one caller's values into the other
    returned_to: dict[str, set[tuple[str, bool]]] = {}  # body -> (caller or route client, bound) given its result
    handers: dict[str, dict[str, set[bool]]] = {}  # body -> bodies that handed it sampled values -> bound?
    gives_back: set[str] = set()  # bodies whose result holds the values handed to them
    sinks_hit: set[Node] = set()
    writers: set[str] = set()
    dispatch: set[str] = set()
    memo: dict[str, dict[str, str]] = {}
    route_memo: list = []

    def edge(a: Node, b: Node) -> None:
        back.setdefault(b, set()).add(a)

    def seed(q: str, origin: str, ns: AbstractSet[str] = frozenset(), srcs: AbstractSet[str] = frozenset()) -> None:
        key = (q, origin)
        cur_n = names.setdefault(key, set())
        cur_s = calls_in.setdefault(key, set())
        if not (set(ns) - cur_n or set(srcs) - cur_s):
            return
        cur_n |= set(ns)
        cur_s |= set(srcs)
        if key not in queued:
            queued.add(key)
            queue.append(key)

    def routes():
        if not route_memo:
            idx = route_index(facts)
            if idx:
                from .http_routes import _pair_clients
                _pair_clients(facts, idx)
            by_handler: dict[str, list] = {}
            by_client: dict[str, list] = {}
            for rs in idx.values():
                for r in rs:
                    by_handler.setdefault(r.handler, []).append(r)
                    for c, line, via in r.clients:
                        by_client.setdefault(c, []).append((r, line, via))
            route_memo.append((by_handler, by_client))
        return route_memo[0]

    def state_key(fn: FnFacts, root: str, local: set[str]) -> str | None:
        if root.startswith("self."):
            return f"{fn.cls}:{root}" if fn.cls else None
        if not root or root in local:
            return None
        g = _globals(fn.module, facts, memo)
        t = g.get(root)
        if t is None or t in funcs or t in facts.classes:
            return None
        return t

    def readers(key: str) -> list[tuple[str, str]]:
        """(body, the name it reads the store by)."""
        out: list[tuple[str, str]] = []
        if ":" in key:
            cls, root = key.split(":", 1)
            for q, fn in funcs.items():
                if fn.cls == cls:
                    out.append((q, root))
            return out[:MAX_READERS]
        mod_names: dict[str, str] = {}
        for q, fn in funcs.items():
            if fn.module not in mod_names:
                g = _globals(fn.module, facts, memo)
                mod_names[fn.module] = next((n for n, t in g.items() if t == key), "")
            n = mod_names[fn.module]
            if n and (_mentions(fn, n) or _reads_name(flows.of(q), n)):
                out.append((q, n))
                if len(out) >= MAX_READERS:
                    break
        return out

    def takes_result(b: str) -> bool:
        if not usable(b) or _source(results[b]):
            return False  # what returns into the sampling body is the rollout's own code
        return walkable(b) or _terminal(results[b])

    def give(q: str, b: str, bound: bool, srcs: set) -> None:
        done = returned_to.setdefault(q, set())
        if (b, bound) in done or not srcs:
            return
        done.add((b, bound))
        o = f"c:{q}|in" if bound else f"c:{q}"
        edge(("o", q, ""), ("b", b, o))
        seed(b, o, srcs=srcs)

    def taint_out(q: str, only: dict[str, set[bool]] | None) -> None:
        """Hand q's result to its callers and route clients (``only`` those, when the values came
        in as its arguments: the result of a helper goes back to whoever handed it the values)."""
        for b in sorted(callers.get(q, ())):
            if (only is None or b in only) and takes_result(b):
                for bound in sorted(only[b]) if only is not None else (False,):
                    give(q, b, bound, {c.site.func for c in funcs[b].calls if q in c.targets})
        by_handler, by_client = routes()
        for r in by_handler.get(q, ()):
            for k, line, via in r.clients:
                if (only is None or k in only) and takes_result(k):
                    srcs = {c.site.func for c in funcs[k].calls if c.site.line == line or any(v in c.targets for v in via)}
                    for bound in sorted(only[k]) if only is not None else (False,):
                        give(q, k, bound, srcs)

    def hand_in(me: Node, t: str, ns: set[str]) -> None:
        """The body ``me`` hands sampled values to ``t``'s parameters ``ns``."""
        q, bound = me[1], _bound(me[2])
        edge(me, ("b", t, "in"))
        handers.setdefault(t, {}).setdefault(q, set()).add(bound)
        seed(t, "in", ns=ns)
        if t in gives_back:  # already known to hand its arguments back: so to this caller too
            taint_out(t, {q: {bound}})

    for q in sources:
        seed(q, "src", ns=set(funcs[q].params) or {"self"})
    walks = 0
    while queue and walks < MAX_WALKS:
        q, origin = queue.popleft()
        queued.discard((q, origin))
        if runs.get((q, origin), 0) >= MAX_RUNS:
            continue
        runs[q, origin] = runs.get((q, origin), 0) + 1
        walks += 1
        fn = funcs[q]
        fl = flows.of(q)
        src = _source(results[q])
        term = _terminal(results[q])
        body = _Held(fl, names.get((q, origin), set()), calls_in.get((q, origin), set()), every_call=src)
        body._grow_targets = [c.site.expr for c in fn.calls if c.method in _GROWS and isinstance(c.site.expr, tuple)
                              and c.site.expr[:1] == ("c",) and isinstance(c.site.expr[1], tuple)
                              and c.site.expr[1][:1] == ("a",)]
        body.run()
        me: Node = ("b", q, origin)
        if term:  # training code: does what it is handed reach its training work?
            lines = _training_lines(results[q])
            for c in fn.calls:
                e = c.site.expr
                if not isinstance(e, tuple) or e[:1] != ("c",) or not body.holds(e):
                    continue
                if c.site.line in lines or (c.kind == EXACT and any(
                        t != q and usable(t) and _sink(results[t]) for t in c.targets)
                        and any(body.holds(a) for a in call_values(e))):
                    sinks_hit.add(me)
                    break
            continue
        local = _locals(fn, fl)
        aliases: dict[str, str] = {}
        for f in fl:
            if f.op == "=" and isinstance(f.target, tuple) and f.target[:1] == ("n",):
                k = state_key(fn, _root(f.value), local - {str(f.target[1])}) if _root(f.value) != str(f.target[1]) else None
                if k is not None:
                    aliases[str(f.target[1])] = k
        # returns
        if not src and any(f.op in ("ret", "yield", "yieldfrom") and body.holds(f.value) for f in fl):
            edge(me, ("o", q, ""))
            if _carrier(results[q]):
                sinks_hit.add(("o", q, ""))
            if _bound(origin):
                gives_back.add(q)
            taint_out(q, handers.get(q, {}) if _bound(origin) else None)
        # calls handed sampled values
        for c in fn.calls:
            e = c.site.expr
            if not isinstance(e, tuple) or e[:1] != ("c",):
                continue
            held = [body.holds(a) for a in call_values(e)]
            # value writes into long-lived state (or a parent's names)
            if c.method in _GROWS and any(held) and isinstance(e[1], tuple) and e[1][:1] == ("a",):
                root = _root(e[1][1])
                key = aliases.get(root) or state_key(fn, root, local)
                if key is not None:
                    edge(me, ("s", key, ""))
                    writers.add(q)
                    tainted_state.add(key)
                elif root and root not in local and "." in q:
                    parent = q.rsplit(".", 1)[0]
                    if parent in funcs and usable(parent) and walkable(parent):
                        edge(me, ("b", parent, f"n:{root}"))
                        seed(parent, f"n:{root}", ns={root})
            if not any(held):
                continue
            tg = [t for t in c.targets if t != q and usable(t)] if c.kind == EXACT else []
            for t in tg:
                if _sink(results[t]):
                    edge(me, ("b", t, "in"))
                    sinks_hit.add(("b", t, "in"))
                if walkable(t) and not _source(results[t]):
                    hand_in(me, t, _params_handed(c, e, held, funcs[t]))
        for f in fl:  # ``store[k] = record`` (a plain ``self.x = v`` sets up an object, it stores no records)
            if f.op == "=" and isinstance(f.target, tuple) and f.target[:1] == ("s",) and body.holds(f.value):
                root = _root(f.target)
                key = aliases.get(root) or state_key(fn, root, local)
                if key is not None:
                    edge(me, ("s", key, ""))
                    writers.add(q)
                    tainted_state.add(key)
        # HTTP: a push carrying sampled values hands them to the handler
        by_handler, by_client = routes() if tainted_state or returned_to or src else ({}, {})
        for r, line, _ in by_client.get(q, ()):
            if r.verbs & _PUSH and any(body.holds(a) for c in fn.calls if c.site.line == line
                                       and isinstance(c.site.expr, tuple) and c.site.expr[:1] == ("c",)
                                       for a in call_values(c.site.expr)):
                h = r.handler
                if usable(h) and walkable(h):
                    hand_in(me, h, set(funcs[h].params))
        # a body that sends its own (unsampled) input out as a request: the rollout call
        for c in fn.calls:
            for t in c.targets:
                if any(r.verbs & _PUSH for r, _, _ in by_client.get(t, ())) and t != q:
                    e = c.site.expr
                    if isinstance(e, tuple) and e[:1] == ("c",) and any(
                            dotted_text(a).split(".", 1)[0] in fn.params and not body.holds(a) for a in call_values(e)):
                        dispatch.add(q)
        for key in sorted(tainted_state - state_readers_done):
            state_readers_done.add(key)
            for rq, root in readers(key):
                if not usable(rq) or not walkable(rq) or _source(results[rq]):
                    continue
                edge(("s", key, ""), ("b", rq, f"s:{key}"))
                seed(rq, f"s:{key}", ns={root})
    # on the chain: reached from a source (every recorded edge is) and reaching a sink
    on: set[Node] = set()
    todo = list(sinks_hit)
    while todo:
        n = todo.pop()
        if n in on:
            continue
        on.add(n)
        todo.extend(back.get(n, ()))
    bodies = {n[1] for n in on if n[0] in ("b", "o")}
    ups: dict[str, set[str]] = {}
    for n in on:
        if n[0] in ("b", "o"):
            ups.setdefault(n[1], set()).update(u[1] for u in back.get(n, ()) if u in on)
    out: dict[str, Evidence] = {}
    for q in sorted(bodies):
        r = results[q]
        fn = funcs[q]
        name = fn.definition.name
        if not _open(r) or q in dispatch or name.startswith("__") or reports(name):
            continue
        inside = [c for c in callers.get(q, ()) if usable(c)]
        if q not in writers and any(c not in bodies for c in inside):
            continue  # also used off the chain: a utility, not the chain's own step
        up = sorted(u for u in ups.get(q, ()) if u != q)
        via = up[0] if up else q
        out[q] = Evidence(CHAIN, fn.file, fn.line, f"chain:{via}")
    for q, ev in out.items():
        r = results[q]
        r.side, r.kind, r.solid = Side.HANDOFF, HandoffKind.TRAJECTORY, True
        r.evidence = [*(e for e in r.evidence if not e.via.startswith("caller:")), ev]
    return sorted(out)


def _bound(origin: str) -> bool:
    """The walk's values came in as the body's arguments (directly or back from a callee it handed
    them to): its result goes back only to the callers that handed them."""
    return origin == "in" or origin.endswith("|in")


def _params_handed(c, e: tuple, held: list[bool], tf: FnFacts) -> set[str]:
    """The callee's parameters that receive the held arguments (all of them when unsure)."""
    params = [p.name for p in tf.definition.params]
    if params and params[0] in ("self", "cls") and (c.site.receiver or tf.cls):
        params = params[1:]
    pos = list(e[2])
    kws = list(e[3])
    got: set[str] = set()
    unsure = False
    for i, a in enumerate(pos):
        if not held[i]:
            continue
        if isinstance(a, tuple) and a[:1] == ("*",) or i >= len(params):
            unsure = True
        else:
            got.add(params[i])
    for j, (k, _) in enumerate(kws):
        if held[len(pos) + j]:
            if k in params:
                got.add(k)
            else:
                unsure = True
    if unsure or not got:
        return set(tf.params)
    return got & set(tf.params) or set(tf.params)


def _head(text: str) -> str:
    return text.split("[", 1)[0].split("(", 1)[0].split(".", 1)[0]


def _reads_name(flows, name: str) -> bool:
    """A value-flow fact reads ``name`` (``[f(r) for r in store if ...]``, ``len(store)``): reads
    the call and subscript facts do not show."""
    for fl in flows:
        stack, seen = [fl.value], 0
        while stack and seen < 400:
            e = stack.pop()
            seen += 1
            if not isinstance(e, tuple) or not e:
                continue
            if e[0] == "n":
                if e[1] == name:
                    return True
            elif e[0] not in ("k", "fn", "cls"):
                stack.extend(x for x in e[1:] if isinstance(x, tuple))
    return False


def _mentions(fn: FnFacts, name: str) -> bool:
    """The body reads through ``name`` (a call on it, a subscript of it, an assignment from it)."""
    return any(c.site.receiver and _head(c.site.receiver) == name for c in fn.calls) \
        or any(_head(s.receiver) == name for s in fn.subs) \
        or any(isinstance(a.value, str) and _head(a.value) == name for a in fn.assigns)

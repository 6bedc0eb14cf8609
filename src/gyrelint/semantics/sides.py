"""Sides: score each function from its own signals, then propagate over the call graph.

Callees are labelled before their callers (strongly connected components in reverse
topological order). A caller inherits the *label* of each callee (not every raw
signal below it), decayed per edge: exact edges pass more than weak name-only ones.
So a function that only delegates to the sampler is sampling, one that drives both
the sampler and the trainer is a driver, and a thin wrapper over a weight push is a
weight-sync handoff. The body decides: a function's own strong evidence wins over
what it merely calls.
"""

from __future__ import annotations

import re
from collections import ChainMap, Counter
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import cache

import networkx as nx

from ..graphs import Graphs
from ..graphs.model import EXACT
from ..model import Evidence, HandoffKind, Side
from .drivers import prompt_requests, rollout_fed
from .encoding import encodes_only
from .facts import Facts, abstract, nested_children, prompt_fed
from .loss_return import returns_training_loss
from .scoring_calls import SCORING_SIGNALS
from .signals import HANDOFF, SAMPLING, TRAINING, TRAJECTORY, WEIGHT_SYNC, Match
from .taint import FlowIndex

KEYS = (SAMPLING, TRAINING, TRAJECTORY, WEIGHT_SYNC)
THRESHOLD = 1.0
INHERITED_THRESHOLD = 0.5  # a body that only delegates takes its callee's side
CAP = 3.0
DECAY_EXACT = 0.7
DECAY_WEAK = 0.3
SETUP_FACTOR = 0.5  # setup-only evidence (building an engine/optimizer) passes on at half strength
SCC_ROUNDS = 8  # at most this many rounds over a cycle of mutually recursive functions


@dataclass(slots=True)
class Origin:
    """Where a side's strongest evidence comes from."""

    signal: str
    file: str
    line: int
    via: str  # "own" or "callee:<qualname>"
    score: float
    container: bool = False  # the evidence is about the batch type, not a transport


@dataclass(slots=True)
class SideResult:
    side: Side = Side.NEUTRAL
    kind: HandoffKind | None = None
    own: dict[str, float] = field(default_factory=dict)
    total: dict[str, float] = field(default_factory=dict)
    export: dict[str, float] = field(default_factory=dict)
    origins: dict[str, Origin] = field(default_factory=dict)
    own_matches: list[Match] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    solid: bool = False  # the side rests on own evidence, or on plain delegation to a solid callee
    hops: int = 0  # trajectory handoff: calls between this body and the transport it inherits from
    relayed: Origin | None = None  # weight sync: the strongest evidence arriving from a callee (where the push goes)
    between: bool = False  # an end of a rollout transport that only shapes what passes (see ``_put_end``)

    @property
    def has_own(self) -> bool:
        """Some signal matched in the body itself (not only in callers or callees)."""
        return any(v > 0 for v in self.own.values())


def own_scores(matches: list[Match]) -> tuple[dict[str, float], dict[str, float], dict[str, Match]]:
    """Per side key: sum over distinct signals of their best match; setup part; best match."""
    best: dict[str, Match] = {}
    for m in matches:
        if m.signal.guard:
            continue
        cur = best.get(m.signal.id)
        if cur is None or m.score > cur.score:
            best[m.signal.id] = m
    score: dict[str, float] = {}
    setup: dict[str, float] = {}
    top: dict[str, Match] = {}
    for m in best.values():
        k = m.signal.kind if m.signal.side == HANDOFF else m.signal.side
        if k is None:
            continue
        score[k] = score.get(k, 0.0) + m.score
        if m.signal.setup:
            setup[k] = setup.get(k, 0.0) + m.score
        if k not in top or m.score > top[k].score:
            top[k] = m
    return score, setup, top


def _decay(kind: str, targets: list[str]) -> float:
    """How much of a callee's side passes through one call site.

    An exact single target passes most; several same-named targets (polymorphic
    dispatch, a Ray group calling one method) a little less; a spread of unrelated
    targets (an imprecise points-to set, a name guess) little.
    """
    n = len(targets)
    if kind == _TELLING:
        return FIRM
    base = DECAY_EXACT if kind == EXACT else DECAY_WEAK
    if n <= 1:
        return base
    if len({t.rsplit(".", 1)[-1] for t in targets}) == 1:
        # one method on an object of several possible classes: each candidate stands for the call
        return base * (0.85 if n <= 4 else 0.7)
    return min(base, DECAY_WEAK) / n ** 0.5


_TELLING = "telling"  # a name guess with one candidate whose name says what it does (see _telling_guess)


def _named_targets(c) -> tuple[str, ...]:
    """An exact method call's targets without the ``__call__`` of what a decorator was typed to return.

    ``h.push.remote()`` on a method marked by a decorator whose ``@overload`` stubs return a typed
    callable (a Protocol with ``__call__``) resolves to the method and to that ``__call__``: the
    stub never runs, and the second target halves what the method passes on (pattern A). When a
    target is named like the called attribute, the ``__call__`` targets beside it are dropped."""
    tg = c.targets
    if c.kind != EXACT or len(tg) < 2 or not c.method or c.method == "__call__":
        return tg
    if not any(t.rsplit(".", 1)[-1] == c.method for t in tg):
        return tg
    kept = tuple(t for t in tg if t.rsplit(".", 1)[-1] != "__call__")
    return kept or tg


def _telling_guess(c) -> bool:
    """A name guess on a local whose type is lost (an item taken from a queue or a pool) whose
    method name is specific and that one repo method answers.

    ``worker = pool.get(); worker.run_with_retries(task)`` guessed to the only
    ``run_with_retries`` of the repo is nearly as sure as a typed call; a short or common name
    (``run``, ``get``, ``update``) is not. Such a guess passes a side on as a firm call (one of a
    few same-named targets) does. Calls on attributes (``self.policy.prepare_for_inference()``)
    keep their weak guess: there the other calls on the same untyped attribute are guesses too,
    and a long name must not outweigh a short one (``self.policy.infer``) in one body."""
    if c.kind == EXACT or len(c.targets) != 1:
        return False
    rec = c.site.receiver or ""
    if not rec or "." in rec or rec in ("self", "cls") or "(" in rec or "[" in rec:
        return False
    name = c.method
    return not name.startswith("_") and name.count("_") >= 2 and name not in _BUILTIN_NAMES


def call_edges(facts: Facts, graphs: Graphs, frames: bool = True) -> dict[str, dict[str, float]]:
    """caller -> callee -> decay factor, from the call facts (resolved call sites).

    The call graph's edges are used only when no call site carries targets (the
    graphs stage did not resolve anything). ``frames``: include the ``__enter__``/``__exit__``
    calls of ``with`` statements. They run around the body and say nothing of its side (a
    generation method that enters a weight-sync context stays a sampler), so the side labelling
    leaves them out; reach and the weight-sync path keep them.
    """
    out: dict[str, dict[str, float]] = {}
    any_targets = False
    for q, fn in facts.functions.items():
        row: dict[str, float] = {}
        sites = [(_named_targets(c), c.kind if not _telling_guess(c) else _TELLING) for c in fn.calls if c.targets] \
            + fn.extra + (fn.frames if frames else [])
        for targets, kind in sites:
            any_targets = True
            tg = [t for t in targets if t != q and t in facts.functions]
            if not tg:
                continue
            d = _decay(kind, tg)
            # a row lists callees in call-site order, a site's targets in name order (the graphs
            # stage's order of one site's targets is not defined; ties in the weight-sync path
            # search follow a row's order)
            for t in sorted(tg):
                if row.get(t, 0.0) < d:
                    row[t] = d
        if row:
            out[q] = row
    for parent, kids in nested_children(facts).items():
        row = out.setdefault(parent, {})
        for k in kids:
            if not _forwarding_wrapper(facts.functions[k], facts.functions[parent]):
                row[k] = max(row.get(k, 0.0), DECAY_EXACT)
    g = graphs.calls
    if (not any_targets or not graphs.resolved) and g.number_of_edges():
        for u, v, data in g.edges(data=True):
            if u == v or u not in facts.functions or v not in facts.functions:
                continue
            d = DECAY_EXACT if data.get("kind", EXACT) == EXACT else DECAY_WEAK
            row = out.setdefault(u, {})
            if row.get(v, 0.0) < d:
                row[v] = d
    return out


def weak_groups(facts: Facts) -> dict[str, list[tuple[str, ...]]]:
    """caller -> the target sets of its name-guessed (weak) call sites with several targets."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for q, fn in facts.functions.items():
        for c in fn.calls:
            if c.kind != EXACT and len(c.targets) > 1:
                tg = tuple(t for t in c.targets if t != q and t in facts.functions)
                if len(tg) > 1:
                    out.setdefault(q, []).append(tg)
    return out


def _split_guesses(q: str, facts: Facts, groups: list[tuple[str, ...]], results: Mapping[str, SideResult]) -> set[str]:
    """Callees of name-guessed calls whose candidates sit on different sides, and no exact call reaches (M).

    ``worker.advance(x)`` on an untyped receiver, a method name in a string handed to a dispatcher:
    when the repo's methods of that name belong to a sampler and a learner, the name does not say
    which one runs, so none of them passes its side to the caller.
    """
    out: set[str] = set()
    exact: set[str] | None = None
    for tg in groups:
        keyed = [(t, _side_key(results[t])) for t in tg if t in results]
        counts = Counter(k for _, k in keyed if k is not None)
        if len(counts) < 2:
            continue
        if exact is None:
            exact = {t for c in facts.functions[q].calls if c.kind == EXACT for t in c.targets}
            exact.update(t for ts, kind in facts.functions[q].extra if kind == EXACT for t in ts)
        major = _clear_majority(counts)
        if major is None:
            out.update(t for t in tg if t not in exact)
        else:  # only the odd ones out are dropped
            out.update(t for t, k in keyed if t not in exact and k is not None and k != major)
    return out


MAJORITY_MIN = 4  # same-named methods on one side that make the name say it (see _clear_majority)
MAJORITY_RATIO = 4  # ... when they outnumber those on all other sides this many times


def _clear_majority(counts: Counter) -> str | None:
    """The side nearly all the sided same-named candidates of a name guess sit on, if any.

    ``self.server.chat_completion(...)`` on an untyped receiver, answered by seven client classes
    that generate and one proxy that also pushes weights: the name does say what runs, the odd
    one out does not make it silent. A split of a few against a few (two samplers, one learner)
    stays silent (M)."""
    (top, n), *rest = counts.most_common()
    others = sum(c for _, c in rest)
    if n >= MAJORITY_MIN and n >= MAJORITY_RATIO * others:
        return top
    return None


def _forwarding_wrapper(child, parent) -> bool:
    """A closure that calls its enclosing function's parameter: a decorator's wrapper.

    The decorator defines and returns it for every function it decorates; it does not run
    it, so the closure (which calls all of them) is no part of the decorator's own body.
    """
    names = {p.name for p in parent.definition.params}
    return any(c.site.func in names for c in child.calls)


# s5incr seam: the one last ``_order`` result. ``tag`` calls ``assign_sides`` up to three times
# per run with the same call edges (only the matches differ), and the condensation is most of
# a call's time. The components depend on the functions and on the edges in their order (not
# on the weights), so when both are the same, in the same order, the last answer is reused.
_LAST_ORDER: list[tuple[list[str], tuple[tuple[str, tuple[str, ...]], ...], list[list[str]]]] = []


def _order(functions: list[str], edges: dict[str, dict[str, float]]) -> list[list[str]]:
    """Strongly connected components, callees first; members of a component in name order."""
    shape = tuple((u, tuple(row)) for u, row in edges.items())
    last = _LAST_ORDER[0] if _LAST_ORDER else None  # one read: another thread may replace it
    if last is not None and last[1] == shape and last[0] == functions:
        return [list(c) for c in last[2]]
    comps = _components(functions, edges)
    _LAST_ORDER[:] = [(list(functions), shape, [list(c) for c in comps])]
    return comps


def _components(functions: list[str], edges: dict[str, dict[str, float]]) -> list[list[str]]:
    """``_order`` computed. networkx gives a component as a set, so its own member order follows
    the hash seed: members are sorted."""
    g = nx.DiGraph()
    g.add_nodes_from(functions)
    for u, row in edges.items():
        for v in row:
            g.add_edge(u, v)
    cond = nx.condensation(g)
    members = cond.graph["mapping"]
    comps: dict[int, list[str]] = {}
    for node, comp in members.items():
        comps.setdefault(comp, []).append(node)
    order = list(nx.topological_sort(cond))
    return [sorted(comps[c]) for c in reversed(order)]


def _passed_on(r: SideResult) -> tuple:
    """What a caller reads of a callee's result: the scores it passes on and where they come from.

    To 0.01: around a cycle, faint scores keep creeping by ever smaller amounts.
    """
    out = []
    for k, v in sorted(r.export.items()):
        v = round(v, 2)
        if v > 0:
            o = r.origins.get(k)
            out.append((k, v, (o.signal, o.file, o.line, o.via) if o is not None else None))
    return tuple(out)


def assign_sides(facts: Facts, matches: dict[str, list[Match]], graphs: Graphs,
                 flows: FlowIndex | None = None) -> dict[str, SideResult]:
    """Label every function; ``flows`` is the run's one ``FlowIndex`` (built here when not given)."""
    edges = call_edges(facts, graphs, frames=False)
    results: dict[str, SideResult] = {}
    prepared: dict[str, tuple[dict[str, float], dict[str, float], dict[str, Match]]] = {
        q: own_scores(matches.get(q, [])) for q in facts.functions
    }
    groups = weak_groups(facts)
    if flows is None:
        flows = FlowIndex(facts)
    families = _override_families(facts)
    for comp in _order(list(facts.functions), edges):
        if len(comp) == 1:
            q = comp[0]
            row = _unsplit(q, facts, edges, groups, results)
            if q in families:
                row = _agreed_overrides(row, families[q], results)
            row = _agreed_choices(facts.functions[q], row, results)
            results[q] = _label(q, facts, prepared[q], row, results, matches.get(q, []), flows)
        else:
            _label_cycle(comp, facts, prepared, edges, results, matches, flows, families)
    return results


AGREED_SOLID = 2  # solid overrides on one side, and none on another, that make a template call's family agree


def _override_families(facts: Facts) -> dict[str, list[tuple[str, ...]]]:
    """Caller -> the override sets it reaches through a call of an abstract method with many
    overrides (``facts.overrides``: their edges are weak, a guess of which subclass runs)."""
    many = {tg for tg, kind in facts.overridden.values() if kind != EXACT}
    out: dict[str, list[tuple[str, ...]]] = {}
    if not many:
        return out
    for q, fn in facts.functions.items():
        for tg, kind in fn.extra:
            if kind != EXACT and tg in many:
                out.setdefault(q, []).append(tg)
    return out


def _agreed_overrides(row: dict[str, float], families: list[tuple[str, ...]],
                      results: Mapping[str, SideResult]) -> dict[str, float]:
    """A template method's call of an abstract hook whose many overrides all sit on one side passes
    that side on as a dispatch over a registry's classes does (``DISPATCH``), not as a guess.

    ``episode = self.run(task)`` in a base workflow reaches a dozen concrete workflows: each edge
    alone is a guess (which subclass runs is not known), yet when every override with a side is
    a sampler, and at least ``AGREED_SOLID`` of them rest on their own evidence, whichever runs
    samples. Overrides on different sides (or none solid) keep their weak edges."""
    out = None
    for tg in families:
        keyed = [(t, k) for t in tg if t in row and (cr := results.get(t)) is not None
                 and (k := _side_key(cr)) is not None]
        keys = {k for _, k in keyed}
        if len(keys) != 1 or sum(1 for t, _ in keyed if results[t].solid) < AGREED_SOLID:
            continue
        for t, _ in keyed:
            if row[t] < DISPATCH:
                out = dict(row) if out is None else out
                out[t] = DISPATCH
    return row if out is None else out


def _agreed_choices(fn, row: dict[str, float], results: Mapping[str, SideResult]) -> dict[str, float]:
    """A call of one of a few functions picked at run time, all of one role, is a firm call.

    ``loop = run_async if cfg.overlap else run_sync; await loop(...)``: the points-to set of
    ``loop`` is exact, yet its differently named targets look like an imprecise spread to
    ``_decay``. When every target of such an exact site already carries the same label (all
    drivers, all samplers...), whichever runs plays that role, so each passes it on as a single
    exact call would. Targets on different sides, or without a label yet, keep the spread's decay.
    """
    out = None
    for c in fn.calls:
        if c.kind != EXACT or len(c.targets) < 2:
            continue
        tg = [t for t in c.targets if t in row]
        if len(tg) < 2 or len({t.rsplit(".", 1)[-1] for t in tg}) == 1:
            continue
        got = [results.get(t) for t in tg]
        if any(r is None or r.side == Side.NEUTRAL for r in got):
            continue
        if len({(r.side, r.kind) for r in got}) != 1:
            continue
        for t in tg:
            if row[t] < DECAY_EXACT:
                out = dict(row) if out is None else out
                out[t] = DECAY_EXACT
    return row if out is None else out


def clear_sides(results: dict[str, SideResult], names: list[str]) -> None:
    """Functions outside the product (see ``index.scope``) take no side; callers keep what they learnt from them."""
    for q in names:
        if q in results:
            results[q] = SideResult()


def _unsplit(q: str, facts: Facts, edges: dict[str, dict[str, float]], groups: dict[str, list[tuple[str, ...]]],
             results: Mapping[str, SideResult]) -> dict[str, float]:
    """The caller's out-edges without the name guesses that split across sides (see _split_guesses)."""
    row = edges.get(q, {})
    g = groups.get(q)
    if not g:
        return row
    drop = _split_guesses(q, facts, g, results)
    return {t: d for t, d in row.items() if t not in drop} if drop else row


# ``log`` followed by one of these is the logarithm (``compute_log_prob``, ``log_softmax``), not logging
_LOG_MATH = r"(?!_(?:prob|probs|probas|softmax|sigmoid|ratio|ratios|likelihood|lik|sum|exp|det|pi|p|partition|std|var|" \
            r"density|pdf|odds|space|scale|norm|prior|posterior)(?:$|_))"
# helpers whose name says they report, persist, set up, parse the command line, evaluate or decide (predicates steer the loop,
# they do no side's work): they serve a side without being part of it
_SERVICE_NAME = re.compile(r"(^|_)(log" + _LOG_MATH + r"|logs|logging|logger|metric|metrics|print|report|save|load|"
                           r"checkpoint|ckpt|"
                           r"dump|plot|wandb|tensorboard|profile|profiler|timer|timing|str|repr|format|config|setup|"
                           r"init|close|shutdown|cleanup|debug|summary|visuali[sz]e|stats|eval|evaluate|validate|"
                           r"validation|should|is|has|can|need|needs|args|argv|argparse|parser|arguments|cli)($|_)")
# the narrower set: functions whose name says they report what ran (log, record metrics, print stats)
_REPORT_NAME = re.compile(r"(^|_)(log" + _LOG_MATH + r"|logs|logging|logger|metric|metrics|print|report|reporting|"
                          r"stats|statistics|summary|summarize|wandb|tensorboard|plot|visuali[sz]e)($|_)")


def service_helper(name: str) -> bool:
    """A dunder, a reporter or a service helper (save, load, log, evaluate, predicates) by its name:
    the value-flow passes never hand such a body a side, whatever flows through it."""
    return name.startswith("__") or reports(name) or bool(_SERVICE_NAME.search(name.lower()))


def reports(name: str) -> bool:
    """The name says the function reports what ran (logs, records metrics, prints statistics).

    Such a body computes a KL or an entropy, reads rewards or pushes numbers to a tracker
    *about* one side's work: the signals match, yet it does none of that side's work, and
    its callers' side says nothing about it either (a metrics helper the trainer calls is
    no training step). ``log`` followed by a probability word is the logarithm, not logging;
    what follows ``with``/``and`` is a by-product (``objective_with_stats`` is a loss).
    """
    head = re.split(r"_(?:with|and)(?:_|$)", name.lower().strip("_"), maxsplit=1)[0]
    return bool(_REPORT_NAME.search(head))


CONTEXT_ROUNDS = 4
_LAYOUT_CALL = re.compile(r"^(get_\w*(rank|world_size|group|size)\w*|is_initialized|device_count)$")


def _layout_query(fn) -> bool:
    """The body only asks the process layout (world size, ranks, groups): it describes where the
    code runs, which serves both sides alike, so its callers' side says nothing about it."""
    return bool(fn.calls) and all(_LAYOUT_CALL.match(c.method) for c in fn.calls)


def caller_context(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult]) -> None:
    """A helper with no evidence of its own takes the side of its callers when they all sit on one
    side, next to it (the same class for a method, the same module for a function) (pattern K).

    A private helper that masks padding for the loss or builds stop words for the sampler is part
    of that side's code although it calls no library with a side. Logging, persistence and
    set-up helpers (by name), dunder methods, test code and bodies that call nothing and read no
    field of their input (a dict or name built from the arguments, like the key builders
    ``weight_sync_helpers`` leaves alone) stay neutral; so does a helper called
    from anywhere else or from both sides, or by a caller whose side is not solid (it rests on
    decayed or spread-out scores: a mislabel there must not spread through its module).
    Applied after propagation (it passes nothing up) in a few rounds, so a helper of a helper
    follows.
    """
    callers = calling_bodies(facts, edges)
    todo = []
    for q in sorted(callers):
        r = results.get(q)
        fn = facts.functions.get(q)
        if r is None or fn is None or r.side != Side.NEUTRAL or r.has_own:
            continue
        name = fn.definition.name
        if not (name.startswith("__") or _SERVICE_NAME.search(name.lower()) or facts.out_of_scope(fn.module)
                or _layout_query(fn) or _builds_only(fn) or encodes_only(fn)):
            todo.append((q, fn))
    for _ in range(CONTEXT_ROUNDS):
        changed: list[tuple[str, str]] = []
        for q, fn in todo:
            if results[q].side != Side.NEUTRAL:
                continue
            sides: set[Side] = set()
            by: list[str] = []
            for c in sorted(callers[q]):
                cf = facts.functions.get(c)
                cr = results.get(c)
                if cf is not None and facts.out_of_scope(cf.module):
                    continue  # a test that calls the helper says nothing of the side it serves
                if cf is None or cr is None or (cf.cls != fn.cls if fn.cls else cf.module != fn.module) \
                        or not cr.solid or _sets_up_only(cr):
                    sides = set()
                    break
                sides.add(cr.side)
                by.append(c)
            if len(sides) == 1 and next(iter(sides)) in (Side.SAMPLING, Side.TRAINING):
                changed.append((q, by[0]))
        for q, c in changed:  # applied after the round: the outcome does not depend on the order
            r = results[q]
            r.side = results[c].side
            r.solid = True  # for its own helpers: the side came from solid callers
            r.evidence = r.evidence + [_context_evidence(results[c], facts.functions[c], c)]
        if not changed:
            break


def calling_bodies(facts: Facts, edges: dict[str, dict[str, float]]) -> dict[str, set[str]]:
    """Callee -> the other bodies that call it (a parent that only defines a nested function is no caller)."""
    callers: dict[str, set[str]] = {}
    for u, row in edges.items():
        for v in row:
            if v != u and not _only_defines(u, v, facts):
                callers.setdefault(v, set()).add(u)
    return callers


def _builds_only(fn) -> bool:
    """The body calls nothing and reads no field of what it is handed: it builds a literal (a
    request dict, a key) from its arguments, which is no side's work. Reading the fields of a
    generation's output (``[o.text for o in out.outputs]``) is."""
    return not fn.calls and not any(a.mode == "read" for a in fn.attrs) and not any(s.mode == "read" for s in fn.subs)


def defined_only(facts: Facts, edges: dict[str, dict[str, float]]) -> set[tuple[str, str]]:
    """(parent, nested function) edges that only define the nested one (see ``_only_defines``)."""
    return {(u, v) for u, row in edges.items() for v in row if _only_defines(u, v, facts)}


# helpers that name, index or check parameters (handed the names of ``named_parameters()``) move no weights
_NAMING = re.compile(r"(^|_)(name|names|key|keys|idx|index|prefix|suffix|check|match|matches)($|_)")


def weight_sync_helpers(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult],
                        handed: AbstractSet[str]) -> None:
    """A helper that only the weight sync calls, doing work on what it is handed, is part of it.

    The sender converts the gathered state dict to the engine's layout with a helper that splits
    and concatenates tensors; the receiver reads each tensor back from the store with another:
    neither touches a library with a side, so both stayed neutral though they only serve the
    weights' way into the engine. A function with no evidence of its own that is handed values
    derived from the policy's parameters (``handed``, the payload analysis's answer), whose
    callers (one or more, over exact calls) are all solid weight-sync functions, that calls
    something and is no logging/saving/set-up helper (by name; loading is let through) takes the
    weight sync's label. A key or name builder (no call in its body), a process-group factory
    (handed no weights) stay neutral. After propagation: it passes nothing up.
    """
    callers: dict[str, set[str]] = {}
    for u, row in edges.items():
        for v, d in row.items():
            if v != u and not _only_defines(u, v, facts):
                callers.setdefault(v, set()).add(u if d >= DECAY_EXACT else "")
    todo = []
    for q in sorted(callers):
        r = results.get(q)
        fn = facts.functions.get(q)
        if r is None or fn is None or r.side != Side.NEUTRAL or r.has_own \
                or q not in handed or not fn.calls or facts.out_of_scope(fn.module) or "" in callers[q]:
            continue
        name = fn.definition.name
        if name.startswith("__") or _SERVICE_NAME.search(name.lower().replace("load", "")) \
                or _NAMING.search(name.lower()) or not any(not _configish(p) for p in fn.params):
            continue  # loading is what a receiver's helper does: only that service word is let through
        todo.append(q)
    for _ in range(CONTEXT_ROUNDS):  # a helper of a helper follows
        changed = [q for q in todo if results[q].side == Side.NEUTRAL and
                   all(c in results and _side_key(results[c]) == WEIGHT_SYNC and results[c].solid for c in callers[q])]
        for q in changed:
            c = min(callers[q])
            r = results[q]
            r.side, r.kind, r.solid = Side.HANDOFF, HandoffKind.WEIGHT_SYNC, True
            r.evidence = r.evidence + [_context_evidence(results[c], facts.functions[c], c)]
        if not changed:
            break


def _only_defines(parent: str, child: str, facts: Facts) -> bool:
    """``child`` is a function defined in ``parent``'s body that ``parent`` never calls: a route
    handler or callback the app factory registers. Its callers are whoever the framework hands it
    to, not the factory, so the factory's side says nothing about it."""
    if child.rpartition(".")[0] != parent:
        return False
    fn = facts.functions.get(parent)
    if fn is None:
        return False
    if any(child in c.targets and _registers(c.method) for c in fn.calls):
        return True  # ``app.add_api_route(path, handler)``: registered, not run here
    return not any(child in c.targets for c in fn.calls) and not any(child in ts for ts, _ in fn.extra)


_REGISTER = re.compile(r"^(add_\w*route\w*|add_url_rule|add_\w*handler|register\w*|route|websocket|api_route|"
                       r"add_\w*endpoint|add_\w*callback)$")


def _registers(method: str) -> bool:
    """A call that registers a function for a framework to call later (``app.add_api_route(path,
    handler)``): the handler passed in is not run here."""
    return bool(_REGISTER.match(method))


DISPATCH = DECAY_EXACT * 0.7  # an exact call over many same-named targets: a registry's classes (see _decay)


def rollout_scoring(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult]) -> None:
    """A grader (see ``catalog.grader_shaped``) with no side of its own that the rollout calls
    is rollout-side scoring; an environment's ``step``/``reset`` or a tool's ``execute`` that a
    generation chain calls is the rollout acting (patterns F and Q).

    It takes the side of its callers when one of them is sampling over an exact call (one
    target, or the same-named methods of the classes a registry holds) and none is training or
    a driver: the same grader called from the trainer's reward shaping is training code's, and
    one nobody on a side calls stays neutral. Applied after propagation, like the caller
    context: it passes nothing up.
    """
    from .catalog import grader_shaped

    callers: dict[str, list[tuple[str, float]]] = {}
    for u, row in edges.items():
        for v, d in row.items():
            if v != u:
                callers.setdefault(v, []).append((u, d))
    graders = {q for q in callers if (fn := facts.functions.get(q)) is not None and grader_shaped(fn)}
    _uncalled_envs(facts, callers, results)
    _built_graders(facts, callers, results)
    _abstract_dispatch(facts, callers, results)
    todo = sorted(callers)
    pickers: set[str] = set()
    for _ in range(SCC_ROUNDS):  # a grader below a picker below the rollout: the picker first, then the grader
        done = [q for q in todo if _rollout_scores(q, facts, callers, results, graders, pickers)]
        if not done:
            break
        todo = sorted({v for q in done for v in edges.get(q, {}) if v in callers})


def _abstract_dispatch(facts: Facts, callers: dict[str, list[tuple[str, float]]],
                       results: dict[str, SideResult]) -> None:
    """The overrides of an abstract method that only rollout code calls (through the base: the
    environment's step calling ``self.reward(...)`` typed by the abstract reward class) run in
    the rollout: with no side of their own they are sampling. Too many overrides make weak
    edges that pass no side up, so the callers of the declaration decide. A declaration that a
    training or driver body calls too, or that nobody on a side calls, decides nothing; reporters
    (loggers behind an abstract sink) and dunders other than ``__call__`` stay neutral."""
    from .catalog import rollout_interface

    for a, (impls, _) in sorted(facts.overridden.items()):
        by = [c for c, d in callers.get(a, ()) if d >= DISPATCH - 1e-9 and c not in impls
              and (cr := results.get(c)) is not None and cr.side != Side.NEUTRAL]
        if not by or any(results[c].side != Side.SAMPLING for c in by) \
                or not any(rollout_interface(facts.functions[c], facts) or _scores(results[c])
                           for c in by if c in facts.functions):
            continue  # called where the environment steps the episode or the rollout scores: no evaluation metric
        name = a.rpartition(".")[2]
        if reports(name) or (name.startswith("__") and name != "__call__"):
            continue
        caller = by[0]
        for t in impls:
            r = results.get(t)
            fn = facts.functions.get(t)
            if r is None or fn is None or r.side != Side.NEUTRAL or r.has_own or facts.out_of_scope(fn.module) \
                    or not fn.definition.returned:
                continue
            r.side = Side.SAMPLING
            r.evidence = r.evidence + [Evidence("reward-scoring" if fn.definition.name == "__call__" else "caller-context",
                                                fn.file, fn.line, f"caller:{caller}")]


def _scores(r: SideResult) -> bool:
    """The result's sampling side is rollout-side scoring (it hands the rollout's samples to rewards)."""
    o = r.origins.get(SAMPLING)
    return o is not None and o.signal in SCORING_SIGNALS


def _called_for_real(q: str, facts: Facts, callers: dict[str, list[tuple[str, float]]]) -> bool:
    """Product code calls ``q`` over a dispatched or exact call (a name guess or a test is no caller)."""
    return any(d >= DISPATCH - 1e-9 and not facts.out_of_scope(facts.module_of(c)) for c, d in callers.get(q, ()))


def _uncalled_envs(facts: Facts, callers: dict[str, list[tuple[str, float]]],
                   results: dict[str, SideResult]) -> None:
    """``step``/``reset`` of an environment class (it has both, or an environment library's base)
    that no product code calls (tests and name guesses aside): the framework ships the world for
    user rollouts to step, which is the rollout side whoever calls it."""
    from .catalog import rollout_interface

    for q, fn in facts.functions.items():
        r = results.get(q)
        if r is None or r.side != Side.NEUTRAL or fn.cls is None or fn.definition.name not in ("step", "reset") \
                or facts.out_of_scope(fn.module) or r.has_own:
            continue
        if _called_for_real(q, facts, callers):
            continue  # called for real: the callers decide (below); a name guess is no caller
        if fn.calls and not abstract(fn) and rollout_interface(fn, facts):
            r.side = Side.SAMPLING  # a declaration (abstract) or a stub calling nothing is no world
            r.evidence = r.evidence + [Evidence("env-step", fn.file, fn.line, "own")]


def _built_graders(facts: Facts, callers: dict[str, list[tuple[str, float]]],
                   results: dict[str, SideResult]) -> None:
    """A reward object (a class whose ``__call__`` is grader-shaped) that no product code calls by
    name, built by rollout-side or driver code (``scorers=[MathReward(), FormatReward()]`` handed
    to the rollout's scorer) scores the rollout's samples when it is called."""
    from .catalog import grader_shaped

    wanted: dict[str, str] = {}
    for q, fn in facts.functions.items():
        if fn.cls is None or fn.definition.name != "__call__" or facts.out_of_scope(fn.module):
            continue
        r = results.get(q)
        if r is None or r.side != Side.NEUTRAL or r.has_own:
            continue
        if _called_for_real(q, facts, callers) \
                or not grader_shaped(fn):
            continue
        wanted[fn.cls] = q
    if not wanted:
        return
    for q, fn in sorted(facts.functions.items()):
        r = results.get(q)
        if r is None or r.side not in (Side.SAMPLING, Side.DRIVER):
            continue
        for c in fn.calls:
            cls = c.repo if c.repo in wanted else next((t.rpartition(".")[0] for t in c.targets
                                                        if t.endswith(".__init__") and t.rpartition(".")[0] in wanted),
                                                       None)
            g = wanted.pop(cls, None) if cls else None
            if g is not None:
                gr = results[g]
                gr.side = Side.SAMPLING
                gr.evidence = gr.evidence + [Evidence("reward-scoring", fn.file, c.site.line, f"caller:{q}")]


def _picks_grader(fn, graders: set[str]) -> bool:
    """Hands the work to a grader it looks up (``RULES[name](text, answer)``, a registry's entry, one
    forwarded call): every repo target of one of its calls is a grader, and it returns the result."""
    if not fn.definition.returned:
        return False
    return any(c.targets and c.kind == EXACT and all(t in graders for t in c.targets) for c in fn.calls)


def _rollout_scores(q: str, facts: Facts, callers: dict[str, list[tuple[str, float]]],
                    results: dict[str, SideResult], graders: set[str], pickers: set[str]) -> bool:
    """Label ``q`` sampling when it is a grader (or picks one) or an env/tool method the rollout calls.
    A grader looked up from a dict of several reaches its picker over a spread-out call: the
    picker (a rollout-side one, in ``pickers``) is caller enough."""
    from .catalog import rollout_interface

    r = results.get(q)
    fn = facts.functions.get(q)
    if r is None or fn is None or r.side != Side.NEUTRAL or r.has_own \
            or facts.out_of_scope(fn.module):
        return False
    acts = rollout_interface(fn, facts)
    picks = not acts and q not in graders and _picks_grader(fn, graders)
    if not acts and q not in graders and not picks:
        return False
    by: list[str] = []
    other = False
    for c, d in sorted(callers[q]):
        cr = results.get(c)
        if cr is None or (d < DISPATCH - 1e-9 and c not in pickers):
            continue  # a name guess is no caller (``scheduler.step()`` guessed to every ``step``)
        if cr.side == Side.TRAINING or (cr.side == Side.DRIVER and acts):
            other = True
            break
        # a driver that generates and then scores what came back scores the rollout's samples
        if cr.side in (Side.SAMPLING, Side.DRIVER) and (d >= DISPATCH - 1e-9 or c in pickers) \
                and (not acts or _generates(cr)):
            by.append(c)
    if by and not other:
        r.side = Side.SAMPLING
        ev = _context_evidence(results[by[0]], facts.functions[by[0]], by[0]) if acts else \
            Evidence("reward-scoring", fn.file, fn.line, f"caller:{by[0]}")
        r.evidence = r.evidence + [ev]
        if picks:
            pickers.add(q)
        return True
    return False


def _context_evidence(caller: SideResult, cf, c: str) -> Evidence:
    """The evidence that put the caller on its side (what the helper's label rests on), via the caller."""
    ev = caller.evidence[0] if caller.evidence else None
    if ev is None:
        return Evidence("caller-context", cf.file, cf.line, f"caller:{c}")
    return Evidence(ev.signal, ev.file, ev.line, f"caller:{c}")


def _label_cycle(comp: list[str], facts: Facts, prepared, edges: dict[str, dict[str, float]],
                 results: dict[str, SideResult], matches: dict[str, list[Match]], flows: FlowIndex,
                 families: Mapping[str, list[tuple[str, ...]]] | None = None) -> None:
    """Label mutually recursive functions in rounds, each round from the previous round's results.

    The first round sees only callees outside the cycle; later rounds relabel the callers
    of members whose passed-on result changed, until nothing changes or SCC_ROUNDS. Labelling
    one member after another instead made the outcome depend on the members' order, which
    nothing in the code defines (it followed the string-hash seed).
    """
    members = set(comp)
    callers: dict[str, list[str]] = {q: [] for q in comp}
    for q in comp:
        for v in edges.get(q, {}):
            if v in members:
                callers[v].append(q)
    cur: dict[str, SideResult] = {}
    todo = comp
    view: Mapping[str, SideResult] = results
    for _ in range(SCC_ROUNDS):
        new = {q: _label(q, facts, prepared[q], _agreed_overrides(edges.get(q, {}), families[q], view)
                         if families and q in families else edges.get(q, {}), view, matches.get(q, []), flows)
               for q in todo}
        changed = [q for q in todo if q not in cur or _passed_on(new[q]) != _passed_on(cur[q])]
        cur.update(new)
        if not changed:
            break
        todo = sorted({c for q in changed for c in callers[q]})
        view = ChainMap(dict(cur), results)  # this round's results, frozen for the next round
    results.update(cur)


# methods every dict, list or set has: a name guess of one on an unknown receiver is most likely the builtin's
_BUILTIN_NAMES = frozenset({"get", "pop", "put", "append", "extend", "update", "items", "keys", "values", "add",
                            "clear", "copy", "setdefault", "remove", "insert", "popleft", "appendleft"})


def _label(q: str, facts: Facts, prep, out_edges: dict[str, float], results: Mapping[str, SideResult],
           own_matches: list[Match], flows: FlowIndex | None = None) -> SideResult:
    own, setup, top = prep
    fn = facts.functions[q]
    r = SideResult(own=own, own_matches=own_matches)
    total = dict(own)
    origins: dict[str, Origin] = {
        k: Origin(m.signal.id, fn.file, m.line, "own", own[k], m.signal.container) for k, m in top.items()
    }
    inherited: dict[str, list[tuple[float, str]]] = {}
    firm: dict[str, float] = dict(own)  # own evidence plus what arrives over exact single-target calls
    for callee, decay in out_edges.items():
        cr = results.get(callee)
        if cr is None:
            continue
        for k, v in cr.export.items():
            if v > 0:
                if k == TRAJECTORY and decay < DECAY_EXACT * 0.85 and (_container_origin(cr) or
                                                                      callee.rpartition(".")[2] in _BUILTIN_NAMES):
                    continue  # ``kwargs.pop(...)`` guessed to be the batch type's ``pop``: no evidence
                inherited.setdefault(k, []).append((v * decay, callee))
                if decay >= DECAY_EXACT * 0.85:
                    firm[k] = max(firm.get(k, 0.0), own.get(k, 0.0) + v * decay)
    for k, vals in inherited.items():
        vals.sort(reverse=True)
        best, callee = vals[0]
        extra = sum(v for v, _ in vals[1:4]) * 0.2
        inh = min(best + extra, best * 1.5)
        total[k] = total.get(k, 0.0) + inh
        co = results[callee].origins.get(k)
        if k == WEIGHT_SYNC and co is not None:
            r.relayed = Origin(co.signal, co.file, co.line, f"callee:{callee}", inh, co.container)
        if k not in origins or inh > origins[k].score:
            if co is not None:
                origins[k] = Origin(co.signal, co.file, co.line, f"callee:{callee}", inh, co.container)
        if k == SAMPLING and origins.get(k) is not None and origins[k].signal in _NOT_GENERATION:
            origins[k] = _generation_origin(vals, results) or origins[k]
    r.total = total
    r.origins = origins
    s, t = total.get(SAMPLING, 0.0), total.get(TRAINING, 0.0)
    own_w = own.get(WEIGHT_SYNC, 0.0)
    own_main = max(own.get(SAMPLING, 0.0), own.get(TRAINING, 0.0))
    delegated = _delegated_side(q, own, total, out_edges, results) or _spawned_side(fn, own, out_edges, results)
    if own_w >= THRESHOLD and own_w >= 0.5 * own_main and not _steps_both(own, s, t, out_edges, results):
        r.side, r.kind = Side.HANDOFF, HandoffKind.WEIGHT_SYNC
    elif _put_end(own, own_matches, total, origins, out_edges, results, fn):
        r.side, r.kind, r.between = Side.HANDOFF, HandoffKind.TRAJECTORY, True
    elif (_drives_both(s, t, own, firm) and _generates(r)) or _calls_both_chains(s, t, own, out_edges, results) \
            or (flows is not None and s > 0 and (t > 0 or total.get(TRAJECTORY, 0.0) > 0)
                and _hands_rollouts_on(q, facts, out_edges, results, flows)) \
            or (flows is not None and t > 0 and _requests_rollouts(q, facts, out_edges, results, flows)):
        r.side = Side.DRIVER
    elif delegated is not None:
        r.side, r.kind = _SIDE_OF[delegated[0]]
    else:
        best_k, best_v = max(((k, total.get(k, 0.0)) for k in KEYS), key=lambda kv: kv[1])
        if best_k == TRAJECTORY and max(s, t) >= INHERITED_THRESHOLD:
            # the producer or consumer end of a transport belongs to its side
            best_k, best_v = (SAMPLING, s) if s >= t else (TRAINING, t)
        elif best_k == WEIGHT_SYNC and not own.get(WEIGHT_SYNC):
            # refreshes the engine's weights through a callee, then generates (``prepare_for_inference();
            # infer(...)``), or trains and then has a callee push (a step loop): the sampler's or the
            # trainer's step; the weight sync is the callee's
            main_k, main_v = (SAMPLING, s) if s >= t else (TRAINING, t)
            if main_v >= max(INHERITED_THRESHOLD, 0.8 * best_v) and (main_k == TRAINING or _generates(r)):
                best_k, best_v = main_k, main_v
        limit = THRESHOLD if own.get(best_k, 0.0) > 0 else INHERITED_THRESHOLD
        if best_k == TRAJECTORY and not own.get(TRAJECTORY) and not _moves_data(fn, origins.get(TRAJECTORY)):
            best_v = 0.0
        if best_v >= limit:
            if best_k == SAMPLING:
                r.side = Side.SAMPLING
            elif best_k == TRAINING:
                r.side = Side.TRAINING
            else:
                r.side = Side.HANDOFF
                r.kind = HandoffKind.TRAJECTORY if best_k == TRAJECTORY else HandoffKind.WEIGHT_SYNC
    quiet = r.side in (Side.SAMPLING, Side.TRAINING, Side.HANDOFF) and reports(fn.definition.name) \
        and not (r.side == Side.TRAINING and flows is not None and returns_training_loss(q, fn, results, flows))
    if quiet:  # a reporter: its signals are about the work it reports, not that work
        r.side, r.kind = Side.NEUTRAL, None

    # what callers inherit: only the label's sides, setup evidence at half strength
    def passed(k: str) -> float:
        v = total.get(k, 0.0) - SETUP_FACTOR * setup.get(k, 0.0)
        return min(max(v, 0.0), CAP)

    if delegated is not None and (r.side, r.kind) == _SIDE_OF[delegated[0]]:
        # a plain delegation passes its callee's side on undecayed (see _delegated_side)
        k = delegated[0]
        r.export = {k: min(max(passed(k), delegated[1]), CAP)}
        r.solid = True
    elif r.side == Side.DRIVER:
        r.export = {SAMPLING: passed(SAMPLING), TRAINING: passed(TRAINING)}
    elif r.side == Side.SAMPLING:
        r.export = {SAMPLING: passed(SAMPLING)}
    elif r.side == Side.TRAINING:
        r.export = {TRAINING: passed(TRAINING)}
    elif r.side == Side.HANDOFF:
        k = TRAJECTORY if r.kind == HandoffKind.TRAJECTORY else WEIGHT_SYNC
        if k != TRAJECTORY or own.get(TRAJECTORY):
            r.export = {k: passed(k)}
        else:
            r.hops, relay = _relay(fn, origins.get(TRAJECTORY), results)
            # batch-type (container) evidence stops one hop up, a transport's two: a client
            # method over the carrier and the feeder that collects from it both move its data;
            # their callers (a utility's users, the training step) are not the handoff too
            r.export = {k: passed(k)} if relay else {}
    elif not quiet:
        r.export = {k: passed(k) * 0.5 for k in KEYS if total.get(k)}
    key = _side_key(r)
    r.solid = r.solid or (key is not None and own.get(key, 0.0) >= THRESHOLD)
    r.evidence = _evidence(fn.file, r, own_matches)
    return r


# training evidence that only shapes rollouts into a batch (returns, advantages): no loss, no step
SHAPING = frozenset({"gae-advantage", "group-norm-advantage"})


def _only_shaping(out_edges: dict[str, float], results: Mapping[str, SideResult]) -> bool:
    """Some callee passes training evidence on, and every such callee's rests on shaping (advantages)."""
    found = False
    for callee in out_edges:
        cr = results.get(callee)
        if cr is None or cr.export.get(TRAINING, 0.0) <= 0:
            continue
        o = cr.origins.get(TRAINING)
        if o is None or o.signal not in SHAPING:
            return False
        found = True
    return found


def _put_end(own: dict[str, float], own_matches: list[Match], total: dict[str, float], origins: dict[str, Origin],
             out_edges: dict[str, float], results: Mapping[str, SideResult], fn) -> bool:
    """An end of a rollout transport that only shapes what passes through: the trajectory handoff,
    on neither side (pattern R).

    A CPU actor that drains the results queue, normalises rewards into advantages, packs and
    serves each learner rank its shard; a collector that groups the episodes it is handed, has a
    helper turn their rewards into advantages and queues the group for the learner: neither
    computes a loss, runs a backward or steps an optimizer. The body has its own transport
    evidence, no sampling evidence of its own, and training evidence that is shaping only:

    - its own (advantage/return signals), or every callee passing training evidence on rests on
      shaping (``adv = group_advantages(groups)`` before ``queue.put(batch)``): any put or get;
    - or only the strongest training evidence is a shaping callee's and nothing arrives from a
      generation chain: then it must be the put end, and what it puts more than a counter (a slot
      token or a step number handed back for back-pressure carries no rollout).
    """
    if own.get(TRAJECTORY, 0.0) < THRESHOLD or own.get(SAMPLING, 0.0) > 0:
        return False
    transport = False
    for m in own_matches:
        sig = m.signal
        if sig.guard:
            continue
        if sig.side == TRAINING and sig.id not in SHAPING:
            return False
        if sig.side == HANDOFF and sig.kind == TRAJECTORY and not sig.container and not sig.setup:
            transport = True
    if own.get(TRAINING) or _only_shaping(out_edges, results):
        return transport
    if total.get(SAMPLING, 0.0) >= INHERITED_THRESHOLD:
        return False
    o = origins.get(TRAINING)
    if o is None or o.via == "own" or o.signal not in SHAPING:
        return False
    lines = {m.line for m in own_matches if m.signal.side == HANDOFF and m.signal.kind == TRAJECTORY
             and not m.signal.container and not m.signal.setup and m.signal.id in _PUTS}
    return any(c.site.line in lines and not _counter_payload(c) for c in fn.calls)


_PUTS = frozenset({"queue-put", "ray-put", "kv-store-batch", "zmq-transport", "pipe-transport"})
# a slot token or a step number handed back for back-pressure: no rollout rides on it
_COUNTER = frozenset({"step", "steps", "version", "count", "slot", "slots", "token", "tokens", "idx", "id", "n"})


def _counter_payload(c) -> bool:
    """Every named payload of the call is a counter (``slots.put(global_step)``)."""
    names = [a.value for a in c.site.args if a.kind == "name" and isinstance(a.value, str)]
    return bool(names) and all(a.rsplit("_", 1)[-1].rsplit(".", 1)[-1].lower() in _COUNTER for a in names)


FIRM = DECAY_EXACT * 0.85  # an exact call, or one of a few same-named targets (see _decay)


def _firm_callees(edges: Iterable[tuple[str, float]], results: Mapping[str, SideResult]
                  ) -> Iterator[tuple[str, SideResult]]:
    """The callees reached by a firm call that have a result, in the order ``edges`` gives."""
    for callee, decay in edges:
        if decay >= FIRM and (cr := results.get(callee)) is not None:
            yield callee, cr
_SIDE_OF: dict[str, tuple[Side, HandoffKind | None]] = {
    SAMPLING: (Side.SAMPLING, None), TRAINING: (Side.TRAINING, None),
    WEIGHT_SYNC: (Side.HANDOFF, HandoffKind.WEIGHT_SYNC),
}


def _side_key(r: SideResult) -> str | None:
    """The side a callee's label stands for, in score keys (the trajectory handoff excluded: see E1)."""
    if r.side == Side.SAMPLING:
        return SAMPLING
    if r.side == Side.TRAINING:
        return TRAINING
    if r.side == Side.HANDOFF and r.kind == HandoffKind.WEIGHT_SYNC:
        return WEIGHT_SYNC
    return None


def _delegated_side(q: str, own: dict[str, float], total: dict[str, float], out_edges: dict[str, float],
                    results: Mapping[str, SideResult]) -> tuple[str, float] | None:
    """The side a body with no evidence of its own takes from its callees, and what it passes on.

    Scores decay ×0.7 per call, so a rollout actor's method six plain delegations above the
    engine call came out neutral although every hop only forwards. Labels are inherited
    instead: when the firm callees that carry a side all carry the same one, and one of them
    is reached by an exact single-target call and holds its side *solidly* (its own evidence,
    or such a delegation), the body takes that side and passes on the callee's score
    undecayed. A side that only rests on decayed or spread-out scores keeps decaying, so an
    imprecise edge cannot carry it up a whole chain. Competing evidence from elsewhere (weak
    calls, neutral callees' halves) still wins when it is stronger. Functions nested in the
    body are its definitions, not calls it delegates to.
    """
    if any(own.get(k, 0.0) > 0 for k in KEYS):
        return None
    found: dict[str, float] = {}
    solid: dict[str, float] = {}
    for callee, decay in out_edges.items():
        if decay < FIRM:
            continue
        cr = results.get(callee)
        k = _side_key(cr) if cr is not None else None
        if k is None:
            continue
        found[k] = max(found.get(k, 0.0), cr.export.get(k, 0.0))  # type: ignore[union-attr]
        if decay >= DECAY_EXACT and cr.solid and not callee.startswith(q + "."):  # type: ignore[union-attr]
            solid[k] = max(solid.get(k, 0.0), cr.export.get(k, 0.0))  # type: ignore[union-attr]
    if len(found) != 1 or not solid:
        return None
    (k, v), = solid.items()
    rival = max((total.get(j, 0.0) for j in (SAMPLING, TRAINING, WEIGHT_SYNC) if j != k), default=0.0)
    if v <= 0 or rival >= max(total.get(k, 0.0), INHERITED_THRESHOLD):
        return None
    return k, v


# calls that start a process or thread running the callable handed to them (``Process(target=f)``)
_SPAWN = frozenset({"Process", "Thread", "start_new_thread", "spawn", "start_processes"})


def _spawned_side(fn, own: dict[str, float], out_edges: dict[str, float],
                  results: Mapping[str, SideResult]) -> tuple[str, float] | None:
    """A launcher with no evidence of its own that starts processes (or threads) running one side's
    code takes that side, however far below the side's evidence sits in the child.

    ``Process(target=child_main)`` where ``child_main`` builds the rollout loop that reaches the
    engine six calls down: the child *is* the sampler, so whatever starts it starts sampling
    (a launcher of the generation processes only is sampling, of the trainer only training; one
    that starts both is the driver, see ``_calls_both_chains``). Decay along the child's chain
    says how sure a caller may be of the child's side, not what the process does. A child
    entry left neutral counts for nothing (a sandbox's code runner is no trainer).
    """
    if _SPAWN.isdisjoint(fn.called()) or any(own.get(k, 0.0) > 0 for k in KEYS):
        return None
    found: dict[str, float] = {}
    for c in fn.calls:
        if c.method not in _SPAWN:
            continue
        for t in c.targets:
            cr = results.get(t)
            if cr is None or out_edges.get(t, 0.0) < FIRM:
                continue
            k = _side_key(cr)
            if k in (SAMPLING, TRAINING) and cr.export.get(k, 0.0) > 0:
                found[k] = max(found.get(k, 0.0), cr.export[k])
    if len(found) != 1:
        return None
    (k, v), = found.items()
    return k, max(v, THRESHOLD)


def _drives_both(s: float, t: float, own: dict[str, float], firm: dict[str, float]) -> bool:
    """Both chains run under this body: comparable evidence, or a strong call into the weaker chain.

    The weaker chain must be reached by the body itself or through exact calls, never
    only through name-guessed (weak) edges.
    """
    lo, hi = min(s, t), max(s, t)
    if lo < INHERITED_THRESHOLD or hi < THRESHOLD:
        return False
    if firm.get(SAMPLING if s < t else TRAINING, 0.0) < INHERITED_THRESHOLD:
        return False
    if lo >= 0.35 * hi or lo >= 2.0:
        return True
    weaker = SAMPLING if s < t else TRAINING
    return lo >= THRESHOLD and own.get(weaker, 0.0) < INHERITED_THRESHOLD  # reached through a call


_NOT_GENERATION = SCORING_SIGNALS | {"prompt-intake"}  # rollout-side, but scoring or feeding prompts, not acting with the policy


def _generation_origin(vals: list[tuple[float, str]], results: Mapping[str, SideResult]) -> Origin | None:
    """The strongest callee bringing a generation chain, when scoring arrives stronger than it:
    a rollout that generates several hops down and scores one hop down (a reward plugin) still
    generates, and the scoring must not hide it from the driver test."""
    for v, callee in vals:  # strongest first
        co = results[callee].origins.get(SAMPLING)
        if v >= INHERITED_THRESHOLD and co is not None and co.signal not in _NOT_GENERATION:
            return Origin(co.signal, co.file, co.line, f"callee:{callee}", v, co.container)
    return None


def _generates(r: SideResult) -> bool:
    """Whether a result's sampling evidence is a generation chain (engine, env, HTTP generate),
    not only reward scoring."""
    o = r.origins.get(SAMPLING)
    return o is None or o.signal not in _NOT_GENERATION


def _container_origin(r: SideResult) -> bool:
    o = r.origins.get(TRAJECTORY)
    return o is not None and o.container


def _moves_data(fn, origin: Origin | None) -> bool:
    """Whether a body that inherits batch-type (container) evidence hands data on itself.

    Calling a helper that builds or splits the batch type makes a function a handoff only
    when the function itself takes data in (a parameter that is not ``self`` or a settings
    object) or hands a value back; a test or a setup routine that merely calls the helper
    moves nothing between the sides. Transport evidence (a queue, a socket) always counts.
    """
    if origin is None or not origin.container:
        return True
    if origin.via.startswith("callee:") and prompt_fed(fn, [c for c in fn.calls if origin.via[7:] in c.targets]):
        return False  # it wraps the loader's prompts into the batch type: nothing generated moves yet
    if fn.definition.returned:
        return True
    return any(not _configish(p) for p in fn.params)


TRANSPORT_HOPS = 2  # how far above a transport the trajectory handoff reaches (the transport's own body is 0)


def _relay(fn, origin: Origin | None, results: Mapping[str, SideResult]) -> tuple[int, bool]:
    """Hops from the transport, and whether this handoff passes its evidence on to its callers."""
    if origin is None or not origin.via.startswith("callee:"):
        return 1, False
    cr = results.get(origin.via[len("callee:"):])
    hops = (cr.hops if cr is not None else 0) + 1
    return hops, hops < TRANSPORT_HOPS and not origin.container and _hands_on(fn)


def _hands_on(fn) -> bool:
    """The body hands data on: returns a value or takes data in (not only settings)."""
    return bool(fn.definition.returned) or any(not _configish(p) for p in fn.params)


def _configish(name: str) -> bool:
    low = name.lower()
    return low in ("config", "cfg", "args", "kwargs", "options", "settings", "conf", "opts", "hparams") or \
        low.endswith(("_config", "_cfg", "_args", "_kwargs", "_conf", "_options"))


def _calls_both_chains(s: float, t: float, own: dict[str, float], out_edges: dict[str, float],
                       results: Mapping[str, SideResult]) -> bool:
    """The body runs the loop by calling code already labelled sampling and code labelled training.

    Decided structurally, whatever the body's own evidence: a loop that normalises advantages
    inline still drives both chains when it calls the sampler and the learner. A driver often
    holds no signal of its own: it calls the sampler's entry (a rollout actor's method over a
    Ray handle, a generator object) and then the trainer's step, each several hops above its
    evidence, so the decayed scores stay under the thresholds that ``_drives_both`` asks of raw
    evidence. Calling a driver counts for both chains (a launcher that starts the loop). Only
    firm calls count (exact, at most a few same-named targets), and the sampling callee must
    be a generation chain: a training step that scores with a reward model stays training.
    """
    faint = min(s, t) < INHERITED_THRESHOLD  # then both chains must come from solid callees (R)
    got: set[str] = set()
    for _callee, cr in _firm_callees(sorted(out_edges.items()), results):
        if cr.side == Side.DRIVER:
            return True  # a launcher that starts the loop: structural, whatever the scores say
        if faint and not cr.solid:
            continue
        if cr.side == Side.SAMPLING and _generates(cr):
            got.add(SAMPLING)
        elif cr.side == Side.TRAINING:
            got.add(TRAINING)
    return len(got) == 2


def _steps_both(own: dict[str, float], s: float, t: float, out_edges: dict[str, float],
                results: Mapping[str, SideResult]) -> bool:
    """A body that pushes weights *and* runs both chains is the step loop, not the push.

    A loop against a hosted service samples, trains and publishes the new weights in one body
    (or calls a sampler and a learner and publishes between them): the publish is one of its
    steps. Only firm evidence counts: its own sampling and training signals both at full
    strength, or firm calls into both chains (``_calls_both_chains``).
    """
    if own.get(SAMPLING, 0.0) >= THRESHOLD and own.get(TRAINING, 0.0) >= THRESHOLD:
        return True
    return _calls_both_chains(s, t, own, out_edges, results)


def _hands_rollouts_on(q: str, facts: Facts, out_edges: dict[str, float], results: Mapping[str, SideResult],
                       flows: FlowIndex) -> bool:
    """The body hands what its generation chain returned to code the training chain runs behind.

    ``groups = await gather(rollouts); await model.train(groups)``: the trainer sits behind a
    client (an HTTP post, an actor call, a queue) that ``sides`` only reaches over faint, weak
    edges, so ``_calls_both_chains`` sees no training callee. The value decides instead: a firm
    call into a solid generation chain whose result (see ``drivers.rollout_fed``) is the argument
    of a firm call into training, a driver, or a trajectory handoff / unlabelled callee with a
    learner's training evidence behind it (see ``_learns``). A body that generates and stores its
    output in a buffer hands nothing to a trainer, even when the buffer computes the group's
    advantages before queueing it.
    """
    gens: set[str] = set()
    takers: set[str] = set()
    for callee, cr in _firm_callees(out_edges.items(), results):
        if cr.side == Side.SAMPLING and cr.solid and _generates(cr):
            gens.add(callee)
        elif cr.side in (Side.TRAINING, Side.DRIVER) or (
                cr.total.get(TRAINING, 0.0) > 0 and (cr.side == Side.NEUTRAL or cr.kind == HandoffKind.TRAJECTORY)
                and _learns(cr)):
            takers.add(callee)
    if not gens or not takers:
        return False
    fn = facts.functions[q]
    fed = rollout_fed(fn, flows.of(q), lambda c: any(t in gens for t in c.targets))
    return any(t in takers for c in fed for t in c.targets)


def _requests_rollouts(q: str, facts: Facts, out_edges: dict[str, float], results: Mapping[str, SideResult],
                       flows: FlowIndex) -> bool:
    """The body hands the prompts it drew to the client of a rollout service and what comes back
    to the trainer: the step loop of a framework whose agents run in other processes.

    ``gen_batch = build(batch_dict); out = self._rollout(gen_batch); update(advantages(out))``: the
    sampling runs behind a client (a trajectory handoff: an HTTP queue, a store the agents fill;
    or a prompt feeder that then collects the results), so no generation score reaches the loop
    and it looked like a training step. What moves decides: the
    prompts go out through a firm call into a trajectory handoff (``drivers.prompt_requests``), and
    its result is the argument of a firm call into training (see ``_hands_rollouts_on``). A loop
    that only pulls ready rollouts from a buffer (``buffer.get()``) hands no prompts out: training.
    """
    carriers: set[str] = set()
    takers: set[str] = set()
    for callee, cr in _firm_callees(out_edges.items(), results):
        if (cr.side == Side.HANDOFF and cr.kind == HandoffKind.TRAJECTORY) or _feeds_prompts(cr):
            carriers.add(callee)
        elif cr.side in (Side.TRAINING, Side.DRIVER) or (cr.total.get(TRAINING, 0.0) > 0 and _learns(cr)):
            takers.add(callee)
    if not carriers or not takers:
        return False
    fn = facts.functions[q]
    body = flows.of(q)
    asked = {c.site.func for c in prompt_requests(fn, body, lambda c: any(t in carriers for t in c.targets))}
    if not asked:
        return False
    fed = rollout_fed(fn, body, lambda c: c.site.func in asked)
    return any(t in takers for c in fed for t in c.targets)


def _feeds_prompts(r: SideResult) -> bool:
    """The callee's sampling side is feeding prompts to a sampler elsewhere (a task queue's put end)."""
    o = r.origins.get(SAMPLING)
    return r.side == Side.SAMPLING and o is not None and o.signal == "prompt-intake"


def _learns(r: SideResult) -> bool:
    """The training evidence behind a result is a learner's (a loss, a step), not advantage shaping:
    a buffer that normalises a group's rewards before queueing it trains nothing."""
    o = r.origins.get(TRAINING)
    return o is not None and o.signal not in SHAPING


def _evidence(file: str, r: SideResult, own_matches: list[Match]) -> list[Evidence]:
    """Own signals (strongest first, one per signal and line), then the deciding callees."""
    ev: list[Evidence] = []
    seen: set[tuple[str, int]] = set()
    for m in sorted((m for m in own_matches if not m.signal.guard), key=lambda m: (-m.score, m.line)):
        key = (m.signal.id, m.line)
        if key in seen:
            continue
        seen.add(key)
        ev.append(Evidence(m.signal.id, file, m.line, "own"))
        if len(ev) >= 6:
            break
    if r.side == Side.DRIVER:
        wanted = [SAMPLING, TRAINING]
    elif r.side == Side.SAMPLING:
        wanted = [SAMPLING]
    elif r.side == Side.TRAINING:
        wanted = [TRAINING]
    elif r.side == Side.HANDOFF:
        wanted = [TRAJECTORY if r.kind == HandoffKind.TRAJECTORY else WEIGHT_SYNC]
    else:
        wanted = []
    for k in wanted:
        o = r.origins.get(k)
        if o is not None and o.via == "own" and k == WEIGHT_SYNC:
            o = r.relayed  # a sender: where its payload goes (the receiver it calls)
        if o is not None and o.via != "own":
            ev.append(Evidence(o.signal, o.file, o.line, o.via))
    return ev


def _sets_up_only(r: SideResult) -> bool:
    """The side rests only on building a side's machinery (an engine, a server launch, sampling
    parameters): the helpers such a body calls (a readiness poll, a patch applied before start)
    do none of that side's work."""
    o = r.origins.get(r.side.value)
    return o is not None and o.signal in _setup_ids()


@cache
def _setup_ids() -> frozenset[str]:
    """The ids of the catalog's set-up signals (the catalog is a constant: computed once)."""
    from .catalog import SIGNALS

    return frozenset(s.id for s in SIGNALS if s.setup)


OFFLINE_ENTRY = "offline-entry"  # the evidence a side dropped by ``offline_only`` leaves behind
_LOOP_SIDES = (Side.HANDOFF,)  # the sides only an online loop has (a driver makes its entry online)


def offline_only(facts: Facts, results: dict[str, SideResult],
                 per_entry: Mapping[str, AbstractSet[str]]) -> dict[str, list[str]]:
    """A handoff that only offline entry points reach takes no side (pattern P).

    An entry point is online when what it reaches (exact calls: see ``graphs.reach.entry_reach``)
    holds both chains (a sampling and a training function) or a driver: generation feeds the
    loss in the same run. A converter, a checkpoint merge, an SFT or preference script reaches
    one chain at most; there is no sampler to hand anything to, so the weight broadcasts and
    object collectives only such entry points reach are no handoff. Training and sampling stay:
    an offline trainer's step is still a training step and offline generation still generation
    (the label sets say so; dropping training cost the development labels, see
    ``docs/bench/semantics.md``). Functions no entry point reaches, and repos with no online
    entry point at all, are left alone (a library run from its public API keeps its sides).
    Returns the function -> the offline entry points reaching it.
    """
    sampling = {q for q, r in results.items() if r.side == Side.SAMPLING}
    training = {q for q, r in results.items() if r.side == Side.TRAINING}
    drivers = {q for q, r in results.items() if r.side == Side.DRIVER}
    online_roots = [e for e, seen in per_entry.items()
                    if not drivers.isdisjoint(seen) or (not sampling.isdisjoint(seen) and not training.isdisjoint(seen))]
    if not online_roots:
        return {}
    online: set[str] = set()
    for e in online_roots:
        online |= per_entry[e]
    out: dict[str, list[str]] = {}
    for e in sorted(per_entry):
        if e in online_roots:
            continue
        for q in per_entry[e]:
            r = results.get(q)
            if r is not None and r.side in _LOOP_SIDES and q not in online and q in facts.functions:
                out.setdefault(q, []).append(e)
    for q, es in out.items():
        fn = facts.functions[q]
        es = [e for e in es if not any(e.startswith(o + ".") for o in es)]  # the script, not also its main
        names = ", ".join(es[:3]) + (f" and {len(es) - 3} more" if len(es) > 3 else "")
        results[q] = SideResult(evidence=[Evidence(OFFLINE_ENTRY, fn.file, fn.line,
                                                   f"offline:{names}")])
    return out

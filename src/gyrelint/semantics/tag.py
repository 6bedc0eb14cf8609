"""Stage 4 entry point: signals → sides → handoff, weight-sync path, field contract, modules."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..graphs import Graphs
from ..graphs.reach import LoopReach, entry_reach, loop_reach
from ..index import Index
from ..index.cache import gc_paused
from ..model import Diagnostic, Evidence, FunctionReport, Handoff, HandoffKind, ModuleReport, Side
from ..settings import Settings
from . import cache
from .catalog import SIGNALS, drop_resampling, user_signals
from .childcall import child_result_queues
from .conversion import conversion_chains
from .dispatch import override_dispatch
from .facts import Facts, build_facts, extra_edges, fallback_edges, tokens_of
from .fields import field_contract, trajectory_containers
from .files import file_handoffs, published_weights
from .gen_inputs import generation_inputs
from .handed_tables import handed_tables
from .handoff import (
    QUEUE_SIGNALS,
    boundary_modules,
    instance_methods,
    internal_queue_sites,
    launched_samplers,
    module_reports,
    rollout_carriers,
    same_object,
    weight_sync_path,
)
from .http_routes import http_trajectories
from .kind import settle_transport_kind
from .launchers import actor_launchers
from .learner import receiver_helpers, training_helpers
from .module_facts import ModuleFactsCache
from .narrowing import isinstance_narrowing
from .payload import weight_flow
from .plumbing import generation_callbacks, rollout_plumbing
from .registry_consensus import registry_consensus
from .remote_receivers import remote_receivers
from .reshape import rollout_reshapers
from .setup import model_copies, nested_sync, setup_helpers
from .shared_model import same_instance_model
from .siblings import interface_consensus
from .sides import (
    SideResult,
    assign_sides,
    call_edges,
    caller_context,
    clear_sides,
    defined_only,
    offline_only,
    rollout_scoring,
    weight_sync_helpers,
)
from .signals import HANDOFF, SAMPLING, TRAINING, TRAJECTORY, Match, Matcher
from .taint import FlowIndex
from .weight_inputs import weight_sync_inputs


@dataclass(slots=True)
class Semantics:
    functions: dict[str, FunctionReport] = field(default_factory=dict)
    modules: list[ModuleReport] = field(default_factory=list)
    boundary_modules: list[str] = field(default_factory=list)
    handoff: Handoff = field(default_factory=Handoff)
    containers: list[str] = field(default_factory=list)  # trajectory container classes
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sides: dict[str, SideResult] = field(default_factory=dict)  # full scoring, for explain/debug views
    # what runs, the loop known (``graphs.reach.loop_reach``): the graphs' own ``reached`` is left as is
    reach: LoopReach = field(default_factory=lambda: LoopReach(frozenset()))


_CONTAINER_SIGNAL = next(s for s in SIGNALS if s.id == "trajectory-container-op")
_SERVE_SIGNAL = next(s for s in SIGNALS if s.id == "handoff-state-serve")
_CARRIER_SIGNAL = next(s for s in SIGNALS if s.id == "rollout-carrier")
_LAUNCH_SIGNAL = next(s for s in SIGNALS if s.id == "launch-sampler-script")


def _has_function_edges(graphs: Graphs) -> bool:
    g = graphs.calls
    for u, v in g.edges():
        if u in graphs.functions and v in graphs.functions:
            return True
    return False


def tag(index: Index, graphs: Graphs, settings: Settings) -> Semantics:
    """Label every indexed function and find the handoff both ways (reused from the cache when nothing changed).

    The cyclic collector is paused meanwhile: the stage builds some 10^5 small records per
    10^5 lines (call facts, matches, side scores), and the collections their allocations
    start walked every object alive, the index and the graphs included: a sixth of the
    stage's CPU on verl (``bench/semantics_parts.py --gc``). The few cycles it leaves (21,584
    objects on verl, 654,106 alive) wait for the first collection after it.
    Afterwards the records go to the oldest generation, so the young collections of the
    later stages do not walk them again."""
    with gc_paused(promote=True):
        return _tag_cached(index, graphs, settings)


def _tag_cached(index: Index, graphs: Graphs, settings: Settings) -> Semantics:
    path = cache.cache_path(index, settings, graphs.reached)
    if path is not None:
        data = cache.read(path)
        if data is not None:
            sem = Semantics()
            if cache.load_into(sem, data, graphs.reached):
                sem.reach = _library_reach(index, graphs, [q for q, f in sem.functions.items()
                                                           if f.side != Side.NEUTRAL])
                for f in sem.functions.values():
                    f.reached = f.qualname in sem.reach.reached
                return sem
    sem = _tag(index, graphs, settings)
    if path is not None:
        cache.write(path, cache.dump(sem))
    return sem


def _tag(index: Index, graphs: Graphs, settings: Settings) -> Semantics:
    sem = Semantics()
    signals = list(SIGNALS)
    signals += user_signals(settings.signals)
    matcher = Matcher(signals)
    facts: Facts = build_facts(index, graphs, matcher.methods)
    facts.local = ModuleFactsCache(Path(settings.cache_dir) if settings.use_cache else None, files=index.summaries)
    if not _has_function_edges(graphs) and not any(c.targets for fn in facts.functions.values() for c in fn.calls):
        fallback_edges(facts)
    extra_edges(facts)
    handed_tables(facts)  # a caller's own handler table handed to a generic executor
    isinstance_narrowing(facts)  # ``if isinstance(x, C): f(x)`` types f's parameter as C
    body_flows = FlowIndex(facts)  # one grouping of the value-flow facts for the payload and the sides
    flow = weight_flow(index, facts, body_flows)
    facts.weight_senders, facts.weight_receivers = flow.senders, flow.receivers
    matches: dict[str, list[Match]] = {}
    for q, fn in facts.functions.items():
        m = matcher.match(fn, facts)
        if m:
            matches[q] = m
    drop_resampling(facts, matches)  # a data-weight draw under training callers picks examples (pattern L)
    child_result_queues(facts, matches)  # a call run in a child with a result queue is one call (E2)
    _payload_decides_kind(facts, matches)
    _class_payload(facts, matches)
    sides = assign_sides(facts, matches, graphs, body_flows)
    # a queue whose ends all sit on one side is that side's plumbing, not the handoff
    internal = internal_queue_sites(facts, sides)
    dropped: dict[str, list[Match]] = {}
    if internal:
        for q, (_, lines) in internal.items():
            ms = matches.get(q, [])
            dropped[q] = [m for m in ms if m.signal.id in QUEUE_SIGNALS and m.line in lines]
            matches[q] = [m for m in ms if m not in dropped[q]]
        del sides
        sides = assign_sides(facts, matches, graphs, body_flows)
    # second pass: the trajectory containers are known now; code that builds, returns or
    # buffers them is the trajectory handoff
    edges = call_edges(facts, graphs)
    containers = trajectory_containers(facts, sides, edges)
    added = False
    facts.handoff_state = served_state(facts, sides)
    facts.rollout_carriers = rollout_carriers(facts, sides)
    facts.launched = launched_samplers(facts, sides)
    for sig, found in ((_SERVE_SIGNAL, facts.handoff_state), (_CARRIER_SIGNAL, facts.rollout_carriers),
                       (_LAUNCH_SIGNAL, facts.launched)):
        for q in found:
            for line, st in sig.body(facts.functions[q], facts):  # type: ignore[misc]
                matches.setdefault(q, []).append(Match(sig, line, st))
                added = True
    if containers:
        facts.containers = containers
        for q, fn in facts.functions.items():
            for line, st in _CONTAINER_SIGNAL.body(fn, facts):  # type: ignore[misc]
                matches.setdefault(q, []).append(Match(_CONTAINER_SIGNAL, line, st))
                added = True
    _drop_token_memos(facts)
    if added:
        del sides  # the old scores go before the new ones are built (12 MiB on verl)
        sides = assign_sides(facts, matches, graphs, body_flows)
    outside = [q for q, fn in facts.functions.items() if index.out_of_scope(fn.file)]
    clear_sides(sides, outside)  # tests, docs, benchmarks, vendored code: indexed, but no side
    rollout_plumbing(facts, edges, sides, body_flows)  # helpers between a rollout's generation and its next step
    generation_inputs(facts, edges, sides, body_flows)  # helpers whose result a rollout hands to its generation call
    generation_callbacks(facts, sides)  # logits masks and stop criteria the engine calls while decoding
    caller_context(facts, edges, sides)  # on the final sides only: it passes nothing up
    training_helpers(facts, edges, sides)  # helpers of the trainer the caller context leaves out (tests, faint own)
    nested_sync(facts, edges, sides)  # a sync resting on its own nested closure is solid
    model_copies(facts, sides)  # the trained model copied into the instance's other model
    weight_sync_helpers(facts, edges, sides, flow.handed)  # the same, for helpers of the weight sync
    weight_sync_inputs(facts, edges, sides, body_flows)  # helpers whose result the sync pushes into the engine
    remote_receivers(facts, sides)  # the method a collective weight sender starts over .remote to post the receives
    receiver_helpers(facts, edges, sides, body_flows)  # what a weight receiver fetched, handed to a helper it loads
    setup_helpers(facts, edges, sides, body_flows)  # optimizer inputs, gradient switches (setup.py)
    rollout_scoring(facts, edges, sides)  # graders the rollout calls (after: it passes nothing up)
    rollout_reshapers(facts, edges, sides, body_flows)  # what a driver hands its rollouts to before the update
    http_trajectories(facts, edges, sides)  # rollouts (or weights) through the repo's own web routes
    conversion_chains(facts, edges, sides, body_flows)  # sampled records turned step by step into training rows
    loops = _loop_lines(index)
    file_handoffs(facts, edges, sides, loops)  # batches written by one side's loop, read by the other's
    published_weights(facts, edges, sides, loops)  # checkpoints the sampler reloads
    override_dispatch(facts, edges, sides)  # after the handoff passes: overrides and registry classes the rollout reaches through a base
    actor_launchers(facts, sides)  # a body starting a sampling actor and a training actor drives both
    agreed = interface_consensus(facts, sides)  # silent implementations of an interface whose others agree
    registry_consensus(facts, sides)  # silent functions of a registry lookup whose others agree
    join_queue_side(facts, sides, internal, dropped)
    clear_sides(sides, outside)
    offline_only(facts, sides, entry_reach(graphs))  # a converter's broadcast is no handoff: no loop to hand to
    settle_transport_kind(facts, edges, sides, frozenset(agreed))  # a bare socket between weight-sync functions carries weights
    sem.reach = _library_reach(index, graphs, [q for q, r in sides.items() if r.side != Side.NEUTRAL])
    reached = sem.reach.reached
    sem.sides = sides
    for q, fn in facts.functions.items():
        r = sides.get(q)
        rep = FunctionReport(q, fn.file, fn.line, reached=q in reached)
        if r is not None:
            rep.side, rep.handoff_kind, rep.evidence = r.side, r.kind, r.evidence
        sem.functions[q] = rep
    # every function the graphs stage knows (e.g. indexed but grouped differently) appears too
    for q, info in graphs.functions.items():
        if q not in sem.functions:
            sem.functions[q] = FunctionReport(q, info.file, info.definition.line, reached=q in reached)
    h = sem.handoff
    h.trajectory = _ranked(sem, sides, HandoffKind.TRAJECTORY)
    h.weight_sync = _ranked(sem, sides, HandoffKind.WEIGHT_SYNC)
    h.online, h.weight_sync_path = weight_sync_path(sides, edges, reached, frozenset(outside),
                                                        frozenset(facts.weight_senders),
                                                        frozenset(facts.weight_receivers),
                                                        defined_only(facts, edges),
                                                        instance_methods(facts.classes, facts.mro))
    same = same_object(facts, sides, loops) or same_instance_model(facts, sides, loops, body_flows)
    if same is not None:
        h.online = True  # the sampler reads the weights the optimizer writes: nothing to push
        h.online_evidence = [Evidence("same-object", same[0], same[1], same[2])]
    sem.containers = sorted(containers)
    h.fields = field_contract(index, facts, sides, containers)
    outside_modules = index.out_of_scope_modules()
    sem.boundary_modules = [m for m in boundary_modules(facts, sides, containers, reached)
                            if m not in outside_modules]
    sem.modules = module_reports(facts, sides, sem.boundary_modules)
    facts.local.flush()
    return sem


def _drop_token_memos(facts: Facts) -> None:
    """Free what the signal matching is done with: each body's token set and text (a frozenset
    of a few hundred words per function, 9 MiB on verl) and the memo of :func:`tokens_of`, before
    the scores are built once more. Both are memos of a function's own records: the few later
    readers (67 functions on verl) rebuild the same values."""
    for fn in facts.functions.values():
        fn._tokens = fn._token_text = None
    tokens_of.cache_clear()


def _library_reach(index: Index, graphs: Graphs, loop: list[str]) -> LoopReach:
    """A library whose entry points reach none of the loop (a wheel with no launcher: user
    scripts call its trainer) is run from its public API: the result says so, for the handoff
    ranking, the rules and the topology alike (see ``graphs.reach.loop_reach``). It is this
    stage's own result: the graphs are read, never written."""
    return loop_reach(graphs, loop, index.out_of_scope)


def _loop_lines(index: Index) -> dict[str, list[int]]:
    """Lines of the ``for`` statements (and comprehensions) of every function body."""
    out: dict[str, list[int]] = {}
    for s in index.summaries.values():
        for fl in s.flows:
            if fl.op == "for":
                out.setdefault(f"{s.module}.{fl.scope}", []).append(fl.line)
    return out


def served_state(facts: Facts, sides: dict[str, SideResult]) -> dict[str, int]:
    """Methods that hand out what a trajectory-handoff method of their class stored (pattern R).

    A hub actor drains the results queue into ``self.shards`` in one method and serves a learner
    rank its shard in another (``return self.shards[rank]``): the serving method carries no
    signal of its own, yet it is the handoff's far end. Only attributes a transport-fed handoff
    method writes count, and only methods with no evidence of their own.
    """
    stored: dict[str, set[str]] = {}
    for q, r in sides.items():
        fn = facts.functions[q]
        o = r.origins.get(TRAJECTORY)
        if fn.cls is None or r.side != Side.HANDOFF or r.kind != HandoffKind.TRAJECTORY or o is None \
                or o.via != "own" or o.container:
            continue
        if all(m.signal.setup for m in r.own_matches if m.signal.side == Side.HANDOFF):
            continue  # it only opens the transport (``self.sock = ctx.socket(...)``): it stores no rollout
        for a in fn.assigns:
            if a.target.startswith("self.") and a.target.count(".") == 1:
                stored.setdefault(fn.cls, set()).add(a.target[5:])
    out: dict[str, int] = {}
    if not stored:
        return out
    for q, fn in facts.functions.items():
        attrs = stored.get(fn.cls or "")
        r = sides.get(q)
        if not attrs or r is None or r.has_own or fn.definition.name.startswith("__"):
            continue
        own = {a.target for a in fn.assigns}
        for text in fn.definition.returned:
            attr = text[5:].split("[", 1)[0].split(".", 1)[0] if text.startswith("self.") else ""
            if attr in attrs and f"self.{attr}" not in own:  # a lazy accessor building it serves nothing
                out[q] = fn.line
                break
    return out


def _payload_decides_kind(facts: Facts, matches: dict[str, list[Match]]) -> None:
    """A transport that carries parameters is the weight sync, not the trajectory handoff (pattern O).

    The kind follows the payload: a socket, queue or shared buffer a weight sender or receiver
    uses gives no trajectory evidence there, nor in the set-up of its class (the ``__init__``
    that opens the socket) when no method of that class carries anything else on a transport.
    """
    moving = set(facts.weight_senders) | set(facts.weight_receivers)
    if not moving:
        return

    def transport(m: Match) -> bool:
        return m.signal.side == HANDOFF and m.signal.kind == TRAJECTORY and not m.signal.container

    classes: dict[str, bool] = {}
    for q in moving:
        ms = matches.get(q)
        if ms:
            matches[q] = [m for m in ms if not transport(m)]
        cls = facts.functions[q].cls
        if cls is not None:
            classes[cls] = True
    for q, fn in facts.functions.items():
        if fn.cls in classes and q not in moving and any(transport(m) and not m.signal.setup
                                                         for m in matches.get(q, ())):
            classes[fn.cls] = False  # the class also carries something else
    for q, fn in facts.functions.items():
        if fn.cls is not None and classes.get(fn.cls) and q not in moving and q in matches:
            matches[q] = [m for m in matches[q] if not (transport(m) and m.signal.setup)]


# weight-sync evidence strong enough to say what a class's transports carry (not a name-only hint)
_WEIGHT_CARRIERS = frozenset({"param-broadcast", "cuda-ipc", "engine-update-weights-api", "engine-load-weights",
                              "weight-payload-send", "weight-payload-receive", "ray-collective", "weight-queue"})
_PAYLOAD_SEND = next(s for s in SIGNALS if s.id == "weight-payload-send")


def _class_payload(facts: Facts, matches: dict[str, list[Match]]) -> None:
    """A transport in a class that only moves weights carries weights (item 4: kind follows payload).

    A weight-transfer engine broadcasts buckets in one method and publishes a terminal message
    over the same ZMQ socket in another: that socket is the weight sync's. When a class's own
    evidence is weight pushes (strong signals, not a method name) and none of its methods
    samples, trains or builds the trajectory container, its other transport evidence counts as
    weight sync at the same lines (the socket's set-up in ``__init__`` is no trajectory handoff).
    """
    weighty: set[str] = set()
    other: set[str] = set()
    for q, ms in matches.items():
        cls = facts.functions[q].cls
        if cls is None:
            continue
        for m in ms:
            sig = m.signal
            if sig.id in _WEIGHT_CARRIERS:
                weighty.add(cls)
            elif sig.side in (SAMPLING, TRAINING) or sig.container:
                other.add(cls)
    keep = weighty - other
    if not keep:
        return
    for q, ms in matches.items():
        if facts.functions[q].cls in keep:
            moved = [m for m in ms if m.signal.side == HANDOFF and m.signal.kind == TRAJECTORY]
            matches[q] = [m for m in ms if m not in moved] + \
                [Match(_PAYLOAD_SEND, m.line, m.strength) for m in moved if not m.signal.setup]


def join_queue_side(facts: Facts, sides: dict[str, SideResult], internal: dict[str, tuple[str, set[int]]],
                    dropped: dict[str, list[Match]]) -> None:
    """An end of a queue internal to one side with no side of its own belongs to that side
    (the method that collects a generation loop's results, the one that feeds it prompts)."""
    for q, (side, _) in sorted(internal.items()):
        r = sides.get(q)
        if r is None or r.side != Side.NEUTRAL or not dropped.get(q):
            continue
        r.side = Side.SAMPLING if side == SAMPLING else Side.TRAINING
        m = min(dropped[q], key=lambda m: m.line)
        r.evidence = [*r.evidence, Evidence(m.signal.id, facts.functions[q].file, m.line, "own")]


def _ranked(sem: Semantics, sides: dict[str, SideResult], kind: HandoffKind) -> list[str]:
    """The handoff of one kind as a reader wants it: the carriers, reached ones first (pattern P).

    Every function labelled handoff keeps its label in ``functions``; the list names the
    carriers only (own evidence of that kind: the put/get, the (de)serialiser, the push and the
    receiving end), not each caller that delegates to one, and only the ones an entry point
    reaches when any is reached. With no carrier of its own, the labelled functions are listed.
    """
    key = "trajectory" if kind == HandoffKind.TRAJECTORY else "weight_sync"
    picked = [q for q, f in sem.functions.items() if f.side == Side.HANDOFF and f.handoff_kind == kind]
    carriers = [q for q in picked if sides[q].own.get(key, 0.0) > 0]
    reached = [q for q in carriers if sem.functions[q].reached]
    shown = reached or carriers or picked
    return sorted(shown, key=lambda q: (not sem.functions[q].reached, -sides[q].own.get(key, 0.0), q))

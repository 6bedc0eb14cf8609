"""Call resolution: a flow-insensitive points-to analysis over the file summaries.

Every variable, attribute, parameter, return slot and container element of the repo is
a *key* holding a set of abstract *values*; the :class:`~gyrelint.index.summary.Flow`
facts and the call sites move values between keys until nothing changes (PyCG's
approach, done on summaries so no file is parsed again). Values are short strings:

==============  ==========================================================
``f:Q``         repo function or lambda ``Q`` (full qualname), unbound
``b:Q|C``       method ``Q`` bound to an instance of repo class ``C``
``c:Q``/``i:Q`` repo class ``Q`` / an instance of it
``m:M``         repo module ``M``
``x:N``/``xi:N`` external name ``N`` (alias-resolved: ``torch.distributed.broadcast``)
                / an instance of external class ``N``
``B:N``         builtin ``N`` (``print``, ``str.join``)
``d:ID``/``l:ID`` dict / list (tuple, set, comprehension, generator) allocation site
``k?:V``        a constant (``ks:text``, ``ki:3``) - container keys and string dispatch
``rem:V``       ``V.remote`` (Ray), ``opt:V`` ``V.options`` (Ray), ``sup:C|D`` ``super()``
==============  ==========================================================
"""

from __future__ import annotations

import builtins
import re
from array import array
from collections import defaultdict, deque
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..index.summary import MODULE_SCOPE, CallSite, FileSummary, FunctionDef
from .runtime_modules import NAME_LOADERS, PATH_LOADERS, RUNTIME_MODULE, script_modules, top_level_names
from .symbols import SymbolTable, _c3, bound_names, build_symbols

BUILTINS = frozenset(n for n in dir(builtins) if not n.startswith("_")) | {"__import__"}
_EMPTY: frozenset[str] = frozenset()
_MAX_ROUNDS = 12
# A step's read of a cached MRO, one dependency in place of the MRO's keys; not while recording
# (``run(record=True)``): graphs/incremental.py replays and checks the keys themselves
_MRO_KEY = "\0mro:"
_MAX_VALUES = 64  # a key holding more values than this is not worth propagating precisely
# external callables whose result is (one of) their first argument: value passes through
_PASSTHROUGH = frozenset({
    "ray.get", "ray.put", "ray.remote", "ray.method", "copy.copy", "copy.deepcopy", "functools.partial",
    "functools.wraps", "functools.lru_cache", "functools.cache", "functools.update_wrapper", "typing.cast",
    "asyncio.run", "asyncio.create_task", "asyncio.ensure_future", "ray.util.scheduling_strategies",
})
# library calls that only look at a function they are handed (``inspect.iscoroutinefunction(fn)``,
# ``inspect.signature(fn)``): they never call it, so the function is no callback of theirs
_INTROSPECTION = frozenset({"typing.get_type_hints", "typing.get_origin", "typing.get_args"})


def _introspects(name: str) -> bool:
    return name.startswith("inspect.") or name in _INTROSPECTION


# external factories whose result is a decorator returning what it decorates (``torch.no_grad()(fn)``
# registers ``fn`` itself: grad modes are context managers and decorators alike)
_DECORATOR_FACTORIES = frozenset({"torch.no_grad", "torch.inference_mode", "torch.enable_grad",
                                  "torch.set_grad_enabled", "torch.autograd.grad_mode.no_grad"})
_ITER_BUILTINS = frozenset({"list", "tuple", "set", "frozenset", "sorted", "reversed", "iter", "enumerate",
                            "zip", "next", "filter"})
# external bases that define no behaviour of their own: attributes are not looked up there
_MARKER_BASES = frozenset({"abc.ABC", "typing_extensions.Protocol", "enum.Enum", "enum.IntEnum", "enum.StrEnum"})
# lookups whose literal arguments are keys and defaults (config reads), never method names
_VALUE_LOOKUPS = frozenset({"<builtin>.dict.get", "<builtin>.dict.pop", "<builtin>.dict.setdefault", "os.getenv",
                            "os.environ.get"})
_BINDING_BUILTINS = frozenset({"map", "filter", "sorted", "min", "max", "getattr", "super", "next", "iter"})
_CONTAINER_WRITE = {"append": 0, "add": 0, "extend": -1, "insert": 1, "update": -2, "setdefault": 1,
                    "put": 0, "put_nowait": 0, "appendleft": 0}
_CONTAINER_READ = frozenset({"get", "pop", "popleft", "popitem", "values", "items", "copy", "keys",
                             "get_nowait"})


# library calls that run a repo function later with the arguments after it: position of the function
_CALLBACK_AT = {"submit": 0, "to_thread": 0, "call_soon": 0, "call_soon_threadsafe": 0, "run_in_executor": 1,
                "apply_async": 0}


# a callable that turns a dotted-path string into the object it names (plugin loaders:
# ``load_function("pkg.mod.fn")``, ``import_string``, ``locate``, ``instantiate``...)
_LOADER = re.compile(r"(?:^|_)(?:load|import|locate|instantiate|resolve)(?:_|$)|from_str|str_to|by_path|"
                     r"^get_(?:obj|object|class|cls|func|function|fn|method|callable)")
_DOTTED_PATH = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_]\w*)?$")

# library calls whose result may be a repo object the library kept or looked up (a queue's
# item, a future's result, an actor found by name, a loaded or copied object): their result
# is not a library object, and a method called on it may be a repo method
_RETRIEVES = re.compile(r"(?:^|_)(?:get|load|loads|result|results|pop|popleft|recv|receive|take|fetch|wait|"
                        r"gather|import|instantiate|copy|deepcopy|next|anext|complete|lookup|find|locate|"
                        r"resolve|unwrap|cast|call|apply|map|starmap|invoke|execute|actor|handle|remote|"
                        r"wrap|wrapped|run|value|item|first)(?:_|$)|^__|pop|heap|choice|sample|prepare|"
                        r"compile|shield|proxy|replace|module|spec|attr|class|object|type", re.IGNORECASE)


# which values a full key keeps first: repo objects, then library names, containers, constants,
# and last the methods of containers (``d.get``), which only ever resolve to builtins
_KEEP_RANK = {"f": 0, "b": 0, "c": 0, "i": 0, "m": 0, "sup": 0, "rem": 0, "opt": 0, "sbc": 0, "rdec": 0,
              "x": 1, "xi": 1, "B": 1, "d": 2, "l": 2, "cm": 4}


def _keep_rank(v: str) -> tuple[int, str]:
    return _KEEP_RANK.get(v[:v.index(":")], 3), v


def _keep(values: set[str], room: int) -> set[str]:
    """At most ``room`` of ``values``, the same ones whatever the set's iteration order.

    Without a hard cap one write could fill a key with thousands of values (every list a
    generic helper ever returned), and each reader copied them on: on a million-line repo
    the store grew past 12 M values and the resolver past 5 GiB."""
    return set(sorted(values, key=_keep_rank)[:room])


def _const(v: object) -> str:
    if isinstance(v, bool) or v is None:
        return f"kb:{v}"
    if isinstance(v, int):
        return f"ki:{v}"
    if isinstance(v, float):
        return f"kf:{v}"
    if isinstance(v, str):
        return f"ks:{v}"
    return "kx:"


@dataclass(slots=True)
class Edge:
    """One resolved target of one call site (or implicit call: decorator, iteration)."""

    target: str  # repo qualname or external/builtin canonical name
    kind: str  # "exact" | "weak"
    via: str


@dataclass(slots=True)
class Resolution:
    """What :func:`resolve` hands back to the graph builder."""

    site_edges: dict[tuple[str, int], list[Edge]] = field(default_factory=dict)  # (module, call index)
    implicit: dict[tuple[str, str, int, str], set[str]] = field(default_factory=dict)  # (mod, scope, line, via)
    strings: dict[tuple[str, str, int], set[str]] = field(default_factory=dict)  # dotted-path strings
    attr_types: dict[str, dict[str, str]] = field(default_factory=dict)
    bases: dict[str, tuple[str, ...]] = field(default_factory=dict)  # class -> resolved base names
    rounds: int = 0


class Resolver:
    def __init__(self, summaries: list[FileSummary], symbols: SymbolTable | None = None) -> None:
        self.symbols = st = symbols if symbols is not None else build_symbols(summaries)
        self.sums = st.modules
        # key -> its values; one frozenset object per distinct content (see _flush)
        self.store: dict[str, frozenset[str]] = {}
        self.shared: dict[frozenset[str], list] = {}  # content -> [the one frozenset, keys holding it]
        self.pending: dict[str, set[str]] = {}  # writes of the running step, see _add
        self.pending_ckeys: list[tuple[str, str]] = []
        self.changed = False
        # names: the symbol table's, read-only
        self.funcs: Mapping[str, FunctionDef] = st.functions  # full qualname -> def (functions and lambdas)
        self.classes: Mapping[str, str] = {q: c.module for q, c in st.classes.items()}  # class -> module
        self.class_scopes: Mapping[str, frozenset[str]] = st.class_scopes  # module -> class scopes (relative)
        self.locals: Mapping[tuple[str, str], frozenset[str]] = st.locals  # (module, scope) -> names bound
        self.globals: Mapping[tuple[str, str], frozenset[str]] = st.globals
        self.func_mod: dict[str, str] = {}
        self.method_class: dict[str, str] = {}  # method qualname -> class qualname
        self.method_kind: dict[str, str] = {}  # "static" | "class" | "inst"
        self.getters: set[str] = set()  # methods decorated ``@property`` / ``@cached_property``: read, not bound
        self.base_exprs: dict[str, tuple[str, str, tuple]] = {}
        self.mro_cache: dict[str, list[str]] = {}
        self.mro_open: dict[str, int] = {}  # classes being linearised -> nesting depth
        self.mro_partial: dict[str, tuple[list[str], set[str]]] = {}  # see mro()
        self.mro_low = 1 << 30
        self.ckeys: dict[str, set[str]] = defaultdict(set)
        self.gen_funcs: set[str] = set()
        self.returns_param: dict[str, str] = {}  # function -> the parameter it returns as is (see _passed)
        self.methods_by_name: dict[str, list[str]] = defaultdict(list)
        self.lookup_cache: dict[tuple[str, str, str], str | None] = {}
        self.param_plans: dict[str, tuple[list[str], str | None, frozenset[str]]] = {}  # see _bind
        self.option_paths: dict[str, set[str]] = defaultdict(set)  # option dest -> dotted-path defaults
        self.loader_names: dict[str, bool] = {}  # callee name -> a plugin loader? (see _loaded)
        self.top_names: dict[str, frozenset[str]] | None = None  # see runtime_modules
        self.flows: list[tuple[str, object]] = []
        # side outputs of the running step; after run() the union of every item's latest run
        self.implicit: dict[tuple[str, str, int, str], set[str]] = {}
        self.class_attrs: dict[str, set[str]] = {}
        self.called_names: dict[str, set[str]] = defaultdict(set)  # function -> plain names it calls
        self.dynamic_classes: set[str] = set()  # classes whose methods ``setattr(self, <computed>, ...)``
        self.cur_line = 0
        # worklist: which items (flows and call sites) read which keys
        self.reading: set[str] | None = None
        # key -> the items that read it, as packed ints: a set per key cost ~75 bytes an entry,
        # the resolver's largest table (115 MiB of 1.6 M entries on 512 files of transformers);
        # an item that reruns may be listed twice, which only costs a skipped re-queue
        self.deps: dict[str, array[int]] = {}
        self.attr_memo: dict[tuple[str, str], frozenset[str]] = {}
        self.queue: deque[int] = deque()
        self.queued: bytearray = bytearray()
        self.mro_deps: dict[str, set[str]] = {}
        self.key_mro: dict[str, set[str]] = defaultdict(set)
        # key -> what writes it: (module, scope, call expression) of ``name = call(...)``, or
        # None for any other writer (parameter, import, loop, unpacking); see _library_origin
        self.writers: dict[str, list[tuple[str, str, tuple] | None]] | None = None
        self.origin_memo: dict[str, frozenset[str] | None] = {}
        self.origin_capped = False
        self.round_count = 0  # batches run() took (bench/resolve_order.py)
        # provenance for an incremental run after an edit (graphs/incremental.py); kept only
        # when run(record=True): what each item wrote, how often it ran, when each key last
        # changed (loop iteration), and the steps whose answer depends on more than the store
        self.writing: set[str] | None = None
        self.extra: set[str] | None = None  # container key sets read with no dependency kept
        self.extra_deps: dict[str, list[int]] = defaultdict(list)  # key -> items that read it so
        self.settled: dict[str, int] | None = None
        self.capped_mods: dict[str, set[str]] = {}  # full key -> modules of the allocations it turned away
        self.iteration = -1
        self.line_used = False  # the running step named an allocation after its line
        self.hard = False  # the running step did something a replay cannot redo (see _subclasses)
        self.mro_cycle = False
        self.cycles = 0
        self.cyclic: set[str] = set()  # classes whose MRO met a cycle, or builds on one that did
        self.watch: frozenset[str] | None = None  # a replay's: such classes of the previous run
        self.cyclic_cache: dict[str, tuple[list[str], frozenset[str]]] = {}  # their MROs when run() ended
        self.converged = True
        self.items: list[tuple[bool, str, object]] = []
        self.strata = bytearray()
        self.item_gid: list[int] = []  # item -> (module, kind, position) packed, see _gid
        self.flow_pos: list[int] = []  # self.flows[i] -> its position among its module's flows
        self.item_runs: array[int] = array("I")
        self.item_writes: dict[int, tuple[str, ...]] = {}
        self.item_flags: bytearray = bytearray()  # 1: named after its line, 2: hard
        self.item_implicit: dict[int, dict[tuple[str, str, int, str], set[str]]] = {}
        self.item_attrs: dict[int, dict[str, set[str]]] = {}
        self.module_order: dict[str, int] = {}
        self._setup()

    # ---- set-up ------------------------------------------------------------------
    def _setup(self) -> None:
        """Tables from the symbol table; what is the resolver's own: the first parameter of
        methods (``self``/``cls``), the flows to propagate, generators and dynamic classes."""
        st = self.symbols
        for q, d in st.definitions.items():
            if d.kind == "class":
                continue
            f = st.functions[q]
            self.func_mod[q] = d.module
            if f.yields:
                self.gen_funcs.add(q)
            if d.owner is not None:
                cq, kind = d.owner, d.method_kind or "inst"
                self.method_class[q] = cq
                self.method_kind[q] = kind
                self.methods_by_name[f.name].append(q)
                if kind == "inst" and any(d.rsplit(".", 1)[-1] in _GETTERS for d in f.decorators):
                    self.getters.add(q)
                if f.params and kind != "static" and f.params[0].kind == "pos":
                    self._add(f"{q}.{f.params[0].name}", {("c:" if kind == "class" else "i:") + cq})
        self._find_identities()
        for mod, s in self.sums.items():
            for site in s.calls:
                if "." not in site.func:
                    self.called_names[f"{mod}.{site.scope}"].add(site.func)
                if site.func == "setattr" and len(site.args) >= 2 and site.args[0].value == "self" \
                        and site.args[1].kind != "lit":
                    cq = self.symbols.class_of_scope(mod, site.scope)
                    if cq is not None:
                        self.dynamic_classes.add(cq)
            for fl in s.flows:
                if fl.op == "base":
                    self.base_exprs[f"{mod}.{fl.target}"] = (mod, fl.scope, fl.value)  # type: ignore[assignment]
                if not _inert(fl):
                    self.flows.append((mod, fl))
            for b in st.bindings.get(mod, ()):
                if not b.star:
                    self.flows.append((mod, _ImportFlow(b.scope, b.name, b.value, b.line)))
        self._collect_option_paths()
        self.flows += [(b.module, _ImportFlow(b.scope, b.name, b.value, b.line)) for b in st.stars]
        count: dict[str, int] = defaultdict(int)
        for mod, _ in self.flows:  # each flow's position among its module's (stars last)
            self.flow_pos.append(count[mod])
            count[mod] += 1
        self._flush()

    def _find_identities(self) -> None:
        """Functions that return one of their parameters unchanged (``def requires(**kw):
        def inner(cls): ...; return cls``, ``def to_device(x): ...; return x``).

        Their return key merges every argument any caller handed them: a class decorator
        that returns the class made each decorated class name stand for all of them (23
        unrelated classes as the base of one class, MROs of 165 entries on transformers).
        A call of such a function returns what that call passed (:meth:`_passed`)."""
        rets: dict[str, set[object]] = defaultdict(set)
        other: set[str] = set()  # returns something else, yields, annotates its return
        bound: dict[str, set[str]] = defaultdict(set)  # names (re)bound in the function's body
        for mod, s in self.sums.items():
            for fl in s.flows:
                q = f"{mod}.{fl.scope}"
                if fl.op == "ret":
                    if not _inert(fl):
                        rets[q].add(fl.value)
                elif fl.op in ("rann", "yield", "yieldfrom"):
                    other.add(q)
                elif fl.op in ("=", "for", "with", "global", "nonlocal"):
                    # an annotation binds nothing (``x: T = v`` is an ``=`` flow too), and a
                    # parameter's annotation (``def wrap(cls: type[Base])``) is one such flow
                    bound_names(fl.target, bound[q])
        for q, values in rets.items():
            f = self.funcs.get(q)
            if f is None or q in other or q in self.gen_funcs or len(values) != 1:
                continue
            v = next(iter(values))
            if isinstance(v, tuple) and len(v) == 2 and v[0] == "n" and v[1] not in bound.get(q, ()) \
                    and any(p.name == v[1] and p.kind in ("pos", "kwonly") for p in f.params):
                self.returns_param[q] = v[1]

    def _passed(self, mod: str, scope: str, q: str, e: tuple, first: str | None,
                skip_first: bool) -> set[str] | frozenset[str] | None:
        """What a call of ``q`` returns when ``q`` returns a parameter as is: the values this
        call hands that parameter (``first``: the bound receiver); None when unknown here
        (a default, ``*args``/``**kw`` in the way), and the merged return key answers."""
        p = self.returns_param.get(q)
        if p is None:
            return None
        names = [x.name for x in self.funcs[q].params if x.kind == "pos"]
        if skip_first and names:
            if names[0] == p:
                return {first} if first else None
            names = names[1:]
        for i, a in enumerate(e[2]):
            if isinstance(a, tuple) and a and a[0] == "*":
                return None
            if i < len(names) and names[i] == p:
                return self.eval(mod, scope, a)
        for k, a in e[3]:
            if k == p:
                return self.eval(mod, scope, a)
            if k == "**":
                return None
        return None

    def _collect_option_paths(self) -> None:
        """``add_argument("--rollout-fn-path", default="pkg.mod.fn")``: reading ``.rollout_fn_path``
        off the parsed options gives that string, so a loader called with it returns ``pkg.mod.fn``."""
        for s in self.sums.values():
            for site in s.calls:
                e = site.expr
                if site.attr != "add_argument" or not isinstance(e, tuple) or e[0] != "c":
                    continue
                kw = {k: v for k, v in e[3] if isinstance(v, tuple) and v and v[0] == "k"}
                default = kw.get("default")
                if default is None or not isinstance(default[1], str) or not _DOTTED_PATH.match(default[1]):
                    continue
                dest = kw.get("dest")
                names = [dest[1]] if dest is not None and isinstance(dest[1], str) else [
                    a[1].lstrip("-").replace("-", "_") for a in e[2]
                    if isinstance(a, tuple) and a and a[0] == "k" and isinstance(a[1], str) and a[1].startswith("--")]
                for n in names:
                    self.option_paths[n].add(f"ks:{default[1]}")

    def _loaded(self, mod: str, scope: str, e: tuple, name: str) -> set[str]:
        """What a plugin loader called at ``e`` returns: the repo object its dotted-path
        argument names (``c:``/``i:`` for a class, ``f:`` for a function)."""
        is_loader = self.loader_names.get(name)
        if is_loader is None:  # memoised: every call evaluation of a function asks
            is_loader = self.loader_names[name] = bool(_LOADER.search(name.rsplit(".", 1)[-1]))
        if not is_loader or not e[2]:
            return set()
        out: set[str] = set()
        for v in self.eval(mod, scope, e[2][0]):
            if not v.startswith("ks:"):
                continue
            path = v[3:].replace(":", ".")
            if path in self.funcs:
                out.add(f"f:{path}")
            elif path in self.classes:
                out.add(("i:" if "instantiate" in name else "c:") + path)
        return out

    # ---- store -------------------------------------------------------------------
    # Writes are buffered and applied when a round of items ends (:meth:`_flush`, see run()):
    # a step reads the store as it was when the round began, so what it writes depends neither
    # on the order in which it walks a set of values nor on which items ran before it, and
    # neither does which values a capped key keeps.
    def _add(self, key: str, values) -> None:
        if not values:
            return
        if self.writing is not None:
            self.writing.add(key)
        cur = self.store.get(key)
        if cur is not None and len(cur) >= _MAX_VALUES:
            return  # a full key takes nothing more (see _flush)
        got = self.pending.get(key)
        if got is None:
            self.pending[key] = set(values)
        else:
            got.update(values)

    def _flush(self) -> None:
        store = self.store
        for cid, k in self.pending_ckeys:
            ks = self.ckeys[cid]
            if k not in ks:
                ks.add(k)
                self._touch(f"{cid}[]")
        self.pending_ckeys.clear()
        shared = self.shared
        for key, values in self.pending.items():
            cur = store.get(key)
            if cur is None:
                if len(values) > _MAX_VALUES:
                    kept = _keep(values, _MAX_VALUES)
                    if self.settled is not None:
                        self._dropped(key, values - kept)
                    values = kept
                got = frozenset(values)
            elif len(cur) < _MAX_VALUES:
                values -= cur
                if not values:
                    continue
                if len(cur) + len(values) > _MAX_VALUES:
                    kept = _keep(values, _MAX_VALUES - len(cur))
                    if self.settled is not None:
                        self._dropped(key, values - kept)
                    values = kept
                got = cur | values
                old = shared[cur]
                old[1] -= 1
                if not old[1]:
                    del shared[cur]
            else:
                continue
            # keys holding the same values share one frozenset: a parameter, the argument it
            # was handed and the list element it came from often hold the same set (on
            # transformers 100 k keys had 30 k distinct sets), and a frozen set can be handed
            # to readers without a copy
            entry = shared.get(got)
            if entry is None:
                entry = shared[got] = [got, 0]
            entry[1] += 1
            store[key] = entry[0]
            self._touch(key)
        self.pending = {}

    def _extra(self, key: str) -> None:
        """A read the worklist keeps no dependency for (a container's key set, walked once)."""
        if self.extra is None:
            self.extra = set()
        self.extra.add(key)

    def _dropped(self, key: str, values: set[str]) -> None:
        """Record the modules whose allocations a full key turned away (graphs/incremental.py:
        renaming a module's allocations may change which of its own values a key keeps)."""
        mods = self.capped_mods.setdefault(key, set())
        for v in values:
            j = v.find("@")
            if j > 0:
                mods.add(v[v.rfind(":", 0, j) + 1:j])

    def _implicit(self, mod: str, scope: str, line: int, via: str) -> set[str]:
        """The running step's targets of an implicit call (decorator, iteration, ``raise``)."""
        got = self.implicit.get((mod, scope, line, via))
        if got is None:
            got = self.implicit[(mod, scope, line, via)] = set()
        return got

    def _touch(self, key: str) -> None:
        """``key`` changed: re-queue the items that read it, drop MROs built from it."""
        self.changed = True
        if self.settled is not None:
            self.settled[key] = self.iteration
        items = self.deps.get(key)
        if items:
            queued = self.queued
            for i in items:
                if not queued[i]:
                    queued[i] = 1
                    self.queue.append(i)
        classes = self.key_mro.get(key)
        if classes:
            queued = self.queued
            for cq in classes:
                self.mro_cache.pop(cq, None)
                # the items that read this MRO as one key (see mro()): a class's MRO reads ~16 keys
                # on transformers, and each reader kept them all, 35 % of the 12.5 M dependencies
                for i in self.deps.get(_MRO_KEY + cq, ()):
                    if not queued[i]:
                        queued[i] = 1
                        self.queue.append(i)

    def _get(self, key: str) -> frozenset[str]:
        if self.reading is not None:
            self.reading.add(key)
        return self.store.get(key, _EMPTY)

    def lookup(self, mod: str, scope: str, name: str) -> str | None:
        """The key a name refers to in a scope (Python's LEGB, class bodies skipped)."""
        ck = (mod, scope, name)
        if ck in self.lookup_cache:
            return self.lookup_cache[ck]
        result: str | None = None
        s = scope
        first = True
        classes = self.class_scopes.get(mod, ())
        while True:
            if s == MODULE_SCOPE:
                if name in self.locals.get((mod, MODULE_SCOPE), ()):
                    result = f"{mod}.{name}"
                break
            if name in self.globals.get((mod, s), ()):
                result = f"{mod}.{name}" if name in self.locals.get((mod, MODULE_SCOPE), ()) else None
                break
            if (first or s not in classes) and name in self.locals.get((mod, s), ()):
                result = f"{mod}.{s}.{name}"
                break
            first = False
            s = s.rsplit(".", 1)[0] if "." in s else MODULE_SCOPE
        self.lookup_cache[ck] = result
        return result

    # ---- classes -------------------------------------------------------------------
    def mro(self, cq: str) -> list[str]:
        """Linearised bases: repo class qualnames, then ``x:name`` for external bases.

        Imprecise bases can make the hierarchy cyclic. An MRO computed inside a cycle that
        reaches a class further out is kept only until the outermost call returns: cached
        for good, it would depend on which class of the cycle was asked for first."""
        if self.watch is not None and cq in self.watch:
            self.hard = True  # a replay cannot redo an MRO whose answer depends on the cache's history
        got = self.mro_cache.get(cq)
        if got is None:
            kept = self.mro_partial.get(cq)
            if kept is not None:
                got, deps = kept
                if self.reading is not None:
                    self.reading |= deps
                return got
        elif self.reading is not None:
            if self.mro_open or self.settled is not None:
                self.reading |= self.mro_deps.get(cq, _EMPTY)
            else:
                self.reading.add(_MRO_KEY + cq)  # see _touch
            return got
        else:
            return got
        open_ = self.mro_open
        if cq in open_:  # a cycle: this class is being linearised further out
            self.mro_cycle = True  # the answer depends on which class was asked first
            self.cycles += 1
            self.cyclic.add(cq)
            self.mro_low = min(self.mro_low, open_[cq])
            return [cq]
        depth = len(open_)
        open_[cq] = depth
        cycles = self.cycles
        low_outside, self.mro_low = self.mro_low, depth
        outer = self.reading
        self.reading = set()
        seqs: list[list[str]] = []
        direct: list[str] = []
        be = self.base_exprs.get(cq)
        if be is not None:
            mod, scope, exprs = be
            for e in exprs:  # type: ignore[union-attr]
                for v in sorted(self.eval(mod, scope, e)):  # a base bound two ways: one order on every run
                    if v.startswith("c:") and v[2:] != cq:
                        direct.append(v[2:])
                        seqs.append(self.mro(v[2:]))
                    elif v.startswith("x:") and v[2:] not in _MARKER_BASES and not v.startswith("x:typing."):
                        direct.append(v)
                        seqs.append([v])
        seqs.append(direct)
        if self.cycles != cycles or any(c in self.cyclic for c in direct):
            self.cyclic.add(cq)  # its answer depends on which classes of a cycle were cached first
        out = [cq] + [c for c in _c3(seqs) if c != cq]
        deps = self.reading
        del open_[cq]
        if self.mro_low < depth:
            self.mro_partial[cq] = (out, deps)
        else:
            self.mro_cache[cq] = out
            self.mro_deps[cq] = deps
            for k in deps:
                self.key_mro[k].add(cq)
        self.mro_low = min(low_outside, self.mro_low)
        if not open_:
            self.mro_partial.clear()
            self.mro_low = 1 << 30
        if outer is not None:
            if not open_ and self.settled is None and cq in self.mro_cache:
                outer.add(_MRO_KEY + cq)  # the step's read: the same key whether computed or cached
            else:
                outer |= deps
        self.reading = outer
        return out

    def class_attr(self, cq: str, attr: str, inst: str | None, start_after: str | None = None) -> set[str]:
        """Values of ``attr`` looked up on class ``cq`` (an instance of it if ``inst``)."""
        order = self.mro(cq)
        if start_after is not None:
            try:
                order = order[order.index(start_after) + 1:]
            except ValueError:
                order = order[1:]
        for c in order:
            if c.startswith("x:"):
                return {f"x:{c[2:]}.{attr}"}
            vals = self._get(f"{c}.{attr}")
            if vals:
                out = set()
                for v in vals:
                    if v.startswith("f:"):
                        q = v[2:]
                        kind = self.method_kind.get(q)
                        if kind == "inst" and inst is not None and q in self.getters:
                            out |= self.returns(q)  # ``obj.prop`` is what the getter returns
                        elif kind == "inst" and inst is not None:
                            out.add(f"b:{q}|{inst}")
                        elif kind == "class":
                            out.add(f"b:{q}|{cq}")
                        else:
                            out.add(v)
                    else:
                        out.add(v)
                return out
        return set()

    # ---- evaluation ----------------------------------------------------------------
    def eval(self, mod: str, scope: str, e: object) -> set[str] | frozenset[str]:
        if not isinstance(e, tuple) or not e:
            return _EMPTY
        op = e[0]
        if op == "n":
            key = self.lookup(mod, scope, e[1])
            if key is not None:
                return self._get(key)
            if e[1] in BUILTINS:
                return {f"B:{e[1]}"}
            return _EMPTY
        if op == "a":
            base = self.eval(mod, scope, e[1])
            paths = self.option_paths.get(e[2]) if self.option_paths else None
            if not base:
                return paths or _EMPTY
            out: set[str] = set()
            for v in base:
                out |= self.getattr(v, e[2])
            if paths and not any(v[:2] == "i:" for v in base):  # parsed options: not an object of the repo
                out |= paths
            return out
        if op == "c":
            callees = self.eval(mod, scope, e[1])
            if not callees:
                return _EMPTY
            out = set()
            for v in callees:
                out |= self.call(mod, scope, v, e, bind=False)[1]
            return out
        if op == "s":
            base = self.eval(mod, scope, e[1])
            if not base:
                return _EMPTY
            if e[2][:1] == ("sl",):
                return self._slice(mod, base, e[2])
            keys = self._keys(mod, scope, e[2])
            out = set()
            for v in base:
                if v[:2] in ("d:", "l:"):
                    out |= self._read(v[2:], keys)
            return out
        if op == "k":  # strings and ints flow (container keys, dispatch by name); other constants add nothing
            v = e[1]
            if isinstance(v, str):
                return {f"ks:{v}"}
            return {f"ki:{v}"} if isinstance(v, int) and not isinstance(v, bool) else _EMPTY
        if op == "fn":
            return {f"f:{mod}.{e[1]}"}
        if op == "cls":
            return {f"c:{mod}.{e[1]}"}
        if op == "d":
            cid = f"{mod}@{e[1]}"
            for k, v in e[2]:
                if k == "**":
                    for c in self.eval(mod, scope, v):
                        if c[:2] == "d:":
                            if self.settled is not None:
                                self._extra(f"{c[2:]}[]")
                            for kk in list(self.ckeys.get(c[2:], ())):
                                self._write(cid, kk, self._get(f"{c[2:]}[{kk}]"))
                    continue
                vals = self.eval(mod, scope, v)
                if vals:
                    keys = self._keys(mod, scope, k) or ["*"]
                    for kk in keys:
                        self._write(cid, kk, vals)
            return {f"d:{cid}"}
        if op == "l":
            cid = f"{mod}@{e[1]}"
            for i, item in enumerate(e[2]):
                if isinstance(item, tuple) and item and item[0] == "*":
                    self._write(cid, "*", self.iterate(mod, scope, self.eval(mod, scope, item[1])))
                else:
                    vals = self.eval(mod, scope, item)
                    if vals:
                        self._write(cid, f"ki:{i}", vals)
            return {f"l:{cid}"}
        if op == "u":
            out = set()
            for alt in e[1]:
                out |= self.eval(mod, scope, alt)
            return out
        if op == "imp":
            return self._eval_import(e)
        if op == "v":  # values already computed (decorator chains)
            return e[1]
        return _EMPTY

    def _eval_import(self, e: tuple) -> set[str] | frozenset[str]:
        absmod, name = e[1], e[2]
        if name is None:
            return {f"m:{absmod}"} if absmod in self.sums else {f"x:{absmod}"}
        sub = f"{absmod}.{name}"
        if absmod in self.sums:
            out = self._get(sub)
            return out | {f"m:{sub}"} if sub in self.sums else out
        if sub in self.sums:
            return {f"m:{sub}"}
        return {f"x:{sub}"}

    def _keys(self, mod: str, scope: str, k: object) -> list[str]:
        """Container keys a subscript/dict key expression may take ([] = unknown)."""
        if isinstance(k, tuple) and k and k[0] == "k":
            return [_const(k[1])]
        return [v for v in self.eval(mod, scope, k) if v[:1] == "k"]

    def _slice(self, mod: str, base, sl: tuple) -> set[str]:
        """``x[a:b:c]`` of lists: a new list whose indices are shifted when the bounds are
        literal ints (``ls[1:][0]`` is ``ls[1]``), every element at an unknown index otherwise."""
        _, lo, hi, step = sl
        exact = isinstance(lo, (int, type(None))) and isinstance(hi, (int, type(None))) and step in (None, 1)
        exact = exact and (lo or 0) >= 0 and (hi is None or hi >= 0)
        out: set[str] = set()
        for v in sorted(base):
            if v[:2] != "l:":
                continue
            cid = v[2:]
            new = f"{cid}@{lo}:{hi}:{step}"
            self._get(f"{cid}[]")  # re-run when the list gains an index
            for k in sorted(self.ckeys.get(cid, ())):
                vals = self._get(f"{cid}[{k}]")
                if exact and k.startswith("ki:"):
                    n = int(k[3:]) - (lo or 0)
                    if n >= 0 and (hi is None or n < hi - (lo or 0)):
                        self._write(new, f"ki:{n}", vals)
                else:
                    self._write(new, "*", vals)
            out.add(f"l:{new}")
        return out

    def _write(self, cid: str, k: str, vals) -> None:
        if not vals:
            return
        if self.writing is not None:
            self.writing.add(f"{cid}[]")
        if k not in self.ckeys.get(cid, _EMPTY):
            self.pending_ckeys.append((cid, k))
        self._add(f"{cid}[{k}]", vals)
        self._add(f"{cid}[#]", vals)  # every element, for reads with an unknown key

    def _read(self, cid: str, keys: list[str]) -> set[str] | frozenset[str]:
        """The elements of container ``cid`` under ``keys``; every element when no key is known.

        A known key the container never got reads as nothing, not as every element: that
        fallback was taken back by a later write of the key but what it wrote stayed, so the
        answer depended on the order items ran in (``tests/test_resolve_order.py``)."""
        if not keys:
            return self._get(f"{cid}[#]")
        if self.reading is not None:
            self.reading.add(f"{cid}[]")
        out: set[str] = set()
        have = self.ckeys.get(cid)
        if have:
            for k in (*keys, "*"):
                if k in have:
                    out |= self._get(f"{cid}[{k}]")
        return out

    def getattr(self, v: str, attr: str) -> set[str] | frozenset[str]:
        tag = v[: v.index(":") + 1]
        if tag in ("x:", "xi:", "B:", "ks:"):  # depends on nothing in the store: memoised
            key = (v, attr)
            got = self.attr_memo.get(key)
            if got is None:
                name = v[v.index(":") + 1:]
                parts = name.split(".")
                # a repeated attribute (``cfg = cfg.sub`` in a loop) is looked for after the class
                # name, not in its module path (``engine`` of ``vllm.engine.X.AsyncEngine``)
                caps = [i for i, p in enumerate(parts) if p[:1].isupper()]
                tail = parts[caps[-1] + 1:] if caps else parts
                if len(parts) >= 8 or attr in tail[-3:]:
                    got = _EMPTY  # `cfg = cfg.sub` in a loop would otherwise grow names forever
                elif tag == "x:" or tag == "xi:":
                    got = frozenset((f"x:{name}.{attr}",))
                elif tag == "B:":
                    obj = getattr(builtins, parts[0], None) if len(parts) == 1 else None
                    got = frozenset((f"B:{name}.{attr}",)) if obj is not None and hasattr(obj, attr) else _EMPTY
                else:
                    got = frozenset((f"B:str.{attr}",)) if hasattr(str, attr) else _EMPTY
                self.attr_memo[key] = got
            return got
        if tag == RUNTIME_MODULE:  # a plugin file loaded from a computed path: its top-level names
            if self.top_names is None:
                scripts = script_modules({m: s.main_guard_line for m, s in self.sums.items()})
                self.top_names = top_level_names(self.funcs, self.symbols.classes, self.func_mod, scripts)
            return self.top_names.get(attr, _EMPTY)
        if tag == "m:":
            sub = f"{v[2:]}.{attr}"
            got = self._get(sub)
            return got | {f"m:{sub}"} if sub in self.sums else got
        if tag == "i:" or tag == "c:":
            cq = v[2:]
            if tag == "c:" and attr == "__subclasses__":
                return {f"sbc:{cq}"}  # a registry built from a base's subclasses (pattern Q)
            out = self.class_attr(cq, attr, cq if tag == "i:" else None)
            if not out and attr in ("remote", "options"):
                return {f"{'rem' if attr == 'remote' else 'opt'}:{v}"}
            return out
        if tag == "x:":
            return {f"x:{v[2:]}.{attr}"}
        if tag == "xi:":
            return {f"x:{v[3:]}.{attr}"}
        if tag in ("f:", "b:"):
            if attr == "remote":
                return {f"rem:{v}"}
            if attr == "options":
                return {f"opt:{v}"}
            return set()
        if tag == "sup:":
            c, _, d = v[4:].partition("|")
            return self.class_attr(d, attr, d, start_after=c)
        if tag == "B:":
            return {f"B:{v[2:]}.{attr}"}
        if tag == "ks:":
            return {f"B:str.{attr}"}
        if tag in ("d:", "l:"):
            return {f"cm:{v}|{attr}"}
        return set()

    def iterate(self, mod: str, scope: str, vals) -> set[str]:
        """Values produced by iterating over ``vals``."""
        out: set[str] = set()
        for v in vals:
            if v[:2] in ("d:", "l:"):
                out |= self._read(v[2:], [])
            elif v.startswith("i:"):
                for it in self.class_attr(v[2:], "__iter__", v[2:]):
                    targets, results = self.call(mod, scope, it, ("c", None, (), ()), bind=True)
                    self._implicit(mod, scope, self.cur_line, "iter").update(t for t, _ in targets)
                    for r in results:
                        if r.startswith("i:"):
                            for nx_ in self.class_attr(r[2:], "__next__", r[2:]):
                                targets, res2 = self.call(mod, scope, nx_, ("c", None, (), ()), bind=True)
                                self._implicit(mod, scope, self.cur_line, "iter").update(t for t, _ in targets)
                                out |= res2
                        else:
                            out |= self.iterate(mod, scope, (r,)) if r[:2] in ("d:", "l:") else set()
        return out

    def _context_calls(self, mod: str, scope: str, vals, aio: bool) -> set[str]:
        """A ``with`` (``async with``) statement on ``vals``: implicit calls of the class's
        ``__enter__``/``__exit__`` (``__aenter__``/``__aexit__``), the same targets a method call on the
        object would have (its class known: exact); returns what the enter method gives back."""
        out: set[str] = set()
        names = ("__aenter__", "__aexit__") if aio else ("__enter__", "__exit__")
        for v in sorted(vals):
            if not v.startswith("i:"):
                continue
            for attr in names:
                for m in self.class_attr(v[2:], attr, v[2:]):
                    if not m.startswith(("b:", "f:")):
                        continue
                    targets, res = self.call(mod, scope, m, ("c", None, (), ()), bind=True)
                    self._implicit(mod, scope, self.cur_line, "with").update(t for t, _ in targets)
                    if attr == names[0]:
                        out |= res
        return out

    # ---- calls ----------------------------------------------------------------------
    def returns(self, q: str) -> set[str] | frozenset[str]:
        if q in self.gen_funcs:
            return {f"l:gen:{q}"}
        return self._get(f"{q}.<ret>")

    def _bind(self, mod: str, scope: str, q: str, e: tuple, skip_first: bool, first: str | None) -> None:
        plan = self.param_plans.get(q)
        if plan is None:
            f = self.funcs.get(q)
            if f is None:
                return
            # keys of the positional parameters, the *args key, the keyword names
            plan = self.param_plans[q] = (
                [f"{q}.{p.name}" for p in f.params if p.kind == "pos"],
                next((f"{q}.{p.name}" for p in f.params if p.kind == "vararg"), None),
                frozenset(p.name for p in f.params),
            )
        pos, vararg, names = plan
        i = 0
        if skip_first and pos:
            if first is not None:
                self._add(pos[0], (first,))
            pos = pos[1:]
        for a in e[2]:
            if isinstance(a, tuple) and a and a[0] == "*":
                vals = self.iterate(mod, scope, self.eval(mod, scope, a[1]))
                for key in pos[i:]:
                    self._add(key, vals)
                continue
            vals = self.eval(mod, scope, a)
            if i < len(pos):
                self._add(pos[i], vals)
            elif vararg is not None and vals:
                self._write(vararg, "*", vals)
                self._add(vararg, {f"l:{vararg}"})
            i += 1
        for k, a in e[3]:
            if k != "**" and k in names:
                self._add(f"{q}.{k}", self.eval(mod, scope, a))

    def call(self, mod: str, scope: str, v: str, e: tuple, bind: bool) -> tuple[list[tuple[str, str]], set[str] | frozenset[str]]:
        """Calling value ``v`` at call expression ``e``: ([(target, via)], result values)."""
        tag = v[: v.index(":") + 1]
        if tag == "f:":
            q = v[2:]
            if bind:
                self._bind(mod, scope, q, e, False, None)
            res = self._passed(mod, scope, q, e, None, False)
            if res is None:
                res = self.returns(q)  # read-only, like every value set the store hands out
            if e[2]:
                loaded = self._loaded(mod, scope, e, q)
                if loaded:
                    res = res | loaded
            return [(q, "call")], res
        if tag == "b:":
            q, _, c = v[2:].partition("|")
            first = ("c:" if self.method_kind.get(q) == "class" else "i:") + c if c else None
            if bind:
                self._bind(mod, scope, q, e, True, first)
            res = self._passed(mod, scope, q, e, first, True)
            return [(q, "call")], self.returns(q) if res is None else res
        if tag == "c:":
            cq = v[2:]
            targets: list[tuple[str, str]] = []
            for init in self.class_attr(cq, "__init__", cq):
                if init.startswith("b:"):
                    q = init[2:].partition("|")[0]
                    if bind:
                        self._bind(mod, scope, q, e, True, f"i:{cq}")
                    targets.append((q, "ctor"))
                elif init.startswith("x:"):
                    targets.append((init[2:], "ctor"))
            if not targets:
                targets.append((cq, "ctor"))
            return targets, {f"i:{cq}"}
        if tag == "i:":
            out_t: list[tuple[str, str]] = []
            res: set[str] = set()
            for c in self.class_attr(v[2:], "__call__", v[2:]):
                t, r = self.call(mod, scope, c, e, bind)
                out_t += t
                res |= r
            return out_t, res
        if tag == "x:":
            name = v[2:]
            last = name.rsplit(".", 1)[-1]
            if last == "wraps" or name in _DECORATOR_FACTORIES:  # a decorator that returns what it decorates
                return [(name, "call")], {"rdec:"}
            if name in _PASSTHROUGH or last == "partial":
                if name == "typing.cast" and len(e[2]) > 1:  # ``cast(T, value)`` returns its second argument
                    return [(name, "call")], set(self.eval(mod, scope, e[2][1]))
                if e[2]:
                    first_arg = e[2][0]
                    if not (isinstance(first_arg, tuple) and first_arg and first_arg[0] == "*"):
                        return [(name, "call")], set(self.eval(mod, scope, first_arg))
                if name == "ray.remote":
                    return [(name, "call")], {"rdec:"}
                return [(name, "call")], set()
            if name in PATH_LOADERS or (name in NAME_LOADERS and e[2] and not any(
                    v.startswith("ks:") for v in self.eval(mod, scope, e[2][0]))):
                return [(name, "call")], {RUNTIME_MODULE}
            loaded = self._loaded(mod, scope, e, name)
            if loaded:
                return [(name, "call")], loaded
            return [(name, "call")], ({f"xi:{name}"} if last[:1].isupper() else set())
        if tag == "xi:":
            return [(f"{v[3:]}.__call__", "call")], set()
        if tag == "B:":
            return self._call_builtin(mod, scope, v[2:], e, bind)
        if tag == "rem:":
            inner = v[4:]
            t, r = self.call(mod, scope, inner, e, bind)
            return [(x, "ray") for x, _ in t], r
        if tag == "opt:":
            return [], {v[4:]}
        if tag == "rdec:":
            return [], (set(self.eval(mod, scope, e[2][0])) if e[2] else set())
        if tag == "cm:":
            return self._call_container(mod, scope, v[3:], e)
        if tag == "sbc:":
            return [], self._subclasses(v[4:])
        return [], set()

    def _subclasses(self, cq: str) -> set[str]:
        """``Base.__subclasses__()``: a list of the repo classes below ``Base`` (at any depth: registries
        that walk the tree and those that take one level are both after the concrete classes)."""
        cid = f"{cq}.<subclasses>"
        self.hard = True  # written once, by whichever items asked first: history a replay cannot redo
        if cid not in self.ckeys:
            subs = {f"c:{c}" for c in sorted(self.classes) if c != cq and cq in self.mro(c)}
            self._write(cid, "*", subs)
        return {f"l:{cid}"}

    def _call_builtin(self, mod: str, scope: str, name: str, e: tuple, bind: bool) -> tuple[list, set[str]]:
        targets: list[tuple[str, str]] = [(f"<builtin>.{name}", "call")]
        res: set[str] = set()
        args = [a for a in e[2] if not (isinstance(a, tuple) and a and a[0] == "*")]
        if name == "super":
            cls = self.symbols.class_of_scope(mod, scope)
            if cls is not None:
                f = self.funcs.get(f"{mod}.{scope}")
                selfs = self._get(f"{mod}.{scope}.{f.params[0].name}") if f is not None and f.params else _EMPTY
                insts = {s[2:] for s in selfs if s[:2] in ("i:", "c:")} or {cls}
                res = {f"sup:{cls}|{d}" for d in insts}
            return targets, res
        if name == "getattr" and len(args) >= 2:
            names = [v[3:] for v in self.eval(mod, scope, args[1]) if v.startswith("ks:")]
            if names:
                objs = self.eval(mod, scope, args[0])
                for attr in names:
                    for o in objs:
                        res |= self.getattr(o, attr)
            return targets, res
        if name in ("map", "filter", "sorted", "min", "max") or name == "functools.reduce":
            # what gets called: a function handed to map/filter/reduce (any position), min/max/sorted's key=
            fns = [a for k, a in e[3] if k == "key"] + (args if name in ("map", "filter", "functools.reduce") else [])
            cid = f"{mod}@map.{scope}.{self.cur_line}"  # not id(e): the same name on every run
            self.line_used = True
            for a in fns:
                for fv in sorted(self.eval(mod, scope, a)):
                    if fv[:2] in ("f:", "b:", "c:"):
                        t, r = self.call(mod, scope, fv, ("c", None, (), ()), bind)
                        targets += t
                        if name == "map":
                            self._write(cid, "*", r)
            if name == "map":
                return targets, {f"l:{cid}"}
        if name in ("zip", "enumerate") and args:
            return targets, self._tuples(mod, scope, name, args)
        if name in _ITER_BUILTINS and args:
            vals = self.eval(mod, scope, args[0])
            return targets, (self.iterate(mod, scope, vals) if name == "next" else set(vals))
        if name in ("str.format", "str.join") or name.startswith("str."):
            return targets, set()
        return targets, res

    def _tuples(self, mod: str, scope: str, name: str, args: list) -> set[str]:
        """``zip(a, b)`` / ``enumerate(a)``: a list of tuples holding the elements of each argument.

        Without it ``for h, x in zip(handles, chunks)`` bound nothing to ``h`` (the handles'
        elements are objects, not tuples), and a fan-out over actor handles had no target.
        """
        tid = f"{mod}@{name}t.{scope}.{self.cur_line}"
        lid = f"{mod}@{name}.{scope}.{self.cur_line}"
        self.line_used = True
        cols = [self.iterate(mod, scope, self.eval(mod, scope, a)) for a in args]
        if name == "enumerate":
            cols = [set(), cols[0]]
        for i, vals in enumerate(cols):
            self._write(tid, f"ki:{i}", vals)
        self._write(lid, "*", {f"l:{tid}"})
        return {f"l:{lid}"}

    def _call_container(self, mod: str, scope: str, spec: str, e: tuple) -> tuple[list, set[str]]:
        cont, _, meth = spec.rpartition("|")
        kind = "dict" if cont.startswith("d:") else "list"
        cid = cont[2:]
        if not hasattr(dict if kind == "dict" else list, meth):
            return [], set()  # not a method of the container: the value was not (only) this container
        targets = [(f"<builtin>.{kind}.{meth}", "call")]
        pos = _CONTAINER_WRITE.get(meth)
        args = e[2]
        if pos is not None and args:
            if pos >= 0 and pos < len(args):
                keys = (self._keys(mod, scope, args[0]) if meth == "setdefault" else None) or ["*"]
                vals = self.eval(mod, scope, args[pos])
                for key in keys:
                    self._write(cid, key, vals)
            elif pos == -1:
                self._write(cid, "*", self.iterate(mod, scope, self.eval(mod, scope, args[0])))
            elif pos == -2:
                for c in self.eval(mod, scope, args[0]):
                    if c[:2] == "d:":
                        if self.settled is not None:
                            self._extra(f"{c[2:]}[]")
                        for kk in list(self.ckeys.get(c[2:], ())):
                            self._write(cid, kk, self._get(f"{c[2:]}[{kk}]"))
            if meth == "setdefault":
                return targets, self._read(cid, [])
            return targets, set()
        if meth in _CONTAINER_READ:
            if meth in ("values", "items", "copy", "keys"):
                return targets, {cont}
            keys = self._keys(mod, scope, args[0]) if args and meth == "get" else []
            return targets, self._read(cid, keys)
        return targets, set()

    # ---- assignment -----------------------------------------------------------------
    def assign(self, mod: str, scope: str, t: object, vals) -> None:
        if not isinstance(t, tuple) or not t or not vals:
            return
        op = t[0]
        if op == "n":
            key = self.lookup(mod, scope, t[1])
            if key is not None:
                self._add(key, vals)
        elif op == "a":
            for b in self.eval(mod, scope, t[1]):
                if b[:2] in ("i:", "c:"):
                    self.class_attrs.setdefault(b[2:], set()).add(t[2])
                    self._add(f"{b[2:]}.{t[2]}", vals)
                elif b[:2] == "m:":
                    self._add(f"{b[2:]}.{t[2]}", vals)
        elif op == "s":
            keys = self._keys(mod, scope, t[2]) or ["*"]
            for b in self.eval(mod, scope, t[1]):
                if b[:2] in ("d:", "l:"):
                    for k in keys:
                        self._write(b[2:], k, vals)
        elif op == "l":
            items = t[2]
            conts = [v for v in vals if v[:2] in ("d:", "l:")]
            for i, item in enumerate(items):
                if isinstance(item, tuple) and item and item[0] == "*":
                    sub: set[str] = set()
                    for c in conts:
                        sub |= self._read(c[2:], [])
                    cid = f"{mod}@star.{self.cur_line}.{i}"
                    self.line_used = True
                    self._write(cid, "*", sub)
                    self.assign(mod, scope, item[1], {f"l:{cid}"} if sub else sub)
                    continue
                sub = set()
                for c in conts:
                    sub |= self._read(c[2:], [f"ki:{i}"])
                self.assign(mod, scope, item, sub)

    def instance_of(self, vals) -> set[str]:
        out = set()
        for v in vals:
            if v.startswith("c:"):
                out.add(f"i:{v[2:]}")
            elif v.startswith("x:") and not v.startswith(("x:typing.", "x:typing_extensions.")):
                out.add(f"xi:{v[2:]}")
        return out

    # ---- driving -----------------------------------------------------------------------
    def step_flow(self, mod: str, fl) -> None:
        op = fl.op
        scope = fl.scope
        self.cur_line = fl.line
        if op == "=" or op == "imp":
            self.assign(mod, scope, fl.target, self.eval(mod, scope, fl.value))
        elif op == "for":
            self.assign(mod, scope, fl.target, self.iterate(mod, scope, self.eval(mod, scope, fl.value)))
        elif op == "with":
            vals = self.eval(mod, scope, fl.value)
            out = set(vals)
            for v in vals:
                if v.startswith("i:"):
                    for ent in self.class_attr(v[2:], "__enter__", v[2:]):
                        out |= self.call(mod, scope, ent, ("c", None, (), ()), bind=True)[1]
            self.assign(mod, scope, fl.target, out)
        elif op == "enter" or op == "aenter":
            got = self._context_calls(mod, scope, self.eval(mod, scope, fl.value), op == "aenter")
            if fl.target is not None:
                self.assign(mod, scope, fl.target, got)
        elif op == "ann":
            self.assign(mod, scope, fl.target, self.instance_of(self.eval(mod, scope, fl.value)))
        elif op == "ret":
            self._add(f"{mod}.{scope}.<ret>", self.eval(mod, scope, fl.value))
        elif op == "rann":
            self._add(f"{mod}.{scope}.<ret>", self.instance_of(self.eval(mod, scope, fl.value)))
        elif op == "raise":
            for v in self.eval(mod, scope, fl.value):
                if v.startswith("c:"):
                    self._implicit(mod, scope, fl.line, "ctor").update(t for t, _ in self.call(mod, scope, v, ("c", None, (), ()), bind=True)[0])
        elif op == "yield":
            self._write(f"gen:{mod}.{scope}", "*", self.eval(mod, scope, fl.value))
        elif op == "yieldfrom":
            self._write(f"gen:{mod}.{scope}", "*", self.iterate(mod, scope, self.eval(mod, scope, fl.value)))
        elif op == "param":
            q, p = fl.target
            self._add(f"{mod}.{q}.{p}", self.eval(mod, scope, fl.value))
        elif op == "def":
            _, base, decs = fl.value
            vals = set(self.eval(mod, scope, base))
            for dec in reversed(decs):
                new: set[str] = set()
                for dv in self.eval(mod, scope, dec):
                    if dv[:2] in ("f:", "b:", "i:", "c:") or dv.startswith("rdec:"):
                        targets, res = self.call(mod, scope, dv, ("c", None, (("v", frozenset(vals)),), ()), bind=True)
                        self._implicit(mod, scope, fl.line, "decorator").update(t for t, _ in targets)
                        new |= self._unwrap(targets, res, vals)
                    elif dv.startswith("x:") or dv.startswith("xi:"):
                        self._implicit(mod, scope, fl.line, "decorator").add(dv[2:] if dv[1] == ":" else dv[3:])
                if new:
                    vals = new  # the wrapper replaces the function (its body calls the original)
            key = self.lookup(mod, scope, fl.target)
            if key is not None:
                self._add(key, vals)

    def _unwrap(self, targets: list[tuple[str, str]], res, vals) -> set[str]:
        """What a decorator gives back, with its forwarding wrappers replaced by the original.

        A wrapper closure defined inside the decorator that calls the decorator's parameter
        (``def inner(*a, **k): return fn(*a, **k)``) only forwards: binding the decorated name to
        it would merge every decorated function of the repo into one spread of targets (the
        closure's ``fn`` holds them all), so the name keeps the original function instead. The
        same holds when the decorator hands the function to a wrapper factory
        (``def deco(fn): return make_wrapper(fn, fn.__name__)``): the closure the factory returns
        forwards to the factory's own parameter.
        """
        out: set[str] = set()
        decorators = [t for t, _ in targets if t in self.funcs]
        for v in res:
            q = v[2:] if v[:2] == "f:" else None
            factory = q.rsplit(".", 1)[0] if q is not None and "." in q else ""
            if q is not None and (any(q.startswith(d + ".") and self._forwards(q, d) for d in decorators)
                                  or (decorators and factory in self.funcs and self._forwards(q, factory))):
                out |= vals
            else:
                out.add(v)
        return out

    def _forwards(self, wrapper: str, decorator: str) -> bool:
        """Whether ``wrapper`` (nested in ``decorator``) calls one of the decorator's parameters."""
        dec = self.funcs.get(decorator)
        if dec is None or not dec.params:
            return False
        names = {p.name for p in dec.params}
        return bool(names & self.called_names.get(wrapper, _EMPTY))

    def step_call(self, mod: str, site: CallSite) -> None:
        self.cur_line = site.line
        e = site.expr
        if not isinstance(e, tuple) or e[0] != "c":
            return
        callees = self.eval(mod, site.scope, e[1])
        # whatever the callee resolves to: binding only while every callee was a library
        # made what a step wrote depend on how far the callee had been resolved
        self._bind_callback(mod, site.scope, e)
        for v in sorted(callees) if len(callees) > 1 else callees:  # sorted: see run()
            tag = v[:2]
            if tag == "x:" or tag == "xi" or (tag == "B:" and v[2:] not in _BINDING_BUILTINS):
                continue  # calling a library binds nothing in the repo
            self.call(mod, site.scope, v, e, bind=True)

    def _bind_callback(self, mod: str, scope: str, e: tuple) -> None:
        """A library call that runs a repo function later binds the arguments it is handed for it.

        ``Process(target=f, args=(q,))``, ``Thread(target=f, kwargs={...})``, ``pool.submit(f, q)``,
        ``loop.run_in_executor(ex, f, q)``, ``asyncio.to_thread(f, q)``: without this the worker's
        parameters stayed untyped, so a queue handed to a worker process was no queue inside it.
        """
        fe = e[1]
        name = fe[2] if isinstance(fe, tuple) and fe and fe[0] == "a" else \
            fe[1] if isinstance(fe, tuple) and fe and fe[0] == "n" else ""
        if name not in _CALLBACK_AT and not any(k == "target" for k, _ in e[3]):
            return
        kw = dict((k, a) for k, a in e[3] if k != "**")
        if "target" in kw:
            fn = kw["target"]
            a = kw.get("args")
            pos = tuple(a[2]) if isinstance(a, tuple) and a and a[0] == "l" else ()
            d = kw.get("kwargs")
            named = tuple((k[1], v) for k, v in d[2] if isinstance(k, tuple) and k and k[0] == "k"
                          and isinstance(k[1], str)) if isinstance(d, tuple) and d and d[0] == "d" else ()
        else:
            at = _CALLBACK_AT.get(name)
            if at is None or len(e[2]) <= at:
                return
            fn, pos, named = e[2][at], tuple(e[2][at + 1:]), tuple((k, a) for k, a in e[3] if k != "**")
            if name == "apply_async":
                a = kw.get("args")
                pos = tuple(a[2]) if isinstance(a, tuple) and a and a[0] == "l" else ()
                named = ()
        if not pos and not named:
            return
        synthetic = ("c", None, pos, named)
        for fv in sorted(self.eval(mod, scope, fn)):
            if fv[:2] in ("f:", "b:"):
                self.call(mod, scope, fv, synthetic, bind=True)

    def build_items(self) -> None:
        """The items (flows, then call sites) in the order the fixed point runs them, each with
        its stratum and its stable number (:func:`gid`)."""
        if self.items:
            return
        # definitions and imports first, so most names are bound before they are read
        # (decorated definitions after the returns that decide what their decorators give back)
        def rank(fl) -> int:
            if fl.op in ("imp", "base") or (fl.op == "def" and not fl.value[2]):
                return 0
            return 1 if fl.op in ("ret", "rann") else 2
        order = sorted(range(len(self.flows)), key=lambda i: rank(self.flows[i][1]))
        self.module_order = mods = {m: i for i, m in enumerate(sorted(self.sums))}
        self.items = [(True, *self.flows[i]) for i in order]
        self.strata = bytearray(rank(self.flows[i][1]) for i in order)
        self.item_gid = [gid(mods[self.flows[i][0]], False, self.flow_pos[i]) for i in order]
        for mod, s in self.sums.items():
            m = mods[mod]
            self.items += [(False, mod, c) for c in s.calls]
            self.item_gid += [gid(m, True, j) for j in range(len(s.calls))]
        self.strata += bytearray(b"\x03" * (len(self.items) - len(self.strata)))

    def run(self, record: bool = False) -> int:
        """Propagate to a fixed point with a worklist; returns the number of item runs.

        ``record``: keep what an incremental run after an edit needs (graphs/incremental.py)."""
        self.build_items()
        n = len(self.items)
        if record:
            self.settled = {}
            self.item_runs = array("I", bytes(4 * n))
            self.item_flags = bytearray(n)
        done = self.propagate(range(n), record)
        self.finish()
        if record:
            self.cyclic_cache = {c: (list(self.mro_cache[c]), frozenset(self.mro_deps.get(c, ())))
                                 for c in sorted(self.cyclic) if c in self.mro_cache}
        return done

    def propagate(self, initial, record: bool = False, guard=None) -> int:
        """Run the queued items to a fixed point, ``initial`` queued first; ``guard(i, t, reads,
        writes)`` sees every item run (a replay's checks, graphs/incremental.py)."""
        items, strata = self.items, self.strata
        n = len(items)
        # Batches: the items of one stratum (imports and plain definitions, returns, the other
        # flows, call sites) queued so far run together, every one on the store as the batch
        # found it, and their writes are applied together when the batch ends (Jacobi within a
        # batch, the strata in turn). The store after a batch is then a function of the store
        # before it and of the set of items in the batch, never of the order they run in (the
        # input order of files and flows, set iteration under a string-hash seed): which values
        # a key capped at _MAX_VALUES keeps, and what a step that is not monotone (a read that
        # falls back to every element, the first class of an MRO holding an attribute) wrote on
        # a partial store, are the same in every order. Flushing after each item made about
        # 1 % of verl's call facts move with the order (docs/bench/editloop.md).
        self.queue = deque()
        self.queued = bytearray(n)
        buckets: list[list[int]] = [[], [], [], []]
        for i in initial:
            self.queued[i] = 1
            buckets[strata[i]].append(i)
        budget = n * _MAX_ROUNDS
        done = 0
        deps = self.deps
        # Side outputs (implicit calls, attributes assigned on instances) are those of each
        # item's latest run, not a union over its runs: an item runs again whenever a key it
        # read changes, so its latest run read the final store, and what it reports does not
        # depend on what the store held when it first ran (an early run on a partial store
        # named a decorator's or an iterator's target that the final store no longer gives).
        implicit, attrs = self.item_implicit, self.item_attrs
        writes, runs, flags = self.item_writes, self.item_runs, self.item_flags
        batches = 0
        t = 0  # loop iteration: stratum t % 4 (empty batches count, so the clock is the items')
        while any(buckets) and done < budget:  # the budget is checked between batches only
            self.iteration = t
            stratum = t % 4
            batch = sorted(buckets[stratum])
            buckets[stratum] = []
            if batch:
                batches += 1
            for i in batch:
                self.queued[i] = 0
                done += 1
                is_flow, mod, obj = items[i]
                self.reading = reading = set()
                self.implicit, self.class_attrs = {}, {}
                if record:
                    self.writing = set()
                    self.line_used = self.hard = False
                if is_flow:
                    self.step_flow(mod, obj)
                else:
                    self.step_call(mod, obj)  # type: ignore[arg-type]
                self.reading = None
                if self.implicit:
                    implicit[i] = self.implicit
                else:
                    implicit.pop(i, None)
                if self.class_attrs:
                    attrs[i] = self.class_attrs
                else:
                    attrs.pop(i, None)
                if record:
                    runs[i] += 1
                    wr = self.writing
                    if wr:  # tuples: a set per item cost 20 MiB on verl
                        w = writes.get(i)
                        if w is None:
                            writes[i] = tuple(wr)
                        elif not wr.issubset(w):
                            writes[i] = tuple(wr.union(w))
                    flags[i] |= self.line_used | (self.hard << 1)
                    if self.extra:
                        for k in self.extra:
                            self.extra_deps[k].append(i)
                    if guard is not None:
                        guard(i, t, reading | self.extra if self.extra else reading, self.writing)  # type: ignore[operator]
                    self.writing = self.extra = None
                for k in reading:
                    got = deps.get(k)
                    if got is None:
                        deps[k] = array("I", (i,))
                    elif got[-1] != i and (len(got) > 8 or i not in got):
                        got.append(i)
            self._flush()  # after registering what each item read: a step that feeds itself runs again
            for i in self.queue:
                buckets[strata[i]].append(i)
            self.queue.clear()
            t += 1
        self.converged = not any(buckets)
        self.iteration = t
        self.round_count = batches
        return done

    def finish(self) -> None:
        """The side outputs of the fixed point: the union of every item's latest run."""
        self.reading = None
        self.implicit, self.class_attrs = {}, {}
        for i in sorted(self.item_implicit):
            for k, v in self.item_implicit[i].items():
                self._implicit(*k).update(v)
        for i in sorted(self.item_attrs):
            for c, names in self.item_attrs[i].items():
                self.class_attrs.setdefault(c, set()).update(names)

    # ---- results ---------------------------------------------------------------------
    def site_targets(self, mod: str, site: CallSite) -> list[Edge]:
        self.cur_line = site.line  # an implicit call met here (iteration) belongs to this line
        e = site.expr
        edges: list[Edge] = []
        if not isinstance(e, tuple) or e[0] != "c":
            return edges
        seen: set[str] = set()
        recv_classes: set[str] = set()
        external = False
        callee_values = self.eval(mod, site.scope, e[1])
        if not callee_values:
            external = True  # an unknown callee (e.g. ``ctx.Process`` of a library context) counts as a library
        for v in sorted(callee_values):  # sorted: the same targets in the same order on every run
            targets, _ = self.call(mod, site.scope, v, e, bind=False)
            # a library may call back what it is handed; builtins that do (map, sorted's key=)
            # are modelled in _call_builtin, the others (min, len, print...) call nothing
            external = external or (v[:2] in ("x:", "xi") and v[2:] not in _PASSTHROUGH and not _introspects(v[2:]))
            for t, via in targets:
                if t not in seen:
                    seen.add(t)
                    edges.append(Edge(t, "exact", via))
        for v in sorted(callee_values):  # a plugin loader: an edge to what its dotted path names
            if e[2] and v[:2] in ("f:", "x:"):
                for lv in sorted(self._loaded(mod, site.scope, e, v[2:])):
                    q = lv[2:]
                    if q not in seen:
                        seen.add(q)
                        edges.append(Edge(q, "exact", "load"))
        if external:
            # repo functions handed to a library (Process(target=f), executor.submit(f), Thread, map...)
            for a in (*e[2], *(a for _, a in e[3])):
                if isinstance(a, tuple) and a and a[0] in ("n", "a", "fn"):
                    for fv in sorted(self.eval(mod, site.scope, a)):
                        if fv[:2] in ("f:", "b:"):
                            q = fv[2:].partition("|")[0]
                            if q not in seen:
                                seen.add(q)
                                edges.append(Edge(q, "exact", "callback"))
        fe = e[1]
        if isinstance(fe, tuple) and fe and fe[0] == "a":
            recv = self.eval(mod, site.scope, fe[1])
            for b in recv:
                if b[:2] == "i:":
                    recv_classes.add(b[2:])
            attr = fe[2]
            actor_call = attr == "remote"
            if attr == "remote":  # ``h.m.remote(...)`` / ``h.m.options(...).remote(...)`` call method ``m``
                inner = fe[1]
                if isinstance(inner, tuple) and inner and inner[0] == "c" and isinstance(inner[1], tuple) \
                        and inner[1] and inner[1][0] == "a" and inner[1][2] == "options":
                    inner = inner[1][1]
                if isinstance(inner, tuple) and inner and inner[0] == "a":
                    attr = inner[2]
                    recv = self.eval(mod, site.scope, inner[1])
            if not edges and not attr.startswith("__"):
                dynamic = [b[2:] for b in sorted(recv) if b[:2] == "i:" and self._binds_at_run_time(b[2:])]
                libs = None if recv or actor_call or attr not in self.methods_by_name else \
                    self._library_origin(mod, site.scope, fe[1])
                if libs is not None:
                    # a value a library made: its method is the library's, or a repo subclass's
                    edges += self._library_overrides(attr, libs)
                elif not recv:
                    # unknown receiver: every repo method of that name, marked weak
                    for q in self.methods_by_name.get(attr, ()):
                        edges.append(Edge(q, "weak", "weak"))
                elif dynamic:
                    edges += self._run_time_bound(attr, dynamic)
        if fe == ("n", "getattr") and e[2]:
            recv_classes |= {b[2:] for b in self.eval(mod, site.scope, e[2][0]) if b[:2] == "i:"}
        # dispatch by string: a literal naming a method of the receiver's class or of any repo class;
        # the key or default of a mapping lookup (``cfg.get("fn", "generate")``) is a value, not a call
        for a in (() if self._value_lookup(e, seen) else (*e[2], *(a for _, a in e[3]))):
            if not (isinstance(a, tuple) and a and a[0] == "k" and isinstance(a[1], str)):
                continue
            name = a[1]
            if not name.isidentifier() or name.startswith("__") or name not in self.methods_by_name:
                continue
            if any(t.rsplit(".", 1)[-1] == name for t in seen):
                continue  # already resolved exactly (getattr on a known object)
            # a method that hands its own name to a dispatcher (``def ppo_update(self, *a):
            # self._call_workers("ppo_update", *a)``) proxies the same-named method of the worker
            # class defined next to it, not itself
            caller = f"{mod}.{site.scope}"
            forward = name == site.scope.rsplit(".", 1)[-1] and site.attr != "getattr"
            exact = False
            for cq in sorted(recv_classes):
                for m in sorted(self.class_attr(cq, name, cq)):
                    if m.startswith("b:"):
                        q = m[2:].partition("|")[0]
                        if forward and q == caller:
                            continue
                        if q not in seen:
                            seen.add(q)
                            edges.append(Edge(q, "exact", "getattr" if site.attr == "getattr" else "string"))
                        exact = True
            if not exact and forward:
                near = [q for q in self.methods_by_name[name] if q != caller and self.func_mod.get(q) == mod]
                for q in near:
                    if q not in seen:
                        seen.add(q)
                        edges.append(Edge(q, "exact", "forward"))
                exact = bool(near)
            if not exact and site.attr != "getattr":
                for q in self.methods_by_name[name]:
                    if q not in seen and q != caller:
                        seen.add(q)
                        edges.append(Edge(q, "weak", "string"))
            elif not exact:
                for q in self.methods_by_name[name]:
                    if q not in seen:
                        seen.add(q)
                        edges.append(Edge(q, "weak", "getattr"))
        return edges

    def _value_lookup(self, e: tuple, seen: set[str]) -> bool:
        """The call reads a mapping or the environment (``d.get(k, default)``, ``os.getenv``): a
        builtin lookup, or a ``get``/``pop``/``setdefault`` no repo method answers exactly."""
        if seen & _VALUE_LOOKUPS:
            return True
        fe = e[1]
        return isinstance(fe, tuple) and len(fe) == 3 and fe[0] == "a" and fe[2] in ("get", "pop", "setdefault") \
            and not any(t in self.func_mod for t in seen)

    def _find_writers(self) -> dict[str, list[tuple[str, str, tuple] | None]]:
        """Every write of every name key, from the flows, the imports and the parameters."""
        out: dict[str, list[tuple[str, str, tuple] | None]] = defaultdict(list)

        def unknown(mod: str, scope: str, names: set[str]) -> None:
            for n in names:
                key = self.lookup(mod, scope, n)
                if key is not None:
                    out[key].append(None)

        for mod, s in self.sums.items():
            for fl in s.flows:
                t, v = fl.target, fl.value
                if fl.op == "=" and isinstance(t, tuple) and t and t[0] == "n":
                    key = self.lookup(mod, fl.scope, t[1])
                    if key is None:
                        continue
                    if isinstance(v, tuple) and v and v[0] == "c":
                        out[key].append((mod, fl.scope, v))
                    elif not _inert(fl):  # ``x = None`` first: no value, no method
                        out[key].append(None)
                elif fl.op == "param":
                    out[f"{mod}.{t[0]}.{t[1]}"].append(None)  # type: ignore[index]
                elif fl.op in ("=", "for", "with", "ann", "def"):
                    names: set[str] = set()
                    bound_names(t, names)
                    unknown(mod, fl.scope, names)
            for b in self.symbols.bindings.get(mod, ()):
                unknown(mod, b.scope, {b.name})
        for b in self.symbols.stars:
            unknown(b.module, b.scope, {b.name})
        for q, f in self.funcs.items():
            for p in f.params:
                out[f"{q}.{p.name}"].append(None)
        return out

    def _library_origin(self, mod: str, scope: str, e: object, depth: int = 0) -> frozenset[str] | None:
        """The libraries (top packages) that made the value of ``e``, an expression the store
        holds nothing for; None when that value is not known to be a library object.

        ``sub = parser.add_subparsers(); run = sub.add_parser("run")``: ``run`` holds no value,
        yet it is no unknown: argparse made it, so ``run.set_defaults()`` calls argparse, not
        every repo method of that name. Read after the fixed point, from the final store, so
        the answer does not depend on the order items ran in."""
        if not isinstance(e, tuple) or not e:
            return None
        if depth > 8:
            self.origin_capped = True  # what was computed on the way up is not memoised
            return None
        if e[0] == "c":
            return self._call_origin(mod, scope, e, depth)
        if e[0] != "n":
            return None
        key = self.lookup(mod, scope, e[1])
        if key is None:
            return None
        if key in self.origin_memo:
            return self.origin_memo[key]
        self.origin_memo[key] = None  # a name made from itself (``x = x.sub()``) is unknown
        if self.writers is None:
            self.writers = self._find_writers()
        outer, self.origin_capped = self.origin_capped, False
        found: set[str] | None = set()
        for w in self.writers.get(key) or (None,):
            got = None if w is None else self._call_origin(w[0], w[1], w[2], depth + 1)
            if got is None:
                found = None
                break
            found |= got
        out = None if found is None else frozenset(found)
        if self.origin_capped:  # the depth cap cut the answer: another question may get further
            del self.origin_memo[key]
        else:
            self.origin_memo[key] = out
        self.origin_capped = self.origin_capped or outer
        return out

    def _call_origin(self, mod: str, scope: str, e: tuple, depth: int) -> frozenset[str] | None:
        """The libraries a call's result comes from: the callee is a library function or
        instance (not one that hands back what it stores or looks up), or a method of a value
        a library made."""
        if self.eval(mod, scope, e):
            return None  # a value the store knows: not this rule's business
        fe = e[1]
        callees = self.eval(mod, scope, fe)
        if callees:
            out: set[str] = set()
            for v in callees:
                name = v[3:] if v[:3] == "xi:" else v[2:] if v[:2] == "x:" else ""
                if not name or name.partition(".")[0] in self.symbols.tops:
                    return None  # repo code or a repo module left out of the index: not a library
                if v[:3] == "xi:":
                    out.add(name.partition(".")[0])
                    continue
                last = name.rsplit(".", 1)[-1]
                if name in _PASSTHROUGH or last in ("partial", "wraps") or _RETRIEVES.search(last) \
                        or _LOADER.search(last) or _stored_on_library(name):
                    return None
                out.add(name.partition(".")[0])
            if self._hands_repo_values(mod, scope, e):
                return None  # it may hand back what it was given (``accelerate.prepare(model)``)
            return frozenset(out)
        if isinstance(fe, tuple) and fe and fe[0] == "a" and not _RETRIEVES.search(fe[2]) \
                and not self.eval(mod, scope, fe[1]):
            return self._library_origin(mod, scope, fe[1], depth + 1)
        return None

    def _hands_repo_values(self, mod: str, scope: str, e: tuple) -> bool:
        """Whether a call's arguments hold a repo object, directly or as a container element."""
        return any(self._holds_repo_value(mod, scope, a, 0) for a in (*e[2], *(a for _, a in e[3])))

    def _holds_repo_value(self, mod: str, scope: str, a: object, depth: int) -> bool:
        if not isinstance(a, tuple) or not a or depth > 4:
            return False
        if a[0] == "*":
            return self._holds_repo_value(mod, scope, a[1], depth + 1)
        if a[0] == "l":  # a literal the resolver never evaluated (a library call binds nothing)
            return any(self._holds_repo_value(mod, scope, x, depth + 1) for x in a[2])
        if a[0] == "d":
            return any(self._holds_repo_value(mod, scope, v, depth + 1) for _, v in a[2])
        for v in self.eval(mod, scope, a):
            tag = v[:2]
            if tag in ("i:", "c:", "f:", "b:", "m:"):
                return True
            if tag in ("d:", "l:") and any(x[:2] in ("i:", "c:", "f:", "b:")
                                           for x in self.store.get(f"{v[2:]}[#]", _EMPTY)):
                return True
        return False

    def _library_overrides(self, attr: str, libs: frozenset[str]) -> list[Edge]:
        """Repo methods ``attr`` of classes that subclass one of ``libs``: a library that builds
        objects by name (an environment registry) may hand back one of them."""
        out = []
        for q in self.methods_by_name.get(attr, ()):
            cq = self.method_class.get(q)
            if cq is not None and any(c.startswith("x:") and c[2:].partition(".")[0] in libs
                                      for c in self.mro(cq)):
                out.append(Edge(q, "weak", "weak"))
        return out

    def _binds_at_run_time(self, cq: str) -> bool:
        """The class (or a repo base) sets attributes by computed name or defines ``__getattr__``."""
        return any(c in self.dynamic_classes or f"{c}.__getattr__" in self.funcs
                   for c in self.mro(cq) if not c.startswith("x:"))

    def _run_time_bound(self, attr: str, classes: list[str]) -> list[Edge]:
        """Targets of ``obj.attr()`` when ``obj``'s class binds ``attr`` at run time: the repo's
        methods of that name outside those classes; when some carry a decorator (the mark a
        binding loop looks for), only those, and exact when they are few."""
        own = set(classes)
        cands = [q for q in self.methods_by_name.get(attr, ()) if self.method_class.get(q) not in own]
        marked = [q for q in cands if self.funcs[q].decorators]
        if marked:
            kind = "exact" if len(marked) <= 4 else "weak"
            return [Edge(q, kind, "dynamic") for q in marked]
        return [Edge(q, "weak", "dynamic") for q in cands]

    def attr_types(self) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        for cq, attrs in self.class_attrs.items():
            if cq not in self.classes:
                continue
            for a in sorted(attrs):
                for v in sorted(self._get(f"{cq}.{a}")):
                    if v[:2] in ("i:", "c:"):
                        out.setdefault(cq, {})[a] = v[2:]
                        break
                    if v.startswith("xi:"):
                        out.setdefault(cq, {})[a] = v[3:]
                        break
        return out


def gid(module: int, call: bool, pos: int) -> int:
    """An item's stable number: its module (in sorted order), flow or call site, and its
    position among its module's flows or call sites (the resolver's order is by stratum)."""
    return (module << 21) | (call << 20) | pos


@dataclass(frozen=True, slots=True)
class _ImportFlow:
    scope: str
    target_name: str
    value: tuple
    line: int
    op: str = "imp"

    @property
    def target(self) -> tuple:
        return ("n", self.target_name)


def _stored_on_library(name: str) -> bool:
    """``fastapi.FastAPI.state.dispatcher.broadcast``: a method of an attribute of a library
    object (more than one name after its class), which the repo may have stored there
    (``app.state.dispatcher = Dispatcher()``); ``argparse.ArgumentParser.add_subparsers`` is not."""
    parts = name.split(".")
    last_class = max((i for i, p in enumerate(parts) if p[:1].isupper()), default=len(parts) - 1)
    return len(parts) - last_class > 2


_GETTERS = frozenset({"property", "cached_property"})


def _inert(fl) -> bool:
    """A flow that can move no value: a number/None assigned or returned, a builtin-typed
    annotation (``x: int``). Skipping it keeps the worklist short."""
    v = fl.value
    if not isinstance(v, tuple) or not v:
        return fl.op in ("=", "ret", "for", "with", "yield", "ann", "rann")
    if fl.op in ("=", "ret", "for", "with", "yield"):
        return v == ("?",) or (v[0] == "k" and not isinstance(v[1], (str, int)))
    if fl.op in ("ann", "rann"):
        return v == ("?",) or (v[0] == "n" and v[1] in BUILTINS)
    return False


def resolve(summaries: list[FileSummary], symbols: SymbolTable | None = None) -> tuple[Resolver, Resolution]:
    r = Resolver(summaries, symbols)
    rounds = r.run()
    res = results(r)
    res.rounds = rounds
    return r, res


def results(r: Resolver) -> Resolution:
    """What the graph builder reads of a fixed point (``r`` after run(), or after a replay)."""
    res = Resolution()
    for mod, s in r.sums.items():
        for i, site in enumerate(s.calls):
            res.site_edges[(mod, i)] = r.site_targets(mod, site)
    res.implicit = {k: v for k, v in r.implicit.items() if v}
    res.attr_types = r.attr_types()
    for cq in r.classes:
        res.bases[cq] = tuple(b[2:] if b.startswith("x:") else b for b in r.mro(cq)[1:])
    return res

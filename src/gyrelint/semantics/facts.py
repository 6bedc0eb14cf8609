"""Per-function facts that signals match on: calls with canonical names and receiver roles.

The summaries keep callees as dotted text (``self.actor_optim.step``). Signals need
more: the library a name comes from (imports and aliases), the learned type of the
receiver (``self.llm = LLM(...)`` elsewhere in the class), and, failing that, the
*role* a receiver plays (optimizer, lr scheduler, environment, inference engine...)
so that ``.step()`` on an optimizer, an env and a scheduler are three different
facts. Resolved call targets from the graphs stage are merged in when present.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from ..graphs import Graphs
from ..graphs.model import EXACT, WEAK
from ..graphs.symbols import SymbolTable, symbols_of
from ..index import Index
from ..index.scope import TEST
from ..index.summary import (
    MODULE_SCOPE,
    Assignment,
    AttrAccess,
    CallSite,
    FileSummary,
    FunctionDef,
    StringConst,
    Subscript,
)
from .handed import STARTS_TARGET, started_target
from .module_facts import ModuleFactsCache

STRONG, MEDIUM, WEAK_EV = 1.0, 0.6, 0.3
T = TypeVar("T")

_TOKEN_SPLIT = re.compile(r"[^a-z0-9_]+")

# Receiver roles from a known (library) type. Order matters: first match wins.
_ROLE_TYPES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (role, re.compile(rx))
    for role, rx in (
        ("scheduler", r"^torch\.optim\.lr_scheduler\.|^transformers\.(optimization\.)?get_\w*sched|"
                      r"^transformers\.(optimization\.)?get_scheduler|^diffusers\.optimization\.|LRScheduler|"
                      r"\.lr_schedulers?$"),  # a library engine's ``lr_schedulers`` attribute
        ("optimizer", r"^torch\.optim\.|^bitsandbytes\.optim\.|^apex\.optimizers\.|^deepspeed\.ops\.(adam|lamb|lion)|"
                      r"^transformers\.(optimization\.)?(AdamW|Adafactor)$|^torchao\.optim|^megatron\.core\.optimizer\.|"
                      r"\.optimizers?$"),  # a library engine's ``optimizers`` attribute (``engine.optimizers.step()``)
        ("scaler", r"^torch\.(cuda\.)?amp\.GradScaler|^torch\.cuda\.amp\.grad_scaler"),
        ("env", r"^(gym|gymnasium)\.(make|vector|Env|Wrapper|envs)|^(gym|gymnasium)\.\w*Env|^textarena\.|^browsergym\."),
        ("ds_engine", r"^deepspeed\.(initialize|DeepSpeedEngine|runtime\.engine)"),
        ("accelerator", r"^accelerate\.(Accelerator|accelerator\.Accelerator)"),
        ("llm_engine", r"^(vllm|sglang|lmdeploy|tensorrt_llm)\.(?!SamplingParams|inputs)"),
        ("openai", r"^openai\.(OpenAI|AsyncOpenAI|AzureOpenAI|AsyncAzureOpenAI)"),
        ("queue", r"^(queue|multiprocessing|asyncio|janus)\.(\w+\.)*(Simple|Joinable|Lifo|Priority)?Queue|"
                  r"^ray\.util\.queue\.Queue|^torch\.multiprocessing\.(\w+\.)*Queue|Manager\.Queue|get_context\.Queue"),
        ("zmq_socket", r"^zmq\.(asyncio\.)?Context\.(instance\.)?socket|^zmq\.(asyncio\.)?Socket"),
        # (a data collator or config "ForLanguageModeling" holds the word Model but is no model)
        ("hf_model", r"^(transformers|peft|trl)\.(?!\w*(Collator|Config|Processor|Arguments))\w*(Model|ForCausalLM|ForSequenceClassification|LMHead|PeftModel)|"
                     r"\.from_pretrained$|^transformers\.PreTrainedModel|^torch\.nn\.Module"),
        ("pg_comm", r"PyNcclCommunicator|StatelessProcessGroup|^torch\.distributed\.new_group|"
                    r"^torch\.distributed\.ProcessGroup"),
        ("dist_sampler", r"^torch\.utils\.data\.(\w+\.)*\w*Sampler"),
        # an RL library's rollout/replay storage: what a subclass stores and serves is the rollouts
        ("rollout_buffer", r"^stable_baselines3\.common\.buffers\.|^sb3_contrib\.common\.(\w+\.)*buffers\.|"
                           r"^tianshou\.data\.(\w+\.)*\w*Buffer\w*$"),
        ("tokenizer", r"Tokenizer|^transformers\.AutoProcessor"),
    )
)

# Receiver roles guessed from the receiver's own name: weak hints, never alone decisive
# for a side. (specific, vague) patterns per role.
_ROLE_NAMES: tuple[tuple[str, re.Pattern[str], re.Pattern[str] | None], ...] = (
    ("scheduler", re.compile(r"(^|_)(lr_)?scheduler(s)?$|(^|_)lr_sched$"), re.compile(r"(^|_)sched$")),
    ("optimizer", re.compile(r"(^|_)optimi[sz]er(s)?$|(^|_)optim$"), re.compile(r"(^|_)opt$")),
    ("scaler", re.compile(r"(^|_)(grad_)?scaler$"), None),
    ("env", re.compile(r"(^|_)env(s|ironment)?$"), None),
    ("accelerator", re.compile(r"(^|_)accelerator$"), None),
    ("llm_engine", re.compile(r"(^|_)(llm|llms|vllm|sglang|inference_engine|llm_engine|vllm_engine|sglang_engine|"
                              r"rollout_engine|inference_engines|vllm_engines|model_runner|model_executor|"
                              r"driver_worker)$"), re.compile(r"(^|_)engine$")),
    ("openai", re.compile(r"(^|_)(openai|openai_client|async_client|oai_client)$"), None),
    ("queue", re.compile(r"(^|_)(queue|queues)$"), re.compile(r"(^|_)q$")),
    ("zmq_socket", re.compile(r"(^|_)(socket|sock|zmq_socket)$"), None),
    ("pg_comm", re.compile(r"(^|_)(communicator|model_update_group|weight_update_group|update_group|pynccl\w*|"
                           r"nccl_group|nccl_comm|comm_group)$"), None),
    ("hf_model", re.compile(r"(^|_)(model|policy|actor|policy_model|actor_model|unwrapped_model|lm|module)$"), None),
    ("tokenizer", re.compile(r"(^|_)(tokenizer|processor|processing_class)$"), None),
    # an agent's tools (a registry of them, an MCP client) and an external key-value store of batches
    ("tool", re.compile(r"(^|_)(tool|tools|toolbox|toolset|tool_map|tools_map|tool_registry|tool_client|"
                        r"tools_client|mcp_client|tool_server|tool_manager|tool_executor)$"), None),
    ("kv_store", re.compile(r"(^|_)(kv|kvstore|kv_store|kv_client|store_client|data_store|transfer_store|"
                            r"object_store|storage_client|batch_store|sample_store|rollout_store)$"),
     re.compile(r"(^|_)store$")),
)

# A repo class whose methods look like one of these interfaces plays that role.
_ROLE_METHODS: tuple[tuple[str, frozenset[str]], ...] = (
    ("env", frozenset({"step", "reset"})),
    ("optimizer", frozenset({"step", "zero_grad"})),
)


@functools.lru_cache(maxsize=1 << 16)
def tokens_of(text: str) -> tuple[str, ...]:
    """Identifiers of a dotted text, whole and split at underscores: ``old_log_probs`` → 4 tokens.

    Memoised: the same call and receiver texts recur in every function of a module."""
    out: list[str] = []
    for t in _TOKEN_SPLIT.split(text.lower()):
        t = t.strip("_")
        if t:
            out.append(t)
            if "_" in t:
                out.extend(p for p in t.split("_") if p)
    return tuple(out)


@dataclass(slots=True)
class CallFact:
    """One call site seen through imports, learned types and the graphs stage."""

    site: CallSite
    method: str  # the attribute called; for ``h.m.remote()`` this is ``m``
    names: tuple[str, ...]  # canonical external dotted names (``torch.optim.AdamW.step``)
    role: str | None  # role of the receiver, see _ROLE_TYPES
    role_strength: float  # STRONG when typed, MEDIUM for a specific name, WEAK for a vague one
    targets: tuple[str, ...] = ()  # repo function qualnames this call reaches
    kind: str = EXACT  # exact | weak (for targets)
    ray: bool = False  # called through ``.remote``
    repo: str | None = None  # canonical repo name of the callee text (``pkg.mod.Cls``), when local
    instance: bool = False  # the callee text is an object of a learned type (``self.actor(...)``)
    obj_role: str | None = None  # role of the object called directly (``self.model(...)``, ``env(...)``)
    ext_own: bool = False  # our own import/annotation typing says the callee is a library's
    junk_only: bool = False  # every repo target is a wrapper closure or a test module's (see _drop_junk)

    def into_repo(self, caller: str) -> bool:
        """Resolved exactly to repo code (other than the caller), and not typed as a library call.

        Targets that are only wrapper closures or test doubles do not count: a points-to set
        polluted by them must not switch off what the method name alone says.
        """
        if self.ext_own or self.kind != EXACT or self.junk_only:
            return False
        return any(t != caller for t in self.targets)


@dataclass(slots=True)
class ClassFacts:
    qualname: str
    module: str
    bases: tuple[str, ...]  # canonical names (repo qualnames or external dotted)
    methods: set[str] = field(default_factory=set)
    attr_types: dict[str, str] = field(default_factory=dict)  # self.<attr> -> canonical type
    appended: set[str] = field(default_factory=set)  # self.<attr> grown by append/extend/put
    fields: tuple[str, ...] = ()  # annotated class-level names (dataclass fields)
    is_dataclass: bool = False
    line: int = 0
    file: str = ""


@dataclass(slots=True)
class FnFacts:
    qualname: str
    module: str
    file: str
    definition: FunctionDef
    cls: str | None  # owning class qualname (full)
    calls: list[CallFact] = field(default_factory=list)
    subs: list[Subscript] = field(default_factory=list)
    attrs: list[AttrAccess] = field(default_factory=list)
    strings: list[StringConst] = field(default_factory=list)
    assigns: list[Assignment] = field(default_factory=list)
    local_types: dict[str, str] = field(default_factory=dict)
    extra: list[tuple[tuple[str, ...], str]] = field(default_factory=list)  # resolved calls with no site of ours
    frames: list[tuple[tuple[str, ...], str]] = field(default_factory=list)  # ``with`` statements' enter/exit calls
    _tokens: frozenset[str] | None = None
    _token_text: str | None = None
    _called: frozenset[str] | None = None
    _literals: list[tuple[str, int]] | None = None
    _named: tuple[frozenset[str], bool] | None = None  # catalog.named_by_param, memoised
    _aliases: dict[str, list[tuple[int, str]]] | None = None  # local name -> (line, attribute chain) it was set to

    @property
    def line(self) -> int:
        return self.definition.line

    @property
    def params(self) -> list[str]:
        return [p.name for p in self.definition.params if p.name not in ("self", "cls")]

    def tokens(self) -> frozenset[str]:
        """Identifier pieces of the body: names assigned, called, read, keys, params."""
        if self._tokens is None:
            words: set[str] = set(tokens_of(self.definition.name))  # ``compute_group_adv``: its name says it
            for p in self.definition.params:
                words.update(tokens_of(p.name))
            for a in self.assigns:
                words.update(tokens_of(a.target))
                if isinstance(a.value, str) and a.value_kind in ("call", "name", "unpack"):
                    words.update(tokens_of(a.value))
            for c in self.calls:
                words.update(tokens_of(c.site.func))
                for arg in c.site.args:
                    if arg.kind in ("name", "call", "other") and isinstance(arg.value, str):
                        words.update(tokens_of(arg.value))
                for k, arg in c.site.kwargs:
                    words.add(k.lower())
                    if arg.kind in ("name", "call") and isinstance(arg.value, str):
                        words.update(tokens_of(arg.value))
            for s in self.subs:
                words.update(tokens_of(s.key))
                words.update(tokens_of(s.receiver))
            for at in self.attrs:
                words.update(tokens_of(at.attr))
                words.update(tokens_of(at.receiver))
            for r in self.definition.returned:
                words.update(tokens_of(r))
            self._tokens = frozenset(words)
        return self._tokens

    def token_text(self) -> str:
        """All body tokens joined by spaces, for fast substring tests."""
        if self._token_text is None:
            self._token_text = " ".join(sorted(self.tokens()))  # sorted: the same text under every hash seed
        return self._token_text

    def called(self) -> frozenset[str]:
        """Method/function names this body calls."""
        if self._called is None:
            self._called = frozenset(c.method for c in self.calls)
        return self._called

    def literals(self) -> list[tuple[str, int]]:
        """String literals of the body with their lines: constants, literal args, f-string text."""
        if self._literals is None:
            out = [(s.value, s.line) for s in self.strings]
            for c in self.calls:
                for arg in c.site.args:
                    if arg.kind == "lit" and isinstance(arg.value, str):
                        out.append((arg.value, c.site.line))
                for _, arg in c.site.kwargs:
                    if arg.kind == "lit" and isinstance(arg.value, str):
                        out.append((arg.value, c.site.line))
            for a in self.assigns:
                if a.value_kind == "lit" and isinstance(a.value, str):
                    out.append((a.value, a.line))
            self._literals = out
        return self._literals


@dataclass(slots=True)
class Facts:
    functions: dict[str, FnFacts] = field(default_factory=dict)
    classes: dict[str, ClassFacts] = field(default_factory=dict)
    symbols: SymbolTable | None = None  # what names mean: the one symbol table of the graphs stage
    methods_by_name: dict[str, list[str]] = field(default_factory=dict)
    summaries: dict[str, FileSummary] = field(default_factory=dict)  # every module of the index -> its summary
    containers: set[str] = field(default_factory=set)  # trajectory container classes, once known
    # weight sync by payload (see payload.py): function -> line where parameters leave / arrive
    weight_senders: dict[str, int] = field(default_factory=dict)
    weight_receivers: dict[str, int] = field(default_factory=dict)
    handoff_state: dict[str, int] = field(default_factory=dict)  # methods serving what a handoff stored
    rollout_carriers: dict[str, int] = field(default_factory=dict)  # ends of an opaque carrier of rollouts
    launched: dict[str, int] = field(default_factory=dict)  # launchers of the repo's inference-server script
    # abstract repo method -> the overrides of its subclasses, and the edge kind (``extra_edges``)
    overridden: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)
    # the index's scope decision by module (index.scope): None when built without an index
    outside: frozenset[str] | None = None  # modules that take no side (tests, docs, benchmarks, vendored)
    test_modules: frozenset[str] = frozenset()  # of those, the tests
    _mro: dict[str, list[str]] = field(default_factory=dict)
    _roles: dict[str, str | None] = field(default_factory=dict)
    _type_roles: dict[str, str | None] = field(default_factory=dict)
    _name_roles: dict[str, tuple[str | None, float]] = field(default_factory=dict)
    _class_memo: dict[tuple[str, str], object] = field(default_factory=dict)
    local: ModuleFactsCache = field(default_factory=ModuleFactsCache)  # facts of one module's own summary (module_facts.py)

    def out_of_scope(self, module: str) -> bool:
        """Whether a module is outside the product, as the index decided by content; the
        name guess only stands in for facts built by hand without an index."""
        return is_test_module(module) if self.outside is None else module in self.outside

    def is_test(self, module: str) -> bool:
        """Whether a module is test code left out of scope (its doubles are no product target)."""
        return is_test_module(module) if self.outside is None else module in self.test_modules

    def module_of(self, name: str) -> str:
        """The module a function or class qualname lives in (its longest module prefix)."""
        fn = self.functions.get(name)
        if fn is not None:
            return fn.module
        cls = self.classes.get(name)
        if cls is not None:
            return cls.module
        head = name
        while "." in head:
            head = head.rpartition(".")[0]
            if head in self.summaries:
                return head
        return name.rpartition(".")[0]

    def type_role(self, name: str) -> str | None:
        """Memoised :func:`role_of_type`."""
        try:
            return self._type_roles[name]
        except KeyError:
            r = self._type_roles[name] = role_of_type(name)
            return r

    def name_role(self, text: str) -> tuple[str | None, float]:
        """Memoised :func:`role_of_name`."""
        try:
            return self._name_roles[text]
        except KeyError:
            r = self._name_roles[text] = role_of_name(text)
            return r

    def mro(self, cls: str) -> list[str]:
        """The class and its repo bases, breadth first, each once (memoised)."""
        got = self._mro.get(cls)
        if got is None:
            got = []
            seen = {cls}
            todo = [cls]
            while todo and len(got) < 32:
                c = todo.pop(0)
                got.append(c)
                info = self.classes.get(c)
                for b in info.bases if info else ():
                    if b in self.classes and b not in seen:
                        seen.add(b)
                        todo.append(b)
            self._mro[cls] = got
        return got

    def class_role(self, cls: str) -> str | None:
        """A repo class's role from its bases (library types) or the methods it defines."""
        if cls in self._roles:
            return self._roles[cls]
        role = None
        chain = self.mro(cls)
        for c in chain:
            for b in self.classes[c].bases:
                if b not in self.classes:
                    role = self.type_role(b)
                    if role:
                        break
            if role:
                break
        if role is None:
            methods: set[str] = set()
            for c in chain:
                methods |= self.classes[c].methods
            for r, needed in _ROLE_METHODS:
                if needed <= methods:
                    role = r
                    break
        self._roles[cls] = role
        return role

    def class_attr_type(self, cls: str, attr: str) -> str | None:
        if cls not in self.classes:
            return None
        for c in self.mro(cls):
            t = self.classes[c].attr_types.get(attr)
            if t:
                return t
        return None

    def mro_methods(self, cls: str) -> Iterator[FnFacts]:
        """The methods of a class and its repo bases, in MRO order, by name within each class."""
        for c in self.mro(cls):
            info = self.classes.get(c)
            for m in sorted(info.methods) if info is not None else ():
                f = self.functions.get(f"{c}.{m}")
                if f is not None:
                    yield f

    def memo_class(self, what: str, cls: str, compute: Callable[[], T]) -> T:
        """A per-class answer computed once per run (a catalog body asks it for every method)."""
        key = (what, cls)
        try:
            return self._class_memo[key]  # type: ignore[return-value]
        except KeyError:
            got = self._class_memo[key] = compute()
            return got

    def class_appended(self, cls: str) -> set[str]:
        c = self.classes.get(cls)
        return c.appended if c else set()


def role_of_type(name: str) -> str | None:
    for role, rx in _ROLE_TYPES:
        if rx.search(name):
            return role
    return None


def role_of_name(text: str) -> tuple[str | None, float]:
    """Role hint from the receiver's text: last identifier first, then the chain."""
    # lazily from the end: only the last three parts are read, and a receiver text can be long
    parts = (p.rstrip("()[]") for p in reversed(text.split(".")) if p not in ("self", "cls"))
    for i, part in enumerate(parts):
        low = part.lower()
        for role, specific, vague in _ROLE_NAMES:
            if specific.search(low):
                return role, (MEDIUM if i == 0 else WEAK_EV)
            if vague is not None and i == 0 and vague.search(low):
                return role, WEAK_EV
        if i >= 2:
            break
    return None, 0.0


def _strip(seg: str) -> str:
    if seg.endswith((")", "]")):
        return seg.replace("()", "").replace("[]", "")
    return seg


def _canon_text(text: str, module: str, fn: FnFacts | None, facts: Facts, scope: str | None = None) -> str | None:
    """Canonical dotted name of ``text`` in the scope of ``fn`` (else ``scope`` of ``module``);
    None when unknown. ``self.x`` and typed locals are this stage's learned types; every
    other name is the symbol table's answer."""
    if not text or text.startswith("<"):
        return None
    parts = [_strip(p) for p in text.split(".")]
    head = parts[0]
    rest = parts[1:]
    if head in ("self", "cls") and fn is not None and fn.cls:
        if not rest:
            return fn.cls
        t = facts.class_attr_type(fn.cls, rest[0])
        if t:
            return ".".join([t, *rest[1:]])
        return ".".join([fn.cls, *rest])
    if fn is not None and head in fn.local_types:
        t = fn.local_types[head]
        return ".".join([t, *rest]) if t else None
    assert facts.symbols is not None
    where = fn.definition.qualname if fn is not None else scope or MODULE_SCOPE
    return facts.symbols.resolve_in(module, where, ".".join(parts))


def _is_repo_name(name: str, facts: Facts) -> bool:
    assert facts.symbols is not None
    return facts.symbols.is_repo_name(name)


def _outer(scope: str) -> str:
    """The scope a ``def``/``class`` statement at ``scope`` runs in (where its annotations and bases are read)."""
    return scope.rsplit(".", 1)[0] if "." in scope else MODULE_SCOPE


def build_facts(index: Index, graphs: Graphs, interesting: frozenset[str] | None = None) -> Facts:
    """Group every summary record under its function and canonicalise its calls."""
    outside = index.out_of_scope_modules()
    tests = {index.files.modules.get(p, "") for p, sc in index.scopes.items() if sc.scope == TEST}
    facts = Facts(symbols=graphs.symbols if graphs.symbols is not None else symbols_of(index),
                  outside=frozenset(outside), test_modules=frozenset(outside & tests))
    contexts: list[tuple[FileSummary, dict[str, FnFacts]]] = []
    # pass 1: functions and classes
    for s in index.summaries.values():
        facts.summaries[s.module] = s
        by_scope: dict[str, FnFacts] = {}
        for f in s.functions:
            q = f"{s.module}.{f.qualname}"
            fn = FnFacts(q, s.module, s.path, f, f"{s.module}.{f.class_name}" if f.class_name else None)
            by_scope[f.qualname] = fn
            facts.functions[q] = fn
            facts.methods_by_name.setdefault(f.name, []).append(q)
        for c in s.classes:
            cq = f"{s.module}.{c.qualname}"
            bases = tuple(_canon_text(b, s.module, None, facts, _outer(c.qualname)) or b for b in c.bases)
            is_dc = any(d.split(".")[-1].rstrip("()") in ("dataclass", "define", "attrs", "frozen") for d in c.decorators)
            facts.classes[cq] = ClassFacts(cq, s.module, bases, fields=tuple(p.name for p in c.fields),
                                           is_dataclass=is_dc, line=c.line, file=s.path)
        for f in s.functions:
            if f.class_name:
                cf = facts.classes.get(f"{s.module}.{f.class_name}")
                if cf is not None:
                    cf.methods.add(f.name)
        for a in s.assignments:
            fn = by_scope.get(a.scope)
            if fn is not None:
                fn.assigns.append(a)
        for x in s.subscripts:
            fn = by_scope.get(x.scope)
            if fn is not None:
                fn.subs.append(x)
        for at in s.attrs:
            fn = by_scope.get(at.scope)
            if fn is not None:
                fn.attrs.append(at)
        for st in s.strings:
            fn = by_scope.get(st.scope)
            if fn is not None:
                fn.strings.append(st)
        contexts.append((s, by_scope))
    # resolved bases from the graphs stage beat our own guess
    for cq, info in graphs.classes.items():
        if cq in facts.classes and info.bases:
            facts.classes[cq].bases = tuple(info.bases)
    # pass 2: local and attribute types
    for s, by_scope in contexts:
        for fn in by_scope.values():
            for p in fn.definition.params:
                if p.annotation:
                    t = _canon_text(p.annotation, s.module, None, facts, _outer(fn.definition.qualname))
                    if t:
                        fn.local_types[p.name] = t
            for a in fn.assigns:
                if a.augmented or not isinstance(a.value, str):
                    continue
                typ = None
                if a.annotation:
                    typ = _canon_text(a.annotation, s.module, None, facts, fn.definition.qualname)
                if typ is None and a.value_kind in ("call", "name", "unpack"):
                    typ = _canon_text(a.value, s.module, fn, facts)
                if typ is None:
                    continue
                if a.target.startswith("self.") and a.target.count(".") == 1 and fn.cls:
                    cf = facts.classes.get(fn.cls)
                    if cf is not None:
                        cf.attr_types.setdefault(a.target[5:], typ)
                elif "." not in a.target:
                    fn.local_types.setdefault(a.target, typ)
            # self.x = param (typed param) was handled above via local_types of the param
    for cls, attrs in graphs.attr_types.items():
        cf = facts.classes.get(cls)
        if cf is not None:
            for k, v in attrs.items():
                cf.attr_types[k] = v
    # pass 3: calls
    resolved = graphs.resolved
    for s, by_scope in contexts:
        for site in s.calls:
            fn = by_scope.get(site.scope)
            if fn is None:
                continue
            fn.calls.append(_call_fact(site, fn, facts, interesting))
            handed = _handed_call(site)
            if handed is not None:
                hf = _call_fact(handed, fn, facts, interesting)
                if hf.repo not in facts.functions and hf.repo not in facts.classes:  # the graphs stage binds those
                    fn.calls.append(hf)
            if site.attr in ("append", "extend", "put", "put_nowait", "appendleft", "add") and fn.cls:
                rec = site.receiver or ""
                if rec.startswith("self.") and rec.count(".") == 1:
                    cf = facts.classes.get(fn.cls)
                    if cf is not None:
                        cf.appended.add(rec[5:])
    if resolved:
        _merge_resolved(facts, graphs)
    duck_typed_envs(facts)
    return facts


# library calls that run a callable they are handed, with the arguments after it: its position
_HANDED_AT = {"to_thread": 0, "run_in_executor": 1, "submit": 0, "call_soon_threadsafe": 0, "run_sync": 0}


def _handed_call(site: CallSite) -> CallSite | None:
    """``asyncio.to_thread(self.client.optim_step, p)`` runs ``self.client.optim_step(p)``: the call signals see.

    Only a bound method of some other object (``obj.m``, ``self.x.m``): the graphs stage binds plain
    functions and the class's own methods handed over this way.
    """
    if site.attr in STARTS_TARGET:
        return started_target(site)
    at = _HANDED_AT.get(site.attr)
    if at is None or len(site.args) <= at:
        return None
    a = site.args[at]
    if a.kind != "name" or not isinstance(a.value, str) or "." not in a.value:
        return None
    head, _, rest = a.value.partition(".")
    if head in ("self", "cls") and "." not in rest:
        return None
    return CallSite(site.scope, a.value, site.line, site.args[at + 1:], site.kwargs, site.star_args, site.awaited)


_NOT_ENV_ROLES = frozenset({"optimizer", "scheduler", "scaler", "ds_engine", "accelerator", "hf_model", "llm_engine",
                            "queue", "dist_sampler", "tokenizer"})


def duck_typed_envs(facts: Facts) -> None:
    """An object that is both stepped with an action and reset is an environment, whatever its library.

    The env role from types covers a few libraries and from names only receivers called
    ``env``; a world from any other library (``self.world.step(action)`` next to
    ``self.world.reset()`` in the same class or function) is found by what is done to it.
    Objects already typed as optimizers, schedulers, models or engines keep their role.
    """
    groups: dict[tuple[str, str], list[CallFact]] = {}
    for fn in facts.functions.values():
        for c in fn.calls:
            if c.method not in ("step", "reset") or not c.site.receiver or c.role in _NOT_ENV_ROLES:
                continue
            rec = c.site.receiver
            owner = fn.cls if rec.startswith("self.") and fn.cls else fn.qualname
            groups.setdefault((owner, rec), []).append(c)
    for cs in groups.values():
        if any(c.method == "reset" for c in cs) and any(c.method == "step" and (c.site.args or c.site.kwargs)
                                                         for c in cs):
            for c in cs:
                c.role, c.role_strength = "env", STRONG


def _alias_role(name: str, line: int, fn: FnFacts, facts: Facts) -> str | None:
    """The role of a local alias of an attribute (``backbone = model.base_model``; ``backbone(x)``):
    the attribute's name says what the alias holds. Only plain attribute chains assigned before the call."""
    if fn._aliases is None:
        fn._aliases = {}
        for a in fn.assigns:
            if a.value_kind == "name" and isinstance(a.value, str) and "." in a.value and "." not in a.target:
                fn._aliases.setdefault(a.target, []).append((a.line, a.value))
    for at, value in fn._aliases.get(name, ()):
        if at < line:
            role = facts.name_role(value)[0]
            if role is not None:
                return role
    return None


def _call_fact(site: CallSite, fn: FnFacts, facts: Facts, interesting: frozenset[str] | None = None) -> CallFact:
    func = site.func
    ray = False
    parts = func.split(".")
    if len(parts) >= 2 and parts[-1] == "remote":
        ray = True
        parts = parts[:-1]
        if len(parts) >= 2 and parts[-1] == "options()":
            parts = parts[:-1]
        func = ".".join(parts)
    method = _strip(parts[-1])
    receiver = ".".join(parts[:-1]) if len(parts) > 1 else ""
    names: list[str] = []
    repo: str | None = None
    canon = _canon_text(func, fn.module, fn, facts)
    if canon and not _is_repo_name(canon, facts):
        names.append(canon)
    elif canon:
        repo = canon
    role: str | None = None
    strength = 0.0
    if receiver and (interesting is None or method in interesting):
        rtype = _canon_text(receiver, fn.module, fn, facts)
        if rtype:
            if rtype in facts.classes:
                role = facts.class_role(rtype)
                strength = MEDIUM if role else 0.0
            elif not _is_repo_name(rtype, facts):
                role = facts.type_role(rtype)
                strength = STRONG if role else 0.0
        if role is None:
            role, strength = facts.name_role(receiver)
    head = parts[0]
    instance = (len(parts) == 2 and head in ("self", "cls")) or (len(parts) == 1 and head in fn.local_types)
    obj_role = None
    direct = len(parts) == 1 or (len(parts) == 2 and head in ("self", "cls"))
    if direct and not method[:1].isupper():
        if canon and canon in facts.classes:
            obj_role = facts.class_role(canon)
        elif canon and not _is_repo_name(canon, facts):
            obj_role = facts.type_role(canon)
        if obj_role is None:
            obj_role = facts.name_role(func)[0]
        if obj_role is None and len(parts) == 1:
            obj_role = _alias_role(func, site.line, fn, facts)
    return CallFact(site, method, tuple(names), role, strength, ray=ray, repo=repo, instance=instance,
                    obj_role=obj_role, ext_own=bool(names) and not names[0].startswith("<builtin>"))


def canon_in(fn: FnFacts, text: str, facts: Facts) -> str | None:
    """Canonical name of ``text`` (an annotation, a callee) as seen from inside ``fn``."""
    return _canon_text(text, fn.module, fn, facts)


def _sane(name: str) -> bool:
    """Drop runaway names (a type chain repeating one attribute) that carry no evidence."""
    if len(name) > 160:
        return False
    parts = name.split(".")
    return len(parts) <= 10 and len(set(parts)) >= len(parts) - 2


def _merge_resolved(facts: Facts, graphs: Graphs) -> None:
    """Attach the graphs stage's targets to our call facts (same caller, line and callee text)."""
    for caller, calls in graphs.resolved.items():
        fn = facts.functions.get(caller)
        if fn is None:
            continue
        by_key: dict[tuple[int, str], CallFact] = {(c.site.line, c.site.func): c for c in fn.calls}
        for rc in calls:
            # targets in name order: the first external name gives the receiver's role and
            # only six are kept, so the graphs stage's own order must not decide either
            targets = sorted(set(rc.targets))
            cf = by_key.get((rc.site.line, rc.site.func))
            if cf is None:
                repo = tuple(t for t in targets if t in facts.functions)
                if repo and rc.site.func == "<with>":
                    fn.frames.extend(((t,), rc.kind) for t in repo)  # enter and exit: two calls, one target each
                elif repo:
                    fn.extra.append((repo, rc.kind))
                continue
            repo = tuple(t for t in targets if t in facts.functions or t in facts.classes)
            ext = tuple(t for t in targets if t not in facts.functions and t not in facts.classes
                        and not _is_repo_name(t, facts) and _sane(t))[:6]
            if repo:
                kept = _drop_junk(cf, repo, caller, facts)
                cf.targets = kept or repo
                cf.junk_only = not kept
                cf.kind = rc.kind
            if ext:
                cf.names = tuple(dict.fromkeys((*ext, *cf.names)))
                if cf.role is None or cf.role_strength < STRONG:
                    recv_type = ext[0].rpartition(".")[0]
                    r = facts.type_role(recv_type) if recv_type else None
                    if r:
                        cf.role, cf.role_strength = r, STRONG


@functools.lru_cache(maxsize=1 << 16)
def is_test_module(module: str) -> bool:
    """A guess from the module name, for facts built without an index (unit tests of a stage):
    an analysis asks :meth:`Facts.out_of_scope`, the index's decision by content."""
    parts = module.split(".")
    return any(p in ("tests", "test", "testing") or p.startswith("test_") or p == "conftest" for p in parts)


def _drop_junk(cf: CallFact, targets: tuple[str, ...], caller: str, facts: Facts) -> tuple[str, ...]:
    """A call's repo targets without the ones a points-to set drags in that the call cannot mean.

    Closures nested in another function under a name other than the called one (a decorator's
    wrapper holds every function it decorates) and, for product code, test modules' doubles.
    When some target carries the called method's name, the other-named functions go too (the
    constructor and call protocol methods stay).
    """
    in_tests = facts.is_test(facts.module_of(caller))
    out = []
    for t in targets:
        name = t.rsplit(".", 1)[-1]
        if not in_tests and facts.is_test(facts.module_of(t)):
            continue
        if t in facts.functions and name != cf.method and t.rpartition(".")[0] in facts.functions:
            continue
        out.append(t)
    if cf.site.receiver and any(t.rsplit(".", 1)[-1] == cf.method for t in out):
        out = [t for t in out if t.rsplit(".", 1)[-1] in (cf.method, "__init__", "__call__", "forward")
               or t not in facts.functions]
    return tuple(out)


# how actor libraries run a method exposed as an endpoint through its handle (``h.m.call_one(x)``,
# ``h.m.choose(x)``, a service's ``h.m.route(x)`` / ``h.m.fanout(x)``): ``m`` runs in the actor's process.
# Any verb at all was tried and let attribute chains that only end in an endpoint's name through.
_ENDPOINT_VERBS = frozenset({"call", "call_one", "choose", "broadcast", "stream", "route", "fanout"})
_FEW_ENDPOINTS = 3


def _endpoints(facts: Facts) -> dict[str, tuple[str, ...]]:
    """Repo methods by name that a decorator named ``endpoint`` exposes on an actor handle."""
    out: dict[str, list[str]] = {}
    for q, fn in facts.functions.items():
        if fn.cls and any(d.rsplit(".", 1)[-1].split("(", 1)[0] == "endpoint" for d in fn.definition.decorators):
            out.setdefault(fn.definition.name, []).append(q)
    return {k: tuple(sorted(v)) for k, v in out.items()}


def _endpoint_call(c: CallFact, endpoints: dict[str, tuple[str, ...]]) -> None:
    """``h.m.<verb>(...)`` on an endpoint method ``m``: a call of ``m`` across the actor boundary
    (like Ray's ``h.m.remote``), not of the adapter. The handle's class is rarely known: a few endpoints
    of that name stand for the call (polymorphic dispatch); a name every actor has (``setup``, ``stop``)
    is a guess (weak, and no side when the candidates disagree)."""
    parts = c.site.func.split(".")
    if len(parts) < 3 or _strip(parts[-1]) not in _ENDPOINT_VERBS:
        return
    cands = endpoints.get(_strip(parts[-2]))
    if not cands or set(c.targets) & set(cands):
        return
    c.targets, c.kind, c.method, c.ray, c.junk_only = cands, EXACT if len(cands) <= _FEW_ENDPOINTS else WEAK, _strip(parts[-2]), \
        True, False


_FEW_OVERRIDES = 4


_ABSTRACT_DECORATORS = frozenset({"abstractmethod", "abstractclassmethod", "abstractstaticmethod",
                                  "abstractproperty"})


def abstract(fn: FnFacts) -> bool:
    """A method that only declares an interface: ``@abstractmethod``, or a body raising NotImplementedError."""
    if any(d.rsplit(".", 1)[-1] in _ABSTRACT_DECORATORS for d in fn.definition.decorators):
        return True
    return bool(fn.calls) and all(c.method == "NotImplementedError" for c in fn.calls)


def overrides(facts: Facts) -> dict[str, tuple[tuple[str, ...], str]]:
    """Abstract repo method -> the methods of that name its subclasses define, and the edge kind.

    A call resolved to an abstract method runs whichever subclass the object is: the template
    method of a base class (``coro = self.run(task)``) reaches the concrete workflows, agents and
    environments. A few overrides stand for the call (polymorphic dispatch); many are a guess."""
    children: dict[str, list[str]] = {}
    for cq, cf in facts.classes.items():
        for b in cf.bases:
            if b in facts.classes and b != cq:
                children.setdefault(b, []).append(cq)
    out: dict[str, tuple[tuple[str, ...], str]] = {}
    for q, fn in facts.functions.items():
        if fn.cls is None or fn.cls not in children or not abstract(fn):
            continue
        name = fn.definition.name
        seen: set[str] = set()
        todo = list(children[fn.cls])
        found: list[str] = []
        while todo and len(seen) < 256:
            k = todo.pop()
            if k in seen:
                continue
            seen.add(k)
            cf = facts.classes[k]
            if name in cf.methods and f"{k}.{name}" in facts.functions:
                found.append(f"{k}.{name}")
            todo.extend(children.get(k, ()))
        found = [t for t in found if not facts.is_test(facts.module_of(t))]
        if found:
            out[q] = (tuple(sorted(found)), EXACT if len(found) <= _FEW_OVERRIDES else WEAK)
    return out


def _overrides_of_site(site: tuple[str, ...], found: tuple[tuple[str, ...], str]) -> tuple[tuple[str, ...], str]:
    """The overrides an abstract target of one call site stands for, as sure as that site is.

    A site resolved to one abstract method (``self.run(task)``) runs one of its overrides. A site
    whose targets are a spread of differently named methods (``handlers[type(cmd)](...)`` over a
    dict parameter every caller fills with its own callables) is an imprecise points-to set: an
    abstract hook among them must not turn into a firm call of its overrides while the rest of
    the spread passes almost nothing, so the overrides join the spread (``_decay`` weighs it)."""
    targets, kind = found
    if len({t.rsplit(".", 1)[-1] for t in site}) <= 1:
        return found
    return tuple(sorted(set(site) | set(targets))), kind


def extra_edges(facts: Facts) -> None:
    """Edges the graphs stage may not draw, added to the call facts.

    Calling an object whose learned type is a repo class runs its ``forward`` (torch
    modules) or ``__call__``; a nested ``def`` is part of its parent's body; an actor
    endpoint called through its handle's adapter runs the endpoint; a call of an abstract
    method runs the subclasses' overrides.
    """
    endpoints = _endpoints(facts)
    overridden = facts.overridden = overrides(facts)
    for fn in facts.functions.values():
        passed: list[str] = []
        for c in fn.calls:
            if endpoints:
                _endpoint_call(c, endpoints)
            if overridden and c.targets and c.kind == EXACT:
                extra = [t for t in c.targets if t in overridden]
                for t in extra:
                    fn.extra.append(_overrides_of_site(c.targets, overridden[t]))
            # a repo function handed to another call (``Process(target=self._run)``, ``pool.submit(f)``,
            # ``batched_call(self._update, data)``) runs as part of this body
            for arg in (*c.site.args, *(a for _, a in c.site.kwargs)):
                if arg.kind == "name" and isinstance(arg.value, str):
                    t = _canon_text(arg.value, fn.module, fn, facts)
                    if t in facts.functions and t != fn.qualname and not _holds_result(arg.value, t):
                        passed.append(t)
            if c.targets or not c.instance or not c.repo or c.repo not in facts.classes:
                continue
            m = _method_in_class(c.repo, "forward", facts) or _method_in_class(c.repo, "__call__", facts)
            if m:
                c.targets = (m,)
                c.kind = EXACT
        for t in dict.fromkeys(passed):
            fn.extra.append(((t,), EXACT))
    duck_typed(facts)


def _holds_result(text: str, target: str) -> bool:
    """``self.cfg`` whose learned type is a function: the attribute holds what the function
    returned (``self.opt, self.cfg = self.build()``), not the function, so handing it on runs nothing."""
    return "." in text and text.rsplit(".", 1)[-1] != target.rsplit(".", 1)[-1]


def duck_typed(facts: Facts) -> None:
    """Narrow a name guess by what else the class calls on the same attribute.

    ``self.policy.infer(x)`` on an untyped attribute guesses every repo method named ``infer``
    (the actor's, the critic's, a reward model's): sides then cancel out. The same class also
    calls ``self.policy.prepare_for_inference()`` and ``self.policy.get_loss_and_metrics()``;
    only classes that define every method called on that attribute can be the object, so the
    guess keeps their methods. The edge stays a guess (weak); nothing narrows to no target.
    """
    used: dict[tuple[str, str], set[str]] = {}
    for fn in facts.functions.values():
        if fn.cls is None:
            continue
        for c in fn.calls:
            r = c.site.receiver or ""
            if r.startswith("self.") and r.count(".") == 1 and not c.ray:
                used.setdefault((fn.cls, r), set()).add(c.method)
    for fn in facts.functions.values():
        if fn.cls is None:
            continue
        for c in fn.calls:
            if c.kind == EXACT or len(c.targets) < 2 or c.ray:
                continue
            methods = used.get((fn.cls, c.site.receiver or ""))
            if not methods or len(methods) < 2:
                continue
            owners = {t: facts.functions[t].cls for t in c.targets if t in facts.functions}
            fits = {o for o in set(owners.values()) if o is not None
                    and all(_method_in_class(o, m, facts) for m in methods)}
            keep = tuple(t for t in c.targets if owners.get(t) in fits)
            if keep and len(keep) < len(c.targets):
                c.targets = keep


def nested_children(facts: Facts) -> dict[str, list[str]]:
    """parent qualname -> functions defined directly inside it."""
    out: dict[str, list[str]] = {}
    for q in facts.functions:
        parent = q.rpartition(".")[0]
        if parent in facts.functions:
            out.setdefault(parent, []).append(q)
    return out


def fallback_edges(facts: Facts) -> dict[str, list[tuple[str, str]]]:
    """A minimal call graph for when the graphs stage has no call edges.

    ``self.m()`` within the class (and repo bases), same-module functions, imported
    repo functions and classes (their ``__init__``), typed receivers; otherwise a weak
    edge by method name when few repo functions carry it.
    """
    out: dict[str, list[tuple[str, str]]] = {}
    for q, fn in facts.functions.items():
        edges: list[tuple[str, str]] = []
        for c in fn.calls:
            tgt, kind = _fallback_target(c, fn, facts)
            if tgt:
                c.targets = tgt
                c.kind = kind
                edges.extend((t, kind) for t in tgt)
        if edges:
            out[q] = edges
    return out


def _method_in_class(cls: str, name: str, facts: Facts) -> str | None:
    """The method ``name`` of repo class ``cls`` or of its bases: the symbol table's MRO."""
    assert facts.symbols is not None
    return facts.symbols.method_of(cls, name)


def _fallback_target(c: CallFact, fn: FnFacts, facts: Facts) -> tuple[tuple[str, ...], str]:
    func = c.site.func
    parts = func.split(".")
    if c.ray and parts[-1] == "remote":
        parts = parts[:-1]
        if parts and parts[-1] == "options()":
            parts = parts[:-1]
    if not parts:
        return (), EXACT
    text = ".".join(parts)
    if parts[0] in ("self", "cls") and len(parts) == 2 and fn.cls:
        m = _method_in_class(fn.cls, _strip(parts[1]), facts)
        if m:
            return (m,), EXACT
    canon = _canon_text(text, fn.module, fn, facts)
    if canon:
        if canon in facts.functions:
            return (canon,), EXACT
        if canon in facts.classes:
            init = _method_in_class(canon, "__init__", facts)
            return ((init,), EXACT) if init else ((), EXACT)
        owner, _, meth = canon.rpartition(".")
        if owner in facts.classes:
            m = _method_in_class(owner, meth, facts)
            if m:
                return (m,), EXACT
        if not _is_repo_name(canon, facts):
            return (), EXACT  # external library call
    name = c.method
    cands = facts.methods_by_name.get(name, [])
    if len(parts) >= 2 and 0 < len(cands) <= 4 and not name.startswith("__"):
        return tuple(q for q in cands if facts.functions[q].cls), WEAK
    return (), EXACT


# what only exists once the policy has generated (a body naming none of these holds no rollout yet)
_GENERATED = ("response", "completion", "reward", "advantage", "log_prob", "logprob", "output", "generated", "score")
# where a batch comes from before any generation: the dataset's rows, the prompts
_PROMPT_SIDE = ("prompt", "dataset", "loader", "row", "example", "question", "batch_dict", "raw_batch")


def prompt_fed(fn: FnFacts, builds: list[CallFact]) -> bool:
    """The batch records ``builds`` make are filled from dataset rows or prompts (inputs named so,
    or drawn with ``next()`` from a loader) and nothing generated is in sight in the body.

    Which way a record of the batch type moves follows its value, not its type: wrapping the
    loader's dict before generation feeds the sampler; packing generated sequences with their
    rewards carries trajectories to the trainer."""
    if not builds or any(any(w in t for w in _GENERATED) for t in fn.tokens()):
        return False
    drawn = {a.target for a in fn.assigns if a.value_kind == "call" and a.value in ("next", "anext")}
    inputs = [a.value for c in builds for a in (*c.site.args, *(v for _, v in c.site.kwargs))
              if a.kind == "name" and isinstance(a.value, str)]
    return bool(inputs) and all(v in drawn or any(w in v.lower() for w in _PROMPT_SIDE) for v in inputs)

"""The signal catalog: what a function body does that places it on a side.

Every signal names a library API or a code pattern, never one framework's classes.
Each carries examples that must and must not match; ``tests/test_signals_catalog.py``
runs them through the whole pipeline. Every example is a module defining ``target``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from ..graphs.model import EXACT
from ..index.summary import FileSummary
from ..settings import SignalSpec
from .data_payload import sends_batch_entry, sends_data
from .draws import index_draw, next_token_line
from .engine_params import engine_params_line
from .engine_patch import engine_lora_patch
from .entropy import entropy_from_logits
from .eval_forward import predicts_only
from .facts import MEDIUM, STRONG, CallFact, Facts, FnFacts, abstract, prompt_fed, tokens_of
from .generic_send import generic_tensor_send, world_group_collective
from .iter_buffer import batch_word, iteration_draw
from .learner import LEARNER_SIGNALS
from .module_api import module_plumbing
from .module_facts import ModuleFacts
from .own_words import own_tokens
from .preference import preference_margin_line
from .reward_requests import reward_reply_line
from .scoring_calls import decoding_config, reward_model_forward, reward_request
from .signals import HANDOFF, NEUTRAL, SAMPLING, TRAINING, TRAJECTORY, WEIGHT_SYNC, Signal
from .url_builder import returns_url


# ---------------------------------------------------------------- helpers for checks
def _lib(prefix: str):
    """Typed calls must come from this library; untyped ones fall through to roles/kwargs."""

    def check(c: CallFact, fn: FnFacts, s: float) -> float:
        if c.names and not any(n.startswith(prefix) for n in c.names):
            return 0.0
        return s

    return check


_GEN_KWARGS = ("max_new_tokens", "do_sample", "generation_config", "sampling_params", "top_p", "top_k",
               "temperature", "max_tokens", "num_return_sequences", "use_tqdm", "prompt_token_ids",
               "logits_processor", "lora_request", "stop_token_ids", "min_new_tokens")
_PARAMISH = frozenset({"named_parameters", "parameters", "state_dict", "param", "params", "weight", "weights",
                       "named_params", "tensor", "tensors", "bucket", "buckets"})
_ROLLOUTISH = ("rollout", "trajector", "experience", "episode", "sample", "completion", "transition", "buffer")
_GEN_ENDPOINT = re.compile(r"/(v\d+/)?(chat/)?(completions|generate|async_generate)\b/?|/generate_stream\b|"
                           r"/v\d+/(responses|messages)\b")  # the OpenAI Responses and Anthropic Messages routes
_WEIGHT_ENDPOINT = re.compile(
    r"/(v\d+/)?(update_weights?\w*|(start|finish|begin|end)_weights?_update|load_lora_adapter|init_weights?_update_group|init_weight_transfer\w*|load_weights?\w*|"
    r"update_(model_)?param(eter)?s?\w*|update_named_params?|sync_weights?|reload_weights?|set_weights?|"
    r"(init|close)_communicator)\b"  # a vLLM-serving trainer client's NCCL weight channel
)
_HTTP_METHODS = frozenset({"post", "get", "put", "request", "urlopen", "_post", "_get", "apost", "async_post",
                           "arequest", "fetch", "stream"})


def _arg_tokens(c: CallFact) -> set[str]:
    out: set[str] = set()
    for a in c.site.args:
        if isinstance(a.value, str) and a.kind != "lit":
            out.update(tokens_of(a.value))
    for k, a in c.site.kwargs:
        out.add(k.lower())
        if isinstance(a.value, str) and a.kind != "lit":
            out.update(tokens_of(a.value))
    return out


def _resolved_to_repo(c: CallFact, fn: FnFacts) -> bool:
    return c.into_repo(fn.qualname)


def _ctor(c: CallFact, fn: FnFacts, s: float) -> float:
    """Constructor calls only: ``torch.optim.AdamW(...)``, not ``opt.step()``."""
    return s if c.method[:1].isupper() or c.method.startswith(("get_", "create", "make", "from_", "init")) else 0.0


_ENV_FACTORIES = frozenset({"env", "parallel_env", "raw_env", "start"})


def _env_ctor(c: CallFact, fn: FnFacts, s: float) -> float:
    """An environment factory: a constructor, ``make``, or a multi-agent library's ``env()``/``parallel_env()``."""
    return s if c.method in _ENV_FACTORIES else _ctor(c, fn, s)


def _optimizer_step(c: CallFact, fn: FnFacts, s: float) -> float:
    if c.role == "scheduler" or any("lr_scheduler" in n for n in c.names):
        return 0.0
    if c.role == "hf_model":  # ``model_engine.step()``: a wrapped engine stepping its optimizer
        return s if not c.site.args and not c.site.kwargs else 0.0
    return s


def _backward_tensor(c: CallFact, fn: FnFacts, s: float) -> float:
    if c.role in ("accelerator", "ds_engine"):
        return 0.0  # engine-backward
    if _resolved_to_repo(c, fn):
        return 0.0  # a repo method called backward: its own body decides
    if not c.site.args and all(k in ("retain_graph", "gradient", "create_graph", "inputs") for k, _ in c.site.kwargs):
        return max(s, MEDIUM)
    return 0.0


def _backward_engine(c: CallFact, fn: FnFacts, s: float) -> float:
    if _resolved_to_repo(c, fn) and c.role not in ("accelerator", "ds_engine"):
        return 0.0
    if not c.site.args and not c.site.star_args:
        return 0.0
    if c.role in ("accelerator", "ds_engine", "scaler"):
        return max(s, c.role_strength)
    return MEDIUM if "loss" in "".join(_arg_tokens(c)) else 0.0


def _not_path_arg(c: CallFact, fn: FnFacts, s: float) -> float:
    """``load_weights("model.h5")`` is a checkpoint, not a weight push."""
    if c.site.args and c.site.args[0].kind == "lit" and isinstance(c.site.args[0].value, str):
        return 0.0
    recv = (c.site.receiver or "").lower()
    if any(w in recv for w in ("model_runner", "model_executor", "driver_worker", "llm_engine", "vllm", "sglang")):
        return max(s, MEDIUM)
    if c.role == "llm_engine":
        return max(s, c.role_strength)
    if any(k == "weights" for k, _ in c.site.kwargs) or (c.site.args and c.site.args[0].kind == "other"):
        return max(s, MEDIUM)
    return s


def _weight_update_crossing(c: CallFact, fn: FnFacts, s: float) -> float:
    """A weight-update call that leaves the process to an actor (``.remote``), or one on an object
    our own imports or annotations type as a library's class (a checkpoint engine's manager), is
    more than a guess from the method name: it is the push (MEDIUM, enough for the body alone)."""
    if s and s < MEDIUM and (c.ray or c.ext_own):
        return MEDIUM
    return s

def _specific_api(c: CallFact, fn: FnFacts, s: float) -> float:
    """A method name that only one library API uses counts as medium evidence."""
    return max(s, MEDIUM) if not _resolved_to_repo(c, fn) else s


def _shared_mapping(c: CallFact, fn: FnFacts, s: float) -> float:
    """``torch.from_file(path, shared=True)`` maps a file every process sees (a private mapping or a
    plain read of a file is no transport); the other shared-memory APIs as ``_specific_api``."""
    if c.names and c.names[0] == "torch.from_file":
        if any(any(w in t for w in _SPILL) for t in fn.tokens()):
            return 0.0  # a KV cache or an engine's memory offloaded to disk: the engine's own spill
        return s if any(k == "shared" and a.kind == "lit" and a.value is True for k, a in c.site.kwargs) else 0.0
    return _specific_api(c, fn, s)


_SPILL = ("cache", "offload", "backup", "swap", "sleep")


def _param_context(c: CallFact, fn: FnFacts, s: float) -> float:
    """A broadcast of parameters (the body walks named_parameters/state_dict) vs of data.

    A body whose only tensor-ish word is ``tensor`` and which sends its shape and dtype
    first (``broadcast_object_list`` of metadata), or that sends its own ``tensor`` parameter, is
    a generic tensor-broadcast helper: its callers send seeds and batches with it as often as weights.
    """
    if world_group_collective(c):
        return 0.0  # the default group holds the training ranks only: model init/loading, no sampler on it
    toks = fn.tokens() & _PARAMISH
    if toks and toks <= {"tensor", "tensors"} and fn.params and not _arg_tokens(c) & {"param", "weight"}:
        if any(x.method in ("broadcast_object_list", "broadcast_object") for x in fn.calls):
            return 0.0
        if generic_tensor_send(c, fn):
            return 0.0  # what it sends is whatever its caller hands it: the payload check follows that
    if toks <= {"tensor", "tensors"} and (sends_data(c, fn) or sends_batch_entry(c)):
        return 0.0  # ``torch.LongTensor([len(text)])`` or ``batch[key]``: data shared across ranks
    sent = {t for a in c.site.args[:1] if isinstance(a.value, str) for t in tokens_of(a.value)}
    if fn.called() & {"named_buffers", "buffers"} and any(t.startswith("buf") for t in sent):
        return 0.0  # buffers (rotary tables, running stats) made equal across ranks after a load: no trained weights
    if toks or any("param" in t or "weight" in t for t in _arg_tokens(c)):
        return s
    return 0.0  # a broadcast of data or flags


# what a body does with tensors it fetched from a store to put them into a model
_WRITES_TENSORS = frozenset({"copy_", "load_state_dict", "load_weights", "load", "set_"})


def _store_weights(c: CallFact, fn: FnFacts, s: float) -> float:
    """A parameter put into (or state dict taken out of) a tensor store, as ``_param_context``; a
    plain ``get`` only where the body also writes tensors into a model (fetching a handle to drop
    the stored weights is clean-up)."""
    if c.method == "get" and not fn.called() & _WRITES_TENSORS:
        return 0.0
    return _param_context(c, fn, s)


def _rpc_weights(c: CallFact, fn: FnFacts, s: float) -> float:
    """The worker method named by the RPC (positional or ``method=``) loads or updates weights."""
    lits = [a.value for a in c.site.args if a.kind == "lit" and isinstance(a.value, str)]
    lits += [a.value for k, a in c.site.kwargs if k == "method" and a.kind == "lit" and isinstance(a.value, str)]
    if any(re.search(r"weight|param|load|update", v) for v in lits):
        return max(s, MEDIUM)
    if any(re.search(r"(^|_)(init|create|setup)_(\w+_)?(process_)?group$", v) for v in lits):
        return max(s, MEDIUM)  # the workers join the group the trainer broadcasts weights over
    if lits:
        return 0.0  # some other worker method
    return s


def _tcp_group(c: CallFact, fn: FnFacts, s: float) -> float:
    """``init_process_group`` with its own ``tcp://`` rendezvous: a group built for one transfer."""
    vals = [a.value for a in c.site.args] + [a.value for _, a in c.site.kwargs]
    if any(isinstance(v, str) and "tcp://" in v for v in vals):
        return max(s, STRONG if c.names else MEDIUM)
    if c.method in ("init_process_group",) and not any(k in ("init_method", "store") for k, _ in c.site.kwargs):
        return 0.0
    if any(k == "store" for k, _ in c.site.kwargs) or any("tcp://" in v for v, _ in fn.literals()):
        return max(s, MEDIUM)
    return 0.0 if c.method == "init_process_group" else s


# the client resources whose ``create`` generates text (not embeddings, files, moderations, fine-tuning jobs...)
_GEN_RESOURCES = frozenset({"completions", "responses", "ChatCompletion", "Completion"})


def _completions_create(c: CallFact, fn: FnFacts, s: float) -> float:
    if c.method == "create":
        segs = set((c.site.receiver or "").split(".")[-2:])
        segs.update(seg for n in c.names for seg in n.split(".")[-3:-1])
        if not segs & _GEN_RESOURCES:
            return 0.0
    if any(n.startswith(("openai.", "litellm.")) for n in c.names):
        return max(s, STRONG)
    return MEDIUM if (c.site.receiver or "").endswith("completions") else 0.0


def _generate_call(c: CallFact, fn: FnFacts, s: float) -> float:
    """``.generate()`` on a model or engine; a repo helper called generate speaks for itself."""
    if c.role in ("llm_engine", "hf_model") or c.names:
        return s
    if any(k in _GEN_KWARGS for k, _ in c.site.kwargs):
        return max(s, MEDIUM)
    return 0.0


# arguments that only exist to parameterise decoding, handed over by position as often as by keyword
_GEN_PARAM_ARGS = frozenset({"sampling_params", "length_params", "generation_config", "gen_config",
                             "generation_kwargs", "gen_kwargs", "sampling_config", "decoding_params"})


def _library_generate(c: CallFact, fn: FnFacts, s: float) -> float:
    """Only a library's class: a repo class of that name is labelled by its own body."""
    return 0.0 if _resolved_to_repo(c, fn) else s


def _generate_with_params(c: CallFact, fn: FnFacts, s: float) -> float:
    """``generate(inputs, length_params, sampling_params)`` on a library model (inherited or held):
    the decoding parameters name the call, whatever model class the library calls it on."""
    if c.into_repo(fn.qualname) or not c.names:
        return 0.0
    return max(s, MEDIUM) if _arg_tokens(c) & _GEN_PARAM_ARGS else 0.0


def _rollout_payload(c: CallFact, fn: FnFacts, s: float) -> float:
    toks = _arg_tokens(c)
    if toks & {"state", "checkpoint", "ckpt", "config", "meta", "index", "position", "args", "metrics"} or \
            any(t.endswith(("_state", "_config", "_meta", "_index", "_metrics")) for t in toks):
        return 0.0
    if any(any(w in t for w in _ROLLOUTISH) for t in toks):
        return s
    return 0.0


def _checkpointish(c: CallFact, fn: FnFacts, s: float) -> float:
    if fn.definition.name in ("__getstate__", "__setstate__", "__reduce__", "__reduce_ex__"):
        return 0.0  # an object (de)serialising itself is no checkpoint: what it is decides
    toks = _arg_tokens(c) | set(tokens_of(c.site.func))
    if toks & {"state_dict", "checkpoint", "ckpt", "model", "optimizer", "save_pretrained", "from_pretrained"}:
        return s
    return s if c.method in ("save_pretrained", "from_pretrained", "save_checkpoint", "load_checkpoint") else 0.0


def _rollout_receiver(c: CallFact, fn: FnFacts, s: float) -> float:
    recv = (c.site.receiver or "").lower()
    if c.role == "llm_engine" or any(w in recv for w in ("rollout", "inference", "vllm", "sglang", "engine", "sampler")):
        return max(s, MEDIUM)
    return 0.0


_NOT_ROLLOUT = ("metric", "log", "stat", "trace", "heartbeat", "health", "error", "exc", "status", "signal",
                "stop", "done", "event", "command", "cmd", "ack", "progress", "timing", "profil", "control")
_ROLLOUT_PAYLOAD = ("rollout", "sample", "traj", "experience", "batch", "episode", "group", "completion",
                    "data", "item", "result", "output", "prompt", "request", "response", "task")


def _weighty(toks: set[str]) -> bool:
    return any(t in ("state_dict", "weights", "weight", "params", "named_params", "parameters") or
               t.endswith(("_weights", "state_dict", "_params")) for t in toks)


# receivers whose state_dict() is bookkeeping (data position, optimizer moments, RNG), not model weights
_NOT_MODEL_STATE = ("loader", "sampler", "dataset", "optim", "sched", "rng", "random", "scaler", "iterator",
                    "tokenizer", "callback", "env", "progress", "counter", "tracker", "logger")


def _model_state(fn: FnFacts, names: tuple[str, ...] = ("state_dict", "load_state_dict", "named_parameters")) -> bool:
    """The body reads or loads a model's parameters (``dataloader.state_dict()`` is a resume position)."""
    for c in fn.calls:
        if c.method in names:
            last = (c.site.receiver or "").rsplit(".", 1)[-1].lower()
            if not any(w in last for w in _NOT_MODEL_STATE):
                return True
    return any(p.name.lower() == "state_dict" for p in fn.definition.params) or \
        any(s.key in ("state_dict", "model_state_dict") for s in fn.subs)


def _queue_weights(c: CallFact, fn: FnFacts, s: float) -> float:
    """A queue carrying state dicts/parameters (or a queue of weights) is a weight transport."""
    toks = set(tokens_of(c.site.receiver or "")) | _arg_tokens(c)
    for a in fn.assigns:
        if a.line == c.site.line and a.value_kind == "call":
            toks.update(tokens_of(a.target))
    if _weighty(toks):
        return s
    # ``q.put((version, sd))`` in a body that takes a state_dict: the payload is the weights
    if c.site.args and _model_state(fn):
        return MEDIUM
    if c.method.startswith("get") and _model_state(fn, ("load_state_dict", "load_weights")):
        return MEDIUM
    return 0.0


def _queue_payload(c: CallFact, fn: FnFacts, s: float) -> float:
    """A queue of rollouts, not of metrics, heartbeats or control messages."""
    toks = set(tokens_of(c.site.receiver or "")) | _arg_tokens(c)
    for a in fn.assigns:  # ``sample = q.get()``: what the result is called
        if a.line == c.site.line and a.value_kind == "call":
            toks.update(tokens_of(a.target))
    if c.site.args and c.site.args[0].kind == "lit":
        return 0.0  # a sentinel or a control word
    if _weighty(toks) or _model_state(fn, ("state_dict", "load_state_dict")):
        return 0.0  # a queue of weights: the weight sync
    if any(any(w in t for w in _NOT_ROLLOUT) for t in toks):
        return 0.0
    if _prompt_payload(toks) and not _built_from_made(c, fn):
        return 0.0  # prompts or requests on their way into the sampler: its intake, not the handoff
    if any(any(w in t for w in _ROLLOUT_PAYLOAD) for t in toks):
        return s
    return s * 0.6


# what a sampler is asked to do (the prompt, the request, the task) against what it made
_PROMPT_PAYLOAD = ("prompt", "request", "task")
_MADE = ("rollout", "sample", "traj", "experience", "episode", "group", "completion", "result", "output", "response",
         "generat", "reward", "score")


def _prompt_payload(toks: set[str]) -> bool:
    """The payload is named as a prompt or a request and nothing in its name says generated."""
    return any(any(w in t for w in _PROMPT_PAYLOAD) for t in toks) and \
        not any(any(w in t for w in _MADE) for t in toks)


def _intake(c: CallFact, fn: FnFacts, s: float) -> float:
    """A queue end whose payload is a prompt or a request: the sampler's intake."""
    toks = set(tokens_of(c.site.receiver or "")) | _arg_tokens(c)
    for a in fn.assigns:
        if a.line == c.site.line and a.value_kind == "call":
            toks.update(tokens_of(a.target))
    if c.site.args and c.site.args[0].kind == "lit" or any(any(w in t for w in _NOT_ROLLOUT) for t in toks):
        return 0.0
    if c.method.startswith("put") and any(any(w in t for w in _MADE) for p in fn.params for t in tokens_of(p)):
        return 0.0  # a body handed episodes or results puts what was generated (a "task batch" of groups)
    return s if _prompt_payload(toks) and not _built_from_made(c, fn) else 0.0


def _built_from_made(c: CallFact, fn: FnFacts) -> bool:
    """The payload was built in this body from generated things: ``batch = TaskBatch(groups=traj_groups,
    episodes=eps)`` then ``queue.put(batch)`` carries rollouts, whatever the class is named."""
    names = {w for a in c.site.args if isinstance(a.value, str) and a.kind != "lit"
             for w in _IDENT.findall(a.value)}
    wrapped = {a.value for a in c.site.args if a.kind == "call"}  # ``put(self.offload(batch))``: what it wraps
    for o in fn.calls:
        if o.site.line == c.site.line and o.site.func in wrapped:
            names.update(a.value for a in o.site.args if a.kind == "name" and isinstance(a.value, str))
    if not names:
        return False
    lines = {a.line for a in fn.assigns if a.target in names and a.value_kind == "call"}
    for o in fn.calls:
        if o.site.line in lines and any(any(w in t for w in _MADE) for t in _arg_tokens(o)):
            return True
    return False


_IDENT = re.compile(r"[A-Za-z_]\w*")


_SETTINGS = ("config", "cfg", "args", "options", "settings", "opts", "conf", "hparams", "flag")


# where a collective runs (``group=reduce_group``), not what it carries
_PLACEMENT_KW = frozenset({"group", "src", "dst", "group_src", "group_dst", "async_op", "device", "src_rank",
                           "dst_rank", "group_name"})
_METADATA = frozenset({"key", "keys", "name", "names", "shape", "shapes", "dtype", "dtypes", "meta", "metadata"})


def _object_payload(c: CallFact, fn: FnFacts, s: float) -> float:
    """The object store and object collectives carry rollouts only when the payload is rollouts (N).

    ``ray.put(run_config)``, gathering step statistics or broadcasting a stop flag moves no
    trajectory. A payload boxed in a local container literal (``box = [x]``) is named by what
    the body takes in.
    """
    payload = [a for a in c.site.args if a.kind == "name" and isinstance(a.value, str)] + \
        [a for k, a in c.site.kwargs if k not in _PLACEMENT_KW and a.kind == "name" and isinstance(a.value, str)]
    if payload and all(tokens_of(a.value)[-1:] and tokens_of(a.value)[-1] in _METADATA for a in payload):
        return 0.0  # the keys, names or shapes every rank holds: bookkeeping ahead of the data
    toks = _arg_tokens(c) - _PLACEMENT_KW
    names = {a.value for a in c.site.args if a.kind == "name" and isinstance(a.value, str)}
    if any(a.target in names and a.value_kind == "other" for a in fn.assigns):
        for p in fn.params:
            toks.update(tokens_of(p))
    if any(any(w in t for w in _SETTINGS + _NOT_ROLLOUT) for t in toks):
        return 0.0
    return _queue_payload(c, fn, s)


# what a record of generated trajectories holds (tokens of the body that builds it)
_ROLLOUT_FIELDS = ("response", "completion", "rollout", "reward", "advantage", "log_prob", "logprob", "trajector",
                   "experience", "episode", "returns", "generated")


def _tensordict_rollout(c: CallFact, fn: FnFacts, s: float) -> float:
    """Building or stacking a TensorDict of generated sequences, rewards or log-probs.

    TensorDict is a general batch type: chunking, indexing, gathering or serialising one
    (the helpers every user of the library writes) moves no trajectory between the sides.
    """
    if not (c.method[:1].isupper() or c.method in ("from_dict", "stack", "cat", "lazy_stack")):
        return 0.0
    return s if _tok_has(fn, *_ROLLOUT_FIELDS) else 0.0


def _pyobj(c: CallFact, fn: FnFacts, s: float) -> float:
    if _control_message(c, fn):
        return 0.0
    if c.role == "zmq_socket":
        return s
    return MEDIUM if c.method.endswith(("_pyobj", "_multipart")) else 0.0


# fields that make a message a command, a status or a name for the far side to act on
_COMMAND_KEYS = frozenset({"method", "command", "cmd", "op", "opcode", "action", "status", "signal", "ctrl",
                           "control", "verb"})
_SENDS = ("send", "send_pyobj", "send_json", "send_string", "send_multipart")


def _control_message(c: CallFact, fn: FnFacts) -> bool:
    """A send whose payload is a command, not data: a literal, a dict literal keyed by a command
    word (``{"status": s}``), or a record the body builds with a command field
    (``Order(method=name)``). A receive on a socket the body sends such a message on is its
    reply. An RPC that asks the far side to run a method by name moves no rollout."""
    if c.method.startswith("recv"):
        return any(o.method in _SENDS and o.site.receiver == c.site.receiver and _control_message(o, fn)
                   for o in fn.calls if o is not c and o.site.line <= c.site.line)
    if not c.site.args:
        return False
    a = c.site.args[0]
    if a.kind == "lit":
        return True
    if a.kind == "other":
        keys = {s.value.lower() for s in fn.strings if s.line == a.line or s.line == c.site.line}
        return bool(keys & _COMMAND_KEYS)
    if not isinstance(a.value, str):
        return False
    if a.kind == "call":  # ``send_pyobj(Order(method=name))``
        line, func = c.site.line, a.value.split("(", 1)[0]
    elif a.kind == "name":
        made = [x for x in fn.assigns if x.target == a.value and x.line <= c.site.line and x.value_kind == "call"]
        if not made:
            return False
        line, func = made[-1].line, str(made[-1].value)
    else:
        return False
    return any(o.site.line == line and o.site.func == func and {k.lower() for k, _ in o.site.kwargs} & _COMMAND_KEYS
               for o in fn.calls)


# ---------------------------------------------------------------- body patterns
def _lines_of(fn: FnFacts, pred) -> int:
    for c in fn.calls:
        if pred(c):
            return c.site.line
    return fn.line


def _has_call(fn: FnFacts, *methods: str) -> bool:
    called = fn.called()
    return any(m in called for m in methods)


def _tok_has(fn: FnFacts, *parts: str) -> bool:
    """Any body identifier contains one of ``parts`` (substring search over the joined tokens)."""
    text = fn.token_text()
    return any(p in text for p in parts)


def _tensor_min(fn: FnFacts) -> bool:
    """An element-wise min/max of tensors (``torch.min(a, b)``, ``a.minimum(b)``), not the builtin."""
    return any(c.method in ("min", "max", "minimum", "maximum") and not (c.names and c.names[0].startswith("<builtin>"))
               and (c.site.receiver or c.names) for c in fn.calls)


def _reports_only(fn: FnFacts) -> bool:
    """The training maths in this body only feeds a report: it hands back nothing but a metrics or
    statistics record (``return metrics``) or nothing at all, writes what it computes into a
    metrics store (``metrics["kl"] = ...``, ``self._metrics[mode][k].append(...)``), and runs no
    backward or step. Diagnostics of advantages or ratios are no advantage estimator, no loss."""
    if _has_call(fn, "backward", "step"):
        return False
    name = set(tokens_of(fn.definition.name))
    if name & _REPORT_NAMES and not name & _WORK_NAMES and \
            all(_metric_text(t) or t.startswith("<") for t in fn.definition.returned):
        return True  # ``compute_kl_metrics``: named for the report it builds and handing back no named value
    if any(not _metric_text(t) for t in fn.definition.returned):
        return False
    stores = [s.receiver for s in fn.subs if s.mode == "write" and s.receiver != "<dict>"]  # not a literal's keys
    stores += [c.site.receiver or "" for c in fn.calls if c.method in ("append", "update", "extend", "setdefault")]
    return bool(stores) and all(_metric_text(r) for r in stores)


_REPORT_TOKENS = ("metric", "stat", "diagnos", "summary", "report")
_REPORT_NAMES = frozenset({"metric", "metrics", "stats", "statistics", "diagnostics", "summary", "report"})
_WORK_NAMES = frozenset({"loss", "losses", "advantage", "advantages", "adv", "return", "returns", "reward", "rewards",
                         "update", "step", "train", "backward", "grad", "grads", "objective"})


def _metric_text(text: str) -> bool:
    return any(t.startswith(_REPORT_TOKENS) for t in tokens_of(text))


def _gae(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    if _reports_only(fn):
        return ()
    if not (_tok_has(fn, "advantage") or "adv" in fn.tokens() or _tok_has(fn, "gae")):
        # discounted returns in other words: a backwards accumulation with a discount factor
        if _tok_has(fn, "gamma", "discount") and _has_call(fn, "reversed", "flip", "discount_cumsum") \
                and _tok_has(fn, "return", "reward", "rew"):
            return ((_lines_of(fn, lambda c: c.method in ("reversed", "flip")), MEDIUM),)
        return ()
    discount = _tok_has(fn, "gamma", "discount")
    lam = _tok_has(fn, "lam", "gae")
    backwards = _has_call(fn, "reversed", "flip", "cumsum", "discount_cumsum") or "lastgaelam" in fn.tokens()
    if discount and lam and (backwards or _tok_has(fn, "return")):
        return ((_lines_of(fn, lambda c: c.method in ("reversed", "flip", "range")), STRONG),)
    if discount and backwards and _tok_has(fn, "return"):
        return ((fn.line, MEDIUM),)
    return ()


_SPREAD = ("std", "std_mean", "var", "nanstd", "nanvar")


def _group_norm(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    if _reports_only(fn):
        return ()
    if not _has_call(fn, *_SPREAD):
        # centring without scaling (Dr. GRPO, a leave-one-out baseline): rewards minus their
        # group mean, said to be the advantages
        if _has_call(fn, "mean") and (_tok_has(fn, "advantage") or "adv" in fn.tokens() or "advs" in fn.tokens()) \
                and _tok_has(fn, "reward", "score", "return"):
            return ((_lines_of(fn, lambda c: c.method == "mean"), MEDIUM),)
        return ()
    # NaN-aware reductions (``nanstd``/``nanmean``, NumPy, JAX and torch) skip the unscored samples of a group
    if not _has_call(fn, "mean", "std_mean", "nanmean"):
        return ()
    if not (_tok_has(fn, "advantage") or "adv" in fn.tokens() or "advs" in fn.tokens()):
        # per-group normalisation of scores in other words: reshaped or selected by group
        if _tok_has(fn, "group", "prompt") and _has_call(fn, "view", "reshape", "unflatten", "unique", "split") \
                and _tok_has(fn, "reward", "score", "return"):
            return ((_lines_of(fn, lambda c: c.method in _SPREAD), MEDIUM),)
        return ()
    if _tok_has(fn, "reward", "score", "return"):
        return ((_lines_of(fn, lambda c: c.method in _SPREAD), STRONG),)
    return ((fn.line, MEDIUM),)


def _policy_loss(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    if _reports_only(fn):
        return ()
    clamp = _has_call(fn, "clamp", "clip", "clamp_", "clip_by_value")
    ratio = "ratio" in fn.tokens() or _tok_has(fn, "ratio") or _has_call(fn, "exp")
    adv = _tok_has(fn, "advantage") or "adv" in fn.tokens() or "advantages" in fn.tokens()
    logp = _tok_has(fn, "logprob", "log_prob", "logp", "log_probs") or {"log", "prob"} <= fn.tokens() or {"log", "probs"} <= fn.tokens()
    if clamp and ratio and adv and logp:
        return ((_lines_of(fn, lambda c: c.method in ("clamp", "clip", "clamp_")), STRONG),)
    if ratio and adv and logp and _has_call(fn, "exp"):
        return ((_lines_of(fn, lambda c: c.method == "exp"), MEDIUM),)
    if clamp and _has_call(fn, "exp") and _tensor_min(fn):
        # the clipped surrogate's shape whatever the words: min(r*A, clamp(r)*A) with r = exp(...)
        return ((_lines_of(fn, lambda c: c.method in ("clamp", "clip", "clamp_")), MEDIUM),)
    return ()


# the textbook names of two log-densities (``kl(log_p, log_q)``): whole tokens, not pieces of words
_LOG_DENSITY = frozenset({"log_p", "log_q", "logq", "log_pi", "log_ratio"})


def _names_kl(fn: FnFacts) -> bool:
    """The body itself names a KL value, not only a knob it forwards (``kl_coef=kl_coef``)."""
    if not ("kl" in fn.tokens() or _tok_has(fn, "_kl", "kl_")):
        return False
    own = own_tokens(fn)
    return "kl" in own or any("_kl" in t or "kl_" in t for t in own)


def _kl(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    for c in fn.calls:
        if c.method in ("kl_div", "kl_divergence") and (c.names or c.method == "kl_div"):
            return ((c.site.line, STRONG),)
    if _names_kl(fn) and (_tok_has(fn, "logprob", "log_prob", "logp") or {"log", "prob"} <= fn.tokens()
                          or _LOG_DENSITY & fn.tokens()) and not _reports_only(fn):
        return ((fn.line, MEDIUM),)
    return ()


def _value_loss(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    values = _tok_has(fn, "value", "vpred", "vf")
    returns = _tok_has(fn, "return")
    clipped = _has_call(fn, "clamp", "clip", "max", "maximum") and _names_a_loss(fn)
    if values and not returns and clipped and _VALUE_TARGET.search(fn.token_text()):
        # the regression target named as the value's target (``target_value``, ``value_targets``)
        # rather than the returns: the same clipped value loss
        returns = True
    if not (values and returns):
        return ()
    if _has_call(fn, "mse_loss", "huber_loss", "smooth_l1_loss"):
        return ((_lines_of(fn, lambda c: c.method.endswith("loss")), STRONG),)
    if clipped:
        return ((_lines_of(fn, lambda c: c.method in ("clamp", "clip", "max", "maximum")), MEDIUM),)
    return ()


# a value head's regression target, named as such: ``target_value(s)``, ``value_target(s)``, ``v_target``
_VALUE_TARGET = re.compile(r"(target_values?|values?_targets?|v_targets?|vtarg)\b")


_LOSS_NAME = re.compile(r"(^|_)loss(es)?\d*$")


def _names_a_loss(fn: FnFacts) -> bool:
    """A whole name of the body is a loss (``loss``, ``vf_losses1``), not a piece of one (``loss_mask``)."""
    names = {a.target.rsplit(".", 1)[-1] for a in fn.assigns}
    names.update(p.name for p in fn.definition.params)
    names.update(str(a.value).rsplit(".", 1)[-1] for c in fn.calls for a in c.site.args
                 if a.kind == "name" and isinstance(a.value, str))
    names.update(r.rsplit(".", 1)[-1] for r in fn.definition.returned)
    names.add(fn.definition.name)
    return any(_LOSS_NAME.search(n.lower()) for n in names)


_GATHER = ("gather", "take_along_dim", "take_along_axis")


def _token_logprobs(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    # ``take_along_axis`` is the NumPy/JAX spelling of the gather
    if _has_call(fn, "log_softmax") and _has_call(fn, *_GATHER):
        out = ((_lines_of(fn, lambda c: c.method == "log_softmax"), STRONG),)
    elif _has_call(fn, "logsumexp") and _has_call(fn, *_GATHER):
        out = ((_lines_of(fn, lambda c: c.method == "logsumexp"), MEDIUM),)
    else:
        return ()
    # the log-prob of each token a decoding loop draws is recorded there, not recomputed for a loss
    return () if _decode_line(fn) is not None else out


def _logits_entropy(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    line = entropy_from_logits(fn)
    if line is None or _reports_only(fn) or _decode_line(fn) is not None:
        return ()
    return ((line, STRONG),)


def _masked_whiten(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """Whitening per-token values under a response mask: ``(x - mean) * rsqrt(var + eps)`` with masked statistics.

    The mask parameter is what makes it token-level RL maths: a normalisation layer (RMSNorm) or a
    feature scaler takes none.
    """
    if not any("mask" in p.lower() for p in fn.params):
        return ()
    if _has_call(fn, "rsqrt"):
        return ((_lines_of(fn, lambda c: c.method == "rsqrt"), MEDIUM),)
    if _has_call(fn, "std", "var") and _has_call(fn, "mean", "sum") and _tok_has(fn, "whiten", "norm", "shift"):
        return ((_lines_of(fn, lambda c: c.method in ("std", "var")), MEDIUM),)
    return ()


_IN_PLACE_UPDATE = frozenset({"add_", "sub_", "addcdiv_", "addcmul_", "_foreach_add_", "_foreach_sub_",
                              "_foreach_addcdiv_", "lerp_"})


def _manual_step(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """A parameter update written by hand: reads ``.grad`` and updates tensors in place (``p.add_(p.grad, alpha=-lr)``)."""
    if not any(a.attr == "grad" and a.mode == "read" for a in fn.attrs):
        return ()
    for c in fn.calls:
        if c.method in _IN_PLACE_UPDATE:
            return ((c.site.line, MEDIUM),)
    return ()


def _trainer_hook(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    if fn.cls is None or fn.definition.name not in ("compute_loss", "training_step"):
        return ()
    seen: set[str] = set()
    todo = [fn.cls]
    while todo:
        c = todo.pop()
        if c in seen or len(seen) > 12:
            continue
        seen.add(c)
        info = facts.classes.get(c)
        if info is None:
            continue
        for b in info.bases:
            if b.startswith(("transformers.", "trl.", "accelerate.", "lightning.", "pytorch_lightning.")) \
                    and "Trainer" in b or b.endswith(("LightningModule",)):
                return ((fn.line, STRONG),)
            todo.append(b)
    return ()


_MODULE_API = frozenset({"parameters", "named_parameters", "buffers", "named_buffers", "state_dict", "modules",
                         "named_modules", "children", "named_children", "__iter__"})


def _param_stream(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """A generator walking the model's parameters: weights streamed somewhere, chunk by chunk."""
    if not fn.definition.yields or fn.definition.name in _MODULE_API:
        return ()  # a container of modules implementing ``parameters()`` is the module interface, not a push
    for c in fn.calls:
        if c.method in ("named_parameters", "state_dict", "named_buffers"):  # names travel with the tensors
            return ((c.site.line, MEDIUM),)
    return ()


_MODEL_OUT = ("logprob", "log_prob", "logps", "logp", "value", "entropy", "logit")
_DRAWS = frozenset({"multinomial", "argmax", "sample", "gumbel_softmax", "categorical", "top_k_top_p_sampling"})
_GROWS = frozenset({"cat", "concat", "concatenate", "hstack", "column_stack", "append", "extend"})


def _decode_line(fn: FnFacts) -> int | None:
    """Where the body decodes by hand: it runs the model, draws a token, and grows the very input
    it feeds the model with (``ids = torch.cat([ids, nxt])`` before ``policy(ids)`` again).

    A trainer's forward pass reads stored sequences; it never feeds its own draws back.
    """
    fed: set[str] = set()
    line = None
    for c in fn.calls:
        # the model run: a model object, or a module class calling itself (``self(**inputs)``)
        model = c.obj_role == "hf_model" or (fn.cls is not None and c.site.func == "self")
        if model and c.method not in ("generate",) and not c.method[:1].isupper():
            for a in (*c.site.args, *(a for _, a in c.site.kwargs)):
                if a.kind == "name" and isinstance(a.value, str):
                    fed.add(a.value)
            e = c.site.expr
            if c.site.star_args and isinstance(e, tuple) and len(e) > 3:  # ``self(**inputs)``: only in the tree
                for x in (*e[2], *e[3]):
                    v = x[1] if isinstance(x, tuple) and len(x) == 2 and x[0] in ("*", "**") else None
                    if isinstance(v, tuple) and v[:1] == ("n",):
                        fed.add(str(v[1]))
            line = line or c.site.line
    if not fed or not any(c.method in _DRAWS for c in fn.calls):
        return None
    grown = {a.target for a in fn.assigns if a.value_kind == "call" and isinstance(a.value, str)
             and a.value.rsplit(".", 1)[-1] in _GROWS}
    grown.update(c.site.receiver for c in fn.calls if c.method in ("append", "extend") and c.site.receiver)
    if not grown:
        return None
    # one hop: the model's inputs built from the grown ids (``inputs = self.prep(ids)``)
    at = {a.line: a.target for a in fn.assigns if a.value_kind == "call" and "." not in a.target}
    for c in fn.calls:
        t = at.get(c.site.line)
        if t is not None and any(a.kind == "name" and a.value in grown for a in c.site.args):
            grown = grown | {t}
    return line if fed & grown else None


def _at(line: int | None, strength: float) -> tuple[tuple[int, float], ...]:
    """One match at ``line`` with ``strength``, or none: what a body signal answers from a lookup."""
    return ((line, strength),) if line is not None else ()


def _decode_loop(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """A hand-written decoding loop: the model run on its own drawn tokens, one step at a time."""
    return _at(_decode_line(fn), STRONG)


def _preference_margin(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """A loss non-linearity over chosen/rejected log-probs (``preference.py``)."""
    return _at(preference_margin_line(fn), STRONG)


def _engine_params(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """An untyped generate call handed vLLM/SGLang sampling parameters (``engine_params.py``)."""
    return _at(engine_params_line(fn, facts), STRONG)


def _next_token(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """One decoding step: a token drawn from the model's own output (``draws.next_token_line``)."""
    if _decode_line(fn) is not None:
        return ()  # the whole loop is in the body: ``decode-loop`` says it
    return _at(next_token_line(fn, facts), STRONG)


_DRAW_CONTEXT = ("logit", "softmax", "temperature", "top_p", "top_k", "vocab", "next_token", "action", "policy")


def _draws_from_policy(fn: FnFacts) -> bool:
    """The body's multinomial draws from a distribution the model gave (logits, softmax, a policy)."""
    if _tok_has(fn, *_DRAW_CONTEXT) or _has_call(fn, "softmax", "log_softmax"):
        return True
    return any(c.obj_role == "hf_model" for c in fn.calls)


def drop_resampling(facts: Facts, matches: dict[str, list]) -> None:
    """``torch.multinomial`` over data weights, called by training code, is resampling (pattern L).

    A draw with nothing of a policy around it (no logits, softmax, temperature, model call) is
    acting with the policy only when the rollout calls it; when every caller holds training
    evidence of its own, the draw picks examples, and its sampling evidence is dropped. So it is
    when the weights are built in the body (``draws.index_draw``): rows picked by their lengths.
    """
    cands = {q for q, ms in matches.items()
             if any(m.signal.id == "logits-sampling" for m in ms) and not _draws_from_policy(facts.functions[q])}
    if not cands:
        return
    callers: dict[str, set[str]] = {}
    for q, fn in facts.functions.items():
        for c in fn.calls:
            for t in c.targets:
                if t in cands and t != q:
                    callers.setdefault(t, set()).add(q)
        for targets, _ in fn.extra:
            for t in targets:
                if t in cands and t != q:
                    callers.setdefault(t, set()).add(q)

    def trains(q: str) -> bool:
        ms = matches.get(q, ())
        own_t = sum(m.score for m in ms if m.signal.side == TRAINING)
        return own_t >= 1.0 and not any(m.signal.side == SAMPLING and m.signal.id != "logits-sampling" for m in ms)

    for q in sorted(cands):
        cs = callers.get(q)
        if (cs and all(trains(c) for c in cs)) or index_draw(facts.functions[q]):
            matches[q] = [m for m in matches[q] if m.signal.id != "logits-sampling"]


def _model_forward(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """Calling the policy/critic module itself to get log-probs, values or entropies."""
    if not _tok_has(fn, *_MODEL_OUT):
        return ()
    if _tok_has(fn, "reward", "score"):
        return ()  # scoring samples with a reward model is not the trainer's forward pass
    if not _tok_has(fn, *(w for w in _MODEL_OUT if w != "value")) and _attention_body(fn):
        return ()  # an attention layer's values (q, k, v) inside the model, not a critic's
    if predicts_only(fn):
        return ()  # the logits become predicted answers: an evaluation
    for c in fn.calls:
        if c.obj_role == "hf_model" and c.method not in ("generate",) and not _repo_function(c, facts) \
                and not module_plumbing(c.method):
            if _decode_line(fn) is not None or next_token_line(fn, facts) is not None:
                return ()  # the model is run to draw its next token: generation, not a trainer's forward
            return ((c.site.line, MEDIUM),)
    return ()


def _attention_body(fn: FnFacts) -> bool:
    """The body computes attention: queries, keys and values (``q, k, v``, ``query_states``)."""
    toks = fn.tokens()
    return bool(toks & {"query", "queries", "qkv", "query_states", "key_states", "value_states"}) or \
        {"q", "k", "v"} <= toks


def _repo_function(c: CallFact, facts: Facts) -> bool:
    """The call names a repo function or method of that very name other than a module's
    ``forward``/``__call__`` (``_set_module(model, ...)``, ``self._create_device_model()``), or a
    library function that is no model object (``parallelize_module(block, ...)``): a helper named
    like a model, not a model run."""
    name = c.site.func.rsplit(".", 1)[-1]
    if c.names and not c.targets and not c.instance:
        return True
    return bool(c.targets) and all(t in facts.functions and t.rsplit(".", 1)[-1] == name
                                   and name not in ("forward", "__call__") for t in c.targets)


def _container_op(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    from .fields import container_ops  # containers are found after a first labelling pass

    if abstract(fn):
        return ()  # an interface declared with the batch type in its signature moves nothing
    ops = container_ops(fn, facts)
    if ops and all(how in ("builds", "returns") for _, how in ops) and _built_from_prompts(fn, facts):
        return ()
    return ((ops[0][0], MEDIUM),) if ops else tuple(_container_serialise(fn, facts))


def _built_from_prompts(fn: FnFacts, facts: Facts) -> bool:
    """Every batch record the body builds is made from dataset rows or prompts: the prompt batch
    on its way into the sampler, not trajectories on their way to the trainer (see ``prompt_fed``)."""
    from .fields import _constructed  # containers are found after a first labelling pass

    built = {line for cls, line, _ in _constructed(fn, facts) if cls in facts.containers}
    return prompt_fed(fn, [c for c in fn.calls if c.site.line in built and (c.repo or c.targets)])


_FRESH = ("completion", "response", "sequence", "output", "answer", "queries", "query", "solution", "generated",
          "rollout", "trajector")


# the class built is data or settings named for rewards, not a scorer (a reward hook or model is one)
_DATA_CLASS = re.compile(r"(Dataset|Datasets|Data|Config|Args|Arguments|Params|Loader|Collator|Sampler)$")


def _reward_scoring(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """Calling a reward function/model or a verifier on freshly generated completions.

    Reward callables are usually passed in (plugins, lists of functions, Ray handles). A
    call that names a repo function speaks through that callee; one made through a variable
    that happens to resolve to the repo's own reward functions (``for reward_func in
    self.reward_funcs: reward_func(...)``) is still the act of scoring.
    """
    if not _tok_has(fn, *_FRESH):
        return ()
    for c in fn.calls:
        if c.into_repo(fn.qualname) and any(t.rsplit(".", 1)[-1] == c.method for t in c.targets):
            continue
        name = c.method.lower()
        if name in ("remote",):
            continue
        if c.method[:1].isupper() and _DATA_CLASS.search(c.method):
            continue  # a data or settings class built (``PairwiseRewardDataset(path)``): nothing is scored
        if ("reward" in name and not name.startswith(("get_", "set_", "log", "_log", "normalize", "init"))
                and "stat" not in name and "metric" not in name) or name in ("rm", "reward_fn", "compute_score", "score_fn",
                                                                              "verify", "verifier", "judge"):
            return ((c.site.line, MEDIUM),)
        if c.names and c.names[0].startswith(("math_verify.", "latex2sympy2")):
            return ((c.site.line, MEDIUM),)
    line = reward_reply_line(fn, _is_http)  # a deployed reward model asked over HTTP
    return ((line, MEDIUM),) if line is not None else ()


def _http_call(fn: FnFacts) -> bool:
    for c in fn.calls:
        n = c.names[0] if c.names else ""
        if n.startswith(("requests.", "httpx.", "aiohttp.", "urllib.", "http.client", "openai.")):
            return True
        if c.method in _HTTP_METHODS and c.site.receiver is not None:
            return True
    return False


_HTTP_CLIENTS = ("session", "client", "http", "requests", "httpx", "aiohttp", "conn")


def _is_http(c: CallFact) -> bool:
    """An HTTP request: a client library's call, or a verb on a receiver that looks like a client
    (``self.phases.get(name)`` on a dict is no request)."""
    n = c.names[0] if c.names else ""
    if n.startswith(("requests.", "httpx.", "aiohttp.", "urllib.", "http.client")):
        return True
    if c.method not in _HTTP_METHODS or c.site.receiver is None or c.names:
        return False
    recv = c.site.receiver.lower()
    return c.method not in ("get", "_get", "put") or any(w in recv for w in _HTTP_CLIENTS)


# a request body that asks a server to decode: a decoding-length or log-prob key next to the prompt
_DECODE_KEYS = frozenset({"sampling_params", "max_new_tokens", "max_tokens", "max_completion_tokens",
                          "return_logprob", "logprobs", "top_logprobs"})
_PROMPT_KEYS = frozenset({"prompt", "prompts", "messages", "text", "input_ids", "inputs", "prompt_token_ids"})
_SENDS_BODY = frozenset({"post", "apost", "async_post", "_post", "request", "arequest", "stream"})


def _generation_payload(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """An HTTP request whose JSON body (written in this function) holds a prompt and decoding parameters."""
    keys = {v for v, _ in fn.literals()}
    if not (keys & _DECODE_KEYS and keys & _PROMPT_KEYS):
        return ()
    for c in fn.calls:
        if c.method in _SENDS_BODY and _is_http(c):
            return ((c.site.line, MEDIUM),)
    return ()


_RPC_BY_NAME = frozenset({"collective_rpc", "execute_method", "run_method", "call_method", "invoke_method",
                          "remote_method", "call_remote"})


def _tree_names(tree: object, out: set[str], depth: int = 0) -> None:
    """Plain names in a value tree, through unions (``a + "/" + b``, ``x or y``)."""
    if depth > 8 or not isinstance(tree, tuple) or not tree:
        return
    if tree[0] == "n" and len(tree) == 2 and isinstance(tree[1], str):
        out.add(tree[1])
    elif tree[0] == "u" and len(tree) == 2 and isinstance(tree[1], tuple):
        for t in tree[1]:
            _tree_names(t, out, depth + 1)


def _used_names(fn: FnFacts) -> set[str]:
    """Heads of the names the body hands to calls or assigns (what an f-string hole did not take)."""
    used: set[str] = set()
    for c in fn.calls:
        used.add(c.site.func.split(".", 1)[0])
        for a in (*c.site.args, *(a for _, a in c.site.kwargs)):
            if a.kind in ("name", "call") and isinstance(a.value, str):
                used.add(a.value.split(".", 1)[0])
    for a in fn.assigns:
        if isinstance(a.value, str):
            used.update(tokens_of(a.value))
    return used


def named_by_param(fn: FnFacts, facts: Facts) -> tuple[frozenset[str], bool]:
    """Parameters of ``fn`` that name the operation it performs, and whether it is an HTTP request.

    A parameter flows into the URL of an HTTP call (directly, through a local built by
    concatenation, or into a hole of an f-string URL when the body uses it nowhere else), or
    into the name of a method run by name (``getattr(obj, p)(...)``, an RPC helper's method
    argument). A caller's literal at that parameter then names an endpoint or engine method.
    """
    if fn._named is None:
        fn._named = _named_by_param(fn, facts)
    return fn._named


_NAMING_CALLS = frozenset(_HTTP_METHODS | _RPC_BY_NAME | {"getattr"})


def _named_by_param(fn: FnFacts, facts: Facts) -> tuple[frozenset[str], bool]:
    params = [p.name for p in fn.definition.params if p.name not in ("self", "cls") and p.kind in ("pos", "kwonly")]
    if not params or not fn.called() & _NAMING_CALLS:
        return frozenset(), False
    out: set[str] = set()
    http = False
    flows = None
    for c in fn.calls:
        expr = c.site.expr
        args = expr[2] if isinstance(expr, tuple) and len(expr) == 4 and expr[0] == "c" else ()
        if c.method == "getattr" and len(args) >= 2:
            _tree_names(args[1], out)
        elif c.method in _RPC_BY_NAME and args:
            _tree_names(args[0], out)
        elif _is_http(c) and (c.site.args or any(k == "url" for k, _ in c.site.kwargs)):
            first = c.site.args[0] if c.site.args else next(a for k, a in c.site.kwargs if k == "url")
            if args:
                tree = args[0]
            else:
                kws = expr[3] if isinstance(expr, tuple) and len(expr) == 4 else ()
                tree = next((v for k, v in kws if k == "url"), None)
            names: set[str] = set()
            _tree_names(tree, names)
            if first.kind == "name" and isinstance(first.value, str) and "." not in first.value:
                if flows is None:
                    summary = facts.summaries.get(fn.module)
                    scope = fn.definition.qualname
                    flows = [f for f in summary.flows if f.scope == scope and f.op == "="] if summary is not None else []
                for f in flows:
                    if f.target == ("n", first.value):
                        _tree_names(f.value, names)
            if tree == ("k", ""):  # an f-string (its value tree keeps no holes): what fills them is unseen
                used = _used_names(fn)
                names.update(p for p in params if p not in used)
            hit = names & set(params)
            if hit:
                out |= hit
                http = True
    return frozenset(out & set(params)), http


def _literal_operands(fn: FnFacts, facts: Facts) -> Iterable[tuple[str, int, bool]]:
    """String literals this body hands to a repo helper at a parameter that names the operation."""
    for c in fn.calls:
        if not c.targets or c.kind != EXACT:
            continue
        lits = [(i, a.value) for i, a in enumerate(c.site.args) if a.kind == "lit" and isinstance(a.value, str)]
        kw = [(k, a.value) for k, a in c.site.kwargs if a.kind == "lit" and isinstance(a.value, str)]
        if not lits and not kw:
            continue
        for t in c.targets:
            callee = facts.functions.get(t)
            if callee is None or t == fn.qualname:
                continue
            named, http = named_by_param(callee, facts)
            if not named:
                continue
            pos = [p.name for p in callee.definition.params if p.kind == "pos"]
            if pos and pos[0] in ("self", "cls") and callee.cls:
                pos = pos[1:]
            for i, v in lits:
                if i < len(pos) and pos[i] in named:
                    yield v, c.site.line, http
            for k, v in kw:
                if k in named:
                    yield v, c.site.line, http


def _url_attrs(fn: FnFacts) -> list[tuple[str, int]]:
    """``self.<attr>`` handed as the URL of an HTTP request in this body, with the call's line."""
    out = []
    for c in fn.calls:
        if not _is_http(c):
            continue
        a = c.site.args[0] if c.site.args else c.site.kwarg("url")
        if a is not None and a.kind == "name" and isinstance(a.value, str) and a.value.startswith("self.") \
                and a.value.count(".") == 1:
            out.append((a.value[5:], c.site.line))
    return out


def _stored_endpoint(cls: str, attr: str, rx: re.Pattern[str], facts: Facts) -> bool:
    """A method of ``cls`` (or of a base) stores a URL matching ``rx`` in ``self.<attr>``
    (``self.route = base.rstrip("/") + "/generate"`` in ``__init__``)."""
    for mf in facts.mro_methods(cls):
        lines = {a.line for a in mf.assigns if a.target == f"self.{attr}"}
        if lines and any(line in lines and "/" in v and rx.search(v) for v, line in mf.literals()):
            return True
    return False


def _stores_url_for_sender(fn: FnFacts, line: int, facts: Facts) -> bool:
    """The literal on ``line`` is a URL this body stores on the object for another method's request."""
    if fn.cls is None:
        return False
    attrs = [a.target[5:] for a in fn.assigns if a.line == line and a.target.startswith("self.")]
    if not attrs:
        return False
    return any(mf is not fn and any(a in attrs for a, _ in _url_attrs(mf)) for mf in facts.mro_methods(fn.cls))


def _endpoint(rx: re.Pattern[str]):
    def body(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
        lits = fn.literals()
        if lits:
            http = _http_call(fn)
            for value, line in lits:
                if "/" in value and rx.search(value):
                    if _stores_url_for_sender(fn, line, facts):
                        continue  # the request is made by the method that reads it back (below)
                    if not http and returns_url(fn, line, facts):
                        continue  # a URL handed back to the caller, who makes the request
                    return ((line, STRONG if http else MEDIUM),)
            # the operation named here, performed by a helper (pattern H)
            for value, line, http in _literal_operands(fn, facts):
                if len(value) < 80 and rx.search("/" + value.lstrip("/")):
                    return ((line, STRONG if http else MEDIUM),)
        # the URL was built once and kept on the object: ``self.http.post(self.route, ...)``
        if fn.cls is not None:
            for attr, line in _url_attrs(fn):
                if _stored_endpoint(fn.cls, attr, rx, facts):
                    return ((line, STRONG),)
        return ()

    return body


# lists of servers, workers and handles a manager appends to and pops from: no experience
_INFRA_LISTS = ("handle", "address", "addr", "replica", "server", "worker", "actor", "client", "node", "thread",
                "future", "callback", "hook", "engine")


_BUFFER_DRAWS = frozenset({"sample", "choices", "choice", "randint", "randperm", "shuffle", "popleft", "pop"})
_STORES = frozenset({"append", "extend", "appendleft", "put", "put_nowait", "add", "insert"})


def _grown(cls: str, facts: Facts) -> set[str]:
    """The list attributes a class grows that may hold experience (not handles, servers, hooks)."""
    return {a for a in facts.class_appended(cls) if not any(w in a.lower() for w in _INFRA_LISTS)}


def _draw_site(fn: FnFacts, grown: set[str]) -> tuple[int, str] | None:
    """Where the body draws from (samples, pops) one of the grown lists, and which one."""
    for c in fn.calls:
        if c.method in _BUFFER_DRAWS:
            texts = [c.site.receiver or ""] + [a.value for a in c.site.args if isinstance(a.value, str)]
            for t in texts:
                if t.startswith("self.") and (attr := t.split(".")[1].rstrip("()[]")) in grown:
                    return c.site.line, attr
    return None


def drawn_lists(cls: str, facts: Facts) -> frozenset[str]:
    """The lists of a class (and its repo bases) that one of its methods draws from: its store."""
    def compute() -> frozenset[str]:
        grown = _grown(cls, facts)
        out: set[str] = set()
        if grown:
            for f in facts.mro_methods(cls):
                hit = _draw_site(f, grown) or iteration_draw(f, grown)
                if hit is not None:
                    out.add(hit[1])
        return frozenset(out)
    return facts.memo_class("drawn", cls, compute)


# what a stored experience is called (a generation's output, or a generic record), never a prompt or an index
_EXPERIENCE = _MADE + ("data", "item", "batch", "experience", "transition", "exp", "obs", "step")
_NOT_EXPERIENCE = ("prompt", "request", "task", "idx", "indices", "index", "mask", "key", "name", "id", "waiter",
                   "future", "callback", "handle")


def _stores_experience(fn: FnFacts, lists: AbstractSet[str]) -> int | None:
    """The line where the body appends a parameter named as experience to one of ``lists``."""
    handed = set(fn.params)
    for c in fn.calls:
        rec = c.site.receiver or ""
        if c.method in _STORES and rec.startswith("self.") and rec[5:] in lists:
            for a in c.site.args:
                if a.kind == "name" and a.value in handed:
                    words = tokens_of(a.value)
                    if any(any(w.startswith(e) for e in _EXPERIENCE) or batch_word(w) for w in words) \
                            and not any(any(w.startswith(n) for n in _NOT_EXPERIENCE) for w in words):
                        return c.site.line
    return None


def experience_lists(cls: str, facts: Facts) -> frozenset[str]:
    """The drawn lists some method of the class stores experience in (see ``_stores_experience``):
    rewriting one of those evicts experience; a list of waiters or of prompt inputs is no store."""
    def compute() -> frozenset[str]:
        out: set[str] = set()
        for lst in drawn_lists(cls, facts):
            for f in facts.mro_methods(cls):
                if _stores_experience(f, {lst}) is not None:
                    out.add(lst)
        return frozenset(out)
    return facts.memo_class("experience", cls, compute)


def _replay_buffer(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """The buffer's draw (sampling a batch from the stored list), and its other ends: the method
    that stores what it is handed in that list and the one that rewrites the list from itself
    (evicting stale or over-capacity experience) move the same trajectories."""
    if fn.cls is None:
        return ()
    grown = _grown(fn.cls, facts)
    if not grown:
        return ()
    hit = _draw_site(fn, grown)
    if hit is not None:
        return ((hit[0], MEDIUM),)
    hit = iteration_draw(fn, grown)
    if hit is not None and hit[1] in experience_lists(fn.cls, facts):
        return ((hit[0], MEDIUM),)  # the training loop iterates the stored experience
    if fn.definition.name.startswith("__"):
        return ()
    store = drawn_lists(fn.cls, facts)
    if not store:
        return ()
    line = _stores_experience(fn, store)
    if line is not None:
        return ((line, MEDIUM),)
    store = experience_lists(fn.cls, facts)
    for a in fn.assigns:
        if a.target.startswith("self.") and a.target[5:] in store and a.value_kind not in ("lit", "name", "none") \
                and _rewrites_from_itself(fn, a.target, facts):
            return ((a.line, MEDIUM),)
    return ()


# the data methods of a library rollout buffer: storing a step, serving (mini)batches of them
_BUFFER_DATA = frozenset({"add", "extend", "get", "sample", "_get_samples", "push", "pop", "store", "put"})


def _library_buffer(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """An override of a data method in a subclass of an RL library's rollout buffer: the class
    stores the rollouts and serves them to the update, whatever it adds (masks, extra arrays)."""
    if fn.cls is None or fn.definition.name not in _BUFFER_DATA:
        return ()
    if facts.class_role(fn.cls) != "rollout_buffer":
        return ()
    return ((fn.line, MEDIUM),)


def _launches_sampler(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """Starting the repo's inference-server script as a child process (``handoff.launched_samplers``)."""
    line = facts.launched.get(fn.qualname)
    return ((line, MEDIUM),) if line is not None else ()


_GEN_TASKS = frozenset({"text-generation", "text2text-generation", "conversational", "image-text-to-text",
                        "summarization", "translation"})


def _generation_pipeline(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """A ``transformers.pipeline`` built for a generation task: the task is the first argument or ``task=``."""
    for c in fn.calls:
        if not c.names or c.names[0] not in ("transformers.pipeline", "transformers.pipelines.pipeline"):
            continue
        task = c.site.args[0] if c.site.args else next((a for k, a in c.site.kwargs if k == "task"), None)
        if task is not None and task.kind == "lit" and isinstance(task.value, str) \
                and (task.value in _GEN_TASKS or task.value.startswith("translation_")):
            return ((c.site.line, MEDIUM),)
    return ()


def _rewrites_from_itself(fn: FnFacts, attr: str, facts: Facts) -> bool:
    """The body reads ``self.<attr>`` while reassigning it: a filter or a slice of the store."""
    if any(isinstance(a.value, str) and attr in a.value for a in fn.assigns if a.target == attr):
        return True
    summary = facts.summaries.get(fn.module)
    if summary is None:
        return False
    base = ("a", ("n", "self"), attr[5:])
    scope = fn.definition.qualname
    return any(fl.op == "for" and fl.value == base and (fl.scope == scope or fl.scope.startswith(scope + "."))
               for fl in summary.flows)


_GROUP_KNOBS = frozenset({"weight_decay", "lr", "betas", "eps", "momentum"})


def _param_group_keys(e: object, depth: int = 0) -> bool:
    """A dict literal in ``e`` with a ``"params"`` key beside an optimizer knob: a parameter group."""
    if not isinstance(e, tuple) or not e or depth > 8:
        return False
    if e[0] == "d" and len(e) == 3:
        keys = {k[1] for k, _ in e[2] if isinstance(k, tuple) and len(k) == 2 and k[0] == "k"}
        if "params" in keys and keys & _GROUP_KNOBS:
            return True
    return any(_param_group_keys(x, depth + 1) for x in e if isinstance(x, tuple))


def module_facts(summary: FileSummary) -> ModuleFacts:
    """What the catalog reads of one module's own records (kept per module across runs:
    ``module_facts.py``): where its flows build a parameter group, first line per scope, and
    which of its calls build one in their arguments."""
    got: dict[str, int] = {}
    for fl in summary.flows:
        if fl.op in ("=", "ret") and fl.scope not in got and _param_group_keys(fl.value):
            got[fl.scope] = fl.line
    return ModuleFacts(got, tuple(i for i, c in enumerate(summary.calls) if _param_group_keys(c.expr)))


def _param_groups(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """Builds the optimizer's parameter groups (``[{"params": [...], "weight_decay": wd}, ...]``): the
    torch optimizer convention, whatever class the groups are handed to (an optimizer class taken
    from the config, ``getattr(torch.optim, name)``)."""
    summary = facts.summaries.get(fn.module)
    line = facts.local.of(summary, module_facts).group_scopes.get(fn.definition.qualname) if summary is not None else None
    if line is not None:
        return ((line, STRONG),)
    own = facts.local.files.get(fn.file, summary)  # the summary this function's calls were read from
    known, hits = facts.local.group_sites(own, module_facts) if own is not None else (frozenset(), frozenset())
    for c in fn.calls:  # a call that is no record of that summary (one made up for a handed callable) is read here
        if id(c.site) in hits or (id(c.site) not in known and _param_group_keys(c.site.expr)):
            return ((c.site.line, STRONG),)
    return ()


_ROUTE_VERBS = frozenset({"post", "get", "put", "route", "api_route", "websocket", "add_api_route", "add_route"})


def _generate_route(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """A server's handler registered on a generation path (``@app.post("/generate")``) that
    hands the request to the engine: the serving end of the sampler.

    The route's path is a literal of the decorator call, which sits in the enclosing scope
    just above the ``def``.
    """
    if not any(d.rsplit(".", 1)[-1].replace("()", "") in _ROUTE_VERBS for d in fn.definition.decorators):
        return ()
    if not fn.calls:
        return ()  # answers from its own body (health, version): serves no generation
    summary = facts.summaries.get(fn.module)
    if summary is None:
        return ()
    lo = fn.line - 8 - len(fn.definition.decorators)
    for c in summary.calls:
        if lo <= c.line < fn.line and c.func.rsplit(".", 1)[-1] in _ROUTE_VERBS:
            for a in c.args:
                if a.kind == "lit" and isinstance(a.value, str) and _GEN_ENDPOINT.search(a.value):
                    return ((fn.line, MEDIUM),)
    return ()


_SERIALISE = frozenset({"save", "load", "dumps", "loads", "dump", "packb", "unpackb", "serialize", "deserialize",
                        "tobytes", "frombuffer", "save_file", "load_file"})
_STATE_DUNDERS = ("__getstate__", "__setstate__", "__reduce__", "__reduce_ex__")


def _container_serialise(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """A trajectory container (de)serialising itself to cross a process boundary."""
    if fn.definition.name not in _STATE_DUNDERS or fn.cls not in facts.containers:
        return ()
    for c in fn.calls:
        if c.method in _SERIALISE:
            return ((c.site.line, MEDIUM),)
    return ()


def _tool_call(c: CallFact, fn: FnFacts, s: float) -> float:
    """Running a tool the agent picked: a tool object, a registry of tools, an MCP client."""
    if _resolved_to_repo(c, fn):
        return 0.0  # the repo's own tool class: its body decides
    if c.names and any(n.startswith("mcp.") for n in c.names):
        return max(s, STRONG)
    return s


def _store_payload(c: CallFact, fn: FnFacts, s: float) -> float:
    """A key-value store put/get whose payload is a batch of samples, not a flag or the weights."""
    toks = _arg_tokens(c) | set(tokens_of(c.method))
    for a in fn.assigns:  # ``batch = store.get(keys)``: what the result is called
        if a.line == c.site.line and a.value_kind == "call":
            toks.update(tokens_of(a.target))
    if _weighty(toks):
        return 0.0  # parameters through a store: the weight sync, not this
    if any(any(w in t for w in _NOT_ROLLOUT) for t in toks):
        return 0.0
    if any(any(w in t for w in _ROLLOUT_PAYLOAD) for t in toks):
        return s
    return 0.0


def _broker_payload(c: CallFact, fn: FnFacts, s: float) -> float:
    """A broker push/pop of samples: the topic or list name (a literal) counts as much as the payload's name."""
    lits = {t for a in c.site.args if a.kind == "lit" and isinstance(a.value, str) for t in tokens_of(a.value)}
    lits |= {t for _, a in c.site.kwargs if a.kind == "lit" and isinstance(a.value, str) for t in tokens_of(a.value)}
    if any(any(w in t for w in _NOT_ROLLOUT) for t in lits) or _weighty(lits):
        return 0.0
    if any(any(w in t for w in _ROLLOUT_PAYLOAD) for t in lits):
        return s
    return _store_payload(c, fn, s)


_WRITTEN = ("response", "completion", "reply", "prediction", "pred", "output", "generated", "generation",
            "solution", "answer", "text", "sequence")
_EXPECTED = ("label", "reference", "ref", "ground_truth", "gt", "expected", "target", "gold", "answer", "solution",
             "truth")
_SCORE_WORDS = frozenset({"score", "reward", "grade", "verify", "judge", "correct", "accuracy", "acc", "match"})
_NUMBER_TYPES = frozenset({"float", "int", "bool", "Tensor", "torch.Tensor", "np.ndarray", "numpy.ndarray"})


def grader_shaped(fn: FnFacts) -> bool:
    """A grader by its shape: takes a generated text and what was expected (or says it scores), returns a number.

    Rule-based rewards and verifiers have no library to recognise them by; what marks them is
    the signature (a response/completion and a label/reference) and a numeric result. Whether
    one is rollout-side scoring depends on who calls it (see ``sides.rollout_scoring``).
    """
    params = [p.lower() for p in fn.params]
    if not params or not fn.definition.returned or fn.definition.yields:
        return False
    written = [p for p in params if any(w in p for w in _WRITTEN)]
    if not written:
        return False
    expected = [p for p in params if p not in written[:1] and any(w in p for w in _EXPECTED)]
    if not expected and not _SCORE_WORDS & set(tokens_of(fn.definition.name)):
        return False
    ret = fn.definition.returns
    if ret is not None:
        return ret.split("[", 1)[0] in _NUMBER_TYPES
    returned = set()
    for r in fn.definition.returned:
        returned.update(tokens_of(r))
    if returned & (_SCORE_WORDS | {"scores", "rewards"}):
        return True  # ``return score``
    if any(r in ("float()", "int()", "bool()") for r in fn.definition.returned):
        return True  # ``return float(a == b)``
    # ``return 1.0 if ok else 0.0``, ``return len(a & b) / len(b)``: an expression, said to score or doing
    # arithmetic (an f-string or a joined text is an expression too)
    return "<expr>" in fn.definition.returned and bool(
        _SCORE_WORDS & set(tokens_of(fn.definition.name)) or fn.called() & {"float", "int", "len", "sum", "mean"})


_ACTS = frozenset({"step", "reset"})
_RUNS_TOOL = frozenset({"execute", "aexecute", "call_tool", "run_tool", "execute_tool", "invoke_tool"})


def rollout_interface(fn: FnFacts, facts: Facts) -> bool:
    """A method the rollout drives an environment or a tool through: ``step``/``reset`` of a class
    that has both (an environment by duck typing), or a tool's ``execute``/``call_tool``."""
    if fn.cls is None:
        return False
    name = fn.definition.name
    if name in _ACTS:
        return facts.class_role(fn.cls) == "env"
    return name in _RUNS_TOOL


def _weight_sender(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """Parameters of a module reach a call that leaves the process (found by ``payload.weight_flow``)."""
    return _at(facts.weight_senders.get(fn.qualname), STRONG)


def _weight_receiver(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """The method a parameter payload is handed to, or a body loading what a transport delivered."""
    return _at(facts.weight_receivers.get(fn.qualname), STRONG)


def _serves_handoff_state(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """Returns what a transport-fed handoff method of its class stored (found by ``tag.served_state``)."""
    return _at(facts.handoff_state.get(fn.qualname), MEDIUM)


def _rollout_carrier(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """An end of an opaque carrier that sampling output goes into (found by ``handoff.rollout_carriers``)."""
    return _at(facts.rollout_carriers.get(fn.qualname), MEDIUM)


_SERVER_ARGV = re.compile(r"\bvllm\.entrypoints\.(openai\.api_server|api_server)\b|\bsglang\.launch_server\b|"
                          r"\bsglang\.srt\.entrypoints\b|\bvllm\s+serve\b|\btrtllm-serve\b|\blmdeploy\s+serve\b")
_SPAWNS = ("subprocess.", "asyncio.create_subprocess", "os.system", "os.popen", "os.exec", "os.spawn")


def _server_process(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """Starts an inference server in a child process: the command names a server entry point
    (``python -m vllm.entrypoints.openai.api_server``, ``vllm serve``, ``sglang.launch_server``)."""
    if not any(n.startswith(_SPAWNS) for c in fn.calls for n in c.names):
        return ()
    lits = fn.literals()
    for v, line in lits:
        if _SERVER_ARGV.search(v):
            return ((line, STRONG),)
    words = {v.strip() for v, _ in lits}
    if "serve" in words and words & {"vllm", "sglang", "lmdeploy"}:  # ["vllm", "serve", model] as list items
        return ((next(line for v, line in lits if v.strip() == "serve"), STRONG),)
    return ()


_PENDING = frozenset({"Awaitable", "Coroutine", "Future", "Task", "typing.Awaitable", "typing.Coroutine",
                      "collections.abc.Awaitable", "collections.abc.Coroutine", "asyncio.Future", "asyncio.Task"})
_TRAJECTORY_TYPE = ("trajector", "rollout", "episode")


def _awaits_rollout(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """An async body handed a pending rollout (a parameter typed ``Awaitable``/``Coroutine``) that
    returns a trajectory type: it runs the rollout it was given (a gather helper's per-task wrapper)."""
    d = fn.definition
    if not d.is_async or not d.returns or not any(p.annotation and p.annotation.split("[", 1)[0] in _PENDING
                                                  for p in d.params):
        return ()  # ``Awaitable[X] | Awaitable[list[X]]`` is indexed as ``Awaitable[]``
    ret = d.returns.rsplit(".", 1)[-1].lower()
    if not any(w in ret for w in _TRAJECTORY_TYPE) and not any(w in _returned_type(fn, facts) for w in _TRAJECTORY_TYPE):
        return ()
    return ((d.line, MEDIUM),)


def _returned_type(fn: FnFacts, facts: Facts) -> str:
    """The first class a return annotation names, lower-cased, from the value-flow facts: the
    index keeps no text for a union of three (``X | list[X] | BaseException``)."""
    summary = facts.summaries.get(fn.module)
    if summary is None:
        return ""
    scope = fn.definition.qualname
    for fl in summary.flows:
        if fl.op == "rann" and fl.scope == scope:
            tree = fl.value
            if isinstance(tree, tuple) and len(tree) >= 2 and tree[0] in ("n", "a"):
                name = tree[1] if tree[0] == "n" else tree[-1]
                return name.lower() if isinstance(name, str) else ""
            return ""
    return ""


# what the trainer reads per token of a packed rollout batch (full identifiers, not pieces)
_TRAIN_FIELDS = frozenset({"input_ids", "token_ids", "attention_mask", "loss_mask", "assistant_mask", "action_mask",
                           "response_mask", "completion_mask", "padding_mask", "logprobs", "log_probs", "old_logprobs",
                           "old_log_probs", "ref_logprobs", "ref_log_probs", "advantages", "advantage", "returns",
                           "rewards", "position_ids", "input_pos", "labels", "sample_weights", "weights"})
_TENSOR_BUILDS = ("torch.tensor", "torch.stack", "torch.cat", "torch.concat", "torch.nn.utils.rnn.pad_sequence",
                  "torch.nn.functional.pad", "torch.as_tensor", "torch.full", "torch.zeros", "torch.ones",
                  "numpy.array", "numpy.stack", "numpy.concatenate")


# the records a packer is handed: what the rollout produced
_ROLLOUT_RECORDS = ("episode", "trajector", "rollout", "completion", "result", "experience", "group", "batches",
                    "samples", "transition")
_NOT_PACKING = frozenset({"std", "var", "log_softmax", "softmax", "logsumexp", "exp", "backward", "forward",
                          "model", "generate", "sigmoid", "norm", "clamp", "clip", "cumsum", "masked_mean",
                          "masked_whiten"})


# what a generation left on the record it fills (attribute pieces, read off a parameter)
_GENERATED_ATTRS = ("response", "completion", "logprob", "log_prob", "reward", "trajector", "episode", "rollout")


def _reads_generated(fn: FnFacts) -> bool:
    """A parameter whose attributes the body reads name two or more things a generation left
    (``acc.responses``, ``acc.sampled_logprobs``, ``acc.turn_rewards``): the rollout records, flattened
    into an accumulator whose own name says nothing."""
    params = set(fn.params)
    seen: dict[str, set[str]] = {}
    for a in fn.attrs:
        if a.mode == "read" and a.receiver in params:
            low = a.attr.lower()
            if any(w in low for w in _GENERATED_ATTRS):
                got = seen.setdefault(a.receiver, set())
                got.add(low)
                if len(got) >= 2:
                    return True
    return False


# maths that builds position ids from the attention mask, not statistics of the batch
_POSITION_MATHS = frozenset({"cumsum", "clip", "clamp"})


def _position_ids(c: CallFact, fn: FnFacts) -> bool:
    """``position_ids = torch.clip(torch.cumsum(mask, -1) - 1, min=0)``: the running sum of a mask (or
    a call on the line that assigns position ids or token indices: ``last_idx = (lens - 1).clamp(0, n)``)
    lays the rows out, it computes nothing."""
    if c.method not in _POSITION_MATHS:
        return False
    if _mask_sum(c) or any(o.site.line == c.site.line and _mask_sum(o) for o in fn.calls):
        return True
    return any(a.line == c.site.line and _LAYOUT_TARGET.search(a.target.lower()) for a in fn.assigns)


# position ids and token indices: where rows and tokens sit, not a statistic
_LAYOUT_TARGET = re.compile(r"(^|_|\.)(position|positions|pos|idx|index|indices|offset|offsets)($|_)")


def _mask_sum(c: CallFact) -> bool:
    """``cumsum(mask, ...)``: the running sum of a mask."""
    return c.method == "cumsum" and any(a.kind == "name" and isinstance(a.value, str) and "mask" in a.value.lower()
                                        for a in c.site.args[:1])


def _packs_rollouts(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """Turns rollout records into the trainer's per-token tensors: builds tensors (or a record class
    given three or more of those fields) and fills at least three of the fields a policy-gradient
    step reads (ids, masks, log-probs, advantages or rewards). That is the trajectory contract
    being assembled."""
    if not fn.definition.returned or fn.definition.name.startswith("__") \
            or not any(any(w in p.lower() for w in _ROLLOUT_RECORDS) and "sampler" not in p.lower() for p in fn.params) \
            and not _reads_generated(fn):
        return ()
    if any(c.method in _NOT_PACKING and not _position_ids(c, fn) for c in fn.calls):
        return ()  # statistics, a model run or a gradient: maths on the batch, not its assembly
    toks = fn.tokens()
    if len(_TRAIN_FIELDS & toks) < 3 or not ({"advantages", "advantage", "rewards", "logprobs", "log_probs",
                                              "old_logprobs", "ref_logprobs", "loss_mask", "assistant_mask",
                                              "action_mask", "response_mask"} & toks):
        return ()
    for c in fn.calls:
        if c.names and c.names[0].startswith(_TENSOR_BUILDS):
            return ((c.site.line, MEDIUM),)
        # or the per-token record the trainer reads, built here field by field
        if c.repo in facts.classes and len(_TRAIN_FIELDS & {k for k, _ in c.site.kwargs}) >= 3:
            return ((c.site.line, MEDIUM),)
    return ()


_RUNS_WHAT = frozenset({"rollout", "episode", "trajectory", "agent", "workflow", "generate", "generation"})
_CALLABLE_WORDS = frozenset({"fn", "func", "function", "callable", "hook", "coro"})


def _rollout_callable(fn: FnFacts, facts: Facts) -> Iterable[tuple[int, float]]:
    """Calls a rollout function it was handed (``await self.rollout_fn(client, **task)``): a callable
    held in a parameter or attribute, named for what it runs, that resolves to nothing in the repo
    (the user supplies it). The framework's runner is where the rollouts are produced."""
    for c in fn.calls:
        if c.names or (c.targets and not c.junk_only):
            continue
        parts = c.site.func.split(".")
        if len(parts) > 2 or (len(parts) == 2 and parts[0] not in ("self", "cls")):
            continue
        words = set(tokens_of(c.method))
        if words & _RUNS_WHAT and words & _CALLABLE_WORDS:
            return ((c.site.line, MEDIUM),)
    return ()


def _client_named(word: str):
    """A hosted-training client's method: typed to the library, or on a receiver named for the client
    (``self.sampling_client.sample_async``), or, for a name only that API uses, the name alone."""

    def check(c: CallFact, fn: FnFacts, s: float) -> float:
        if c.names and any(n.startswith("tinker.") for n in c.names):
            return s
        if word in (c.site.receiver or "").lower():  # a wrapper class around the client keeps its name
            return max(s, MEDIUM)
        if c.names:
            return 0.0
        return s if c.method.endswith("_async") else 0.0

    return check


# ---------------------------------------------------------------- the catalog
def _s(**kw) -> Signal:
    return Signal(**kw)


SIGNALS: tuple[Signal, ...] = (
    # ======================== sampling ========================
    _s(id="vllm-generate", side=SAMPLING, weight=3.0,
       rationale="Generating with a vLLM engine (offline LLM or async engine) is the sampler acting with the policy.",
       calls=("vllm.*.generate", "vllm.*.chat", "vllm.*.beam_search", "vllm.*.add_request"),
       methods=("generate", "chat", "add_request", "beam_search"), roles=("llm_engine",), check=_lib("vllm."),
       examples_match=(
           "from vllm import LLM, SamplingParams\n\ndef target(prompts):\n    llm = LLM(model='m')\n"
           "    return llm.generate(prompts, SamplingParams(n=4))\n",
           "import vllm\n\nclass Roller:\n    def __init__(self):\n        self.engine = vllm.AsyncLLMEngine.from_engine_args(None)\n\n"
           "    async def target(self, prompt, params):\n        async for out in self.engine.generate(prompt, params, 'r0'):\n"
           "            last = out\n        return last\n",
       ),
       examples_nomatch=(
           "def target(report):\n    return report.generate_summary()\n",
           "from vllm import SamplingParams\n\ndef target(t):\n    return SamplingParams(temperature=t)\n",
       )),
    _s(id="engine-params-generate", side=SAMPLING, weight=3.0,
       rationale="A generate call on an untyped receiver handed vLLM/SGLang SamplingParams built in the body "
                 "(directly, by keyword or inside the **kwargs dict) is that engine generating.",
       body=_engine_params,
       examples_match=(
           "from vllm import SamplingParams\n\ndef target(prompts, engine_handle, n):\n"
           "    sp = SamplingParams(n=n, logprobs=1)\n    kw = {'sampling_params': sp, 'use_tqdm': False}\n"
           "    return engine_handle.generate(prompts, **kw)\n",
       ),
       examples_nomatch=(
           "from vllm import SamplingParams\n\ndef target(report, t):\n    sp = SamplingParams(temperature=t)\n"
           "    return report.generate(title='x'), sp\n",
       )),
    _s(id="vllm-sampling-params", side=SAMPLING, weight=1.5, setup=True,
       rationale="vLLM SamplingParams only exist to parameterise generation.",
       calls=("vllm.SamplingParams", "vllm.*.SamplingParams"),
       examples_match=("from vllm import SamplingParams\n\ndef target(t):\n    return SamplingParams(temperature=t, max_tokens=64)\n",),
       examples_nomatch=("def target(t):\n    return dict(temperature=t)\n",)),
    _s(id="vllm-engine", side=SAMPLING, weight=1.5, setup=True,
       rationale="Building a vLLM engine sets up the inference side.",
       calls=("vllm.LLM", "vllm.*.LLM", "vllm.*AsyncLLMEngine", "vllm.*.from_engine_args", "vllm.*.AsyncLLM",
              "vllm.LLMEngine", "vllm.*.LLMEngine"),
       examples_match=("from vllm import LLM\n\ndef target(path):\n    return LLM(model=path, tensor_parallel_size=2)\n",),
       examples_nomatch=("from mylib import LLM\n\ndef target(path):\n    return LLM(path)\n",)),
    _s(id="vllm-engine-step", side=SAMPLING, weight=3.0,
       rationale="Driving a vLLM engine's own loop by hand (schedule a step, run the model on the scheduled "
                 "batch, turn engine outputs into request outputs) is generation with the policy.",
       calls=("vllm.*.schedule", "vllm.*.update_from_output", "vllm.*.process_outputs", "vllm.*.execute_model",
              "vllm.*.engine_step", "vllm.*.step_async", "vllm.*LLMEngine.step", "vllm.*EngineCore*.step",
              "vllm.*.get_output",
              # the engine built by from_engine_args, or the one an offline LLM holds, stepped by hand
              "vllm.*LLMEngine*.step", "vllm.*.llm_engine.step"),
       examples_match=(
           "from vllm.v1.core.sched.scheduler import Scheduler\n\nclass Loop:\n    def __init__(self, cfg):\n"
           "        self.scheduler = Scheduler(cfg)\n\n    def target(self, worker):\n"
           "        plan = self.scheduler.schedule()\n        return self.scheduler.update_from_output(plan, worker(plan))\n",
           "from vllm.worker.worker_base import WorkerWrapperBase\n\nclass Host:\n    def __init__(self, cfg):\n"
           "        self.worker = WorkerWrapperBase(cfg, 0)\n\n    def target(self, plan):\n"
           "        return self.worker.execute_model(plan)\n",
           "from vllm import LLMEngine\n\nclass Gen:\n    def __init__(self, args):\n"
           "        self.llm_engine = LLMEngine.from_engine_args(args)\n\n    def target(self):\n        done = []\n"
           "        while self.llm_engine.has_unfinished_requests():\n"
           "            done.extend(o for o in self.llm_engine.step() if o.finished)\n        return done\n",
           "from vllm import LLM\n\nclass Gen:\n    def __init__(self):\n        self.llm = LLM(model='m')\n\n"
           "    def target(self):\n        return self.llm.llm_engine.step()\n",
       ),
       examples_nomatch=(
           "class Jobs:\n    def target(self, cron):\n        return cron.schedule()\n",
           "import sched\n\ndef target(s, f):\n    return s.enter(1, 1, f)\n",
       )),
    _s(id="vllm-engine-setup", side=SAMPLING, weight=1.5, setup=True,
       rationale="Building a vLLM worker, scheduler or output processor by hand, or sizing and allocating its KV "
                 "cache, sets up the inference side.",
       calls=("vllm.*.WorkerWrapperBase", "vllm.v1.worker.*Worker", "vllm.*.Scheduler", "vllm.*.OutputProcessor",
              "vllm.*.init_worker", "vllm.*.init_device", "vllm.*.initialize_cache", "vllm.*.initialize_from_config",
              "vllm.*.determine_available_memory", "vllm.*.get_kv_cache_config", "vllm.*.get_kv_cache_spec",
              "vllm.*.compile_or_warm_up_model"),
       examples_match=(
           "from vllm.worker.worker_base import WorkerWrapperBase\n\ndef target(cfg, kwargs):\n"
           "    w = WorkerWrapperBase(cfg, 0)\n    w.init_worker(kwargs)\n    w.init_device()\n    return w\n",
       ),
       examples_nomatch=("def target(pool, cfg):\n    return pool.init_worker(cfg)\n",)),
    _s(id="inference-server-launch", side=SAMPLING, weight=2.0, setup=True,
       rationale="Starting an OpenAI-compatible inference server (vLLM's API server in this process, or a "
                 "server command in a child process) sets up the engine the rollouts ask for completions.",
       calls=("vllm.entrypoints.openai.api_server.*", "vllm.entrypoints.api_server.*",
              "sglang.srt.entrypoints.http_server.launch_server"),
       body=_server_process,
       examples_match=(
           "from vllm.entrypoints.openai import api_server\n\ndef target(ns):\n    return api_server.run_server(ns)\n",
           "import subprocess\nimport sys\n\ndef target(model, port):\n"
           "    return subprocess.Popen([sys.executable, '-m', 'vllm.entrypoints.openai.api_server', '--model', model,\n"
           "                             '--port', str(port)])\n",
           "import subprocess\n\ndef target(model):\n    return subprocess.Popen(['vllm', 'serve', model])\n",
       ),
       examples_nomatch=(
           "import subprocess\n\ndef target(path):\n    return subprocess.run(['python', path, '--serve'])\n",
           "def target(cmd):\n    return ['vllm', 'serve', cmd]\n",
       )),
    _s(id="rollout-await", side=SAMPLING, weight=2.5,
       rationale="An async function handed a pending rollout (an awaitable) that returns a trajectory runs "
                 "that rollout: the per-task wrapper a gather over many rollouts awaits.",
       body=_awaits_rollout,
       examples_match=(
           "from typing import Awaitable\n\nasync def target(pending: Awaitable[int]) -> TrajectoryGroup:\n"
           "    group = await pending\n    return group\n",
           "from typing import Awaitable\n\nasync def target(pending: Awaitable[Episode] | Awaitable[list[Episode]])"
           " -> Episode | list[Episode] | BaseException:\n    return await pending\n",
       ),
       examples_nomatch=(
           "from typing import Awaitable\n\nasync def target(pending: Awaitable[int]) -> Report:\n"
           "    return await pending\n",
           "async def target(rows: list) -> Trajectory:\n    return Trajectory(rows)\n",
           "from typing import Awaitable\n\nasync def target(pending: Awaitable[Report] | Awaitable[list]) -> Report | list | None:\n"
           "    return await pending\n",
       )),
    _s(id="rollout-callable", side=SAMPLING, weight=2.0,
       rationale="Calling the rollout function a runner was handed (a callable named for the rollout, episode or "
                 "agent it runs, supplied by the user) produces the trajectories.",
       body=_rollout_callable,
       examples_match=(
           "class Runner:\n    def __init__(self, rollout_fn):\n        self.rollout_fn = rollout_fn\n\n"
           "    async def target(self, client, task):\n        return await self.rollout_fn(client, **task)\n",
       ),
       examples_nomatch=(
           "class Runner:\n    def __init__(self, log_fn):\n        self.log_fn = log_fn\n\n"
           "    def target(self, row):\n        return self.log_fn(row)\n",
           "def rollout_fn(x):\n    return x\n\ndef target(x):\n    return rollout_fn(x)\n",
       )),
    _s(id="env-library-rollout", side=SAMPLING, weight=3.0,
       rationale="An environment library's own rollout entry (verifiers' Environment.generate / a_generate / "
                 "rollout / run_rollouts) runs the policy client through the environment's turns.",
       calls=("verifiers.*.generate", "verifiers.*.a_generate", "verifiers.*.rollout", "verifiers.*.run_rollouts",
              "verifiers.*.run_rollout"),
       examples_match=(
           "import verifiers as vf\n\nasync def target(client, inputs):\n    env = vf.load_environment('math')\n"
           "    return await env.a_generate(inputs, client=client, model='policy')\n",
       ),
       examples_nomatch=("import verifiers as vf\n\ndef target(name):\n    return vf.load_environment(name)\n",)),
    _s(id="hosted-sample", side=SAMPLING, weight=3.0,
       rationale="Sampling from a hosted training service's sampling client (Tinker's SamplingClient.sample) "
                 "generates with the current policy weights.",
       calls=("tinker.*.sample", "tinker.*.sample_async"), methods=("sample", "sample_async"), name_only=True,
       check=_client_named("sampling_client"),
       examples_match=(
           "class Engine:\n    async def target(self, prompt, params):\n"
           "        return await self.sampling_client.sample_async(prompt=prompt, num_samples=4, sampling_params=params)\n",
       ),
       examples_nomatch=("import random\n\ndef target(rows):\n    return random.sample(rows, 2)\n",
                         "class D:\n    def target(self):\n        return self.dataset.sample(8)\n")),
    _s(id="hosted-train-step", side=TRAINING, weight=3.0,
       rationale="A hosted training service's forward_backward and optim_step (Tinker's TrainingClient) run the "
                 "loss, the backward pass and the optimizer step remotely.",
       calls=("tinker.*.forward_backward", "tinker.*.forward_backward_async", "tinker.*.optim_step",
              "tinker.*.optim_step_async"),
       methods=("forward_backward", "forward_backward_async", "optim_step", "optim_step_async"), name_only=True,
       check=_client_named("training_client"),
       examples_match=(
           "class Trainer:\n    async def target(self, data, adam):\n"
           "        fb = await self.training_client.forward_backward_async(data, loss_fn='importance_sampling')\n"
           "        step = await self.training_client.optim_step_async(adam)\n        return fb, step\n",
           # a blocking client method handed to a worker thread, on a client wrapped by another library's class
           "import asyncio\nfrom hostedlib.client import RetryingClient\n\nclass Trainer:\n"
           "    def __init__(self, url):\n        self.training_client = RetryingClient(url)\n\n"
           "    async def target(self, adam):\n"
           "        return await asyncio.to_thread(self.training_client.optim_step, adam)\n",
       ),
       examples_nomatch=("class M:\n    def forward_backward(self, x):\n        return x\n\n"
                         "    def target(self, x):\n        return self.forward_backward(x)\n",)),
    _s(id="hosted-weight-publish", side=HANDOFF, kind=WEIGHT_SYNC, weight=3.0,
       rationale="Saving the trained weights for the sampler (Tinker's save_weights_for_sampler, "
                 "save_weights_and_get_sampling_client; a hosted deployment's save-and-hotload) is the weight sync "
                 "of a hosted service.",
       calls=("tinker.*.save_weights_for_sampler", "tinker.*.save_weights_for_sampler_async",
              "tinker.*.save_weights_and_get_sampling_client", "tinker.*.save_weights_and_get_sampling_client_async",
              "fireworks.*.save_and_hotload", "fireworks.*.hotload*"),
       methods=("save_weights_for_sampler", "save_weights_for_sampler_async", "save_weights_and_get_sampling_client",
                "save_weights_and_get_sampling_client_async", "save_and_hotload"), name_only=True, check=_specific_api,
       examples_match=(
           "class Trainer:\n    async def target(self, name):\n"
           "        return await self.training_client.save_weights_and_get_sampling_client_async(name)\n",
       ),
       examples_nomatch=("class Trainer:\n    def target(self, path):\n        return self.model.save_pretrained(path)\n",)),
    _s(id="vllm-prompt-inputs", side=SAMPLING, weight=1.5,
       rationale="TokensPrompt/TextPrompt are the request objects fed to a vLLM engine.",
       calls=("vllm.*.TokensPrompt", "vllm.*.TextPrompt", "vllm.TokensPrompt", "vllm.TextPrompt"),
       examples_match=("from vllm.inputs import TokensPrompt\n\ndef target(ids):\n    return [TokensPrompt(prompt_token_ids=i) for i in ids]\n",),
       examples_nomatch=("def target(ids):\n    return [{'prompt_token_ids': i} for i in ids]\n",)),
    _s(id="sglang-generate", side=SAMPLING, weight=3.0,
       rationale="Generating with an SGLang engine is the sampler acting with the policy.",
       calls=("sglang.*.generate", "sglang.*.async_generate", "sglang.gen", "sglang.lang.api.gen"),
       methods=("async_generate",), roles=("llm_engine",), name_only=True, check=_lib("sglang."),
       examples_match=(
           "import sglang as sgl\n\ndef target(prompts):\n    engine = sgl.Engine(model_path='m')\n"
           "    return engine.generate(prompts, {'temperature': 1.0})\n",
           "class R:\n    async def target(self, ids, params):\n"
           "        return await self.inference_engine.async_generate(input_ids=ids, sampling_params=params)\n",
       ),
       examples_nomatch=("class R:\n    def target(self, x):\n        return self.table.generate_rows(x)\n",)),
    _s(id="engine-generate-api", side=SAMPLING, weight=3.0,
       rationale="An inference engine's own request-level generate APIs (a serving manager's generate_request, "
                 "an engine's generate_async) run the policy on one request.",
       methods=("generate_request", "generate_async", "agenerate", "async_generate_request"), name_only=True,
       check=_specific_api,
       examples_match=(
           "class Bridge:\n    async def target(self, req):\n"
           "        return await self.manager.generate_request(req).__anext__()\n",
           "class Bridge:\n    async def target(self, ids, params):\n"
           "        return await self.backend.generate_async(ids, params)\n",
       ),
       examples_nomatch=(
           "class Book:\n    def generate_request(self, n):\n        return {'n': n}\n\n"
           "    def target(self, n):\n        return self.generate_request(n)\n",
           "def target(mailer, body):\n    return mailer.send_request(body)\n",
       )),
    _s(id="library-rollout-build", side=SAMPLING, weight=1.5, setup=True,
       rationale="Building an object of a library's rollout class (``SomeRollout(module=m, config=c)``) sets up "
                 "the generation side, as building an inference engine does.",
       calls=("*Rollout",), check=_ctor,
       examples_match=(
           "from rollkit.rollout import BeamRollout\n\ndef target(module, cfg):\n"
           "    return BeamRollout(module=module, config=cfg)\n",
       ),
       examples_nomatch=(
           "from rollkit.buffers import RolloutBuffer\n\ndef target(n):\n    return RolloutBuffer(n)\n",
           "class BeamRollout:\n    def __init__(self, m):\n        self.m = m\n\n"
           "def target(m):\n    return BeamRollout(m)\n",
       )),
    _s(id="library-rollout-generate", side=SAMPLING, weight=3.0,
       rationale="A generate method of a library's rollout, sampler or generator class, on an object the "
                 "repo built from it (``self.rollout = SomeRollout(...)``; ``self.rollout.generate_sequences(b)``): "
                 "the library's own generation step, whatever engine it wraps.",
       calls=("*Rollout*.generate*", "*Sampler.generate*", "*Generator.generate*"), check=_library_generate,
       examples_match=(
           "from rollkit import BeamRollout\n\nclass Worker:\n    def __init__(self, m):\n"
           "        self.rollout = BeamRollout(m)\n\n"
           "    def target(self, batch):\n        return self.rollout.generate_sequences(batch)\n",
       ),
       examples_nomatch=(
           "class Worker:\n    def target(self, rows):\n        return self.table.generate_rows(rows)\n",
           "from rollkit import BeamRollout\n\nclass Worker:\n    def __init__(self, m):\n"
           "        self.rollout = BeamRollout(m)\n\n"
           "    def target(self, path):\n        return self.rollout.save_checkpoint(path)\n",
       )),
    _s(id="generate-route", side=SAMPLING, weight=3.0,
       rationale="A server handler registered on a /generate or /completions path hands requests to the engine.",
       body=_generate_route,
       examples_match=(
           "from fastapi import FastAPI\n\napp = FastAPI()\n\n\n@app.post('/generate')\n"
           "async def target(request):\n    return await STATE.engine.handle(await request.json())\n",
       ),
       examples_nomatch=(
           "from fastapi import FastAPI\n\napp = FastAPI()\n\n\n@app.get('/health')\n"
           "async def target():\n    return await STATE.engine.ping()\n",
           "from fastapi import FastAPI\n\napp = FastAPI()\n\n\n@app.post('/v1/completions')\n"
           "async def target():\n    return {'ok': True}\n",
       )),
    _s(id="tool-execute", side=SAMPLING, weight=2.0,
       rationale="Executing a tool the agent called (a tool from a registry of tools, an MCP client) is an "
                 "environment step of the rollout.",
       calls=("mcp.*.call_tool",),
       methods=("execute", "call_tool", "run_tool", "invoke_tool", "aexecute", "acall_tool", "execute_tool"),
       roles=("tool",), check=_tool_call,
       examples_match=(
           "async def target(tools, call):\n    return await tools[call.name].execute(call.id, call.args)\n",
           "class Agent:\n    async def target(self, name, args):\n"
           "        return await self.mcp_client.call_tool(name, args)\n",
       ),
       examples_nomatch=("def target(cursor, sql):\n    return cursor.execute(sql)\n",)),
    _s(id="sandbox-exec", side=SAMPLING, weight=1.5,
       rationale="Running the agent's code or shell command in a sandbox or container (Modal, Daytona, E2B, "
                 "SWE-ReX runtimes, docker exec, a hosted code interpreter) is an environment step of the rollout, "
                 "or the execution a code reward grades.",
       calls=("modal.*Sandbox*.exec", "daytona*.process.exec", "daytona*.process.code_run",
              "daytona*.process.execute_session_command", "e2b*.run_code", "e2b*.commands.run",
              "docker.*.exec_run", "swerex.*.run_in_session", "swerex.*.execute", "together.*.code_interpreter.run"),
       examples_match=(
           "import modal\n\nclass Box:\n    def __init__(self, app):\n        self.sb = modal.Sandbox.create(app=app)\n\n"
           "    def target(self, cmd):\n        proc = self.sb.exec('bash', '-c', cmd)\n        proc.wait()\n"
           "        return proc.stdout.read()\n",
           "import docker\n\ndef target(image, cmd):\n    box = docker.from_env().containers.run(image, detach=True)\n"
           "    return box.exec_run(cmd).output\n",
       ),
       examples_nomatch=(
           "import docker\n\ndef target():\n    return docker.from_env().images.list()\n",
           "import subprocess\n\ndef target(cmd):\n    return subprocess.run(cmd, shell=True)\n",
       )),
    _s(id="reward-grader-lib", side=SAMPLING, weight=1.5,
       rationale="Checking a generated answer against the reference with a grading library (math-verify's verify, "
                 "mathruler's grade_answer, an environment library's rubric) is rollout-side scoring.",
       calls=("math_verify.verify", "math_verify.*.verify", "mathruler.*.grade_answer", "verifiers.*.score_rollout",
              "verifiers.*.score_rollouts", "verifiers.*.score_group"),
       examples_match=(
           "from math_verify import parse, verify\n\ndef target(text, gold):\n"
           "    return 1.0 if verify(parse(gold), parse(text)) else 0.0\n",
       ),
       examples_nomatch=(
           "from math_verify import parse\n\ndef target(rows):\n    return [parse(r['answer']) for r in rows]\n",
       )),
    _s(id="agent-library-run", side=SAMPLING, weight=2.5,
       rationale="Running an agent built with an agent library (AutoGen's agents and teams, the OpenAI Agents "
                 "SDK's Runner, smolagents, a compiled LangGraph graph, Google ADK's runner) plays one episode: the "
                 "agent calls the served policy and its tools.",
       calls=("autogen_agentchat.*.run", "autogen_agentchat.*.run_stream", "agents.Runner.run",
              "agents.Runner.run_sync", "agents.Runner.run_streamed", "agents.run.Runner.*", "smolagents.*Agent.run",
              "langgraph.*.invoke", "langgraph.*.ainvoke", "langgraph.*.astream", "google.adk.runners.*.run",
              "google.adk.runners.*.run_async", "camel.agents.*.step", "camel.agents.*.astep"),
       examples_match=(
           "from autogen_agentchat.agents import AssistantAgent\n\nasync def target(client, task):\n"
           "    agent = AssistantAgent('solver', model_client=client)\n    return await agent.run(task=task)\n",
           "from agents import Agent, Runner\n\nasync def target(question):\n"
           "    agent = Agent(name='solver', instructions='solve')\n    return await Runner.run(agent, question)\n",
       ),
       examples_nomatch=(
           "from autogen_agentchat.agents import AssistantAgent\n\ndef target(client):\n"
           "    return AssistantAgent('solver', model_client=client)\n",
           "class Job:\n    def run(self, task):\n        return task\n\ndef target(job: Job, task):\n    return job.run(task)\n",
       )),
    _s(id="local-engine-generate", side=SAMPLING, weight=3.0,
       rationale="Generating with a local inference engine other than vLLM/SGLang (an LMDeploy pipeline, "
                 "llama.cpp, MLX-LM, CTranslate2) decodes with the policy.",
       calls=("lmdeploy.*.infer", "lmdeploy.*.stream_infer", "lmdeploy.*.batch_infer", "lmdeploy.*.generate",
              "lmdeploy.*.async_stream_infer", "llama_cpp.*.create_completion", "llama_cpp.*.create_chat_completion",
              "mlx_lm.generate", "mlx_lm.stream_generate", "mlx_lm.*.generate", "mlx_lm.*.stream_generate",
              "ctranslate2.*.generate_batch", "ctranslate2.*.generate_tokens"),
       examples_match=(
           "from lmdeploy import pipeline\n\nclass Actor:\n    def __init__(self, path):\n        self.pipe = pipeline(path)\n\n"
           "    def target(self, prompts, gen_config):\n        return self.pipe.batch_infer(prompts, gen_config=gen_config)\n",
           "from mlx_lm import generate, load\n\ndef target(path, prompt):\n    model, tok = load(path)\n"
           "    return generate(model, tok, prompt=prompt, max_tokens=64)\n",
       ),
       examples_nomatch=("from lmdeploy import pipeline\n\ndef target(path):\n    return pipeline(path)\n",)),
    _s(id="trtllm-generate", side=SAMPLING, weight=3.0,
       rationale="Generating with a TensorRT-LLM runner or LLM object (a compiled engine of the policy) is the "
                 "sampler acting with the policy.",
       calls=("tensorrt_llm.*.generate", "tensorrt_llm.*.generate_async"),
       examples_match=(
           "from tensorrt_llm.runtime import ModelRunner\n\nclass Decoder:\n    def __init__(self, d):\n"
           "        self.runner = ModelRunner.from_dir(d)\n\n    def target(self, ids):\n"
           "        return self.runner.generate(batch_input_ids=ids, max_new_tokens=64, end_id=2, pad_id=0)\n",
           "from tensorrt_llm import LLM\n\ndef target(prompts, params):\n    llm = LLM(model='m')\n"
           "    return llm.generate(prompts, params)\n",
       ),
       examples_nomatch=("from tensorrt_llm import LLM\n\ndef target(path):\n    return LLM(model=path)\n",
                         "def target(runner, ids):\n    return runner.generate_report(ids)\n")),
    _s(id="trtllm-engine", side=SAMPLING, weight=1.5, setup=True,
       rationale="Building a TensorRT-LLM runner or LLM object sets up the inference side.",
       calls=("tensorrt_llm.LLM", "tensorrt_llm.*.LLM", "tensorrt_llm.*.ModelRunner*", "tensorrt_llm.*.from_dir",
              "tensorrt_llm.*.from_engine"),
       examples_match=("from tensorrt_llm.runtime import ModelRunner\n\ndef target(d):\n"
                       "    return ModelRunner.from_dir(engine_dir=d)\n",),
       examples_nomatch=("from mylib import ModelRunner\n\ndef target(d):\n    return ModelRunner(d)\n",)),
    _s(id="megatron-inference-generate", side=SAMPLING, weight=3.0,
       rationale="Megatron-Core's inference engines and text-generation controllers decode with the policy.",
       calls=("megatron.core.inference.*.generate", "megatron.core.inference.*.generate_*",
              "megatron.core.inference.*.run_engine*", "megatron.core.inference.*.add_request"),
       examples_match=(
           "from megatron.core.inference.engines import StaticInferenceEngine\n\n"
           "def target(controller, prompts, params):\n"
           "    engine = StaticInferenceEngine(text_generation_controller=controller, max_batch_size=8)\n"
           "    return engine.generate(prompts=prompts, sampling_params=params)\n",
       ),
       examples_nomatch=("from megatron.core.inference.sampling_params import SamplingParams\n\n"
                         "def target(t):\n    return SamplingParams(temperature=t)\n",)),
    _s(id="megatron-inference-engine", side=SAMPLING, weight=1.5, setup=True,
       rationale="Building a Megatron-Core inference engine, controller or sampling parameters sets up the "
                 "inference side.",
       calls=("megatron.core.inference.*Engine", "megatron.core.inference.*Controller",
              "megatron.core.inference.*SamplingParams", "megatron.core.inference.*InferenceParams"),
       examples_match=("from megatron.core.inference.sampling_params import SamplingParams\n\n"
                       "def target(t):\n    return SamplingParams(temperature=t, num_tokens_to_generate=64)\n",),
       examples_nomatch=("def target(t):\n    return dict(temperature=t)\n",)),
    _s(id="model-server-infer", side=SAMPLING, weight=2.0,
       rationale="Asking a served model (a reward model or critic behind a Triton server) for its outputs on "
                 "fresh samples is rollout-side scoring.",
       calls=("pytriton.client.*.infer_batch", "pytriton.client.*.infer_sample", "tritonclient.*.infer",
              "tritonclient.*.async_infer", "tritonclient.*.stream_infer"),
       examples_match=(
           "from pytriton.client import FuturesModelClient\n\nclass Scorer:\n    def __init__(self, url):\n"
           "        self.client = FuturesModelClient(url, 'reward')\n\n    def target(self, tokens, lengths):\n"
           "        return self.client.infer_batch(tokens=tokens, sequence_lengths=lengths)\n",
           "import tritonclient.http as httpclient\n\ndef target(url, inputs):\n"
           "    client = httpclient.InferenceServerClient(url=url)\n    return client.infer('reward', inputs)\n",
       ),
       examples_nomatch=("def target(server, x):\n    return server.infer_batch(x)\n",)),
    _s(id="sglang-engine", side=SAMPLING, weight=1.5, setup=True,
       rationale="Building an SGLang engine or server sets up the inference side.",
       calls=("sglang.Engine", "sglang.*.Engine", "sglang.*.launch_server", "sglang.utils.launch_server_cmd"),
       examples_match=("import sglang\n\ndef target(p):\n    return sglang.Engine(model_path=p)\n",
                       "from sglang.utils import launch_server_cmd\n\ndef target(path):\n"
                       "    proc, port = launch_server_cmd(f'python3 -m sglang.launch_server --model-path {path}')\n"
                       "    return proc, port\n"),
       examples_nomatch=("def target(p):\n    return Engine(p)\n",)),
    _s(id="http-generate", side=SAMPLING, weight=3.0,
       rationale="A request to an inference server's /generate or /v1/completions endpoint samples from the policy.",
       body=_endpoint(_GEN_ENDPOINT),
       examples_match=(
           "import requests\n\ndef target(url, payload):\n    return requests.post(f'{url}/generate', json=payload).json()\n",
           "import aiohttp\n\nasync def target(host, body):\n    async with aiohttp.ClientSession() as s:\n"
           "        async with s.post(host + '/v1/chat/completions', json=body) as r:\n            return await r.json()\n",
           "import httpx\n\nasync def target(base, body):\n    async with httpx.AsyncClient() as c:\n"
           "        return (await c.post(f'{base}/v1/responses', json=body)).json()\n",
       ),
       examples_nomatch=(
           "import requests\n\ndef target(url):\n    return requests.get(f'{url}/health')\n",
           "import requests\n\ndef target(url, user):\n    return requests.get(f'{url}/api/messages/{user}')\n",
           "def target(path):\n    return open('/tmp/generated.txt').read()\n",
           # a phase name handed to a dict lookup, not a route handed to an HTTP helper
           "class Record:\n    def _total(self, phase):\n        return sum(self.phases.get(phase, []))\n\n"
           "    def target(self):\n        return self._total('generate')\n",
       )),
    _s(id="http-generation-payload", side=SAMPLING, weight=2.5,
       rationale="An HTTP request whose body carries a prompt with decoding parameters (SGLang's /generate "
                 "body with sampling_params, an OpenAI-style body with max_tokens) asks an inference server to "
                 "generate, wherever the URL comes from.",
       body=_generation_payload,
       examples_match=(
           "import requests\n\nclass Client:\n    def target(self, prompt):\n"
           "        payload = {'text': prompt, 'sampling_params': {'max_new_tokens': 64, 'temperature': 1.0}}\n"
           "        return requests.post(self.url, json=payload).json()\n",
           "import aiohttp\n\nasync def target(base_url, messages):\n    async with aiohttp.ClientSession() as s:\n"
           "        body = {'model': 'policy', 'messages': messages, 'max_tokens': 512}\n"
           "        async with s.post(base_url, json=body) as r:\n            return await r.json()\n",
       ),
       examples_nomatch=(
           "import requests\n\ndef target(url, step, cfg):\n"
           "    return requests.post(url, json={'step': step, 'temperature': cfg.temperature, 'lr': cfg.lr})\n",
           "def target(prompt):\n    return {'prompt': prompt, 'max_tokens': 64}\n",
       )),
    _s(id="openai-completions", side=SAMPLING, weight=2.5,
       rationale="An OpenAI-compatible chat/completions call (the OpenAI client, LiteLLM) samples from a served "
                 "policy (agent rollouts).",
       calls=("openai.*.completions.create", "openai.*.responses.create", "litellm.completion", "litellm.acompletion",
              "litellm.text_completion", "litellm.atext_completion", "litellm.*.completion", "litellm.*.acompletion",
              # the pre-1.0 module-level API, the raw/streaming-response views, structured-output parse
              "openai.ChatCompletion.create", "openai.ChatCompletion.acreate", "openai.Completion.create",
              "openai.Completion.acreate", "openai.*.completions.with_raw_response.create",
              "openai.*.completions.with_streaming_response.create", "openai.*.completions.parse",
              "openai.*.responses.stream", "openai.*.completions.stream", "litellm.responses", "litellm.aresponses"),
       methods=("create",), check=_completions_create, roles=("openai",), name_only=True,
       examples_match=(
           "from openai import OpenAI\n\ndef target(msgs):\n    client = OpenAI(base_url='http://x')\n"
           "    return client.chat.completions.create(model='p', messages=msgs)\n",
           "class Agent:\n    async def target(self, msgs):\n"
           "        return await self.client.chat.completions.create(model='p', messages=msgs)\n",
           "import litellm\n\nasync def target(msgs):\n"
           "    return await litellm.acompletion(model='hosted_vllm/policy', messages=msgs)\n",
       ),
       examples_nomatch=("def target(db, row):\n    return db.table.create(row)\n",
                         "def target(tracker, row):\n    return tracker.completion(row)\n",
                         # an OpenAI client's other resources: embeddings, files, moderations do not generate
                         "from openai import OpenAI\n\nclass Index:\n    def __init__(self):\n        self.client = OpenAI()\n\n"
                         "    def target(self, texts):\n        return self.client.embeddings.create(model='e', input=texts)\n",
                         "from openai import OpenAI\n\ndef target(texts):\n    return OpenAI().moderations.create(input=texts)\n")),
    _s(id="llm-api-generate", side=SAMPLING, weight=2.5,
       rationale="A chat or text-generation call through a model-serving client other than OpenAI's (Anthropic "
                 "messages, the OpenAI-compatible SDKs of hosted providers, Hugging Face's InferenceClient and TGI "
                 "client, Google's genai, an agent library's model client) asks a served model for completions: "
                 "the policy in an agent rollout or the judge scoring it.",
       calls=("anthropic.*.messages.create", "anthropic.*.messages.stream", "anthropic.*.completions.create",
              "together.*.completions.create", "groq.*.completions.create", "fireworks.client.*.completions.create",
              "cerebras.cloud.sdk.*.completions.create", "mistralai.*.chat.complete", "mistralai.*.chat.complete_async",
              "mistralai.*.chat.stream", "huggingface_hub.*.text_generation", "huggingface_hub.*.chat_completion",
              "huggingface_hub.*.chat.completions.create", "text_generation.*.generate",
              "text_generation.*.generate_stream", "google.genai.*.generate_content",
              "google.genai.*.generate_content_stream", "google.generativeai.*.generate_content",
              "autogen_ext.models.*.create", "autogen_ext.models.*.create_stream", "langchain_openai.*.invoke",
              "langchain_openai.*.ainvoke", "langchain_anthropic.*.invoke", "langchain_anthropic.*.ainvoke",
              "langchain_community.chat_models.*.invoke", "langchain_community.chat_models.*.ainvoke",
              "ollama.chat", "ollama.generate", "ollama.*.chat", "ollama.*.generate"),
       examples_match=(
           "import anthropic\n\nclass Provider:\n    def __init__(self):\n        self.client = anthropic.AsyncAnthropic()\n\n"
           "    async def target(self, msgs):\n        return await self.client.messages.create(model='m', max_tokens=64, "
           "messages=msgs)\n",
           "from huggingface_hub import InferenceClient\n\ndef target(url, prompt):\n"
           "    return InferenceClient(url).text_generation(prompt, max_new_tokens=32, details=True)\n",
           "from together import AsyncTogether\n\nasync def target(msgs):\n"
           "    return await AsyncTogether().chat.completions.create(model='m', messages=msgs)\n",
       ),
       examples_nomatch=(
           "import anthropic\n\ndef target(client: anthropic.Anthropic):\n    return client.models.list()\n",
           "def target(mailer, msgs):\n    return mailer.messages.create(body=msgs)\n",
       )),
    _s(id="hf-generate", side=SAMPLING, weight=3.0,
       rationale="model.generate(...) on a language model decodes new tokens with the current weights.",
       calls=("transformers.*.generate", "peft.*.generate", "trl.*.generate", "unsloth.*.generate",
              "unsloth.*.fast_generate", "deepspeed.*.generate", "nemo.collections.*.generate"),
       methods=("generate",), roles=("hf_model",), kwargs=_GEN_KWARGS, check=_generate_call,
       examples_match=(
           "from transformers import AutoModelForCausalLM\n\ndef target(ids):\n"
           "    model = AutoModelForCausalLM.from_pretrained('gpt2')\n    return model.generate(ids, max_new_tokens=32)\n",
           "def target(unwrapped_model, batch, cfg):\n    return unwrapped_model.generate(**batch, generation_config=cfg)\n",
       ),
       examples_nomatch=(
           "def target(builder):\n    return builder.generate_report()\n",
           "def target(ids):\n    return ids.generate()\n",
       )),
    _s(id="model-generate-params", side=SAMPLING, weight=3.0,
       rationale="generate() of a library model class (inherited or held) handed decoding parameters "
                 "(sampling/length params, a generation config) by position decodes with the policy.",
       methods=("generate",), name_only=True, check=_generate_with_params,
       examples_match=(
           "from somelib.models import GPTBase\n\nclass Actor(GPTBase):\n    def target(self, batch):\n"
           "        return self.generate((batch['tokens'], batch['lengths']), self.length_params, self.sampling_params)\n",
       ),
       examples_nomatch=(
           "from somelib.reports import Builder\n\nclass R(Builder):\n    def target(self, rows):\n"
           "        return self.generate(rows, self.page_params)\n",
           "class Actor:\n    def generate(self, x, sampling_params):\n        return x\n\n"
           "    def target(self, x):\n        return self.generate(x, self.sampling_params)\n",
       )),
    _s(id="hf-generation-config", side=SAMPLING, weight=1.0, setup=True,
       rationale="A GenerationConfig parameterises decoding, the sampling side's setup.",
       calls=("transformers.GenerationConfig", "transformers.*.GenerationConfig"), check=decoding_config,
       examples_match=("from transformers import GenerationConfig\n\ndef target(t):\n    return GenerationConfig(do_sample=True, temperature=t)\n",),
       examples_nomatch=("def target(t):\n    return {'temperature': t}\n",
                         # an empty config probed for the keys it knows: no decoding is configured
                         "from transformers import GenerationConfig\n\ndef target(args):\n    cfg = GenerationConfig()\n"
                         "    return {k: v for k, v in args.items() if hasattr(cfg, k)}\n")),
    _s(id="reward-model-forward", side=SAMPLING, weight=2.0,
       rationale="Running a model and returning its outputs as scores or rewards, with no loss, is a reward "
                 "model scoring samples (the rollout's scorer or a reward server's handler).",
       body=reward_model_forward,
       examples_match=(
           "from trl import AutoModelForCausalLMWithValueHead\n\n"
           "def target(model: AutoModelForCausalLMWithValueHead, inputs):\n"
           "    values = model(**inputs, return_dict=True)[-1]\n"
           "    scores = values.gather(-1, inputs['attention_mask'].sum(-1, keepdim=True) - 1)\n    return scores\n",
       ),
       examples_nomatch=(
           "import torch.nn.functional as F\nfrom transformers import PreTrainedModel\n\n"
           "def target(model: PreTrainedModel, inputs, half):\n    scores = model(**inputs).logits[:, -1, 0]\n"
           "    loss = -F.logsigmoid(scores[:half] - scores[half:]).mean()\n    return loss, scores\n",
       )),
    _s(id="http-reward-request", side=SAMPLING, weight=2.5,
       rationale="An HTTP request whose response's score or reward field is read asks a reward server to score "
                 "samples (a remote reward model), wherever the URL comes from.",
       body=reward_request,
       examples_match=(
           "import json\nimport requests\n\ndef target(server_url, messages):\n"
           "    response = requests.post(server_url, json={'model': 'rm', 'messages': messages})\n"
           "    return json.loads(response.text)['scores']\n",
           "import aiohttp\n\nasync def target(url, texts):\n    async with aiohttp.ClientSession() as session:\n"
           "        async with session.post(url, json={'texts': texts}) as r:\n            data = await r.json()\n"
           "    return data['rewards']\n",
       ),
       examples_nomatch=(
           "import requests\n\ndef target(url, stats):\n    r = requests.post(url, json={'reward': stats['reward']})\n"
           "    return r.status_code\n",
           "def target(results):\n    return [r['scores'] for r in results]\n",
       )),
    _s(id="env-step", side=SAMPLING, weight=2.5,
       rationale="env.step(action) advances an environment with the policy's action: a rollout step (a gym or "
                 "vector env's step or step_async/step_wait, a multi-agent or text-game library's env, any "
                 "library class named *Env).",
       calls=("gym.*.step", "gymnasium.*.step", "gym.*.step_async", "gymnasium.*.step_async", "gym.*.step_wait",
              "gymnasium.*.step_wait", "pettingzoo.*.step", "pettingzoo.*.last", "textworld.*.step",
              "textarena.*.step", "envpool.*.step", "envpool.*.send", "dm_env.*.step", "*Env.step",
              "*Env.step_async", "*Env.step_wait"),
       methods=("step", "step_async", "step_wait"), roles=("env",),
       examples_match=(
           "import gymnasium as gym\n\ndef target(policy):\n    env = gym.make('CartPole-v1')\n    obs, _ = env.reset()\n"
           "    return env.step(policy(obs))\n",
           "class Worker:\n    def target(self, action):\n        return self.env.step(action)\n",
           "class Worker:\n    def target(self, actions):\n        self.envs.step_async(actions)\n"
           "        return self.envs.step_wait()\n",
           "from puzzlelib.envs import BoxPushEnv\n\nclass Game(BoxPushEnv):\n    def target(self, action):\n"
           "        obs, reward, done, info = BoxPushEnv.step(self, action)\n        return obs, reward, done\n",
           "from pettingzoo.classic import chess_v6\n\ndef target(policy):\n    game = chess_v6.env()\n"
           "    obs, reward, term, trunc, info = game.last()\n    game.step(policy(obs))\n    return reward\n",
       ),
       examples_nomatch=(
           "import torch\n\ndef target(params):\n    opt = torch.optim.SGD(params, lr=0.1)\n    opt.step()\n",
           "class T:\n    def target(self):\n        self.lr_scheduler.step()\n",
       )),
    _s(id="env-reset", side=SAMPLING, weight=1.5,
       rationale="env.reset() starts an episode of a rollout.",
       calls=("gym.*.reset", "gymnasium.*.reset", "gym.*.reset_async", "gymnasium.*.reset_async",
              "gym.*.reset_wait", "gymnasium.*.reset_wait", "pettingzoo.*.reset", "textworld.*.reset",
              "textarena.*.reset", "envpool.*.reset", "dm_env.*.reset", "*Env.reset", "*Env.reset_async",
              "*Env.reset_wait"),
       methods=("reset", "reset_async", "reset_wait"), roles=("env",),
       examples_match=("class W:\n    def target(self, seed):\n        return self.envs.reset(seed=seed)\n",
                       "from scilab import LabWorldEnv\n\ndef target(task, seed):\n    world = LabWorldEnv()\n"
                       "    world.load(task, seed)\n    return world.reset()\n"),
       examples_nomatch=("class W:\n    def target(self):\n        self.timer.reset()\n",)),
    _s(id="env-make", side=SAMPLING, weight=1.0, setup=True,
       rationale="Creating an environment (gym and its vector envs, a multi-agent, text-game or batched-env "
                 "library's env) sets up the acting side.",
       calls=("gym.make", "gymnasium.make", "gym.vector.*", "gymnasium.vector.*", "gym.make_vec", "gymnasium.make_vec",
              "pettingzoo.*.env", "pettingzoo.*.parallel_env", "textworld.gym.make", "textworld.start",
              "textarena.make", "envpool.make", "envpool.make_gym", "envpool.make_gymnasium", "envpool.make_dm"),
       check=_env_ctor,
       examples_match=("import gym\n\ndef target(name):\n    return gym.make(name)\n",
                       "import textworld.gym\n\ndef target(game_file, infos):\n"
                       "    env_id = textworld.gym.register_game(game_file, infos)\n    return textworld.gym.make(env_id)\n"),
       examples_nomatch=("def target(name):\n    return make(name)\n",)),
    _s(id="logits-sampling", side=SAMPLING, weight=2.0,
       rationale="Drawing tokens/actions from a distribution over logits is acting with the policy.",
       calls=("torch.multinomial", "torch.distributions.*.sample", "torch.nn.functional.gumbel_softmax",
              "torch.distributions.*.rsample"),
       methods=("multinomial",), name_only=True, check=_specific_api,
       examples_match=(
           "import torch\n\ndef target(logits):\n    probs = torch.softmax(logits / 0.7, dim=-1)\n"
           "    return torch.multinomial(probs, 1)\n",
           "from torch.distributions import Categorical\n\ndef target(logits):\n"
           "    dist = Categorical(logits=logits)\n    return dist.sample()\n",
       ),
       examples_nomatch=(
           "import random\n\ndef target(items):\n    return random.sample(items, 3)\n",
           "def target(sampler):\n    return sampler.sample()\n",
       )),
    _s(id="decode-loop", side=SAMPLING, weight=2.5,
       rationale="A model run on its own drawn tokens step by step (forward, draw, append, forward again) is "
                 "generation, however the draw is made.",
       body=_decode_loop,
       examples_match=(
           "import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, ids):\n        return ids\n\n\n"
           "def target(net: Net, ids, steps):\n    for _ in range(steps):\n"
           "        nxt = net(ids)[:, -1].argmax(-1, keepdim=True)\n        ids = torch.cat([ids, nxt], -1)\n"
           "    return ids\n",
       ),
       examples_nomatch=(
           "import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x\n\n\n"
           "def target(net: Net, batches):\n    hits = []\n    for x, y in batches:\n"
           "        hits.append((net(x).argmax(-1) == y).float().mean())\n    return hits\n",
       )),
    _s(id="next-token-draw", side=SAMPLING, weight=2.5,
       rationale="One decoding step: a token drawn from the model's own output (a multinomial or categorical "
                 "sample, a top-k pick; a greedy argmax fed back to the model) is acting with the policy.",
       body=_next_token,
       examples_match=(
           "import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, ids):\n        return ids\n\n\n"
           "def target(net: Net, ids):\n    logits = net(ids)[:, -1]\n"
           "    return torch.multinomial(logits.softmax(-1), 1), logits\n",
           "import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, ids):\n        return ids\n\n\n"
           "def target(net: Net, tok, steps):\n    out = []\n    logits = net(tok)[:, -1]\n"
           "    tok = logits.argmax(-1, keepdim=True)\n    for _ in range(steps):\n"
           "        logits = net(tok)[:, -1]\n        tok = logits.argmax(-1, keepdim=True)\n"
           "        out.append(tok.item())\n    return out\n",
       ),
       examples_nomatch=(
           "import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x\n\n\n"
           "def target(net: Net, x, y):\n    pred = net(x).argmax(-1)\n    return (pred == y).float().mean()\n",
           "import random\nimport torch\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x\n\n\n"
           "def target(net: Net, items, x):\n    logps = net(x).log_softmax(-1)\n    return random.sample(items, 2), logps\n",
       )),
    _s(id="reward-scoring", side=SAMPLING, weight=2.0,
       rationale="Scoring freshly generated completions with reward functions, reward models or verifiers is the rollout path.",
       body=_reward_scoring,
       examples_match=(
           "def target(reward_funcs, prompts, completions):\n    scores = []\n    for reward_func in reward_funcs:\n"
           "        scores.append(reward_func(prompts=prompts, completions=completions))\n    return scores\n",
           "class Scorer:\n    def target(self, sequences):\n        rewards = self.reward_model(sequences)\n        return rewards\n",
           # through a variable that resolves to the repo's own reward functions
           "def accuracy_reward(completions):\n    return [1.0 for _ in completions]\n\n"
           "REWARDS = [accuracy_reward]\n\n"
           "def target(completions):\n    out = []\n    for reward_func in REWARDS:\n"
           "        out.append(reward_func(completions=completions))\n    return out\n",
           # a deployed reward model asked over HTTP: the reply is read for rewards
           "import requests\n\ndef target(url, responses):\n"
           "    reply = requests.post(url, json={'inputs': responses}).json()\n"
           "    return [c['rewards'][-1] for c in reply['choices']]\n",
       ),
       examples_nomatch=(
           "def target(stats, rewards):\n    return stats.log_reward_stats(rewards)\n",
           "def target(reward_fn, x):\n    return reward_fn.config\n",
       )),
    # ======================== training ========================
    _s(id="tensor-backward", side=TRAINING, weight=3.0,
       rationale="loss.backward() computes gradients: the heart of a training step.",
       calls=("torch.autograd.backward", "torch.autograd.grad"), methods=("backward",), name_only=True,
       check=lambda c, fn, s: s if c.names else _backward_tensor(c, fn, s),
       examples_match=(
           "def target(model, batch):\n    loss = model(batch).mean()\n    loss.backward()\n",
           "import torch\n\ndef target(loss):\n    torch.autograd.backward(loss)\n",
       ),
       examples_nomatch=(
           "def target(cursor):\n    cursor.backward(3)\n",
           "class T:\n    def backward(self):\n        pass\n\n    def target(self):\n        self.backward()\n",
       )),
    _s(id="engine-backward", side=TRAINING, weight=3.0,
       rationale="Accelerate/DeepSpeed engines run backward on a loss for the training step.",
       calls=("accelerate.*.backward", "deepspeed.*.backward"), methods=("backward",),
       roles=("accelerator", "ds_engine", "scaler"), name_only=True, check=_backward_engine,
       examples_match=(
           "from accelerate import Accelerator\n\ndef target(model, batch):\n    acc = Accelerator()\n"
           "    loss = model(batch)\n    acc.backward(loss)\n",
           "class S:\n    def target(self, model_engine, loss):\n        model_engine.backward(loss)\n",
       ),
       examples_nomatch=("def target(tape, steps):\n    tape.backward(steps)\n",)),
    _s(id="optimizer-step", side=TRAINING, weight=3.0,
       rationale="Stepping an optimizer (or a DeepSpeed engine / grad scaler) updates the parameters.",
       calls=("torch.optim.*.step", "torch_xla.*.optimizer_step", "bitsandbytes.optim.*.step"),
       methods=("step",), roles=("optimizer", "ds_engine", "scaler", "hf_model"), check=_optimizer_step,
       examples_match=(
           "import torch\n\ndef target(model):\n    opt = torch.optim.AdamW(model.parameters())\n    opt.step()\n",
           "class Actor:\n    def target(self, loss):\n        loss.backward()\n        self.actor_optim.step()\n",
           "import deepspeed\n\ndef target(model, loss):\n    engine, *_ = deepspeed.initialize(model=model)\n    engine.step()\n",
       ),
       examples_nomatch=(
           "import gym\n\ndef target(a):\n    env = gym.make('x')\n    return env.step(a)\n",
           "from torch.optim.lr_scheduler import CosineAnnealingLR\n\ndef target(opt):\n"
           "    sched = CosineAnnealingLR(opt, 10)\n    sched.step()\n",
       )),
    _s(id="optimizer-zero-grad", side=TRAINING, weight=1.5,
       rationale="zero_grad clears gradients between training steps.",
       calls=("torch.optim.*.zero_grad",), methods=("zero_grad",), roles=("optimizer", "hf_model", "ds_engine"),
       name_only=True, check=_specific_api,
       examples_match=("class T:\n    def target(self):\n        self.optimizer.zero_grad(set_to_none=True)\n",),
       examples_nomatch=("def target(grid):\n    grid.zero()\n",)),
    _s(id="grad-clip", side=TRAINING, weight=2.0,
       rationale="Gradient clipping only happens between backward and the optimizer step.",
       calls=("torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_", "torch.nn.utils.clip_grad.*",
              "accelerate.*.clip_grad_norm_"),
       methods=("clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_master_grads"), name_only=True,
       check=_specific_api,
       examples_match=(
           "import torch\n\ndef target(model):\n    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n",
           "class A:\n    def target(self):\n        return self.actor_module.clip_grad_norm_(max_norm=1.0)\n",
       ),
       examples_nomatch=("import numpy as np\n\ndef target(x):\n    return np.clip(x, 0, 1)\n",)),
    _s(id="lr-scheduler-step", side=TRAINING, weight=1.5,
       rationale="Advancing a learning-rate schedule follows an optimizer update.",
       calls=("torch.optim.lr_scheduler.*.step", "transformers.*schedule*.step"), methods=("step",),
       roles=("scheduler",),
       examples_match=("class T:\n    def target(self):\n        self.lr_scheduler.step()\n",),
       examples_nomatch=("class T:\n    def target(self, a):\n        return self.env.step(a)\n",)),
    _s(id="optimizer-build", side=TRAINING, weight=1.0, setup=True,
       rationale="Constructing an optimizer sets up the training side.",
       calls=("torch.optim.*", "bitsandbytes.optim.*", "apex.optimizers.*", "deepspeed.ops.*", "transformers.AdamW",
              "transformers.optimization.AdamW", "torchao.optim.*"),
       check=_ctor,
       examples_match=("import torch\n\ndef target(model):\n    return torch.optim.AdamW(model.parameters(), lr=1e-6)\n",),
       examples_nomatch=("def target(model):\n    return make_sampler(model)\n",)),
    _s(id="optimizer-param-groups", side=TRAINING, weight=1.0, setup=True,
       rationale="Parameter groups ({'params': ..., 'weight_decay': ...}) are what a torch optimizer is built from.",
       body=_param_groups,
       examples_match=("def target(model, opt_cls, wd):\n"
                       "    groups = [{'params': [p for p in model.parameters()], 'weight_decay': wd}]\n"
                       "    return opt_cls(groups, lr=1e-5)\n",),
       examples_nomatch=("def target(model):\n    return {'params': model.parameters(), 'name': 'm'}\n",)),
    _s(id="lr-scheduler-build", side=TRAINING, weight=0.8, setup=True,
       rationale="Building a learning-rate schedule sets up the training side.",
       calls=("torch.optim.lr_scheduler.*", "transformers.get_scheduler", "transformers.get_*schedule*",
              "transformers.optimization.get_*"),
       methods=("get_scheduler", "get_cosine_schedule_with_warmup", "get_linear_schedule_with_warmup",
                "get_constant_schedule_with_warmup"),
       name_only=True, check=_ctor,
       examples_match=("from transformers import get_scheduler\n\ndef target(opt):\n"
                       "    return get_scheduler('cosine', optimizer=opt, num_warmup_steps=10, num_training_steps=100)\n",),
       examples_nomatch=("def target(cfg):\n    return cfg.get('scheduler')\n",)),
    _s(id="deepspeed-initialize", side=TRAINING, weight=1.2, setup=True,
       rationale="deepspeed.initialize wraps a model with its optimizer for training.",
       calls=("deepspeed.initialize",),
       examples_match=("import deepspeed\n\ndef target(model, cfg):\n    engine, opt, _, _ = deepspeed.initialize(model=model, config=cfg)\n"
                       "    return engine\n",),
       examples_nomatch=("def target(model, cfg):\n    return init(model, cfg)\n",)),
    _s(id="accelerate-prepare", side=TRAINING, weight=0.8, setup=True,
       rationale="Accelerator.prepare wraps model/optimizer/dataloader for distributed training.",
       calls=("accelerate.*.prepare",), methods=("prepare",), roles=("accelerator",),
       examples_match=("class T:\n    def target(self, model, opt):\n        return self.accelerator.prepare(model, opt)\n",),
       examples_nomatch=("def target(stmt):\n    return stmt.prepare()\n",)),
    _s(id="trainer-build", side=TRAINING, weight=1.0, setup=True,
       rationale="Constructing a training library's trainer object (its loop owns the loss, backward and "
                 "optimizer step) sets up the training side.",
       calls=("trl.*Trainer", "transformers.Trainer", "transformers.*.Trainer", "transformers.Seq2SeqTrainer",
              "lightning.*.Trainer", "lightning.Trainer", "pytorch_lightning.Trainer", "pytorch_lightning.*.Trainer"),
       check=_ctor,
       examples_match=("from trl import GRPOTrainer\n\ndef target(model, args, data):\n"
                       "    return GRPOTrainer(model=model, args=args, train_dataset=data, reward_funcs=[])\n",),
       examples_nomatch=("from mylib import Trainer\n\ndef target(model):\n    return Trainer(model)\n",
                         "def target(trainer):\n    return trainer.evaluate()\n")),
    _s(id="library-ppo-step", side=TRAINING, weight=3.0,
       rationale="TRL's online PPOTrainer.step (trl <= 0.11) takes queries, responses and scores and runs the "
                 "old log-prob and value forward passes, advantages, the PPO loss, backward and optimizer steps.",
       calls=("trl.PPOTrainer.step", "trl.*.PPOTrainer.step", "trl.*PPOTrainer.step"),
       examples_match=(
           "from trl import PPOTrainer\n\nclass Tuner(PPOTrainer):\n    def target(self, queries, responses, scores):\n"
           "        return self.step(queries, responses, scores)\n",
       ),
       examples_nomatch=(
           "import gym\n\ndef target(a):\n    env = gym.make('x')\n    return env.step(a)\n",
           "class Loop:\n    def target(self, queries, responses, scores):\n        return self.step(queries, responses, scores)\n",
       )),
    _s(id="fsdp-wrap", side=TRAINING, weight=0.8, setup=True,
       rationale="Sharding a module with FSDP prepares it for distributed training.",
       calls=("torch.distributed.fsdp.*FullyShardedDataParallel", "torch.distributed.fsdp.fully_shard",
              "torch.distributed._composable.fsdp.*fully_shard", "torch.distributed.fsdp.*.fully_shard"),
       examples_match=("from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n\n"
                       "def target(module):\n    return FSDP(module, use_orig_params=True)\n",),
       examples_nomatch=("def target(module):\n    return wrap(module)\n",)),
    _s(id="megatron-forward-backward", side=TRAINING, weight=3.0,
       rationale="Megatron's forward_backward_func runs the pipelined forward and backward passes.",
       calls=("megatron.core.*get_forward_backward_func", "megatron.core.pipeline_parallel.*forward_backward*",
              "megatron.training.*.train_step"),
       methods=("get_forward_backward_func",), name_only=True, check=_specific_api,
       examples_match=("from megatron.core.pipeline_parallel import get_forward_backward_func\n\n"
                       "def target(model, it, n):\n    fb = get_forward_backward_func()\n"
                       "    return fb(forward_step_func=None, data_iterator=it, model=model, num_microbatches=n)\n",),
       examples_nomatch=("def target(model, x):\n    return model.forward(x)\n",)),
    _s(id="jax-train-step", side=TRAINING, weight=2.5,
       rationale="Taking gradients of a loss with JAX and applying an Optax update (value_and_grad, "
                 "optimizer.update, apply_updates) is a training step.",
       calls=("jax.value_and_grad", "jax.grad", "optax.apply_updates", "optax.*.update", "flax.training.*.apply_gradients",
              "flax.*.TrainState.apply_gradients"),
       examples_match=(
           "import jax\nimport optax\n\ndef target(params, opt_state, batch, loss_fn, tx):\n"
           "    loss, grads = jax.value_and_grad(loss_fn)(params, batch)\n"
           "    updates, opt_state = tx.update(grads, opt_state, params)\n"
           "    return optax.apply_updates(params, updates), opt_state, loss\n",
       ),
       examples_nomatch=("import jax\n\ndef target(f, x):\n    return jax.jit(f)(x)\n",)),
    _s(id="supervised-loss", side=TRAINING, weight=1.5,
       rationale="Cross-entropy / MSE losses are training objectives.",
       calls=("torch.nn.functional.cross_entropy", "torch.nn.functional.nll_loss", "torch.nn.functional.mse_loss",
              "torch.nn.CrossEntropyLoss", "torch.nn.MSELoss", "torch.nn.functional.binary_cross_entropy*",
              "torch.nn.functional.logsigmoid"),
       examples_match=("import torch.nn.functional as F\n\ndef target(logits, labels):\n    return F.cross_entropy(logits, labels)\n",),
       examples_nomatch=("def target(a, b):\n    return (a - b).abs().mean()\n",)),
    _s(id="preference-margin-loss", side=TRAINING, weight=2.0,
       rationale="A pairwise preference objective (DPO and its hinge/softplus relatives) puts the chosen-minus-"
                 "rejected log-prob margin through a loss non-linearity: training by its body.",
       body=_preference_margin,
       examples_match=(
           "import torch\n\ndef target(pol_chosen_logps, pol_rejected_logps, ref_chosen_logps, ref_rejected_logps, g):\n"
           "    margin = (pol_chosen_logps - pol_rejected_logps) - (ref_chosen_logps - ref_rejected_logps)\n"
           "    return torch.relu(1 - g * margin)\n",
       ),
       examples_nomatch=(
           "def target(chosen_logps, rejected_logps):\n    return (chosen_logps > rejected_logps).float().mean()\n",
           "import torch\n\ndef target(hidden):\n    return torch.relu(hidden)\n",
       )),
    _s(id="gae-advantage", side=TRAINING, weight=3.0,
       rationale="Generalised advantage estimation (discount, lambda, backwards recursion) runs on the trainer.",
       body=_gae,
       examples_match=(
           "import torch\n\ndef target(rewards, values, gamma, lam):\n    lastgaelam = 0\n    advantages_reversed = []\n"
           "    for t in reversed(range(rewards.shape[-1])):\n        delta = rewards[:, t] + gamma * values[:, t + 1] - values[:, t]\n"
           "        lastgaelam = delta + gamma * lam * lastgaelam\n        advantages_reversed.append(lastgaelam)\n"
           "    advantages = torch.stack(advantages_reversed[::-1], dim=1)\n    returns = advantages + values\n"
           "    return advantages, returns\n",
       ),
       examples_nomatch=("def target(xs):\n    return list(reversed(xs))\n",
                         "def target(values, decay):\n    avg = 0.0\n    for v in values:\n"
                         "        avg = decay * avg + (1 - decay) * v\n    return avg\n")),
    _s(id="group-norm-advantage", side=TRAINING, weight=2.5,
       rationale="Normalising rewards within a group of samples (GRPO-style) turns them into advantages.",
       body=_group_norm,
       examples_match=(
           "def target(rewards, n):\n    grouped = rewards.view(-1, n)\n    mean = grouped.mean(dim=1, keepdim=True)\n"
           "    std = grouped.std(dim=1, keepdim=True)\n    advantages = (grouped - mean) / (std + 1e-6)\n"
           "    return advantages.flatten()\n",
           "import torch\n\ndef target(groups):\n    out = []\n    for g in groups:\n"
           "        rewards = torch.tensor(g.rewards)\n        advantages = rewards - rewards.mean()\n"
           "        out.append(advantages)\n    return out\n",
       ),
       examples_nomatch=("def target(x):\n    return (x - x.mean()) / x.std()\n",
                         "import torch\n\ndef target(groups):\n"
                         "    return {'reward/mean': torch.tensor([g.reward for g in groups]).mean().item()}\n")),
    _s(id="policy-loss", side=TRAINING, weight=3.0,
       rationale="A clipped importance-ratio objective on log-probs and advantages is a policy-gradient loss.",
       body=_policy_loss,
       examples_match=(
           "import torch\n\ndef target(log_probs, old_log_probs, advantages, eps):\n"
           "    ratio = torch.exp(log_probs - old_log_probs)\n    surr1 = ratio * advantages\n"
           "    surr2 = ratio.clamp(1 - eps, 1 + eps) * advantages\n    return -torch.min(surr1, surr2).mean()\n",
           "import torch\n\ndef target(delta, w, eps):\n    r = delta.exp()\n"
           "    return -torch.min(r * w, r.clamp(1 - eps, 1 + eps) * w).mean()\n",
       ),
       examples_nomatch=("import torch\n\ndef target(x, lo, hi):\n    return torch.clamp(torch.exp(x), lo, hi)\n",
                         "def target(x, n):\n    return x.exp().clamp(0, 1) * min(n, 4)\n")),
    _s(id="kl-penalty", side=TRAINING, weight=2.0,
       rationale="A KL term between policy and reference log-probs regularises the training objective.",
       calls=("torch.nn.functional.kl_div", "torch.distributions.kl_divergence", "torch.distributions.kl.*"),
       body=_kl,
       examples_match=(
           "def target(logprob, ref_logprob):\n    kl = logprob - ref_logprob\n    return kl.clamp(-10, 10)\n",
           "import torch.nn.functional as F\n\ndef target(p, q):\n    return F.kl_div(p, q, reduction='batchmean')\n",
       ),
       examples_nomatch=("def target(a, b):\n    diff = a - b\n    return diff\n",
                         "# gyrelint-example-target: compute_kl_metrics\nimport torch\n\n"
                         "def compute_kl_metrics(batches, train_logprobs):\n"
                         "    diffs = torch.cat([b.sampling_logprobs - t for b, t in zip(batches, train_logprobs)])\n"
                         "    return {'train/kl_sample_train': diffs.mean().item()}\n",
                         # a metrics updater that reports a KL between sampler and trainer log-probs
                         "def target(state, lr):\n    metrics = state.metrics\n    metrics.update({'progress/lr': lr})\n"
                         "    if 'train_logprobs' in state.extra:\n"
                         "        metrics.update(kl_stats(state.batch, state.extra['train_logprobs']))\n")),
    _s(id="value-loss", side=TRAINING, weight=2.0,
       rationale="Regressing value predictions onto returns is the critic's training loss.",
       body=_value_loss,
       examples_match=(
           "import torch\n\ndef target(values, old_values, returns, clip):\n"
           "    values_clipped = old_values + (values - old_values).clamp(-clip, clip)\n"
           "    loss = torch.max((values - returns) ** 2, (values_clipped - returns) ** 2)\n    return 0.5 * loss.mean()\n",
       ),
       examples_nomatch=("def target(values, x):\n    return max(values) + x\n",
                         # tokenizing rollouts: a clamp on position ids, a loss mask, return_tensors and values
                         "def target(tok, texts, values):\n    inputs = tok(texts, return_tensors='pt')\n"
                         "    position_ids = (inputs.attention_mask.cumsum(dim=-1) - 1).clamp(min=0)\n"
                         "    loss_mask = inputs.attention_mask\n"
                         "    return {'position_ids': position_ids, 'loss_mask': loss_mask, 'values': values}\n")),
    _s(id="masked-whiten", side=TRAINING, weight=2.0,
       rationale="Whitening per-token values (advantages, rewards) under a response mask is trainer-side RL maths.",
       body=_masked_whiten,
       examples_match=(
           "import torch\n\ndef target(values, mask, eps=1e-8):\n    mu = (values * mask).sum() / mask.sum()\n"
           "    var = (((values - mu) ** 2) * mask).sum() / mask.sum()\n    return (values - mu) * torch.rsqrt(var + eps)\n",
       ),
       examples_nomatch=(
           "import torch\n\ndef target(hidden, eps=1e-6):\n    var = hidden.pow(2).mean(-1, keepdim=True)\n"
           "    return hidden * torch.rsqrt(var + eps)\n",
       )),
    _s(id="manual-optimizer-step", side=TRAINING, weight=3.0,
       rationale="Updating parameters in place from their .grad is an optimizer step written by hand.",
       body=_manual_step,
       examples_match=(
           "import torch\n\ndef target(params, lr):\n    with torch.no_grad():\n        for p in params:\n"
           "            p.add_(p.grad, alpha=-lr)\n",
       ),
       examples_nomatch=("def target(total, x):\n    total.add_(x)\n    return total\n",)),
    _s(id="token-logprobs", side=TRAINING, weight=1.2,
       rationale="log_softmax + gather over logits recomputes per-token log-probs for the loss.",
       body=_token_logprobs,
       examples_match=(
           "import torch\n\ndef target(logits, labels):\n    logp = torch.log_softmax(logits, dim=-1)\n"
           "    return torch.gather(logp, -1, labels.unsqueeze(-1)).squeeze(-1)\n",
       ),
       examples_nomatch=("import torch\n\ndef target(logits):\n    return torch.softmax(logits, -1)\n",)),
    _s(id="logits-entropy", side=TRAINING, weight=1.2,
       rationale="softmax with logsumexp (or log_softmax) summed over the vocabulary is the policy's per-token "
                 "entropy, read by the loss's entropy bonus.",
       body=_logits_entropy,
       examples_match=(
           "import torch\nimport torch.nn.functional as F\n\ndef target(logits):\n    pd = F.softmax(logits, dim=-1)\n"
           "    return torch.logsumexp(logits, dim=-1) - torch.sum(pd * logits, dim=-1)\n",
       ),
       examples_nomatch=("import torch\n\ndef target(logits):\n    return torch.softmax(logits, -1).sum(-1)\n",)),
    _s(id="model-logprob-forward", side=TRAINING, weight=2.0,
       rationale="Running the policy/critic module to get log-probs, values or entropies is the trainer's forward pass.",
       body=_model_forward,
       examples_match=(
           "import torch\n\nclass Worker:\n    def target(self, sequences, mask):\n        with torch.no_grad():\n"
           "            action_log_probs = self.actor(sequences, attention_mask=mask)\n        return action_log_probs\n",
           # through a local alias of the model's backbone
           "def target(unwrapped_model, ids, logits_to_keep):\n    backbone = unwrapped_model.base_model\n"
           "    hidden = backbone(input_ids=ids).last_hidden_state\n    return hidden[:, -logits_to_keep:]\n",
       ),
       examples_nomatch=(
           "class Scorer:\n    def target(self, sequences):\n        rewards = self.reward_model(sequences)\n        return rewards\n",
           "class Attention:\n    def target(self, hidden):\n        query, key, value = self.qkv_proj(hidden).chunk(3, -1)\n"
           "        attn_output = self.core_attention(query, key, value)\n        return self.out_proj_model(attn_output)\n",
           "class Engine:\n    def _create_device_model(self):\n        self.ready = True\n\n"
           "    def target(self):\n        self._create_device_model()\n        return self.values_ready\n",
       )),
    _s(id="trainer-loss-hook", side=TRAINING, weight=2.5,
       rationale="compute_loss/training_step overriding a training library's Trainer is its training step.",
       body=_trainer_hook,
       examples_match=(
           "# gyrelint-example-target: MyTrainer.compute_loss\nfrom transformers import Trainer\n\n"
           "class MyTrainer(Trainer):\n"
           "    def compute_loss(self, model, inputs, return_outputs=False):\n        return model(**inputs).loss\n",
       ),
       examples_nomatch=("# gyrelint-example-target: Evaluator.compute_loss\n"
                         "class Evaluator:\n    def compute_loss(self, x):\n        return x\n",)),
    # ======================== trajectory handoff ========================
    _s(id="queue-put", side=HANDOFF, kind=TRAJECTORY, weight=2.0,
       rationale="Putting items on a queue hands work from a producer (the sampler) to a consumer.",
       calls=("queue.*.put", "multiprocessing.*.put", "asyncio.*.put", "ray.util.queue.*.put"),
       methods=("put", "put_nowait", "put_async"), roles=("queue",), check=_queue_payload,
       examples_match=(
           "import queue\n\nclass P:\n    def __init__(self):\n        self.out = queue.Queue(maxsize=8)\n\n"
           "    def target(self, batch):\n        self.out.put(batch)\n",
           "def target(rollout_queue, traj):\n    rollout_queue.put_nowait(traj)\n",
           # the data loader's resume position travels with the rollouts: no weights on this queue
           "def target(rollout_queue, loader, samples):\n"
           "    state = {'loader': loader.state_dict()}\n    rollout_queue.put((samples, state))\n",
       ),
       examples_nomatch=("def target(store, k, v):\n    store.put(k, v)\n",
                         "class W:\n    def target(self, m):\n        self.metrics_queue.put(m)\n")),
    _s(id="queue-get", side=HANDOFF, kind=TRAJECTORY, weight=2.0,
       rationale="Taking items off a queue is the consumer end of a handoff.",
       calls=("queue.*.get", "multiprocessing.*.get", "asyncio.*.get", "ray.util.queue.*.get"),
       methods=("get", "get_nowait", "get_async"), roles=("queue",), check=_queue_payload,
       examples_match=(
           "from ray.util.queue import Queue\n\ndef target(n):\n    q = Queue()\n    return [q.get() for _ in range(n)]\n",
       ),
       examples_nomatch=("def target(cfg):\n    return cfg.get('lr')\n",)),
    _s(id="ray-put", side=HANDOFF, kind=TRAJECTORY, weight=1.5,
       rationale="ray.put places data in the object store for another process to fetch.",
       calls=("ray.put",), check=_object_payload,
       examples_match=("import ray\n\ndef target(batch):\n    return ray.put(batch)\n",),
       examples_nomatch=("def target(d, x):\n    d.put(x)\n",
                         "import ray\n\ndef target(run_config):\n    return ray.put(run_config)\n")),
    _s(id="prompt-intake", side=SAMPLING, weight=1.0, setup=True,
       rationale="A queue of prompts or requests feeds the sampler: putting one in and taking the next out is "
                 "the sampler's intake, not the trajectory handoff.",
       methods=("put", "put_nowait", "put_async", "get", "get_nowait", "get_async"), roles=("queue",),
       check=_intake,
       examples_match=("import asyncio\n\nclass W:\n    def __init__(self):\n        self.pending = asyncio.Queue()\n\n"
                       "    async def target(self, request):\n        await self.pending.put(request)\n",),
       examples_nomatch=("import asyncio\n\nclass W:\n    def __init__(self):\n        self.done = asyncio.Queue()\n\n"
                         "    async def target(self, rollout):\n        await self.done.put(rollout)\n",)),
    _s(id="zmq-transport", side=HANDOFF, kind=TRAJECTORY, weight=2.0,
       rationale="ZMQ socket send/recv move payloads between processes.",
       calls=("zmq.*.send_pyobj", "zmq.*.recv_pyobj", "zmq.*.send_multipart", "zmq.*.recv_multipart",
              "zmq.*.send", "zmq.*.recv"),
       methods=("send_pyobj", "recv_pyobj", "send_multipart", "recv_multipart", "send", "recv"),
       roles=("zmq_socket",), name_only=True, check=_pyobj,
       examples_match=(
           "import zmq\n\ndef target(addr, batch):\n    sock = zmq.Context().socket(zmq.PUSH)\n    sock.connect(addr)\n"
           "    sock.send_pyobj(batch)\n",
           "class C:\n    def target(self):\n        return self.socket.recv_multipart()\n",
       ),
       examples_nomatch=("def target(mail, msg):\n    mail.send(msg)\n",
                         "import zmq\n\nclass Link:\n    def __init__(self, addr):\n"
                         "        self.sock = zmq.Context().socket(zmq.REQ)\n\n"
                         "    def target(self, name, **kw):\n        self.sock.send_pyobj(Order(method=name, params=kw))\n"
                         "        return self.sock.recv_pyobj()\n",
                         "import zmq\n\ndef target(addr, state):\n    sock = zmq.Context().socket(zmq.PUSH)\n"
                         "    sock.send_pyobj({'status': state})\n")),
    _s(id="zmq-socket", side=HANDOFF, kind=TRAJECTORY, weight=1.0, setup=True,
       rationale="Opening a ZMQ socket sets up an inter-process transport.",
       calls=("zmq.*.socket", "zmq.asyncio.Context", "zmq.Context"),
       examples_match=("import zmq\n\ndef target(addr):\n    s = zmq.Context.instance().socket(zmq.PULL)\n    s.bind(addr)\n    return s\n",),
       examples_nomatch=("import socket\n\ndef target(h):\n    return socket.create_connection(h)\n",)),
    _s(id="shared-memory", side=HANDOFF, kind=TRAJECTORY, weight=1.5,
       rationale="Shared-memory blocks carry tensors between processes without copies.",
       calls=("multiprocessing.shared_memory.SharedMemory", "multiprocessing.*.SharedMemory", "torch.from_file"),
       methods=("share_memory_",), name_only=True, check=_shared_mapping,
       examples_match=(
           "from multiprocessing import shared_memory\n\ndef target(n):\n    return shared_memory.SharedMemory(create=True, size=n)\n",
           "def target(buf):\n    buf.share_memory_()\n    return buf\n",
           "import torch\n\ndef target(path, n):\n    return torch.from_file(path, shared=True, size=n, dtype=torch.float32)\n",
       ),
       examples_nomatch=("def target(buf):\n    return buf.clone()\n",
                         "import torch\n\ndef target(path, n):\n    return torch.from_file(path, size=n)\n",
                         "import torch\n\ndef target(ptr, n):\n    kv_backup = torch.from_file(f'/tmp/kv-cache-{ptr}.pt', size=n, shared=True)\n"
                         "    return kv_backup\n")),
    _s(id="object-collective", side=HANDOFF, kind=TRAJECTORY, weight=1.0,
       rationale="Broadcasting/gathering Python objects across ranks redistributes samples between processes.",
       calls=("torch.distributed.broadcast_object_list", "torch.distributed.scatter_object_list",
              "torch.distributed.gather_object", "torch.distributed.all_gather_object",
              "accelerate.utils.gather_object", "accelerate.utils.broadcast_object_list",
              "accelerate.utils.*.gather_object", "accelerate.utils.*.broadcast_object_list"),
       check=_object_payload,
       examples_match=("import torch.distributed as dist\n\ndef target(items):\n    out = [None]\n"
                       "    dist.scatter_object_list(out, items, src=0)\n    return out[0]\n",),
       examples_nomatch=("def target(items):\n    return list(items)\n",
                         "import torch.distributed as dist\n\ndef target(should_stop):\n    box = [should_stop]\n"
                         "    dist.broadcast_object_list(box, src=0)\n    return box[0]\n")),
    _s(id="tensordict-batch", side=HANDOFF, kind=TRAJECTORY, container=True, weight=1.5,
       rationale="TensorDict is a batch container for trajectories passed to the trainer.",
       calls=("tensordict.TensorDict", "tensordict.*.TensorDict", "tensordict.TensorDict.*",
              "tensordict.*.TensorDict.*"),
       check=_tensordict_rollout,
       examples_match=("from tensordict import TensorDict\n\ndef target(ids, responses, mask):\n"
                       "    return TensorDict({'input_ids': ids, 'responses': responses, 'attention_mask': mask},\n"
                       "                      batch_size=ids.shape[0])\n",),
       examples_nomatch=("def target(ids):\n    return {'input_ids': ids}\n",
                         "from tensordict import TensorDict\n\ndef target(tds, n):\n"
                         "    return [TensorDict.cat(tds[i::n]) for i in range(n)]\n")),
    _s(id="hf-generation-pipeline", side=SAMPLING, weight=2.0,
       rationale="A transformers pipeline built for a generation task decodes new tokens with the model it wraps.",
       body=_generation_pipeline,
       examples_match=("from transformers import pipeline\n\ndef target(model, tok):\n"
                       "    return pipeline('text-generation', model=model, tokenizer=tok)\n",),
       examples_nomatch=("from transformers import pipeline\n\ndef target(path):\n"
                         "    return pipeline(task='token-classification', model=path)\n",)),
    _s(id="library-rl-collect", side=SAMPLING, weight=2.5,
       rationale="An RL library's learn loop collects rollouts by stepping the environments with the policy.",
       calls=("stable_baselines3.*.learn", "sb3_contrib.*.learn"),
       examples_match=("from stable_baselines3 import PPO\n\ndef target(env, n):\n"
                       "    return PPO('MlpPolicy', env).learn(total_timesteps=n)\n",),
       examples_nomatch=("def target(model, n):\n    return model.learn(n)\n",)),
    _s(id="library-rl-update", side=TRAINING, weight=2.5,
       rationale="An RL library's learn loop updates the policy on the rollouts it collected.",
       calls=("stable_baselines3.*.learn", "sb3_contrib.*.learn"),
       examples_match=("from stable_baselines3.common.on_policy_algorithm import OnPolicyAlgorithm\n\n"
                       "class Algo(OnPolicyAlgorithm):\n"
                       "    def learn(self, n):  # gyrelint-example-target: Algo.learn\n"
                       "        return super().learn(total_timesteps=n)\n",),
       examples_nomatch=("from stable_baselines3 import PPO\n\ndef target(path):\n    return PPO.load(path)\n",)),
    _s(id="launch-sampler-script", side=SAMPLING, weight=2.0,
       rationale="Starting the repo's own inference-server script as a child process starts the sampling side.",
       body=_launches_sampler,
       examples_match=(
           "import subprocess\nimport sys\nfrom vllm import LLM, SamplingParams\n\n"
           "def serve(prompts):\n    return LLM(model='m').generate(prompts, SamplingParams(n=2))\n\n"
           "def target(port):\n    return subprocess.Popen([sys.executable, __file__, '--port', str(port)])\n",),
       examples_nomatch=(
           "import subprocess\nimport sys\n\ndef show(port):\n    print(port)\n\n"
           "def target(port):\n    return subprocess.Popen([sys.executable, __file__, str(port)])\n",)),
    _s(id="library-rollout-buffer", side=HANDOFF, kind=TRAJECTORY, weight=2.0,
       rationale="A subclass of an RL library's rollout buffer stores the rollouts and serves them to the update.",
       body=_library_buffer,
       examples_match=(
           "from stable_baselines3.common.buffers import RolloutBuffer\n\nclass MaskedBuffer(RolloutBuffer):\n"
           "    def add(self, *args, masks=None, **kwargs):  # gyrelint-example-target: MaskedBuffer.add\n"
           "        self.masks[self.pos] = masks\n        super().add(*args, **kwargs)\n",),
       examples_nomatch=(
           "from stable_baselines3.common.buffers import RolloutBuffer\n\nclass MaskedBuffer(RolloutBuffer):\n"
           "    def describe(self):  # gyrelint-example-target: MaskedBuffer.describe\n"
           "        return str(self.buffer_size)\n",
           "class Tally:\n    def add(self, x):  # gyrelint-example-target: Tally.add\n        self.n += x\n")),
    _s(id="replay-buffer", side=HANDOFF, kind=TRAJECTORY, weight=2.0,
       rationale="Sampling from a stored list of appended experience is a replay buffer feeding the trainer.",
       calls=("torchrl.data.*ReplayBuffer*", "torchrl.data.*.extend", "torchrl.data.*.sample"),
       body=_replay_buffer,
       examples_match=(
           "import random\n\nclass Buffer:\n    def __init__(self):\n        self.items = []\n\n"
           "    def add(self, exp):\n        self.items.append(exp)\n\n"
           "    def target(self, n):\n        return random.sample(self.items, n)\n",
           "import random\n\nclass Buffer:\n    def __init__(self):\n        self.items = []\n\n"
           "    def target(self, exp):\n        self.items.append(exp)\n\n"
           "    def draw(self, n):\n        return random.sample(self.items, n)\n",
           "import random\n\nclass Buffer:\n    def __init__(self):\n        self.items = []\n\n"
           "    def add(self, exp):\n        self.items.append(exp)\n\n"
           "    def target(self, v):\n        self.items = [e for e in self.items if e.v >= v]\n\n"
           "    def draw(self, n):\n        return random.sample(self.items, n)\n",
       ),
       examples_nomatch=("import random\n\nclass Picker:\n    def target(self, names):\n        return random.sample(names, 2)\n",
                         "class Log:\n    def __init__(self):\n        self.lines = []\n\n"
                         "    def target(self, line):\n        self.lines.append(line)\n\n"
                         "    def tail(self, n):\n        self.lines = self.lines[-n:]\n        return self.lines\n",
                         "import random\n\nclass Buffer:\n    def __init__(self):\n        self.items = []\n\n"
                         "    def add(self, exp):\n        self.items.append(exp)\n\n"
                         "    def target(self):\n        self.items = []\n\n"
                         "    def draw(self, n):\n        return random.sample(self.items, n)\n")),
    _s(id="rollout-packing", side=HANDOFF, kind=TRAJECTORY, container=True, weight=2.0,
       rationale="Turning rollout records into the trainer's per-token tensors (ids, masks, log-probs, "
                 "advantages or rewards) assembles the trajectory contract between the sides.",
       body=_packs_rollouts,
       examples_match=(
           "import torch\n\ndef target(episodes):\n    ids = [torch.tensor(e.tokens) for e in episodes]\n"
           "    return {'input_ids': torch.stack(ids), 'loss_mask': torch.stack([e.mask for e in episodes]),\n"
           "            'advantages': torch.tensor([e.adv for e in episodes])}\n",
           "import torch\n\ndef target(acc, pad):\n    ids = torch.tensor(acc.responses)\n    mask = (ids != pad).long()\n"
           "    pos = torch.clip(torch.cumsum(mask, dim=-1) - 1, min=0)\n"
           "    return {'input_ids': ids, 'attention_mask': mask, 'position_ids': pos,\n"
           "            'logprobs': torch.tensor(acc.sampled_logprobs)}\n",
       ),
       examples_nomatch=(
           "import torch\n\ndef target(texts, tok):\n    ids = [torch.tensor(tok(t)) for t in texts]\n"
           "    return {'input_ids': torch.stack(ids), 'attention_mask': torch.ones(len(ids))}\n",
           "def target(episodes):\n    return {'input_ids': 1, 'advantages': 2, 'loss_mask': 3}\n",
           "import torch\n\ndef target(acc, gamma):\n    r = torch.tensor(acc.rewards)\n"
           "    ret = torch.cumsum(r.flip(0), 0).flip(0)\n"
           "    return {'input_ids': torch.tensor(acc.responses), 'returns': ret, 'advantages': ret - ret.mean()}\n",
       )),
    _s(id="trajectory-container-op", side=HANDOFF, kind=TRAJECTORY, container=True, weight=2.0,
       rationale="Building, returning or buffering the class the sampler fills and the trainer reads moves trajectories.",
       body=_container_op,
       examples_match=(
           "from dataclasses import dataclass\n\nimport torch\nfrom vllm import LLM\n\n\n@dataclass\nclass Episode:\n"
           "    tokens: list\n    reward: float\n\n\ndef collect(llm: LLM, prompts):\n"
           "    return [Episode(tokens=o, reward=0.0) for o in llm.generate(prompts)]\n\n\n"
           "def learn(ep: Episode, opt: torch.optim.Adam):\n    loss = torch.tensor(ep.reward)\n    loss.backward()\n"
           "    opt.step()\n\n\ndef target(eps):\n"
           "    return Episode(tokens=[t for e in eps for t in e.tokens], reward=sum(e.reward for e in eps))\n",
       ),
       examples_nomatch=(
           "from dataclasses import dataclass\n\n\n@dataclass\nclass Point:\n    x: int\n    y: int\n\n\n"
           "def target(a, b):\n    return Point(x=a, y=b)\n",
       )),
    _s(id="handoff-state-serve", side=HANDOFF, kind=TRAJECTORY, weight=2.0,
       rationale="A method handing out what its class's queue-draining handoff method stored serves the trainer "
                 "its batch.",
       body=_serves_handoff_state,
       examples_match=(
           "import queue\n\nclass Hub:\n    def __init__(self):\n        self.results = queue.Queue()\n"
           "        self.shards = []\n\n    def drain(self, n):\n"
           "        self.shards = [self.results.get() for _ in range(n)]\n\n"
           "    def target(self, rank):\n        return self.shards[rank]\n",
       ),
       examples_nomatch=("class Hub:\n    def __init__(self):\n        self.shards = []\n\n"
                         "    def target(self, rank):\n        return self.shards[rank]\n",)),
    _s(id="rollout-carrier", side=HANDOFF, kind=TRAJECTORY, weight=2.0,
       rationale="A wrapper whose backend nobody can type carries rollouts when what goes in is built from a "
                 "sampling function's output: its put and get methods are the trajectory handoff.",
       body=_rollout_carrier,
       examples_match=(
           "import gymnasium as gym\n\n\ndef open_wire(spec):\n    return __import__(spec).connect()\n\n\n"
           "class Chan:\n    def __init__(self, spec):\n        self._wire = open_wire(spec)\n\n"
           "    def target(self, item):\n        self._wire.write(item)\n\n\n"
           "def play(env, n):\n    return [env.step(env.action_space.sample()) for _ in range(n)]\n\n\n"
           "def feed(chan: Chan, spec):\n    env = gym.make(spec)\n    steps = play(env, 8)\n    chan.target(steps)\n",
       ),
       examples_nomatch=("class Chan:\n    def __init__(self, wire):\n        self._wire = wire\n\n"
                         "    def target(self, item):\n        self._wire.write(item)\n",)),
    _s(id="trajectory-file", side=HANDOFF, kind=TRAJECTORY, weight=1.5,
       rationale="Writing rollouts/experience to files for another process to read is a file transport.",
       calls=("torch.save", "pickle.dump", "json.dump", "numpy.save", "torch.load", "pickle.load"),
       check=_rollout_payload,
       examples_match=("import torch\n\ndef target(rollouts, path):\n    torch.save(rollouts, path)\n",),
       examples_nomatch=("import torch\n\ndef target(model, path):\n    torch.save(model.state_dict(), path)\n",)),
    _s(id="kv-store-batch", side=HANDOFF, kind=TRAJECTORY, weight=2.0,
       rationale="Putting batches of samples into an external key-value/transfer store (or getting them out) "
                 "carries rollouts between the sides.",
       calls=("mooncake.*.put*", "mooncake.*.get*", "mooncake.*.batch_put*", "mooncake.*.batch_get*"),
       methods=("put", "get", "batch_put", "batch_get", "put_batch", "get_batch", "kv_put", "kv_get",
                "kv_batch_put", "kv_batch_get", "mput", "mget", "put_tensor", "get_tensor"),
       roles=("kv_store",), check=_store_payload,
       examples_match=(
           "class Stash:\n    def target(self, keys, batch):\n        self.kv.kv_batch_put(keys=keys, fields=batch)\n",
           "class Stash:\n    def target(self, keys):\n        samples = self.data_store.get(keys)\n        return samples\n",
       ),
       examples_nomatch=(
           "class Stash:\n    def target(self, key):\n        self.kv.put(key, 'seen')\n",
           "class Stash:\n    def target(self, key, state_dict):\n        self.kv.put(key, state_dict)\n",
       )),
    _s(id="message-broker-batch", side=HANDOFF, kind=TRAJECTORY, weight=2.0,
       rationale="Pushing batches of samples through a message broker (a Redis list or stream, a Kafka topic) "
                 "or popping them out carries rollouts between the processes of the two sides.",
       calls=("redis.*.lpush", "redis.*.rpush", "redis.*.xadd", "redis.*.blpop", "redis.*.brpop", "redis.*.lpop",
              "redis.*.rpop", "redis.*.xread", "redis.*.xreadgroup", "kafka.*.send", "kafka.*.poll",
              "confluent_kafka.*.produce", "confluent_kafka.*.poll", "confluent_kafka.*.consume"),
       check=_broker_payload,
       examples_match=(
           "import json\nimport redis\n\nclass Sink:\n    def __init__(self, url):\n        self.r = redis.Redis.from_url(url)\n\n"
           "    def target(self, rollouts):\n        self.r.rpush('rollouts', json.dumps(rollouts))\n",
       ),
       examples_nomatch=(
           "import redis\n\nclass Sink:\n    def __init__(self, url):\n        self.r = redis.Redis.from_url(url)\n\n"
           "    def target(self, step):\n        self.r.rpush('heartbeat', step)\n",
       )),
    _s(id="reverb-transport", side=HANDOFF, kind=TRAJECTORY, weight=2.5,
       rationale="A Reverb replay server (written by actors, sampled by the learner) carries trajectories between "
                 "the processes of a distributed RL program.",
       calls=("reverb.*.insert", "reverb.*.create_item", "reverb.*.trajectory_writer", "reverb.*.writer",
              "reverb.*.TrajectoryWriter", "reverb.*.sample", "reverb.*.TrajectoryDataset*",
              "reverb.*.ReplayDataset*"),
       examples_match=(
           "import reverb\n\ndef target(address, steps):\n    client = reverb.Client(address)\n"
           "    with client.trajectory_writer(num_keep_alive_refs=len(steps)) as w:\n        for s in steps:\n"
           "            w.append(s)\n        w.create_item('replay', priority=1.0, trajectory=w.history)\n",
           "import reverb\n\ndef target(address, n):\n    client = reverb.Client(address)\n"
           "    return list(client.sample('replay', num_samples=n))\n",
       ),
       examples_nomatch=("import reverb\n\ndef target(address):\n    return reverb.Client(address).server_info()\n",)),
    _s(id="pipe-transport", side=HANDOFF, kind=TRAJECTORY, weight=1.0,
       rationale="A multiprocessing Pipe carries requests and results between processes.",
       calls=("multiprocessing.Pipe", "multiprocessing.*.Pipe", "torch.multiprocessing.Pipe"),
       examples_match=("import multiprocessing as mp\n\ndef target():\n    parent, child = mp.Pipe()\n    return parent, child\n",),
       examples_nomatch=("def target(a, b):\n    return a | b\n",)),
    # ======================== weight-sync handoff ========================
    _s(id="engine-load-weights", side=HANDOFF, kind=WEIGHT_SYNC, weight=3.0,
       rationale="load_weights([(name, tensor)]) on the inference model receives trainer parameters.",
       calls=("vllm.*.load_weights",), methods=("load_weights",), roles=("llm_engine",), name_only=True,
       check=_not_path_arg,
       examples_match=(
           "class WorkerExt:\n    def target(self, name, weight):\n"
           "        self.model_runner.model.load_weights(weights=[(name, weight)])\n",
           "def target(llm_model, named):\n    llm_model.load_weights([(n, p.data) for n, p in named])\n",
       ),
       examples_nomatch=("def target(net):\n    net.load_weights('weights.h5')\n",)),
    _s(id="engine-update-weights-api", side=HANDOFF, kind=WEIGHT_SYNC, weight=3.0,
       rationale="Inference engines' update_weights_from_* / weight-update-group / weight-transfer APIs push new "
                 "parameters (SGLang's update_weights_from_*, vLLM's weight-transfer engine: init, start, update, "
                 "finish, send_weights).",
       calls=("sglang.*.update_weights_from_*", "sglang.*.init_weights_update_group", "vllm.*.update_weights*",
              "vllm.*.init_weight_transfer_engine", "vllm.*.start_weight_update", "vllm.*.finish_weight_update",
              "vllm.*WeightTransfer*.send_weights", "vllm.*WeightTransfer*.trainer_init"),
       methods=("update_weights_from_tensor", "update_weights_from_distributed", "update_weights_from_disk",
                "update_weights_from_ipc", "update_weights_from_ipc_handles", "init_weights_update_group",
                "init_weight_update_group", "update_weights_from_agent", "init_weight_transfer_engine",
                "start_weight_update", "finish_weight_update"),
       name_only=True, check=_specific_api,
       examples_match=(
           "class R:\n    def target(self, named_tensors):\n"
           "        self.engine.update_weights_from_tensor(named_tensors=named_tensors)\n",
           "class R:\n    def target(self, info):\n        self.llm.start_weight_update()\n"
           "        self.llm.update_weights(info)\n        self.llm.finish_weight_update()\n",
       ),
       examples_nomatch=("class R:\n    def target(self, x):\n        self.weights.update(x)\n",)),
    _s(id="tensor-store-weights", side=HANDOFF, kind=WEIGHT_SYNC, weight=2.5,
       rationale="Putting the model's state dict into a distributed tensor store (or getting it, or each "
                 "parameter, out into the inference model) is a weight sync through the store.",
       calls=("torchstore.put_state_dict", "torchstore.get_state_dict", "torchstore.*.put_state_dict",
              "torchstore.*.get_state_dict", "torchstore.put", "torchstore.*.put", "torchstore.get", "torchstore.*.get"),
       check=_store_weights,
       examples_match=(
           "import torchstore as ts\n\nasync def target(model, version):\n"
           "    await ts.put_state_dict(model.state_dict(), f'policy/{version}')\n",
           "import torchstore as ts\n\nasync def target(state_dict, version):\n    for name in state_dict:\n"
           "        state_dict[name].copy_(await ts.get(f'policy/{version}/{name}'))\n",
       ),
       examples_nomatch=(
           "import torchstore as ts\n\nasync def target(key, batch):\n    await ts.put(key, batch)\n",
           "import torchstore as ts\n\nasync def target(param_key):\n    handle = await ts.get(param_key)\n"
           "    handle.drop()\n",
       )),
    _s(id="engine-lora-swap", side=HANDOFF, kind=WEIGHT_SYNC, weight=3.0,
       rationale="An inference engine's add_lora swaps in the adapter the trainer just saved: the LoRA weight sync.",
       calls=("vllm.*.add_lora",), methods=("add_lora",), name_only=True, check=_not_path_arg,
       examples_match=(
           "class Service:\n    def target(self, request):\n"
           "        self.state.vllm.async_engine.engine.remove_lora(1)\n"
           "        self.state.vllm.async_engine.engine.add_lora(request)\n",
       ),
       examples_nomatch=("def target(cfg, net):\n    return cfg.add_lora_rank(net)\n",)),
    _s(id="engine-lora-patch", side=HANDOFF, kind=WEIGHT_SYNC, weight=3.0,
       rationale="Installing a LoRA loader into an inference engine library (its adapter manager's loader, the "
                 "request's tensor field, a runner's add_lora) is the engine's receiving end of the adapter push.",
       body=engine_lora_patch,
       examples_match=(
           "from vllm.lora.worker_manager import WorkerLoRAManager\n\n"
           "def from_tensors(self, request):\n    return self._lora_model_cls.from_lora_tensors(request.lora_tensors)\n\n"
           "def target():\n    setattr(WorkerLoRAManager, '_load_adapter', from_tensors)\n",
           "from vllm.lora.request import LoRARequest\n\ndef target():\n    LoRARequest.lora_tensors = {}\n",
           "from vllm.lora.worker_manager import WorkerLoRAManager\n\n"
           "def target(self, request):\n    return self._lora_model_cls.from_lora_tensors(request.lora_tensors)\n\n"
           "def install():\n    setattr(WorkerLoRAManager, '_load_adapter', target)\n",
           "from vllm.worker.multi_step_model_runner import MultiStepModelRunner\n\n"
           "def target(runner: MultiStepModelRunner):\n    runner.add_lora = runner._base_model_runner.add_lora\n",
       ),
       examples_nomatch=(
           "from vllm.model_executor.models import llama\n\n"
           "def target(fn):\n    setattr(llama.LlamaForCausalLM, 'get_mm_mapping', fn)\n",
           "class Adapter:\n    pass\n\ndef target():\n    Adapter.lora_tensors = {}\n",
       )),
    _s(id="weight-update-endpoint", side=HANDOFF, kind=WEIGHT_SYNC, weight=3.0,
       rationale="HTTP admin endpoints of inference servers (update_weights, init group) push new weights.",
       body=_endpoint(_WEIGHT_ENDPOINT),
       examples_match=(
           "import requests\n\ndef target(url, path):\n"
           "    return requests.post(f'{url}/update_weights_from_disk', json={'model_path': path})\n",
           "import requests\n\nclass ServeClient:\n    def target(self, host, port, world):\n"
           "        return requests.post(f'{self.base}/init_communicator/', json={'host': host, 'port': port, "
           "'world_size': world})\n",
           # the route named by the caller, the URL built by a helper
           "import requests\n\nclass Link:\n    def _send(self, route, body):\n"
           "        return requests.post(f'{self.base}/{route}', json=body)\n\n"
           "    def target(self, meta):\n        return self._send('update_weights_from_tensor', meta)\n",
       ),
       examples_nomatch=("import requests\n\ndef target(url):\n    return requests.post(f'{url}/flush_cache')\n",
                         "import requests\n\nclass Link:\n    def _send(self, route, body):\n"
                         "        return requests.post(f'{self.base}/{route}', json=body)\n\n"
                         "    def target(self):\n        return self._send('flush_cache', {})\n")),
    _s(id="collective-rpc", side=HANDOFF, kind=WEIGHT_SYNC, weight=2.5,
       rationale="vLLM collective_rpc runs a method on every worker, the usual path into the engine's weights.",
       calls=("vllm.*.collective_rpc",), methods=("collective_rpc",), roles=("llm_engine",), name_only=True,
       check=_rpc_weights,
       examples_match=(
           "class E:\n    async def target(self, name, dtype, shape):\n"
           "        return await self.llm.collective_rpc('update_weight', args=(name, dtype, shape))\n",
           # the workers join the trainer's weight-update group
           "class E:\n    def target(self, addr, port, rank, world):\n"
           "        return self.llm.collective_rpc('init_process_group', args=(addr, port, rank, world))\n",
       ),
       examples_nomatch=("class E:\n    def target(self):\n        return self.llm.collective_rpc('report_device_id')\n",
                         "class E:\n    async def target(self, n):\n"
                         "        await self.engine_client.collective_rpc(method='patch_vocab', kwargs={'vocab_size': n})\n")),
    _s(id="param-broadcast", side=HANDOFF, kind=WEIGHT_SYNC, weight=3.0,
       rationale="Broadcasting parameters over a process group sends trainer weights to the inference workers.",
       calls=("torch.distributed.broadcast", "ray.util.collective.broadcast", "vllm.*PyNcclCommunicator.broadcast",
              "torch.distributed.distributed_c10d.broadcast", "cupy.cuda.nccl.*.broadcast", "cupy.cuda.nccl.*.bcast"),
       methods=("broadcast",), roles=("pg_comm",), check=_param_context,
       examples_match=(
           "import torch.distributed as dist\n\ndef target(model, group):\n"
           "    for name, param in model.named_parameters():\n        dist.broadcast(param.data, 0, group=group)\n",
           "class A:\n    def target(self, state_dict):\n        for k, v in state_dict.items():\n"
           "            self.communicator.broadcast(v, src=0)\n",
       ),
       examples_nomatch=("import torch.distributed as dist\n\ndef target(flag):\n    dist.broadcast(flag, 0)\n    return flag\n",
                         # the default group: rank 0's loaded weights made equal across the training ranks
                         "import torch.distributed as dist\n\ndef target(model):\n"
                         "    for name, param in model.named_parameters():\n        dist.broadcast(param.data, src=0)\n",
                         "import torch.distributed as dist\n\ndef target(model, full_state):\n"
                         "    if any(p.is_meta for p in model.parameters()):\n        model = model.to_empty(device='cuda')\n"
                         "    model.load_state_dict(full_state)\n    for name, buf in model.named_buffers():\n"
                         "        dist.broadcast(buf, src=0)\n",
                         # a generic helper: shape and dtype first, then the tensor (batches go through it too)
                         "import torch\nimport torch.distributed as dist\n\ndef target(tensor, src=0, group=None):\n"
                         "    meta = [{'shape': list(tensor.shape), 'dtype': tensor.dtype}] if tensor is not None else [None]\n"
                         "    dist.broadcast_object_list(meta, src=src, group=group)\n"
                         "    if tensor is None:\n        tensor = torch.empty(meta[0]['shape'], dtype=meta[0]['dtype'])\n"
                         "    dist.broadcast(tensor, src=src, group=group)\n    return tensor\n")),
    _s(id="weight-sync-group", side=HANDOFF, kind=WEIGHT_SYNC, weight=2.0, setup=True,
       rationale="An ad-hoc NCCL group (tcp:// rendezvous, stateless group, PyNccl) exists to ship weights.",
       calls=("torch.distributed.init_process_group", "vllm.*StatelessProcessGroup.create",
              "vllm.*.PyNcclCommunicator", "ray.util.collective.init_collective_group",
              "ray.util.collective.create_collective_group", "torch.distributed.distributed_c10d._new_process_group_helper",
              "cupy.cuda.nccl.NcclCommunicator", "ray.experimental.collective.create_collective_group"),
       methods=("init_process_group",), name_only=True, check=_tcp_group,
       examples_match=(
           "import torch.distributed as dist\n\ndef target(host, port, rank, world):\n"
           "    dist.init_process_group('nccl', init_method=f'tcp://{host}:{port}', rank=rank, world_size=world)\n",
           "from vllm.distributed.utils import StatelessProcessGroup\n\ndef target(h, p, r, w):\n"
           "    return StatelessProcessGroup.create(host=h, port=p, rank=r, world_size=w)\n",
       ),
       examples_nomatch=("import torch.distributed as dist\n\ndef target():\n    dist.init_process_group('nccl')\n",)),
    _s(id="cuda-ipc", side=HANDOFF, kind=WEIGHT_SYNC, weight=2.5,
       rationale="CUDA IPC handles share trainer tensors with a colocated inference engine (exporting them, or "
                 "rebuilding the tensors from the handles on the other end).",
       calls=("torch.multiprocessing.reductions.reduce_tensor", "torch.multiprocessing.reductions.rebuild_cuda_tensor",
              "torch.UntypedStorage._new_shared_cuda", "torch.*Storage._new_shared_cuda"),
       methods=("reduce_tensor", "rebuild_cuda_tensor", "_share_cuda_", "get_ipc_handle", "_new_shared_cuda"),
       name_only=True,
       check=_specific_api,
       examples_match=("from torch.multiprocessing.reductions import reduce_tensor\n\ndef target(w):\n"
                       "    return {'handle': reduce_tensor(w)}\n",
                       "import torch\n\ndef target(share):\n    storage = torch.UntypedStorage._new_shared_cuda(*share)\n"
                       "    return torch.tensor([]).set_(storage)\n"),
       examples_nomatch=("def target(w):\n    return w.cpu()\n",)),
    _s(id="engine-refit", side=HANDOFF, kind=WEIGHT_SYNC, weight=3.0,
       rationale="Refitting a compiled inference engine (a TensorRT Refitter, TensorRT-LLM's weight update) swaps "
                 "the trainer's new weights into the generation engine without rebuilding it.",
       calls=("tensorrt.Refitter", "tensorrt.*.Refitter", "tensorrt.*.refit_cuda_engine", "tensorrt.*.set_named_weights",
              "tensorrt_llm.*.refit*", "tensorrt_llm.*.update_weights*"),
       methods=("refit_cuda_engine", "set_named_weights"), name_only=True, check=_specific_api,
       examples_match=(
           "import tensorrt as trt\n\ndef target(engine, logger, named):\n    refitter = trt.Refitter(engine, logger)\n"
           "    for name, w in named.items():\n        refitter.set_named_weights(name, w)\n"
           "    return refitter.refit_cuda_engine()\n",
       ),
       examples_nomatch=("def target(model, x):\n    return model.fit(x)\n",)),
    _s(id="rollout-load-state-dict", side=HANDOFF, kind=WEIGHT_SYNC, weight=2.5,
       rationale="load_state_dict into the rollout/inference model copies trainer weights into the sampler.",
       methods=("load_state_dict",), roles=("llm_engine",), name_only=True, check=_rollout_receiver,
       examples_match=("class S:\n    def target(self, actor):\n        self.rollout_model.load_state_dict(actor.state_dict())\n",),
       examples_nomatch=("import torch\n\ndef target(model, path):\n    model.load_state_dict(torch.load(path))\n",)),
    _s(id="param-stream", side=HANDOFF, kind=WEIGHT_SYNC, weight=2.0,
       rationale="A generator over named_parameters/state_dict streams weights out chunk by chunk for a push.",
       body=_param_stream,
       examples_match=(
           "def target(model):\n    for name, p in model.named_parameters():\n        yield name.removeprefix('module.'), p\n",
       ),
       examples_nomatch=("def target(model):\n    return sum(p.numel() for p in model.parameters())\n",)),
    _s(id="weight-queue", side=HANDOFF, kind=WEIGHT_SYNC, weight=2.5,
       rationale="A queue whose payload is a state_dict or parameters carries weights to the sampler.",
       calls=("queue.*.put*", "queue.*.get*", "multiprocessing.*.put*", "multiprocessing.*.get*",
              "torch.multiprocessing.*.put*", "torch.multiprocessing.*.get*"),
       methods=("put", "put_nowait", "get", "get_nowait"), roles=("queue",), check=_queue_weights,
       examples_match=(
           "class T:\n    def target(self):\n        sd = {k: v.cpu() for k, v in self.policy.state_dict().items()}\n"
           "        for q in self.weight_queues:\n            q.put_nowait(sd)\n",
           "def target(policy, weight_queue):\n    state_dict = weight_queue.get_nowait()\n    policy.load_state_dict(state_dict)\n",
       ),
       examples_nomatch=("def target(rollout_queue, batch):\n    rollout_queue.put(batch)\n",
                         "def target(rollout_queue, loader, samples):\n"
           "    state = {'loader': loader.state_dict()}\n    rollout_queue.put((samples, state))\n")),
    _s(id="ray-collective", side=HANDOFF, kind=WEIGHT_SYNC, weight=1.5,
       rationale="ray.util.collective moves tensors between actors, typically weights.",
       calls=("ray.util.collective.*",), check=_param_context,
       examples_match=("import ray.util.collective as col\n\ndef target(params):\n    for p in params:\n"
                       "        col.broadcast(p, src_rank=0, group_name='sync')\n",),
       examples_nomatch=("import ray\n\ndef target(x):\n    return ray.get(x)\n",)),
    _s(id="weight-update-call", side=HANDOFF, kind=WEIGHT_SYNC, weight=2.0,
       rationale="A call named like a weight update (update_weights/sync_weights) on an unresolved receiver: weak hint; "
                 "medium over .remote or on a receiver typed as a library's class.",
       methods=("update_weights", "update_weight", "sync_weights", "update_named_param", "update_named_params",
                "broadcast_weights", "update_model_params", "sync_model_weights", "send_weights", "receive_weights",
                "push_weights", "publish_weights", "transfer_weights", "load_lora_adapter"),
       name_only=True, check=_weight_update_crossing,
       examples_match=("def target(engines, meta):\n    for e in engines:\n        e.update_weights.remote(meta)\n",),
       examples_nomatch=("def target(d, x):\n    d.update(x)\n",)),
    _s(id="weight-payload-send", side=HANDOFF, kind=WEIGHT_SYNC, weight=3.0,
       rationale="Values derived from a module's parameters reach a call that leaves the process: a weight push, "
                 "whatever the transport or API name.",
       body=_weight_sender,
       examples_match=(
           "class Learner:\n    def __init__(self, net):\n        self.net = net\n\n"
           "    def target(self, courier):\n        courier.send_all(self.net.named_parameters())\n",
           "import requests\n\ndef target(model, url):\n"
           "    blob = {k: v.tolist() for k, v in model.state_dict().items()}\n"
           "    return requests.post(url + '/swap', json=blob)\n",
       ),
       examples_nomatch=("def target(model):\n    return sum(p.numel() for p in model.parameters())\n",
                         "import torch.distributed as dist\n\ndef target(model):\n"
                         "    for p in model.parameters():\n        dist.all_reduce(p.grad)\n")),
    _s(id="weight-payload-receive", side=HANDOFF, kind=WEIGHT_SYNC, weight=2.5,
       rationale="The method a parameter payload is sent to, or a body that loads what a transport delivered.",
       body=_weight_receiver,
       examples_match=(
           "import zmq\n\nclass Reader:\n    def __init__(self, net):\n"
           "        self.sock = zmq.Context().socket(zmq.PULL)\n        self.net = net\n\n"
           "    def target(self):\n        sd = self.sock.recv_pyobj()\n        self.net.load_state_dict(sd)\n",
       ),
       examples_nomatch=("import torch\n\ndef target(model, path):\n    model.load_state_dict(torch.load(path))\n",)),
    # ======================== neutral guards ========================
    _s(id="data-sampler", side=NEUTRAL, weight=0.0,
       rationale="Dataset samplers and random.sample draw data indices, not policy actions.",
       calls=("torch.utils.data.*Sampler*", "random.sample", "random.choice", "random.choices", "numpy.random.choice"),
       examples_match=("from torch.utils.data import DistributedSampler\n\ndef target(ds):\n    return DistributedSampler(ds)\n",),
       examples_nomatch=("import torch\n\ndef target(p):\n    return torch.multinomial(p, 1)\n",)),
    _s(id="simulation-clock", side=NEUTRAL, weight=0.0,
       rationale="Advancing a discrete-event or physics simulation's clock (SimPy's Environment.step/run, "
                 "PyBullet's stepSimulation, MuJoCo's mj_step) is not a policy acting in an RL environment, "
                 "even on a receiver named env.",
       calls=("simpy.*.step", "simpy.*.run", "simpy.*.timeout", "pybullet.stepSimulation", "pybullet.*.stepSimulation",
              "mujoco.mj_step", "mujoco.mj_forward", "mujoco.mj_resetData"),
       examples_match=("import simpy\n\ndef target(until):\n    env = simpy.Environment()\n    env.step()\n"
                       "    return env.now\n",),
       examples_nomatch=("class Worker:\n    def target(self, action):\n        return self.env.step(action)\n",)),
    _s(id="mode-toggle", side=NEUTRAL, weight=0.0,
       rationale="model.train()/eval() flip a flag; they neither sample nor train.",
       methods=("train", "eval", "requires_grad_"), roles=("hf_model",),
       examples_match=("def target(model):\n    model.eval()\n",),
       examples_nomatch=("def target(trainer):\n    trainer.fit()\n",)),
    _s(id="checkpoint-io", side=NEUTRAL, weight=0.0,
       rationale="Saving/loading checkpoints moves weights to disk, not to the sampler.",
       calls=("torch.save", "torch.load", "*.save_pretrained", "*.from_pretrained", "safetensors.*"),
       methods=("save_pretrained", "save_checkpoint", "load_checkpoint"), name_only=True, check=_checkpointish,
       examples_match=("import torch\n\ndef target(model, path):\n    torch.save(model.state_dict(), path)\n",),
       examples_nomatch=("import torch\n\ndef target(rollouts, path):\n    torch.save(rollouts, path)\n",)),
    _s(id="tokenizer-call", side=NEUTRAL, weight=0.0,
       rationale="Tokenizing and decoding text is plumbing used by both sides.",
       methods=("decode", "batch_decode", "apply_chat_template", "encode", "convert_ids_to_tokens"), roles=("tokenizer",),
       examples_match=("def target(tokenizer, ids):\n    return tokenizer.batch_decode(ids, skip_special_tokens=True)\n",),
       examples_nomatch=("def target(codec, b):\n    return codec.decode(b)\n",)),
    _s(id="metrics-logging", side=NEUTRAL, weight=0.0,
       rationale="Logging metrics reports on a run; it is neither side.",
       calls=("wandb.log", "wandb.*.log", "mlflow.log_*", "torch.utils.tensorboard.*.add_scalar",
              "swanlab.log", "tensorboardX.*.add_scalar"),
       examples_match=("import wandb\n\ndef target(m):\n    wandb.log(m)\n",),
       examples_nomatch=("def target(m):\n    return dict(m)\n",)),
    *LEARNER_SIGNALS,  # a library's learner workers and loss functions (semantics/learner.py)
)


def user_signals(specs: Iterable[SignalSpec]) -> list[Signal]:
    """Signals declared in ``[tool.gyrelint] signals`` (checked when the settings were read)."""
    return [Signal(id=s.id, side=s.side, kind=s.kind, weight=s.weight, rationale=s.rationale, calls=s.calls,
                   methods=s.methods, name_only=bool(s.methods), user=True,
                   check=(lambda c, fn, st: max(st, MEDIUM)) if s.methods else None)
            for s in specs]

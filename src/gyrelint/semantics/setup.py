"""Training set-up helpers and weight-sync helpers found by what their values become.

A helper that groups the model's parameters for the optimizer or freezes all but the adapters
calls no library with a side, and its callers sit in other
modules (several training scripts share it), so neither the caller context nor the training
helper pass (``learner.py``) labels it. What it does is plain from the values: its result goes
into the optimizer constructor of its caller, or it turns gradients on for the parameters it is
handed (``requires_grad``, ``enable_input_require_grads``), which only a backward pass uses.

On the weight-sync side, two shapes stay neutral though they move the trained weights:

* a body whose weight-sync evidence sits in a function nested in it and called from it (the
  closure that rebuilds each tensor from its CUDA IPC handle) carries that side, yet the
  delegation rule (``sides._delegated_side``) does not count a nested callee as solid, so its
  caller and the helpers feeding it stay neutral;
* a method that re-binds one model attribute to a copy of another the class trains
  (``self.sampler_model = deepcopy(self.policy_model)``, or ``load_state_dict`` of its
  ``state_dict()``), outside ``__init__``, hands the trained weights to the copy.

Applied after propagation, like the caller context: these passes pass nothing up.
"""

from __future__ import annotations

from ..graphs.model import EXACT
from ..model import Evidence, HandoffKind, Side
from .facts import Facts, FnFacts
from .sides import THRESHOLD, WEIGHT_SYNC, SideResult, _side_key, calling_bodies, reports
from .signals import TRAINING
from .taint import BodyTaint, FlowIndex, dotted_text

OPTIMIZER_SETUP = "optimizer-setup"  # the evidence: the caller's optimizer constructor the result goes into
GRAD_SETUP = "grad-setup"  # the evidence: the line turning gradients on
NESTED_SYNC = "nested-weight-sync"  # the evidence: the nested function carrying the weight sync
MODEL_COPY = "model-copy"  # the evidence: the line copying the trained model into another attribute

_OPTIMIZER_BUILDS = frozenset({"optimizer-build"})
# library calls that only a training run makes on a model: input grads let a backward pass run
# through frozen embeddings. Gradient checkpointing is left out: wrappers that switch it on or off
# are memory settings a model class offers both sides, and the in-sample labels call them neutral
_GRAD_METHODS = frozenset({"enable_input_require_grads"})
_COPY_CALLS = frozenset({"deepcopy", "copy.deepcopy"})


def _plain(q: str, facts: Facts, results: dict[str, SideResult]) -> FnFacts | None:
    """A neutral in-scope function with no evidence other than training evidence, no dunder nor reporter."""
    r = results.get(q)
    fn = facts.functions.get(q)
    if r is None or fn is None or r.side != Side.NEUTRAL or facts.out_of_scope(fn.module):
        return None
    if r.has_own and not all(m.signal.side == TRAINING for m in r.own_matches):
        return None
    name = fn.definition.name
    if name.startswith("__") or reports(name):
        return None
    return fn


class _Result(BodyTaint):
    """Names of a body bound to what one call returned, as it is (``groups = make_groups(model)``):
    a value merely built with it (``make_model(cfg=groups)``) is another value."""

    def __init__(self, flows, source: str) -> None:
        super().__init__(flows)
        self.source = source

    def call_holds(self, e: tuple, depth: int) -> bool:
        return dotted_text(e[1]) == self.source


def _label_training(r: SideResult, ev: Evidence) -> None:
    r.side, r.kind, r.solid = Side.TRAINING, None, True
    r.evidence = [*r.evidence, ev]


def setup_helpers(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult],
                  flows: FlowIndex) -> list[str]:
    """Label as training the helpers whose result feeds an optimizer constructor, or that turn
    gradients on, when no caller samples. Returns them."""
    callers = calling_bodies(facts, edges)
    out: dict[str, Evidence] = {}
    # (a) what a helper returns goes into its caller's optimizer constructor
    for q in sorted(results):
        r = results[q]
        fn = facts.functions.get(q)
        builds = {m.line for m in r.own_matches if m.signal.id in _OPTIMIZER_BUILDS}
        if fn is None or not builds or r.side != Side.TRAINING:
            continue
        body = None
        for c in fn.calls:
            tg = [t for t in c.targets if t in facts.functions]
            if c.kind != EXACT or len(tg) != 1 or len(c.targets) != 1 or c.ray or tg[0] == q or tg[0] in out:
                continue
            t = tg[0]
            tf = _plain(t, facts, results)
            if tf is None or not tf.definition.returned:
                continue
            if body is None:
                body = flows.of(q)
            back = _Result(body, c.site.func)
            back.run()
            if any(o.site.line in builds and isinstance(o.site.expr, tuple) and o.site.expr[:1] == ("c",)
                   and any(back.holds(a) for a in _params_arg(o.site.expr)) for o in fn.calls):
                out[t] = Evidence(OPTIMIZER_SETUP, fn.file, c.site.line, f"caller:{q}")
    # (b) a body turning gradients on for what it is handed
    for q in sorted(facts.functions):
        if q in out:
            continue
        fn = _plain(q, facts, results)
        if fn is None:
            continue
        line = _grad_line(fn)
        if line is None:
            continue
        if any((cr := results.get(c)) is not None and cr.side == Side.SAMPLING
               for c in callers.get(q, ())):
            continue  # the sampler's own code turning grads on (a saliency probe) is not the trainer's set-up
        out[q] = Evidence(GRAD_SETUP, fn.file, line, "own")
    for q, ev in out.items():
        _label_training(results[q], ev)
    return sorted(out)


def _params_arg(e: tuple) -> list[object]:
    """What an optimizer constructor optimizes: its first positional argument or ``params=``
    (a learning rate read from a settings dict is no set-up of the parameters)."""
    first = [e[2][0]] if e[2] else []
    return first + [v for k, v in e[3] if k == "params"]


def _grad_line(fn: FnFacts) -> int | None:
    """The first line turning gradients on (``p.requires_grad = True``, ``p.requires_grad_(flag)``,
    ``enable_input_require_grads()``); ``requires_grad = False`` alone freezes a model, which either
    side does."""
    lines: list[int] = []
    for a in fn.assigns:
        if a.target.endswith(".requires_grad") and not (a.value_kind == "lit" and a.value is False):
            lines.append(a.line)
    for c in fn.calls:
        if c.method in _GRAD_METHODS:
            lines.append(c.site.line)
        elif c.method == "requires_grad_" and not any(a.kind == "lit" and a.value is False for a in c.site.args):
            lines.append(c.site.line)
    return min(lines) if lines else None


def nested_sync(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult]) -> list[str]:
    """Make solid the weight-sync bodies whose side rests on a solid nested function they call,
    and the callers whose side rests on such a body over an exact call. Returns them."""
    out: list[str] = []
    for _ in range(4):
        changed: list[tuple[str, str]] = []
        for q in sorted(results):
            r = results[q]
            fn = facts.functions.get(q)
            if fn is None or r.solid or _side_key(r) != WEIGHT_SYNC or r.has_own \
                    or r.total.get(WEIGHT_SYNC, 0.0) < THRESHOLD or facts.out_of_scope(fn.module):
                continue
            sides = {k for t in edges.get(q, {}) if (tr := results.get(t)) is not None
                     and (k := _side_key(tr)) is not None}
            if sides != {WEIGHT_SYNC}:
                continue
            src = [t for t, d in sorted(edges.get(q, {}).items()) if d >= 0.7 and (tr := results.get(t)) is not None
                   and tr.solid and _side_key(tr) == WEIGHT_SYNC and _exact_call(fn, t)]
            if src:
                changed.append((q, src[0]))
        for q, t in changed:
            r = results[q]
            tf = facts.functions[t]
            r.solid = True
            r.evidence = [*r.evidence, Evidence(NESTED_SYNC, tf.file, tf.line, f"callee:{t}")]
            out.append(q)
        if not changed:
            break
    return sorted(out)


def _exact_call(fn: FnFacts, t: str) -> bool:
    return any(c.kind == EXACT and c.targets == (t,) and not c.ray for c in fn.calls)


def model_copies(facts: Facts, results: dict[str, SideResult]) -> list[str]:
    """Label as weight sync the methods (not ``__init__``, a dunder) that copy a model attribute a
    training method of the class runs into another attribute the sampler uses. Returns them."""
    out: list[str] = []
    trained_by: dict[str, set[str]] = {}
    for q in sorted(facts.functions):
        fn = _plain(q, facts, results)
        if fn is None or fn.cls is None:
            continue
        hit = _copied(fn)
        if hit is None:
            continue
        line, src, dst = hit
        if fn.cls not in trained_by:
            trained_by[fn.cls] = _trained_attrs(fn.cls, facts, results)
        if src not in trained_by[fn.cls] or not _sampled_attr(fn.cls, dst, facts, results):
            continue  # a target network the loss reads is the trainer's own copy
        r = results[q]
        r.side, r.kind, r.solid = Side.HANDOFF, HandoffKind.WEIGHT_SYNC, True
        r.evidence = [*r.evidence, Evidence(MODEL_COPY, fn.file, line, f"copy:self.{src}->self.{dst}")]
        out.append(q)
    return out


def _self_attr(text: object) -> str:
    t = str(text or "")
    if not t.startswith("self."):
        return ""
    attr = t[5:].split(".", 1)[0]
    return attr if attr.isidentifier() else ""


def _copied(fn: FnFacts) -> tuple[int, str, str] | None:
    """(line, source attribute, target attribute) of ``self.dst = deepcopy(self.src)...`` or
    ``self.dst.load_state_dict(self.src.state_dict())`` in the body."""
    targets = {a.line: _self_attr(a.target) for a in fn.assigns if a.target.count(".") == 1}
    for c in fn.calls:
        if c.site.func in _COPY_CALLS and c.site.args:
            src, dst = _self_attr(c.site.args[0].value), targets.get(c.site.line, "")
            if src and dst and src != dst and c.site.args[0].kind == "name":
                return c.site.line, src, dst
        if c.method == "load_state_dict" and c.site.args and c.site.args[0].kind == "call":
            v = str(c.site.args[0].value or "")
            src, dst = _self_attr(v), _self_attr(c.site.receiver)
            if v.endswith(".state_dict") and src and dst and src != dst:
                return c.site.line, src, dst
    return None


def _trained_attrs(cls: str, facts: Facts, results: dict[str, SideResult]) -> set[str]:
    """Attributes a training method of the class (along its repo bases) runs or calls a method of:
    ``self.X(...)``, ``self.X.forward(...)`` (``self.helper(...)``, a method of the instance, is none)."""
    trained: set[str] = set()
    for fn in facts.mro_methods(cls):
        r = results.get(fn.qualname)
        if r is None or r.side != Side.TRAINING:
            continue
        for call in fn.calls:
            parts = call.site.func.split(".")
            if parts[0] != "self" or len(parts) < 2 or len(parts) == 2 and call.targets:
                continue
            trained.add(parts[1])
    return trained


def _sampled_attr(cls: str, attr: str, facts: Facts, results: dict[str, SideResult]) -> bool:
    """The sampler uses ``self.attr``: a sampling method of the class (along its repo bases) calls it,
    or the class hands it to a sampling function or to the constructor of a class with one (a
    logits processor built around it)."""
    text = f"self.{attr}"
    for fn in facts.mro_methods(cls):
        r = results.get(fn.qualname)
        if r is None:
            continue
        for call in fn.calls:
            if r.side == Side.SAMPLING and (call.site.func == text or call.site.func.startswith(text + ".")):
                return True
            if any(a.kind == "name" and a.value == text for a in call.site.args) \
                    or any(a.kind == "name" and a.value == text for _, a in call.site.kwargs):
                if any(_samples(t, facts, results) for t in call.targets):
                    return True
    return False


def _samples(t: str, facts: Facts, results: dict[str, SideResult]) -> bool:
    """``t`` is on the sampling side, or is the constructor of a class with a sampling method."""
    r = results.get(t)
    if r is not None and r.side == Side.SAMPLING:
        return True
    cls = t.rpartition(".")[0]
    if not t.endswith(".__init__") or cls not in facts.classes:
        return False
    return any((mr := results.get(f"{cls}.{m}")) is not None and mr.side == Side.SAMPLING
               for m in sorted(facts.classes[cls].methods))

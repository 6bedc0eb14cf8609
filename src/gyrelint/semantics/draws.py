"""One decoding step: the model is run and the next token is drawn from what it returned.

Libraries split hand-written decoding in two: a step function (``logits = model(x)[:, -1]``, then
``sample(logits, temperature=t, top_k=k)``) and a loop that calls it and grows the sequence. The
loop test (``catalog._decode_line``) sees neither half: the step never grows its input, the loop
never runs the model itself. What moves settles the step: the model's own output goes into a draw
(a multinomial or categorical sample, a top-k/top-p pick, a distribution's ``sample()``), and that
is acting with the policy, not a trainer's forward pass, which scores stored tokens and never draws
new ones. A greedy ``argmax`` counts only when the picked token is fed to the model again (an
accuracy check takes the argmax of the output too, and feeds nothing back).
"""

from __future__ import annotations

from ..graphs.model import EXACT
from .data_payload import made_by
from .facts import CallFact, Facts, FnFacts
from .taint import BodyTaint, dotted_text

# draws of a token from a distribution (``argmax`` is handled apart: greedy picks need feedback)
DRAWS = frozenset({"multinomial", "sample", "categorical", "gumbel_softmax", "top_k_top_p_sampling"})
_GREEDY = "argmax"


def model_runs(fn: FnFacts) -> list[CallFact]:
    """Calls that run a model object (or a module calling itself), not its ``generate`` or a class."""
    return [c for c in fn.calls
            if (c.obj_role == "hf_model" or (fn.cls is not None and c.site.func == "self"))
            and c.method != "generate" and not c.method[:1].isupper()]


class _ModelOut(BodyTaint):
    """Names holding what a model run returned, or a view/function of it (``logits.clone()``)."""

    def __init__(self, flows, names: set[str], runs: frozenset[str]) -> None:
        super().__init__(flows, names)
        self.runs = runs

    def call_holds(self, e: tuple, depth: int) -> bool:
        func = e[1]
        if dotted_text(func) in self.runs:
            return True
        if isinstance(func, tuple) and func[:1] == ("a",) and self.holds(func[1], depth):
            return True  # a method of the output: ``logits.clone()``, ``out.logits.float()``
        return self.args_hold(e, depth)


_DISTRIBUTION = frozenset({"softmax", "log_softmax", "topk", "top_k", "exponential_", "gumbel"})
# distribution objects built over the logits (``Categorical(logits=x).sample()``)
_DISTRIBUTION_TYPES = frozenset({"Categorical", "OneHotCategorical", "Multinomial", "RelaxedOneHotCategorical"})


def _builds_distribution(c: CallFact) -> bool:
    return c.method in _DISTRIBUTION or c.method in _DISTRIBUTION_TYPES


def _draws_itself(fn: FnFacts) -> bool:
    return any(c.method in DRAWS or c.method == _GREEDY for c in fn.calls)


class _Distribution(BodyTaint):
    """Names holding a distribution the body built (``probs = softmax(logits / t)``) or a view of it."""

    def call_holds(self, e: tuple, depth: int) -> bool:
        func = e[1]
        if dotted_text(func).rsplit(".", 1)[-1] in _DISTRIBUTION | _DISTRIBUTION_TYPES:
            return True
        if isinstance(func, tuple) and func[:1] == ("a",) and (func[2] in _DISTRIBUTION | _DISTRIBUTION_TYPES
                                                               or self.holds(func[1], depth)):
            return True
        return self.args_hold(e, depth)


def _fed_by_distribution(fn: FnFacts, facts: Facts, draws: list[CallFact]) -> bool:
    """One of ``draws`` takes the distribution the body built: a draw over some other value (an
    ``argmax`` over an answer mask beside a ``log_softmax`` of stored tokens) picks no token."""
    dist_lines = {c.site.line for c in fn.calls if _builds_distribution(c)}
    seeds = {a.target for a in fn.assigns if a.line in dist_lines and "." not in a.target}
    s = facts.summaries.get(fn.module)
    scope = fn.definition.qualname
    held = _Distribution([fl for fl in (s.flows if s is not None else ()) if fl.scope == scope], seeds)
    held.run()
    names = held.names
    # ``multinomial(softmax(x), 1)`` nested, ``probs.argmax()``, or ``multinomial(probs, 1)``
    return any(c.site.line in dist_lines or _takes(c, names) for c in draws)


def _takes(c: CallFact, names: set[str]) -> bool:
    """The call is made on, or handed, a value one of ``names`` holds."""
    if _root(c.site.receiver) in names:
        return True
    return any(a.kind in ("name", "call") and _root(a.value) in names
               for a in (*c.site.args, *(a for _, a in c.site.kwargs)))


def picks_token(q: str, facts: Facts) -> bool:
    """A repo function that turns logits it is handed into a token: it builds a distribution
    (softmax, top-k, an exponential race, a ``Categorical`` over them) and draws from it, itself
    or through one helper."""
    fn = facts.functions.get(q)
    if fn is None or model_runs(fn) or not any(_builds_distribution(c) for c in fn.calls):
        return False
    own = [c for c in fn.calls if c.method in DRAWS or c.method == _GREEDY]
    helpers = [c for c in fn.calls if c.kind == EXACT
               and any(t in facts.functions and _draws_itself(facts.functions[t]) for t in c.targets)]
    return _fed_by_distribution(fn, facts, own + helpers)


def _root(text: object) -> str:
    return text.split(".", 1)[0] if isinstance(text, str) else ""


def next_token_line(fn: FnFacts, facts: Facts) -> int | None:
    """Line of a draw taken from the model's own output in this body, or None."""
    runs = model_runs(fn)
    if not runs:
        return None
    draws = [c for c in fn.calls if c.method in DRAWS or c.method == _GREEDY
             or (c.kind == EXACT and c.targets and all(picks_token(t, facts) for t in c.targets))]
    if not draws:
        return None
    run_lines = {c.site.line for c in runs}
    # a statement assigning a model run's result (``logits = model(x)[:, -1] / t``), even through
    # arithmetic the value-flow facts do not follow
    seeds = {a.target for a in fn.assigns if a.line in run_lines and "." not in a.target}
    s = facts.summaries.get(fn.module)
    scope = fn.definition.qualname
    flows = [fl for fl in (s.flows if s is not None else ()) if fl.scope == scope]
    held = _ModelOut(flows, seeds, frozenset(c.site.func for c in runs))
    held.run()
    names = held.names

    def takes_output(c: CallFact) -> bool:
        return _takes(c, names)  # ``dist.sample()`` on a distribution built from the logits, or an argument

    fed = {_root(a.value) for c in runs for a in (*c.site.args, *(a for _, a in c.site.kwargs))
           if a.kind in ("name", "call")}
    picked = {a.line: a.target for a in fn.assigns}
    for c in draws:
        if not takes_output(c):
            continue
        if c.method != _GREEDY or picked.get(c.site.line) in fed:  # a repo picker draws from a distribution
            return c.site.line
    return None


def index_draw(fn: FnFacts) -> bool:
    """Every multinomial of the body draws over weights the body builds itself (``torch.ones(n)``,
    ``torch.tensor(lengths)``, on one branch at least): it picks rows or indexes by those weights,
    it draws no token. Callers check first that the body holds no policy context (logits,
    softmax, temperature, a model call)."""
    draws = [c for c in fn.calls if c.method == "multinomial"]
    if not draws:
        return False
    for c in draws:
        first = c.site.args[0] if c.site.args else c.site.kwarg("input")
        if first is None or first.kind != "name" or not isinstance(first.value, str) or first.value in fn.params:
            return False
        lines = {a.line for a in fn.assigns if a.target == first.value and a.line < c.site.line}
        if not any(made_by(fn, line) for line in lines):
            return False
    return True

"""Helpers that build what a sampling body hands to its generation call.

A rollout picks the inference server for a request, or sets the sampling parameters on the
request body, in a helper of another class or module (a router object held by the web app),
and hands what the helper returns straight into the call that generates. The helper calls no
library with a side (hashing, dict building), so neither its body nor the caller context (same
class or module only) says what it is; the sampling body's data flow does: the helper's result
goes into a generation chain of the same body. Such a helper is the sampling side's code when
every body that calls it is on the sampling side. Applied after propagation, like the caller
context: it passes nothing up.
"""

from __future__ import annotations

from ..model import Evidence, Side
from .drivers import rollout_fed
from .env_reads import reads_environment_only
from .facts import CallFact, Facts, FnFacts
from .handoff import _LAUNCH
from .plumbing import label_sampling, only_callers_on, plain_helper, sampling_call, sole_target
from .sides import SideResult, _builds_only, calling_bodies
from .signals import SAMPLING
from .taint import FlowIndex

# a helper that encodes the prompt (given or calling a tokenizer or processor) is data preparation, no side's code
_ENCODING = frozenset({"tokenizer", "tokenize", "processor", "tokenizers", "processors"})

GEN_INPUT = "generation-input"  # the evidence: the sampling body's call whose result it hands to generation


def generation_inputs(facts: Facts, edges: dict[str, dict[str, float]], results: dict[str, SideResult],
                      flows: FlowIndex) -> list[str]:
    """Label the repo helpers whose result a solid sampling body hands into its generation chain
    as sampling, when all their in-scope callers are sampling. Returns them.

    The generation chain is a library call whose sampling signal (not a set-up one) matched on its
    line or a firm call of a repo generation chain; handing a command line to a process start
    is not generating. Only an exact call with one repo target counts, into a plain helper (no side or evidence of
    its own, not a service helper or out of scope, returns something) that does some work: one
    that only wraps its arguments into a literal (``{"prompt": p}``) is no side's code, as in
    the caller context; one that encodes the prompt (handed or calling a tokenizer or processor)
    is data preparation."""
    callers = calling_bodies(facts, edges)
    out: dict[str, Evidence] = {}
    for q in sorted(results):
        r = results[q]
        if r.side != Side.SAMPLING or not r.solid:
            continue
        fn = facts.functions.get(q)
        if fn is None or facts.out_of_scope(fn.module):
            continue
        row = edges.get(q, {})
        gen_lines = {m.line for m in r.own_matches
                     if m.signal.side == SAMPLING and not m.signal.setup and m.signal.id not in _NOT_CALLS}
        for c in fn.calls:
            t = sole_target(c, q, facts)
            if t is None or t in out:
                continue
            tf = facts.functions[t]
            if not plain_helper(t, facts, results) or _builds_only(tf) or _ENCODING & tf.tokens() \
                    or reads_environment_only(tf):
                continue
            if not only_callers_on(t, callers, facts, results, lambda r: r.side == Side.SAMPLING):
                continue
            if _into_generation(fn, flows, c, row, results, gen_lines):
                out[t] = Evidence(GEN_INPUT, fn.file, c.site.line, f"caller:{q}")
    return label_sampling(out, results)


def _into_generation(fn: FnFacts, flows: FlowIndex, call: CallFact, row: dict[str, float],
                     results: dict[str, SideResult], gen_lines: set[int]) -> bool:
    """What ``call`` returns in ``fn`` goes into a later generation call of the same body."""
    for c in rollout_fed(fn, flows.of(fn.qualname), lambda x: x is call):
        if c is not call and _generation_call(c, row, results, gen_lines):
            return True
    return False


# sampling signals that start or build the side rather than ask it for text
_NOT_CALLS = frozenset({"launch-sampler-script"})


def _generation_call(c: CallFact, row: dict[str, float], results: dict[str, SideResult], gen_lines: set[int]) -> bool:
    """``c`` asks for generations (``plumbing.sampling_call`` into a generation chain); starting a
    process is not generating."""
    return not any(n in _LAUNCH for n in c.names or ()) and sampling_call(c, row, results, gen_lines, generation=True)


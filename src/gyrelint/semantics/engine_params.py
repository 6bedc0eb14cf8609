"""A generate call handed an inference engine's sampling parameters is that engine generating.

The engine often reaches the body untyped: a parameter named after nothing (``vllm_instance``,
``server``), handed in by a collector that built it elsewhere. The receiver's name and type say
nothing then, but what the call is given does: a ``SamplingParams`` object of vLLM or SGLang,
built in the body and passed directly, as a keyword, or inside the ``**kwargs`` dict, exists only to
parameterise that engine's generation. Follow the value from its construction to the call.
"""

from __future__ import annotations

import re

from .facts import CallFact, Facts, FnFacts
from .taint import BodyTaint, call_values, dotted_text

_GEN_METHODS = frozenset({"generate", "chat", "generate_async", "async_generate", "add_request", "beam_search"})
_ENGINE_PARAMS = re.compile(r"^(vllm|sglang)\.(\w+\.)*SamplingParams$")


class _Params(BodyTaint):
    """Names holding engine sampling parameters, or a dict/list built around them."""

    def __init__(self, flows, sources: frozenset[str]) -> None:
        super().__init__(flows)
        self.sources = sources

    def call_holds(self, e: tuple, depth: int) -> bool:
        if dotted_text(e[1]) in self.sources:
            return True
        return self.args_hold(e, depth)  # ``dict(sampling_params=sp)``


def _untyped_generate(c: CallFact, fn: FnFacts) -> bool:
    """A generate-like call that neither a type, a receiver role nor the repo's own code explains."""
    return c.method in _GEN_METHODS and not c.names and c.role is None and not c.into_repo(fn.qualname)


def engine_params_line(fn: FnFacts, facts: Facts) -> int | None:
    """Line of an untyped generate call handed the engine's sampling parameters built in this body."""
    gens = [c for c in fn.calls if _untyped_generate(c, fn)]
    if not gens:
        return None
    sources = frozenset(c.site.func for c in fn.calls if any(_ENGINE_PARAMS.match(n) for n in c.names))
    if not sources:
        return None
    s = facts.summaries.get(fn.module)
    scope = fn.definition.qualname
    held = _Params([fl for fl in (s.flows if s is not None else ()) if fl.scope == scope], sources)
    held.run()
    for c in gens:
        e = c.site.expr
        if isinstance(e, tuple) and e[:1] == ("c",) and len(e) > 3 and any(held.holds(v) for v in call_values(e)):
            return c.site.line
    return None

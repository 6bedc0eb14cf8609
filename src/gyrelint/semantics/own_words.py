"""The words a body computes with, apart from the names it only hands on to a call.

A step function that takes ``kl_coef`` and ``ref_log_probs`` and passes them to a scorer or a
loss helper holds the words of a KL term without computing one; the helper it calls does. Name
tests of training maths read these words so the knob a caller forwards leaves the evidence with
the callee (a call's own evidence carries up the call graph anyway).
"""

from __future__ import annotations

from .facts import FnFacts, tokens_of


def forwarded_params(fn: FnFacts) -> frozenset[str]:
    """Parameters the body passes on as a bare call argument (``f(x)``, ``f(k=x)``)."""
    params = set(fn.params)
    out: set[str] = set()
    for c in fn.calls:
        for arg in c.site.args:
            if arg.kind == "name" and arg.value in params:
                out.add(arg.value)
        for _, arg in c.site.kwargs:
            if arg.kind == "name" and arg.value in params:
                out.add(arg.value)
    return frozenset(out)


def own_tokens(fn: FnFacts) -> frozenset[str]:
    """Identifier pieces of what the body itself names: its def name, the parameters it does not
    only forward, the names it assigns, the keys and attributes it reads or writes, what it returns.
    Callee names and keyword names of calls are left out: they name the callee's work."""
    words: set[str] = set(tokens_of(fn.definition.name))
    forwarded = forwarded_params(fn)
    for p in fn.params:
        if p not in forwarded:
            words.update(tokens_of(p))
    for a in fn.assigns:
        words.update(tokens_of(a.target))
        if isinstance(a.value, str) and a.value_kind in ("name", "unpack"):
            words.update(tokens_of(a.value))
    for s in fn.subs:
        words.update(tokens_of(s.key))
        words.update(tokens_of(s.receiver))
    for at in fn.attrs:
        words.update(tokens_of(at.attr))
        words.update(tokens_of(at.receiver))
    for r in fn.definition.returned:
        if "(" not in r:
            words.update(tokens_of(r))
    return frozenset(words)

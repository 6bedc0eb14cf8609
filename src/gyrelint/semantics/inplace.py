"""Rollout reshaping done in place: the helper returns nothing, the batch it was handed changes.

A step loop hands the fresh batch to a helper that reorders it so every data-parallel training rank
gets a similar number of tokens (``batch.reorder(idx)``), or that writes a field into it, and then
hands the *same* batch to the update. ``reshape.rollout_reshapers`` follows what a helper returns
into the trainer; this one returns nothing, so nothing flows out of the call, yet the rollouts the
trainer takes went through it. The call's argument is the evidence: the helper changes the very
object it was handed (a method call on it or a write into it), and the driver hands that object on
to training code after the call.
"""

from __future__ import annotations

from ..model import Side
from .facts import CallFact, FnFacts
from .sides import SideResult


def reshaped_in_place(driver: FnFacts, call: CallFact, helper: FnFacts, fed: list[CallFact],
                      results: dict[str, SideResult]) -> bool:
    """``helper`` (returning nothing) changes the rollout object ``driver`` hands it at ``call``, and
    ``driver`` hands the same object to a training call afterwards (``fed``: the driver's calls that
    are handed rollouts)."""
    if helper.definition.returned or helper.definition.yields:
        return False
    bound = _bound_params(call, helper)
    if not bound:
        return False
    if not any(_changes(helper, p) for p in bound.values()):
        return False
    names = {a for a, p in bound.items() if _changes(helper, p)}
    for c in fed:
        if c is call or c.site.line <= call.site.line:
            continue
        if not any(a.kind == "name" and a.value in names for a in (*c.site.args, *(v for _k, v in c.site.kwargs))):
            continue
        if any((r := results.get(t)) is not None and r.side in (Side.TRAINING, Side.DRIVER) for t in c.targets):
            return True
    return False


def _bound_params(call: CallFact, helper: FnFacts) -> dict[str, str]:
    """Plain-name arguments of ``call`` -> the helper's parameter each is bound to."""
    params = helper.params  # ``self``/``cls`` left out, as a bound method's call passes them
    out: dict[str, str] = {}
    for i, a in enumerate(call.site.args):
        if a.kind == "name" and isinstance(a.value, str) and i < len(params):
            out[a.value] = params[i]
    for k, a in call.site.kwargs:
        if a.kind == "name" and isinstance(a.value, str) and k in params:
            out[a.value] = k
    return out


def _changes(fn: FnFacts, p: str) -> bool:
    """The body calls a method on parameter ``p`` itself, or writes an attribute or item into it."""
    for c in fn.calls:
        if c.site.receiver == p and c.method and not c.method.startswith("__"):
            return True
    if any(a.mode == "write" and (a.receiver == p or a.receiver.startswith(p + ".")) for a in fn.attrs):
        return True
    return any(s.mode == "write" and (s.receiver == p or s.receiver.startswith(p + ".")) for s in fn.subs)

"""Bodies that only store their arguments: record constructors and plain setters.

A hand-written ``__init__`` of a rollout record (``self.kl = kl``, ``self.logprobs = logprobs``)
holds the same words as a KL estimate or a loss, but computes nothing: its field names say what
the record carries. Body patterns keyed on those words would tag the constructor training, and
every packer, splitter or collator that builds a record would inherit that side through the call.
"""

from __future__ import annotations

from .facts import FnFacts

_PLAIN_VALUES = frozenset({"name", "lit", "none", "other"})


def stores_arguments_only(fn: FnFacts) -> bool:
    """The body calls nothing, indexes nothing, returns nothing and only assigns ``self.<attr>``.

    ``other`` values are allowed for defaults such as ``notes or {}``; a value that is a name must be
    one of the parameters (reading another object's state is not storing an argument)."""
    d = fn.definition
    if fn.calls or fn.subs or fn.attrs or not fn.assigns or any(r for r in d.returned) or d.yields:
        return False
    params = {p.name for p in d.params}
    if "self" not in params:
        return False
    for a in fn.assigns:
        if a.augmented or not a.target.startswith("self.") or a.target.count(".") != 1:
            return False
        if a.value_kind not in _PLAIN_VALUES:
            return False
        if a.value_kind == "name" and a.value not in params:
            return False
    return True

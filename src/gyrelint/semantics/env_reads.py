"""A helper that only looks environment variables up is a settings read, no side's code.

``any(env.get(v) for v in ["RAY_NOSET_VISIBLE_DEVICES", ...])`` answers how the process is set up;
its result may be handed to the call that builds an engine actor, yet it generates nothing. A body
whose string literals are all environment-variable names and whose calls are lookups and plain
builtins is one.
"""

from __future__ import annotations

import re

from .facts import FnFacts

_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_LOOKUPS = frozenset({"get", "getenv", "any", "all", "bool", "int", "str", "float", "lower", "upper", "strip",
                      "split", "startswith", "endswith"})


def reads_environment_only(fn: FnFacts) -> bool:
    """Every literal names an environment variable and every call is a lookup or a plain builtin."""
    lits = [v for v, _ in fn.literals()]
    if not lits or not all(_ENV_NAME.match(v) for v in lits):
        return False
    return bool(fn.calls) and all(c.method in _LOOKUPS for c in fn.calls)

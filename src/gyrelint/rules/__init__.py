"""Stage 5: rules read the analysis and return findings; one module per rule.

``RULES`` and ``BY_ID`` are the discovered catalog (built-ins plus installed rule packs, see
``catalog``); they are resolved on first access so importing this package loads no pack.
"""

from .registry import run_rules

__all__ = ["BY_ID", "RULES", "run_rules"]


def __getattr__(name: str) -> object:
    if name in ("RULES", "BY_ID"):
        from . import registry

        return getattr(registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

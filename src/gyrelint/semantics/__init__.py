"""Stage 4: which side each function is on, the handoff both ways, the field contract."""

from .tag import Semantics, tag

__all__ = ["Semantics", "tag"]

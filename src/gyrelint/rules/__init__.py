"""Stage 5: rules read the analysis and return findings; one module per rule."""

from .registry import run_rules

__all__ = ["run_rules"]

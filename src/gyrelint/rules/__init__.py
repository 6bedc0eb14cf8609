"""Stage 5: rules read the analysis and return findings; one module per rule."""

from .registry import BY_ID, RULES, run_rules

__all__ = ["BY_ID", "RULES", "run_rules"]

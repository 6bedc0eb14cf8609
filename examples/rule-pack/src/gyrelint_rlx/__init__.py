"""An example gyrelint rule pack (docs/rules/writing-rules.md in gyrelint)."""

"""Config key sources: every place an RL repo keeps settings, read into flat dotted keys.

Each reader returns :class:`RawKey` records (all keys, classified later) and
diagnostics for files it could not read; one bad file never stops the others.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RawKey:
    key: str  # dotted path
    value: str | None  # literal value as text, None when not literal
    file: str
    line: int
    source: str  # "yaml" | "toml" | "json" | "ini" | "env" | "argparse" | "click" | "dataclass" | "script" ...
    context: str = ""  # words around the key that only veto a class (the declaring dataclass name)
    type: str | None = None  # the declared type (field annotation, argparse ``type=``/``store_true``)
    env: str | None = None  # the environment variable that sets the same field (pydantic-settings)
    root: str = ""  # config class trees: the root class the path starts at
    choices: tuple[str, ...] = ()  # the values an option allows (``choices=["nccl", "gloo"]``)


def value_text(value: object) -> str | None:
    """A literal value as short text (``True`` → ``true`` like YAML), None for containers."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        text = str(value)
        return text if len(text) <= 200 else text[:197] + "..."
    if isinstance(value, (list, tuple)) and len(value) <= 16 and all(isinstance(v, (int, float, str, bool)) for v in value):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return None

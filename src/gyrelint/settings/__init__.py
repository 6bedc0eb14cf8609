"""Settings of a run: ``[tool.gyrelint]`` (the analyzed repo's pyproject.toml or ``--config``),
the user's config file, the environment and CLI flags, merged and validated once.

``model`` holds the typed tree every stage reads, ``schema`` checks a table key by key,
``sources`` reads the files and decides who may set what (``cache-dir`` above all).
"""

from __future__ import annotations

from pathlib import Path

from ..model import Diagnostic
from .model import (
    DEFAULT_MAX_FILE_SIZE,
    CounterPattern,
    RuleSetting,
    Settings,
    SettingsError,
    SettingsWarning,
    SignalSpec,
    Thresholds,
    TopologySettings,
    default_cache_dir,
)
from .sources import read_settings, user_config_path


def load_settings(root: Path, **kw: object) -> tuple[Settings, list[Diagnostic]]:
    """``read_settings`` in the pair form older callers unpack. Bad settings raise
    ``SettingsError`` instead of becoming diagnostics, so the list is always empty."""
    return read_settings(root, **kw), []  # type: ignore[arg-type]


__all__ = ["DEFAULT_MAX_FILE_SIZE", "CounterPattern", "RuleSetting", "Settings", "SettingsError", "SettingsWarning",
           "SignalSpec", "Thresholds", "TopologySettings", "default_cache_dir", "load_settings", "read_settings",
           "user_config_path"]

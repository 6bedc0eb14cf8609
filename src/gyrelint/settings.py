"""``[tool.gyrelint]`` of the analyzed repo's pyproject.toml, merged with CLI flags."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from .model import Diagnostic

DEFAULT_MAX_FILE_SIZE = 4 * 1024 * 1024


def default_cache_dir() -> Path:
    base = os.environ.get("GYRELINT_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "gyrelint" if xdg else Path.home() / ".cache" / "gyrelint"


@dataclass(frozen=True)
class Settings:
    exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    entry_points: tuple[str, ...] = ()  # extra entry files or modules
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    jobs: int = 0  # 0 = number of cores
    use_cache: bool = True
    cache_dir: Path = field(default_factory=default_cache_dir)
    rules: dict[str, str] = field(default_factory=dict)  # rule id -> severity or "off"
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    topology: dict[str, Any] = field(default_factory=dict)
    counters: dict[str, Any] = field(default_factory=dict)
    signals: tuple[dict, ...] = ()
    raw: dict[str, Any] = field(default_factory=dict)

    def with_overrides(self, **kw: Any) -> Settings:
        return replace(self, **{k: v for k, v in kw.items() if v is not None})


def load_settings(root: Path) -> tuple[Settings, list[Diagnostic]]:
    """Read ``[tool.gyrelint]``; a broken pyproject is a diagnostic, defaults apply."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return Settings(), []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8", errors="replace"))
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", 0) or 0
        return Settings(), [Diagnostic("pyproject.toml", line, f"invalid TOML ({exc}); [tool.gyrelint] ignored, fix the file", "config")]
    except OSError as exc:
        return Settings(), [Diagnostic("pyproject.toml", 0, f"unreadable ({exc.strerror})", "config")]
    cfg = data.get("tool", {}).get("gyrelint", {})
    if not isinstance(cfg, dict):
        return Settings(), [Diagnostic("pyproject.toml", 0, "[tool.gyrelint] must be a table; ignored", "config")]
    diags: list[Diagnostic] = []

    def strings(key: str) -> tuple[str, ...]:
        v = cfg.get(key, [])
        if isinstance(v, str):
            v = [v]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            diags.append(Diagnostic("pyproject.toml", 0, f"[tool.gyrelint] {key} must be a list of strings; ignored", "config"))
            return ()
        return tuple(v)

    def table(key: str) -> dict:
        v = cfg.get(key, {})
        if not isinstance(v, dict):
            diags.append(Diagnostic("pyproject.toml", 0, f"[tool.gyrelint.{key}] must be a table; ignored", "config"))
            return {}
        return v

    max_size = cfg.get("max-file-size", cfg.get("max_file_size", DEFAULT_MAX_FILE_SIZE))
    if not isinstance(max_size, int) or max_size <= 0:
        diags.append(Diagnostic("pyproject.toml", 0, "[tool.gyrelint] max-file-size must be a positive integer", "config"))
        max_size = DEFAULT_MAX_FILE_SIZE
    signals = cfg.get("signals", [])
    if not isinstance(signals, list):
        signals = []
    cache_dir = cfg.get("cache-dir")
    settings = Settings(
        exclude=strings("exclude"),
        respect_gitignore=bool(cfg.get("respect-gitignore", True)),
        entry_points=strings("entry-points") or strings("entry_points"),
        max_file_size=max_size,
        rules={str(k).upper(): str(v) for k, v in table("rules").items()},
        select=strings("select"),
        ignore=strings("ignore"),
        topology=table("topology"),
        counters=table("counters"),
        signals=tuple(s for s in signals if isinstance(s, dict)),
        cache_dir=(root / cache_dir) if isinstance(cache_dir, str) else default_cache_dir(),
        raw=cfg,
    )
    return settings, diags

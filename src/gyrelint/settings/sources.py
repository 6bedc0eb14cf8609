"""Where settings come from, and who may decide what.

Layers, later over earlier, key by key (a key replaces the same key of an earlier layer):

1. defaults, with the cache folder from the environment (``GYRELINT_CACHE_DIR``, else
   ``$XDG_CACHE_HOME/gyrelint``, else ``~/.cache/gyrelint``);
2. the user's config file (``$XDG_CONFIG_HOME/gyrelint/config.toml``, else
   ``~/.config/gyrelint/config.toml``), trusted;
3. ``[tool.gyrelint]`` of the analyzed repo's pyproject.toml, untrusted; or, instead of it,
   the file given with ``--config`` (trusted);
4. CLI flags (applied by the caller with ``Settings.with_overrides``).

The analyzed repo is data, not authority over the machine: its ``cache-dir`` must resolve
(symlinks followed, ``..`` collapsed) strictly inside the repo, or it is refused with a
``SettingsWarning`` (even when another choice wins anyway: the repo tried) and the cache of the
lower layers is used; and it never overrides ``GYRELINT_CACHE_DIR`` or ``--cache-dir``. Trusted files may point the
cache anywhere (relative paths are taken from the file's folder, ``~`` is expanded).
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from typing import Any

from ..safeio import InputFileError, read_input_text
from .model import Settings, SettingsError, SettingsWarning, default_cache_dir
from .schema import Where, check_table, show, term

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MAX_SETTINGS_FILE = 2 * 1024 * 1024  # a pyproject.toml is a few KiB; this bounds the parse


def user_config_path() -> Path | None:
    """The user-level config file (it may not exist); None when there is no home folder."""
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    if os.path.isabs(xdg):  # the XDG spec ignores a relative value
        return Path(xdg) / "gyrelint" / "config.toml"
    try:
        return Path.home() / ".config" / "gyrelint" / "config.toml"
    except RuntimeError:
        return None


def read_toml(path: Path, label: str, root: Path | None = None,
              fix: str = "replace it with a regular TOML file") -> dict[str, Any]:
    """The parsed TOML document at ``path`` (a regular file, bounded, inside ``root`` when given)."""
    try:
        text = read_input_text(path, MAX_SETTINGS_FILE, root)
    except InputFileError as exc:
        reason = exc.reason.split(";")[0]  # "a FIFO, not a regular file", "larger than N bytes (M)"...
        if reason.startswith("larger than"):
            fix = "settings files are a few KiB; remove what does not belong there"
        raise SettingsError(f"{term(label)}: {reason}; {fix}") from None
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise SettingsError(f"{term(label)}: invalid TOML (nested too deeply); fix the file") from None
    except ValueError as exc:  # TOMLDecodeError, and an integer too long to convert
        raise SettingsError(f"{term(label)}: invalid TOML ({term(str(exc), 160)}); fix the file") from None


def gyrelint_table(doc: dict[str, Any], label: str, top_level: bool,
                   rule_ids: frozenset[str] | None = None) -> tuple[dict[str, Any], Where]:
    """``[tool.gyrelint]`` of ``doc``; with ``top_level``, a document without a ``tool`` table is
    itself the settings table (a ``gyrelint.toml`` for ``--config``)."""
    if top_level and "tool" not in doc:
        return doc, Where(label, "", rule_ids)
    tool = doc.get("tool", {})
    if not isinstance(tool, dict):
        raise SettingsError(f"{term(label)}: tool: expected a table, got {show(tool)}; write it as [tool]")
    table = tool.get("gyrelint", {})
    if not isinstance(table, dict):
        raise SettingsError(f"{term(label)}: [tool] gyrelint: expected a table, got {show(table)}; "
                            "write it as [tool.gyrelint]")
    return table, Where(label, rule_ids=rule_ids)


def _trusted_dir(value: str, base: Path) -> Path:
    """A cache folder named in a file the user owns: anywhere, relative to that file."""
    return (base / Path(value).expanduser()).absolute()


def _repo_cache_dir(root: Path, value: str, where: Where) -> Path | None:
    """The repo's own ``cache-dir`` when it resolves strictly inside the repo, else a warning and None."""
    real_root = os.path.realpath(root)
    try:
        real = os.path.realpath(os.path.join(real_root, value))
    except (OSError, ValueError):  # pragma: no cover - a NUL byte is refused by the schema
        real = ""
    if real.startswith(real_root.rstrip(os.sep) + os.sep):
        return Path(real)
    warnings.warn(SettingsWarning(
        f"{term(where.file)}: [{where.table}] cache-dir: {show(value)} is not a folder inside the repository "
        f"(it resolves to {term(real, 120)}); ignored, gyrelint's own cache folder is used (set GYRELINT_CACHE_DIR or "
        "--cache-dir to choose another)"), stacklevel=3)
    return None


def read_settings(root: Path, *, config: str | Path | None = None, cache_dir: Path | None = None,
                  label: str | None = None, user_config: bool = True,
                  rule_ids: frozenset[str] | None = None) -> Settings:
    """The settings of a run on the repo at ``root``, checked (``SettingsError`` on the first bad key).

    ``config`` replaces the repo's pyproject.toml (trusted); ``cache_dir`` is the CLI's choice (it
    wins over every file's ``cache-dir``); ``label`` names the repo's pyproject in messages
    (default: its path); ``user_config`` False skips the user's config file; ``rule_ids``: the
    rule ids of this run (unknown ones are refused; None checks only their form).
    """
    fields: dict[str, Any] = {}
    chosen_cache: Path | None = None  # from a file's cache-dir, once allowed
    user = user_config_path() if user_config else None
    if user is not None and os.path.lexists(user):
        table, where = gyrelint_table(read_toml(user, str(user)), str(user), top_level=True, rule_ids=rule_ids)
        layer = check_table(table, where)
        if "cache_dir" in layer:
            chosen_cache = _trusted_dir(layer.pop("cache_dir"), user.parent)
        fields.update(layer)
    if config is not None:
        path = Path(config)
        doc = read_toml(path, str(config), fix="pass a TOML file to --config")
        table, where = gyrelint_table(doc, str(config), top_level=True, rule_ids=rule_ids)
        layer = check_table(table, where)
        value = layer.pop("cache_dir", None)
        if value is not None and cache_dir is None:  # a choice made on the command line
            cache_dir = _trusted_dir(value, path.absolute().parent)
        fields.update(layer)
    else:
        path = root / "pyproject.toml"
        name = label or str(path)
        if os.path.lexists(path):
            table, where = gyrelint_table(read_toml(path, name, root), name, top_level=False,
                                          rule_ids=rule_ids)
            layer = check_table(table, where)
            value = layer.pop("cache_dir", None)
            inside = _repo_cache_dir(root, value, where) if value is not None else None  # warns when it escapes
            if inside is not None and cache_dir is None and not os.environ.get("GYRELINT_CACHE_DIR"):
                chosen_cache = inside
            fields.update(layer)
    return Settings(**fields, cache_dir=cache_dir or chosen_cache or default_cache_dir())

"""Which config files a run can actually read: named by code or by a launcher.

A YAML/TOML/JSON/INI file counts as config only when something loads it: a Hydra
``config_path`` folder (every file under it is a selectable config group), a
``config_name``, a ``--config``-style flag of a launch script, or a literal path in code
(``open("ds_config.json")``, ``yaml.safe_load(open("conf/run.yaml"))``). Everything else
(fixtures, data, packaging metadata, another tool's settings) is ``unloaded-config``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..index import Index
from .sources import RawKey

CONFIG_SUFFIXES = (".yaml", ".yml", ".toml", ".json", ".ini", ".cfg")
_DIR_KWARGS = {"config_path", "config_dir", "config_dir_path", "conf_path", "config_folder"}
_NAME_KWARGS = {"config_name", "config_file", "config", "cfg", "conf", "path", "file", "filename", "yaml_file",
                "yaml_path", "json_file", "json_path", "config_file_path"}
_DIR_FLAGS = {"config-path", "config_path", "config-dir", "config_dir", "cp"}
_NAME_FLAGS = {"config-name", "config_name", "cn"}


@dataclass(slots=True)
class Loaders:
    """Paths and names that code or launchers hand to a config loader."""

    dirs: set[str] = field(default_factory=set)  # normalized folder paths (suffixes of repo folders)
    names: set[str] = field(default_factory=set)  # bare config names (``ppo_trainer``)
    paths: set[str] = field(default_factory=set)  # literal file paths or basenames with a config suffix
    dotenv: bool = False

    def loads(self, rel: str) -> bool:
        """True when ``rel`` (a config file of the repo) is read by code or a launcher."""
        name = rel.rsplit("/", 1)[-1]
        if name == ".env" or name.startswith(".env."):
            return self.dotenv or name in self.paths
        if any(rel == p or rel.endswith("/" + p) for p in self.paths):
            return True
        stem = posixpath.splitext(name)[0]
        folder = posixpath.dirname(rel)
        if stem in self.names:
            return True
        return any(_under(folder, d) for d in self.dirs)


def _under(folder: str, wanted: str) -> bool:
    """``pkg/trainer/config/actor`` is under a loader folder ``config`` or ``trainer/config``."""
    parts = folder.split("/") if folder else []
    want = wanted.split("/")
    for i in range(len(parts) - len(want) + 1):
        if parts[i : i + len(want)] == want:
            return True
    return False


def _norm(text: str) -> str:
    """A path as written (``../config/``, ``./conf``) reduced to the part that names repo folders."""
    text = text.strip().strip("'\"").replace("\\", "/").rstrip("/")
    parts = [p for p in text.split("/") if p not in ("", ".", "..")]
    return "/".join(parts)


def _add_path(loaders: Loaders, text: str) -> None:
    text = _norm(text)
    if not text or len(text) > 300 or "{" in text:
        return
    if text.lower().endswith(CONFIG_SUFFIXES) or posixpath.basename(text) == ".env":
        loaders.paths.add(text)
        base = posixpath.basename(text)
        loaders.paths.add(base)


def find_loaders(index: Index, launcher_keys: Iterable[RawKey], mentions: Iterable[str] = ()) -> Loaders:
    """Collect what code (string literals, loader keyword arguments) and launchers (flags, config file paths on
    their command lines: ``mentions``) name."""
    out = Loaders()
    for text in mentions:
        _add_path(out, text)
    for s in index.summaries.values():
        if any(i.module.split(".", 1)[0] == "dotenv" for i in s.imports):
            out.dotenv = True
        for st in s.strings:
            _add_path(out, st.value)
        for call in s.calls:
            for kw, arg in call.kwargs:
                if arg.kind != "lit" or not isinstance(arg.value, str):
                    continue
                if kw in _DIR_KWARGS:
                    d = _norm(arg.value)
                    if d:
                        out.dirs.add(d)
                elif kw in _NAME_KWARGS:
                    _add_name(out, arg.value)
    for k in launcher_keys:
        if not k.value:
            continue
        flag = k.key.lower()
        if flag in _DIR_FLAGS and k.value.lower().endswith(CONFIG_SUFFIXES):
            _add_path(out, k.value)  # ``--config_path run/ppo.yml``: a file, not a Hydra folder
        elif flag in _DIR_FLAGS:
            d = _norm(k.value)
            if d:
                out.dirs.add(d)
        elif flag in _NAME_FLAGS or "config" in flag or flag in ("c", "cfg", "conf"):
            _add_name(out, k.value)
        else:
            _add_path(out, k.value)
    return out


def _add_name(out: Loaders, value: str) -> None:
    text = _norm(value)
    if not text:
        return
    if text.lower().endswith(CONFIG_SUFFIXES):
        _add_path(out, text)
    elif "/" not in text and len(text) <= 80:
        out.names.add(text)
    else:
        out.names.add(posixpath.basename(text))

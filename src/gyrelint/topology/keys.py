"""Gather config keys from every source, classify them by name, value and use, fold them per key."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

from ..graphs import Graphs
from ..index import Index
from ..model import ConfigKey, Diagnostic, KeyEntry
from ..repo import env_files, launcher_kind
from ..safeio import InputFileError, read_input
from ..settings import Settings
from .adapter_use import adapter_hits
from .classify import Vocabulary, classify
from .composed import composed_keys, find_prefixes
from .entries import Occurrence, empty, fold
from .evidence import EvidenceResult
from .file_cache import read_cached
from .literals import literal_hits
from .loaded import CONFIG_SUFFIXES, find_loaders
from .names import Namer
from .role_switch import role_switch_hits
from .scope import file_scope, key_scope
from .selectors import selector_hits
from .sources import RawKey
from .sources.api_params import api_param_keys
from .sources.config_reads import SOURCE as CONFIG_READ
from .sources.config_reads import config_read_keys
from .sources.py_dicts import python_dict_keys
from .sources.python_src import python_keys
from .sources.shell import config_mentions, markdown_shell_blocks, read_shell
from .sources.structured import read_env, read_ini, read_json, read_toml
from .sources.yaml_src import YamlFile, children, read_yaml, yaml_keys
from .splat import splat_hits
from .uses import spawn_reads, use_hit

# JSON files that hold data rather than settings
_DATA_JSON = re.compile(r"(?:^|[._-])(?:lock|vocab|tokenizer|merges|special_tokens_map|added_tokens)(?:[._-]|$)", re.I)
_MAX_MARKDOWN = 512 * 1024


def read_config_text(index: Index, rel: str, limit: int, diags: list[Diagnostic]) -> str | None:
    """Text of a config file; too big → diagnostic and None; not UTF-8 → diagnostic, read with replacements."""
    path = index.root / rel
    try:
        size = path.stat().st_size
        if size > limit:
            diags.append(Diagnostic(rel, 0, f"{size // 1024} KiB is over the max-file-size limit ({limit // 1024} KiB); "
                                    "config keys not read, raise [tool.gyrelint] max-file-size to include it", "size"))
            return None
        data = read_input(path, limit, index.root)  # a regular file inside the repo, never a FIFO
    except InputFileError as exc:
        diags.append(Diagnostic(rel, 0, exc.reason, "input"))
        return None
    except OSError as exc:
        diags.append(Diagnostic(rel, 0, f"unreadable ({exc.strerror}); skipped", "input"))
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        diags.append(Diagnostic(rel, line, "not valid UTF-8; undecodable bytes replaced, save the file as UTF-8", "decode"))
        return data.decode("utf-8", errors="replace")


def _env_files(index: Index) -> list[str]:
    """``.env`` files in the folders the repo has (one list with the whole-run cache key's)."""
    return env_files(index.root, index.files.python, index.files.other)


def raw_keys(index: Index, graphs: Graphs | None, settings: Settings, namers: dict[str, Namer],
             diags: list[Diagnostic], yaml_files: dict[str, YamlFile] | None = None,
             mentions: set[str] | None = None) -> list[RawKey]:
    """Every key occurrence of the repo, unclassified (``yaml_files`` receives the parsed YAML files,
    ``mentions`` the config file paths launch scripts and README commands name)."""
    limit = settings.max_file_size
    out: list[RawKey] = []
    yaml_files = {} if yaml_files is None else yaml_files
    mentions = set() if mentions is None else mentions
    cache_dir = Path(settings.cache_dir) if settings.use_cache else None  # each file's keys, by content
    for rel in [*index.files.other, *_env_files(index)]:
        name = rel.rsplit("/", 1)[-1]
        suffix = os.path.splitext(name)[1].lower()
        if name == ".env" or name.startswith(".env.") or suffix == ".env":
            kind = "env"
        elif suffix in (".yaml", ".yml"):
            kind = "yaml"
        elif suffix == ".toml":
            kind = "toml"
        elif suffix == ".json":
            if _DATA_JSON.search(name):
                continue
            kind = "json"
        elif suffix in (".ini", ".cfg"):
            kind = "ini"
        elif launcher_kind(rel) == "shell":
            kind = "shell"
        elif suffix == ".md":
            kind = "markdown"
        else:
            continue
        text = read_config_text(index, rel, min(limit, _MAX_MARKDOWN) if kind == "markdown" else limit,
                                diags if kind != "markdown" else [])
        if text is None:
            continue
        try:
            read_cached(_read_one, cache_dir, rel, kind, text, out, yaml_files, diags, mentions)
        except RecursionError:
            diags.append(Diagnostic(rel, 0, "nested too deep to read; config keys of this file skipped", "parse"))
        except Exception as exc:  # noqa: BLE001 - one odd file must not stop the analysis
            diags.append(Diagnostic(rel, 0, f"could not read config keys ({exc.__class__.__name__}); file skipped",
                                    "parse"))
    out.extend(yaml_keys(yaml_files))
    out.extend(python_keys(index, graphs, namers))
    if namers:
        def read(rel: str) -> str | None:
            return read_config_text(index, rel, limit, [])

        out.extend(python_dict_keys(index, namers, next(iter(namers.values())).symbols, read))
        out.extend(api_param_keys(index, next(iter(namers.values())).symbols))
        named, relative = config_read_keys(index, namers, next(iter(namers.values())).symbols)
        out.extend(named)
        out.extend(anchor(relative, out))
    return out


def anchor(relative: list[RawKey], raws: list[RawKey]) -> list[RawKey]:
    """Keys read on a config whose place under the root is unknown (``rollout.name`` on a ``DictConfig``
    parameter) take the one known key they are the dotted tail of (``actor_rollout_ref.rollout.name``);
    with several candidates the read says nothing a listed key does not, so it is dropped; with none it
    stays as read."""
    if not relative:
        return []
    tails: dict[str, set[str]] = {}
    for r in raws:
        parts = r.key.split(".")
        for i in range(len(parts)):
            tails.setdefault(".".join(parts[i:]), set()).add(r.key)
    out = []
    for r in relative:
        got = tails.get(r.key, set())
        if len(got) == 1:
            out.append(RawKey(next(iter(got)), r.value, r.file, r.line, r.source, r.context, r.type))
        elif not got:
            out.append(r)
    return out


def fold_prefixes(raws: list[RawKey]) -> list[RawKey]:
    """``cfg.trainer`` read alone is a section, not a knob, when ``trainer.x`` is a key too."""
    sections = {r.key.rsplit(".", i)[0] for r in raws if "." in r.key for i in range(1, r.key.count(".") + 1)}
    return [r for r in raws if r.source != CONFIG_READ or r.key not in sections]


def _read_one(rel: str, kind: str, text: str, out: list[RawKey], yaml_files: dict[str, YamlFile],
              diags: list[Diagnostic], mentions: set[str]) -> None:
    """Read one config file of a known kind into ``out`` (YAML files are composed later)."""
    if kind == "yaml":
        yaml_files[rel] = read_yaml(rel, text, diags)
    elif kind == "toml":
        out.extend(read_toml(rel, text, diags))
    elif kind == "json":
        out.extend(read_json(rel, text, diags))
    elif kind == "ini":
        out.extend(read_ini(rel, text, diags))
    elif kind == "env":
        out.extend(read_env(rel, text, diags))
    elif kind == "shell":
        out.extend(read_shell(rel, text))
        mentions.update(config_mentions(text))
    else:
        for start, block in markdown_shell_blocks(text):
            out.extend(read_shell(rel, block, source="readme", line_offset=start))
            mentions.update(config_mentions(block))


_LAUNCHER_SOURCES = ("script", "hydra-override")
_FILE_SOURCES = ("yaml", "toml", "json", "ini")


def mount_targets(raws: list[RawKey]) -> list[RawKey]:
    """A YAML section that names its config class (``_target_: pkg.config.RolloutConfig``) is where that class's
    fields are set: each field is declared under the section's path (``actor_rollout_ref.rollout.name``), which
    is what a user types, so the field folds with the YAML value instead of standing apart un-nested."""
    mounts: dict[str, list[str]] = {}
    for r in raws:
        if r.source == "yaml" and r.key.endswith("._target_") and r.value:
            mounts.setdefault(r.value.rsplit(".", 1)[-1], []).append(r.key.removesuffix("._target_"))
    if not mounts:
        return raws
    out: list[RawKey] = []
    for r in raws:
        sections = mounts.get(r.context) if r.source.startswith(("dataclass", "pydantic", "TypedDict")) else None
        if not sections:
            out.append(r)
            continue
        if "." in r.key:
            out.append(r)  # nested under another class: that path is real too
        leaf = r.key.rsplit(".", 1)[-1]
        out.extend(RawKey(f"{sec}.{leaf}", r.value, r.file, r.line, r.source, r.context, r.type)
                   for sec in sorted(set(sections)))
    return out


def key_entries(index: Index, graphs: Graphs | None, settings: Settings, namers: dict[str, Namer],
                vocab: Vocabulary, ev: EvidenceResult | None, diags: list[Diagnostic],
                ) -> tuple[list[KeyEntry], list[ConfigKey], dict[str, int]]:
    """One entry per key (listed first, then the ones set aside with their reason), the listed keys'
    occurrences as flat :class:`ConfigKey` records, and the counts of what was folded away."""
    return fold(occurrences(index, graphs, settings, namers, vocab, ev, diags))


def occurrences(index: Index, graphs: Graphs | None, settings: Settings, namers: dict[str, Namer],
                vocab: Vocabulary, ev: EvidenceResult | None, diags: list[Diagnostic]) -> list[Occurrence]:
    """Every key occurrence with its class (None: unclassified) and scope reason, before folding (the
    per-key diagnostic of ``bench/topology_recall.py --vs-grep`` reads them to say why a key was dropped)."""
    yaml_files: dict[str, YamlFile] = {}
    mentions: set[str] = set()
    raws = raw_keys(index, graphs, settings, namers, diags, yaml_files, mentions)
    raws.extend(composed_keys(raws, find_prefixes(index, namers), _LAUNCHER_SOURCES))
    raws = fold_prefixes(mount_targets(raws))
    # a README's launch command is how a repo without launch scripts says which config file a run loads
    loaders = find_loaders(index, (r for r in raws if r.source in _LAUNCHER_SOURCES or r.source == "readme"), mentions)
    config_files = {r.file for r in raws if r.source in _FILE_SOURCES} | set(yaml_files)
    loaded = {f for f in config_files if loaders.loads(f)}
    kids = children(yaml_files)
    stack = list(loaded)
    while stack:  # what a loaded file's Hydra defaults pull in is loaded too
        for child in kids.get(stack.pop(), ()):
            if child not in loaded:
                loaded.add(child)
                stack.append(child)
    reads = spawn_reads(index, ev) if ev is not None else {}
    symbols = next(iter(namers.values())).symbols if namers else None
    selected = selector_hits(index, symbols, ev, raws)
    compared = literal_hits(index, raws)
    switching = role_switch_hits(index, raws)
    adapters = adapter_hits(index, raws)
    splat = splat_hits(index, ev, sorted({r.key for r in raws if r.source in _FILE_SOURCES}), graphs, symbols)
    splats = splat.hits
    # a file whose sections code splats into constructors is one a run reads, whoever names its path
    loaded |= {r.file for r in raws if r.key in splats and r.source in _FILE_SOURCES}
    declared = set(splat.declared)
    raws = [*raws, *splat.declared]
    occs: list[Occurrence] = []
    seen: set[tuple[str, str, int]] = set()
    for r in raws:
        ident = (r.key, r.file, r.line)
        if ident in seen:
            continue
        seen.add(ident)
        if r.value is not None and empty(r.value):
            r = replace(r, value=None)
        scope = file_scope(r.file) or key_scope(r.key, r.source)
        if not scope and r.source in _FILE_SOURCES and r.file.lower().endswith(CONFIG_SUFFIXES) and r.file not in loaded:
            scope = "unloaded-config"
        hit = classify(r.key, r.value, vocab, r.context)
        picks = selected.get(r.key)
        if picks is not None and (hit is None or hit[0] == "layout") and r.source not in _LAUNCHER_SOURCES:
            hit = picks
        if hit is None:
            hit = compared.get((r.file, r.line))
        if hit is None:
            hit = switching.get(r.key)
        if hit is None:
            hit = adapters.get(r.key)
        if hit is None and r.key in splats and (r.source in _FILE_SOURCES or r in declared):
            hit = (splats[r.key].cls, splats[r.key].reason)
        if hit is None and r.source not in _LAUNCHER_SOURCES and r.source != "readme":
            use = use_hit(r.key, reads)
            if use is not None:
                hit = (use.cls, use.reason)
        occs.append(Occurrence(r, hit, scope))
    return _interpolated(occs)


_INTERPOLATION = re.compile(r"^\$\{([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+)\}$")


def _interpolated(occs: list[Occurrence]) -> list[Occurrence]:
    """A config key whose whole value is another key (``lora_rank: ${lora.rank}``, OmegaConf/Hydra) is set
    there: the source key takes the class of the key it feeds, when it has none of its own."""
    feeds: dict[str, tuple[str, str]] = {}
    for o in occs:
        m = _INTERPOLATION.match(o.raw.value or "")
        if m and o.hit is not None and not o.scope:
            feeds.setdefault(m.group(1), (o.hit[0], f"its value feeds '{o.raw.key}' ({o.raw.file}:{o.raw.line}): "
                                                    f"{o.hit[1]}"))
    if not feeds:
        return occs
    return [replace(o, hit=feeds[o.raw.key]) if o.hit is None and o.raw.key in feeds else o for o in occs]


def classified_keys(index: Index, graphs: Graphs | None, settings: Settings, namers: dict[str, Namer],
                    vocab: Vocabulary, diags: list[Diagnostic]) -> list[ConfigKey]:
    """The listed keys' occurrences (flat), for callers that want no entries."""
    return key_entries(index, graphs, settings, namers, vocab, None, diags)[1]

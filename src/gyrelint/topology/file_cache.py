"""The config files' keys, kept per file by content (issue 18 item 1: a code edit rereads no YAML).

What ``keys._read_one`` makes of one config file (the YAML file's flattened keys and Hydra
defaults, the keys of a TOML, JSON, INI, ``.env``, shell or Markdown file, the diagnostics and
the config paths a script mentions) is a function of the file's path, kind and text alone, and
of gyrelint's code. It is stored in the cache store (namespace ``configs``) under a
digest of those, as msgpack data decoded by the codec into the reader's own records with
their field types checked; an entry that does not decode is a miss and the file is read again.
A reader that raises is not stored: its partial output and the exception go on as before.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Callable
from pathlib import Path

from ..cachestore import open_store
from ..codec import Mismatch, Plan, Registry
from ..codehash import code_digest
from ..model import Diagnostic
from .sources import RawKey
from .sources.yaml_src import YamlFile

NAMESPACE = "configs"

Reader = Callable[[str, str, str, list[RawKey], dict[str, YamlFile], list[Diagnostic], set[str]], None]


@dataclasses.dataclass(frozen=True, slots=True)
class FileKeys:
    """One config file as its reader left it."""

    yaml: YamlFile | None
    keys: list[RawKey]
    diagnostics: list[Diagnostic]
    mentions: list[str]  # sorted


@functools.cache
def _codec() -> tuple[Registry, Plan]:
    registry = Registry((Diagnostic, RawKey, YamlFile, FileKeys))
    plan = registry.plan(FileKeys)
    assert plan is not None
    return registry, plan


def _key(rel: str, kind: str, text: str) -> str:
    h = hashlib.sha256(f"topology-file\0{code_digest()}\0{rel}\0{kind}\0".encode("utf-8", "surrogateescape"))
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def decode(payload: bytes, rel: str | None = None) -> FileKeys | None:
    """The entry a cache payload holds (for the config file ``rel``), or None when it is not a good one."""
    registry, plan = _codec()
    got = registry.decode_as(plan, payload, FileKeys)
    if got is None or (rel is not None and got.yaml is not None and got.yaml.path != rel):
        return None
    return got


def read_cached(read: Reader, cache_dir: Path | None, rel: str, kind: str, text: str, out: list[RawKey],
                yaml_files: dict[str, YamlFile], diags: list[Diagnostic], mentions: set[str]) -> None:
    """``read(rel, kind, text, out, yaml_files, diags, mentions)``, answered from the cache when
    this file was read before with this code; the results land in the same places, in the same
    order, as the reader's own would."""
    if cache_dir is None:
        read(rel, kind, text, out, yaml_files, diags, mentions)
        return
    store = open_store(cache_dir)
    key = _key(rel, kind, text)
    payload = store.get(NAMESPACE, key)
    got = None if payload is None else decode(payload, rel)
    if got is None:
        keys: list[RawKey] = []
        ys: dict[str, YamlFile] = {}
        ds: list[Diagnostic] = []
        ms: set[str] = set()
        try:
            read(rel, kind, text, keys, ys, ds, ms)
        except BaseException:
            _merge(FileKeys(ys.get(rel), keys, ds, sorted(ms)), rel, out, yaml_files, diags, mentions)
            raise
        if set(ys) - {rel}:  # a reader that names another file: not this cache's to keep
            yaml_files.update(ys)
            out.extend(keys)
            diags.extend(ds)
            mentions.update(ms)
            return
        got = FileKeys(ys.get(rel), keys, ds, sorted(ms))
        registry, plan = _codec()
        try:
            store.put(NAMESPACE, key, registry.pack(plan.enc(got)))
        except (Mismatch, TypeError, AttributeError, ValueError):
            pass  # an unstorable result only costs the next run the read
    _merge(got, rel, out, yaml_files, diags, mentions)


def _merge(got: FileKeys, rel: str, out: list[RawKey], yaml_files: dict[str, YamlFile], diags: list[Diagnostic],
           mentions: set[str]) -> None:
    if got.yaml is not None:
        yaml_files[rel] = got.yaml
    out.extend(got.keys)
    diags.extend(got.diagnostics)
    mentions.update(got.mentions)

"""YAML configs, read safely and with line numbers, including Hydra composition.

Files are *composed* (parsed into nodes) with PyYAML's safe loader and never
constructed, so no tag can run code and an alias bomb stays a small node graph; the
walk that flattens nodes into dotted keys has a budget, so a "billion laughs" file
ends quickly with a diagnostic. ``!!python/...`` tags and duplicate keys are
diagnostics. A Hydra ``defaults:`` list mounts the files it names under their
package, so ``actor/dp_actor.yaml`` keys read as ``actor_rollout_ref.actor.*``;
``${...}`` interpolations stay as text.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

import yaml

from ...model import Diagnostic
from . import RawKey

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_PY_TAG = "tag:yaml.org,2002:python/"
_MERGE = "tag:yaml.org,2002:merge"
_NODE_BUDGET = 20_000  # nodes visited per file, aliases counted every time they expand
_INTERP = re.compile(r"\$\{([A-Za-z_][\w.]*)\}")
_PACKAGE = re.compile(r"^#\s*@package\s+(\S+)", re.M)


@dataclass(slots=True)
class YamlFile:
    path: str
    entries: list[tuple[str, str | None, int]] = field(default_factory=list)  # (dotted key, value, line)
    defaults: list[tuple[str, str, str, int]] = field(default_factory=list)  # (folder, child, package, line)
    package: str | None = None  # from a ``# @package`` header


class _Walk:
    def __init__(self, path: str, diags: list[Diagnostic]) -> None:
        self.path = path
        self.diags = diags
        self.budget = _NODE_BUDGET
        self.exhausted = False
        self.out: list[tuple[str, str | None, int]] = []

    def node(self, node: yaml.Node, prefix: str) -> None:
        if self.exhausted:
            return
        self.budget -= 1
        if self.budget < 0:
            self.exhausted = True
            self.diags.append(Diagnostic(self.path, node.start_mark.line + 1,
                                         "YAML expands past 20000 nodes (alias bomb?); rest of the file skipped", "config"))
            return
        if node.tag.startswith(_PY_TAG):
            self.diags.append(Diagnostic(self.path, node.start_mark.line + 1,
                                         f"unsafe YAML tag '{node.tag.rsplit(':', 1)[-1] if ':' in node.tag else node.tag}' "
                                         "(would run Python code); value ignored", "config"))
            return
        if isinstance(node, yaml.MappingNode):
            self.mapping(node, prefix)
        elif isinstance(node, yaml.SequenceNode):
            if prefix:
                self.out.append((prefix, _seq_text(node), node.start_mark.line + 1))
            for i, item in enumerate(node.value):
                if isinstance(item, (yaml.MappingNode, yaml.SequenceNode)):
                    self.node(item, f"{prefix}.{i}" if prefix else str(i))
        elif prefix:
            self.out.append((prefix, _scalar(node), node.start_mark.line + 1))

    def mapping(self, node: yaml.MappingNode, prefix: str) -> None:
        seen: dict[str, int] = {}
        for k, v in node.value:
            if self.exhausted:
                return
            if k.tag == _MERGE:
                for src in v.value if isinstance(v, yaml.SequenceNode) else [v]:
                    if isinstance(src, yaml.MappingNode):
                        self.node(src, prefix)
                continue
            if not isinstance(k, yaml.ScalarNode):
                continue
            name = str(k.value)
            line = k.start_mark.line + 1
            if name in seen:
                self.diags.append(Diagnostic(self.path, line, f"duplicate key '{name}' (first at line {seen[name]}); "
                                             "YAML keeps the last one, remove one of them", "config"))
            seen[name] = line
            self.node(v, f"{prefix}.{name}" if prefix else name)


def _scalar(node: yaml.Node) -> str | None:
    if not isinstance(node, yaml.ScalarNode):
        return None
    tag = node.tag
    if tag.endswith(":null"):
        return None
    if tag.endswith(":bool"):
        return "true" if node.value.lower() in {"true", "yes", "on", "y"} else "false"
    text = str(node.value)
    return text if len(text) <= 200 else text[:197] + "..."


def _seq_text(node: yaml.SequenceNode) -> str | None:
    items = node.value
    if len(items) > 16 or not all(isinstance(i, yaml.ScalarNode) for i in items):
        return None
    return "[" + ", ".join(str(i.value) for i in items) + "]"


def read_yaml(path: str, text: str, diags: list[Diagnostic]) -> YamlFile:
    """Flatten one YAML file (all documents) into dotted keys; problems become diagnostics."""
    result = YamlFile(path)
    m = _PACKAGE.search(text[:2000])
    if m:
        result.package = m.group(1)
    walk = _Walk(path, diags)
    loader = _Loader(text)
    try:
        while loader.check_node():
            doc = loader.get_node()
            if doc is None:
                continue
            if isinstance(doc, yaml.MappingNode):
                _hydra_defaults(doc, path, result)
            walk.node(doc, "")
            if walk.exhausted:
                break
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        diags.append(Diagnostic(path, line, f"malformed YAML ({exc.problem or exc.context}); keys after it skipped, fix the file", "parse"))
    except yaml.YAMLError as exc:
        diags.append(Diagnostic(path, 0, f"malformed YAML ({str(exc).splitlines()[0][:100]}); file skipped", "parse"))
    except RecursionError:
        diags.append(Diagnostic(path, 0, "YAML nested too deep; file skipped", "parse"))
    finally:
        loader.dispose()
    result.entries = walk.out
    return result


def _hydra_defaults(doc: yaml.MappingNode, path: str, result: YamlFile) -> None:
    """Record ``defaults:`` entries as (child file stem path, package) pairs."""
    for k, v in doc.value:
        if not (isinstance(k, yaml.ScalarNode) and k.value == "defaults" and isinstance(v, yaml.SequenceNode)):
            continue
        base = posixpath.dirname(path)
        # ``- actor@x: ${model_engine}_actor`` names its option through another entry (``- model_engine: dp``)
        chosen = {str(gk.value): str(gv.value) for item in v.value[:200] if isinstance(item, yaml.MappingNode)
                  for gk, gv in item.value if isinstance(gk, yaml.ScalarNode) and isinstance(gv, yaml.ScalarNode)}
        for item in v.value[:200]:
            line = item.start_mark.line + 1
            if isinstance(item, yaml.ScalarNode):
                name = str(item.value)
                if name and name != "_self_":
                    result.defaults.append((base, name.lstrip("/"), "", line))
            elif isinstance(item, yaml.MappingNode):
                for gk, gv in item.value:
                    if not isinstance(gk, yaml.ScalarNode) or not isinstance(gv, yaml.ScalarNode) or gv.value in (None, "", "null"):
                        continue
                    group = str(gk.value)
                    for word in ("override ", "optional "):
                        if group.startswith(word):
                            group = group[len(word):]
                    group, _, pkg = group.partition("@")
                    group = group.strip().lstrip("/")
                    package = pkg.strip() or group.replace("/", ".")
                    option = _INTERP.sub(lambda m, c=chosen: c.get(m.group(1), m.group(0)), str(gv.value))
                    result.defaults.append((base, posixpath.join(group, option), package, line))


def children(files: dict[str, YamlFile]) -> dict[str, list[str]]:
    """The files each file's Hydra ``defaults:`` list pulls in."""
    stems = {p.rsplit(".", 1)[0]: p for p in files}
    out: dict[str, list[str]] = {}
    for path, f in files.items():
        for base, rel, _pkg, _line in f.defaults:
            child = _find(base, rel, stems)
            if child and child != path:
                out.setdefault(path, []).append(child)
    return out


def compose(files: dict[str, YamlFile]) -> dict[str, str]:
    """The dotted prefix each file is mounted at by the ``defaults:`` lists that name it."""
    stems = {p.rsplit(".", 1)[0]: p for p in files}
    prefix: dict[str, str] = {}
    children: dict[str, list[tuple[str, str]]] = {}
    included: set[str] = set()
    for path, f in sorted(files.items()):
        for base, rel, pkg, _line in f.defaults:
            child = _find(base, rel, stems)
            if child and child != path:
                children.setdefault(path, []).append((child, pkg))
                included.add(child)
    stack = [(p, _own_package(files[p], "")) for p in sorted(files) if p not in included]
    while stack:
        path, pre = stack.pop()
        if path in prefix:
            continue
        prefix[path] = pre
        for child, pkg in reversed(children.get(path, [])):
            if child not in prefix:
                child_pre = ".".join(x for x in (pre, pkg) if x)
                stack.append((child, _own_package(files[child], child_pre)))
    for p in files:
        prefix.setdefault(p, _own_package(files[p], ""))
    return prefix


def _own_package(f: YamlFile, inherited: str) -> str:
    if f.package == "_global_":
        return ""
    if f.package and f.package not in ("_group_", "_here_"):
        return f.package
    return inherited


def _find(base: str, rel: str, stems: dict[str, str]) -> str | None:
    """``actor/dp_actor`` named in ``conf/x.yaml`` → ``conf/actor/dp_actor.yaml``; the group may
    also be relative to a parent folder (Hydra's config root)."""
    while True:
        cand = posixpath.normpath(posixpath.join(base, rel)) if base else posixpath.normpath(rel)
        if cand in stems:
            return stems[cand]
        if not base:
            return None
        base = posixpath.dirname(base)


def yaml_keys(files: dict[str, YamlFile]) -> list[RawKey]:
    prefixes = compose(files)
    out: list[RawKey] = []
    for path, f in files.items():
        pre = prefixes.get(path, "")
        for key, value, line in f.entries:
            if key == "defaults" or key.startswith("defaults."):
                continue
            out.append(RawKey(f"{pre}.{key}" if pre else key, value, path, line, "yaml"))
    return out

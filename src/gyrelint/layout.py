"""Where a repository's importable code starts: its source roots and the projects it holds.

A module's dotted name is its path relative to the folder Python imports it from, so the
name of every file depends on that folder, not on the file alone. The folders come from,
in this order of trust:

1. packaging metadata, read as data and never run: ``[tool.setuptools] package-dir`` and
   ``[tool.setuptools.packages.find] where``, ``[tool.hatch.build.targets.wheel] packages``
   and ``sources``, poetry's ``packages = [{include, from}]``, ``setup.cfg``'s ``package_dir``
   and ``[options.packages.find] where``, and the same two keywords in ``setup.py`` text;
2. the ``src/`` convention, at the root or in any project folder (``packages/*/src``);
3. every folder holding its own ``pyproject.toml``/``setup.py``/``setup.cfg`` (a workspace
   member, ``libs/a/a/...``), then the repository root.

Roots of the first two kinds are *declared*: everything below them is named relative to
them, namespace folders (PEP 420, no ``__init__.py``) included. Below an undeclared root
a folder without ``__init__.py`` above a package is taken for a plain folder (``examples/x/``
holding a package its scripts import) unless the package's own files import it through
that folder (``from ns.sub import ...``): then it is a namespace package.

A malformed metadata file is one diagnostic; the rest of the layout still holds.
"""

from __future__ import annotations

import configparser
import posixpath
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .model import Diagnostic
from .safeio import InputFileError, read_input_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

METADATA_LIMIT = 1 << 20  # a pyproject.toml or setup.py is a few KiB
EVIDENCE_FILES = 40  # files read (in part) to tell a namespace package from a plain folder
EVIDENCE_BYTES = 32 * 1024
MAX_PROJECTS = 256
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
_DIST_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,100}[A-Za-z0-9])?$")  # PEP 508 names


@dataclass(frozen=True)
class SourceRoot:
    """A folder Python imports from; ``prefix`` is the package its files belong to when the
    metadata maps a package onto a folder of another name (``package-dir = {pkg = "lib"}``)."""

    folder: str  # POSIX path relative to the repo root, "" for the root
    prefix: str = ""
    declared: bool = False  # from metadata or src/: names are relative to it, namespaces included
    why: str = "the repository root"


@dataclass(frozen=True)
class Project:
    """A folder holding packaging metadata, and the distribution it builds (None if unnamed)."""

    folder: str
    file: str  # the metadata file the name came from
    name: str | None


@dataclass
class Layout:
    roots: list[SourceRoot] = field(default_factory=list)
    projects: list[Project] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _join(*parts: str) -> str:
    return posixpath.normpath("/".join(p for p in parts if p)) if any(parts) else ""


def _inside(folder: str, rel: str) -> str | None:
    """``folder`` joined to ``rel`` when it stays in the repository, else None."""
    if not isinstance(rel, str) or rel.startswith("/") or "\\" in rel:
        return None
    out = _join(folder, rel.strip().strip("/"))
    return None if out == ".." or out.startswith("../") else ("" if out == "." else out)


class _Reader:
    """Reads one project's metadata files as data, bounded; failures become diagnostics."""

    def __init__(self, root: Path, layout: Layout) -> None:
        self.root, self.layout = root, layout

    def text(self, rel: str) -> str | None:
        try:
            return read_input_text(self.root / rel, METADATA_LIMIT, self.root)
        except InputFileError as exc:
            self.layout.diagnostics.append(Diagnostic(rel, 0, f"{exc.reason}; its packaging metadata is ignored", "config"))
            return None

    def toml(self, rel: str) -> dict:
        text = self.text(rel)
        if text is None:
            return {}
        try:
            return tomllib.loads(text)
        except (ValueError, RecursionError) as exc:
            msg = str(exc).splitlines()[0][:120] if str(exc) else "invalid TOML"
            self.layout.diagnostics.append(Diagnostic(
                rel, 0, f"invalid TOML ({msg}); module names ignore its packaging metadata, fix the file", "config"))
            return {}

    def cfg(self, rel: str) -> configparser.ConfigParser | None:
        text = self.text(rel)
        if text is None:
            return None
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(text, rel)
        except (configparser.Error, ValueError) as exc:
            msg = str(exc).splitlines()[0][:120]
            self.layout.diagnostics.append(Diagnostic(
                rel, 0, f"unreadable setup.cfg ({msg}); module names ignore it, fix the file", "config"))
            return None
        return parser


def _table(doc: object, *keys: str) -> dict:
    for k in keys:
        doc = doc.get(k) if isinstance(doc, dict) else None
    return doc if isinstance(doc, dict) else {}


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _pyproject_roots(doc: dict, folder: str) -> tuple[list[SourceRoot], str | None]:
    """Source roots and the distribution name a pyproject.toml declares."""
    roots: list[SourceRoot] = []
    why = f"{_join(folder, 'pyproject.toml')}"

    def add(rel: object, prefix: str = "", what: str = "") -> None:
        target = _inside(folder, rel) if isinstance(rel, str) else None
        if target is not None and (not prefix or all(_IDENT.match(p) for p in prefix.split("."))):
            roots.append(SourceRoot(target, prefix, True, f"{why} {what}"))

    setuptools = _table(doc, "tool", "setuptools")
    for pkg, rel in _table(setuptools, "package-dir").items():
        add(rel, pkg if isinstance(pkg, str) else "", "[tool.setuptools] package-dir")
    for rel in _strings(_table(setuptools, "packages", "find").get("where")):
        add(rel, what="[tool.setuptools.packages.find] where")
    wheel = _table(doc, "tool", "hatch", "build", "targets", "wheel")
    for pkg in _strings(wheel.get("packages")):
        parent = posixpath.dirname(pkg.rstrip("/"))
        add(parent or ".", what="[tool.hatch.build.targets.wheel] packages")
    sources = wheel.get("sources")
    if isinstance(sources, dict):
        for rel, prefix in sources.items():
            if isinstance(prefix, str):
                add(rel, prefix.strip("/").replace("/", "."), "[tool.hatch.build.targets.wheel] sources")
    for rel in _strings(sources):
        add(rel, what="[tool.hatch.build.targets.wheel] sources")
    poetry = _table(doc, "tool", "poetry")
    for entry in poetry.get("packages", []) if isinstance(poetry.get("packages"), list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("from"), str):
            add(entry["from"], what="[tool.poetry] packages from")
    pdm = _table(doc, "tool", "pdm", "build").get("package-dir")
    if isinstance(pdm, str):
        add(pdm, what="[tool.pdm.build] package-dir")
    name = _table(doc, "project").get("name") or poetry.get("name")
    return roots, name if isinstance(name, str) else None


def _setup_cfg_roots(cfg: configparser.ConfigParser, folder: str, rel: str) -> tuple[list[SourceRoot], str | None]:
    roots: list[SourceRoot] = []
    if cfg.has_option("options", "package_dir"):
        for line in cfg.get("options", "package_dir").splitlines():
            if "=" not in line:
                continue
            pkg, target = (s.strip() for s in line.split("=", 1))
            place = _inside(folder, target)
            if place is not None and (not pkg or _IDENT.match(pkg)):
                roots.append(SourceRoot(place, pkg, True, f"{rel} [options] package_dir"))
    if cfg.has_option("options.packages.find", "where"):
        for target in cfg.get("options.packages.find", "where").split():
            place = _inside(folder, target)
            if place is not None:
                roots.append(SourceRoot(place, "", True, f"{rel} [options.packages.find] where"))
    name = cfg.get("metadata", "name", fallback=None)
    return roots, name.strip() if name else None


_SETUP_PKG_DIR = re.compile(r"""package_dir\s*=\s*\{\s*(['"])\1\s*:\s*['"]([^'"\n]{1,200})['"]""")
_SETUP_WHERE = re.compile(r"""(?:find_packages|find_namespace_packages)\s*\(\s*(?:where\s*=\s*)?['"]([^'"\n]{1,200})['"]""")
_SETUP_NAME = re.compile(r"""\bname\s*=\s*['"]([A-Za-z0-9][A-Za-z0-9._-]{0,100})['"]""")


def _setup_py_roots(text: str, folder: str, rel: str) -> tuple[list[SourceRoot], str | None]:
    """``package_dir={"": "src"}`` and ``find_packages("src")`` read from the text; never run."""
    roots = []
    for m in _SETUP_PKG_DIR.finditer(text):
        place = _inside(folder, m.group(2))
        if place is not None:
            roots.append(SourceRoot(place, "", True, f"{rel} package_dir"))
    for m in _SETUP_WHERE.finditer(text):
        place = _inside(folder, m.group(1))
        if place is not None:
            roots.append(SourceRoot(place, "", True, f"{rel} find_packages"))
    m = _SETUP_NAME.search(text)
    return roots, m.group(1) if m else None


def read_layout(root: Path | None, python: Iterable[str], other: Iterable[str]) -> Layout:
    """The source roots and projects of a repository, from its file lists (and, with ``root``,
    its metadata files read as data)."""
    python, other = list(python), list(other)
    layout = Layout()
    init_dirs = {posixpath.dirname(p) for p in python if posixpath.basename(p) == "__init__.py"}

    def in_package(folder: str) -> bool:
        return any(a in init_dirs for a in _ancestors(folder))

    meta: dict[str, list[str]] = {}
    for rel in (*python, *other):
        base = posixpath.basename(rel)
        if base in _PROJECT_FILES:
            meta.setdefault(posixpath.dirname(rel), []).append(rel)
    reader = _Reader(root, layout) if root is not None else None
    for folder in sorted(meta, key=lambda f: (f.count("/"), f))[:MAX_PROJECTS]:
        if folder and in_package(folder):
            continue  # a setup.py inside a package is data of that package, not a project
        name: str | None = None
        found: list[SourceRoot] = []
        for rel in sorted(meta[folder]):
            if reader is None:
                break
            base = posixpath.basename(rel)
            if base == "pyproject.toml":
                roots, got = _pyproject_roots(reader.toml(rel), folder)
            elif base == "setup.cfg":
                cfg = reader.cfg(rel)
                roots, got = _setup_cfg_roots(cfg, folder, rel) if cfg is not None else ([], None)
            else:
                text = reader.text(rel)
                roots, got = _setup_py_roots(text, folder, rel) if text is not None else ([], None)
            found += roots
            if name is None and got and _DIST_NAME.match(got.strip()):  # a name, never text for a terminal
                name = got.strip()
                layout.projects.append(Project(folder, rel, name))
        if name is None:
            layout.projects.append(Project(folder, sorted(meta[folder])[0], None))
        layout.roots += [r for r in found if not in_package(r.folder) or r.prefix]
        if folder:
            layout.roots.append(SourceRoot(folder, "", False, f"{sorted(meta[folder])[0]} (a project folder)"))
    src_dirs = {"src" for p in python if p.startswith("src/")}
    src_dirs |= {p[: p.find("/src/") + 4] for p in python if "/src/" in p}  # the outermost src/ of each path
    for src in sorted(src_dirs):
        if src not in init_dirs and not in_package(posixpath.dirname(src)):
            layout.roots.append(SourceRoot(src, "", True, "a src/ folder"))
    layout.roots.append(SourceRoot(""))
    seen: set[tuple[str, str]] = set()
    unique = []
    for r in layout.roots:  # the first (most trusted) root of a folder wins
        if (r.folder, r.prefix) not in seen and r.folder not in {u.folder for u in unique}:
            seen.add((r.folder, r.prefix))
            unique.append(r)
    layout.roots = unique
    return layout


def _ancestors(folder: str) -> list[str]:
    """``a/b/c`` -> ``["a", "a/b", "a/b/c"]``."""
    parts = folder.split("/") if folder else []
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]

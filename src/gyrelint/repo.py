"""Find the files of a repository and give each Python file its dotted module name.

Reads only; follows no symlink that leaves the root and no directory symlink at all
(so symlink loops cannot trap the walk). The repository may be hostile: a file the later
stages would read is listed only when it is a regular file inside the root with a UTF-8
name; a FIFO or device named ``x.py``, a symlink loop, a name that is not UTF-8 or a
folder that cannot be listed is skipped with a diagnostic, and nothing is opened but
regular files (never blocking).
"""

from __future__ import annotations

import errno
import fnmatch
import itertools
import os
import posixpath
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from .layout import EVIDENCE_BYTES, EVIDENCE_FILES, Layout, SourceRoot, read_layout
from .model import Diagnostic
from .safeio import InputFileError, file_kind, inside, read_input_text
from .settings import Settings

SKIP_DIRS = {
    ".git", ".hg", ".svn", ".venv", "venv", ".env", "node_modules", "__pycache__", "build", "dist",
    ".tox", ".nox", ".eggs", ".mypy_cache", ".pytest_cache", ".ruff_cache", "site-packages", ".gyrelint-cache",
    ".idea", ".vscode", "wandb", "outputs", "checkpoints",
}
SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".slurm", ".sbatch")
_MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
_SHEBANG_SHELLS = (b"sh", b"bash", b"zsh", b"dash", b"ksh")


_GITIGNORE_LIMIT = 1 << 20


def _is_virtualenv(path: str) -> bool:
    """``os.path`` answers False on any error (``Path.exists`` raises on a folder it may not enter)."""
    j = os.path.join
    if (os.path.lexists(j(path, "pyvenv.cfg")) or os.path.lexists(j(path, "bin", "activate"))
            or os.path.lexists(j(path, "Scripts", "activate")) or os.path.isdir(j(path, "conda-meta"))
            or os.path.isdir(j(path, "Lib", "site-packages"))):
        return True
    try:  # lib/pythonX.Y/site-packages: an interpreter's tree (a venv without its config, a conda env)
        with os.scandir(j(path, "lib")) as it:
            return any(e.name.startswith("python") and os.path.isdir(j(e.path, "site-packages"))
                       for e in itertools.islice(it, 64))
    except OSError:
        return False


def display_name(name: str) -> str:
    """A file name as text every output can carry: bytes that are not UTF-8 (which the OS
    hands over as lone surrogates, unprintable and unencodable) shown as ``\\xff``."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", "backslashreplace")
    return name


def _is_utf8(name: str) -> bool:
    return display_name(name) is name


_OUTSIDE = "symlink points outside the repository; not followed"


def _link_target(path: str, root: str) -> tuple[str | None, bool]:
    """(why the symlink ``path`` is not followed, or None; whether it points at a folder)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symlink loop; skipped", False
        return "a dangling symlink; skipped", False
    except ValueError:
        return "a symlink gyrelint cannot follow; skipped", False
    is_dir = stat.S_ISDIR(st.st_mode)
    if not inside(root, path):
        return _OUTSIDE, is_dir
    if is_dir or stat.S_ISREG(st.st_mode):
        return None, is_dir
    return f"a symlink to {file_kind(st.st_mode)}, not a regular file; skipped", False


def launcher_kind(rel: str) -> str | None:
    """How a non-Python file of the repo launches things: "shell", "make", "docker", or None.

    An extensionless file is in the file list only when it starts with a shell shebang
    (:func:`discover` checks), so it is a shell script; a README is documentation."""
    name = rel.rsplit("/", 1)[-1]
    lower = name.lower()
    if lower.endswith(SHELL_SUFFIXES):
        return "shell"
    if name in _MAKEFILES or lower.endswith(".mk"):
        return "make"
    if is_dockerfile(name):
        return "docker"
    if "." not in name and not name.startswith("README"):
        return "shell"
    return None


def is_dockerfile(name: str) -> bool:
    return name in ("Dockerfile", "Containerfile") or name.startswith("Dockerfile.") or name.lower().endswith(".dockerfile")


def _head(path: str, size: int) -> bytes:
    """The first ``size`` bytes of a regular file; b"" for anything else. Opened non-blocking
    and checked on the descriptor, so a FIFO swapped in after discovery looked cannot block."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError):
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        return os.read(fd, size)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _has_shell_shebang(path: str) -> bool:
    """``#!/bin/bash``, ``#!/usr/bin/env sh``...: a launcher script without a suffix."""
    head = _head(path, 128)
    if not head.startswith(b"#!"):
        return False
    words = head[2:].split(b"\n", 1)[0].replace(b"/", b" ").split()
    return any(w in _SHEBANG_SHELLS for w in words)


# non-Python files later stages read: launchers, configs, docs
OTHER_SUFFIXES = {*SHELL_SUFFIXES, ".mk", ".yaml", ".yml", ".toml", ".json", ".ini", ".cfg", ".env", ".md", ".rst", ".txt"}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MARKER = re.compile(r"^(?:LICEN[CS]E|COPYING|NOTICE)(?:[._-].*)?$", re.I)


@dataclass(slots=True)
class RepoFiles:
    root: Path
    python: list[str] = field(default_factory=list)  # POSIX paths relative to root
    other: list[str] = field(default_factory=list)
    modules: dict[str, str] = field(default_factory=dict)  # path -> dotted module
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # files that tell a copied library from the project (LICENSE, COPYING, NOTICE, a *.dist-info
    # or *.egg-info METADATA/PKG-INFO): read by the index stage's scope, never as launchers
    markers: list[str] = field(default_factory=list)
    projects: dict[str, str] = field(default_factory=dict)  # folder with packaging metadata -> its distribution ("" unnamed)


class GitIgnore:
    """The subset of gitignore semantics repos use: globs, ``/`` anchors, ``dir/``, ``!``."""

    def __init__(self) -> None:
        self.rules: list[tuple[str, str, bool, bool, bool]] = []  # (base, pattern, neg, dir_only, anchored)

    def add_file(self, path: Path, base: str, root: Path | None = None) -> str | None:
        """Read one ``.gitignore``; the reason it was not read (a FIFO, a loop...) or None."""
        if not os.path.lexists(path):
            return None
        try:
            text = read_input_text(path, _GITIGNORE_LIMIT, root)
        except InputFileError as exc:
            return exc.reason
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            neg = line.startswith("!")
            if neg:
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line
            line = line.lstrip("/")
            if line:
                self.rules.append((base, line, neg, dir_only, anchored))
        return None

    def ignored(self, rel: str, is_dir: bool) -> bool:
        result = False
        for base, pat, neg, dir_only, anchored in self.rules:
            if dir_only and not is_dir:
                continue
            if base:
                if not rel.startswith(base + "/"):
                    continue
                sub = rel[len(base) + 1 :]
            else:
                sub = rel
            if anchored:
                hit = fnmatch.fnmatchcase(sub, pat) or (pat.startswith("**/") and fnmatch.fnmatchcase(sub, pat[3:]))
            else:
                hit = fnmatch.fnmatchcase(sub.rsplit("/", 1)[-1], pat)
            if hit:
                result = not neg
        return result


def _excluded(rel: str, patterns: tuple[str, ...]) -> bool:
    for pat in patterns:
        p = pat.rstrip("/")
        if fnmatch.fnmatchcase(rel, p) or rel == p or rel.startswith(p + "/") or fnmatch.fnmatchcase(rel, p + "/*"):
            return True
    return False


def _wanted(name: str) -> str | None:
    """Which list a file goes to by its name alone: "python", "other", "maybe" (an
    extensionless file, kept if it starts with a shell shebang) or None."""
    suffix = os.path.splitext(name)[1]
    if suffix == ".py":
        return "python"
    if suffix in OTHER_SUFFIXES or name.startswith("README") or name in _MAKEFILES or is_dockerfile(name):
        return "other"
    return "maybe" if not suffix else None


def discover(root: Path, settings: Settings) -> RepoFiles:
    root = root.resolve()
    files = RepoFiles(root=root)
    ignore = GitIgnore()

    def skipped(rel: str, why: str) -> None:
        files.diagnostics.append(Diagnostic(display_name(rel), 0, why, "input"))

    def read_ignore(path: Path, base: str) -> None:
        why = ignore.add_file(path, base, root)
        if why is not None:
            skipped(f"{base}/.gitignore" if base else ".gitignore", why)

    if settings.respect_gitignore:
        read_ignore(root / ".gitignore", "")
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        abs_dir = root / rel_dir if rel_dir else root
        if rel_dir and settings.respect_gitignore:
            read_ignore(abs_dir / ".gitignore", rel_dir)
        try:
            with os.scandir(abs_dir) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            skipped(rel_dir or ".", f"cannot list directory ({exc.strerror or exc.__class__.__name__}); skipped")
            continue
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file(follow_symlinks=False)  # from the directory listing, no stat
            except OSError:
                continue
            problem = None
            if is_link:
                problem, to_dir = _link_target(entry.path, str(root))
                if to_dir and problem is None:
                    continue  # directory symlinks are never followed (loops)
                if problem == _OUTSIDE:  # reported whatever the name, as it always was
                    skipped(rel, problem)
                    continue
            if is_dir:
                if entry.name.endswith(".dist-info") and not is_link:  # a wheel's metadata: its name
                    meta = os.path.join(entry.path, "METADATA")
                    if os.path.isfile(meta) and not os.path.islink(meta):
                        files.markers.append(f"{rel}/METADATA")
                if entry.name in SKIP_DIRS or entry.name.endswith(".egg-info"):
                    continue
                if ignore.ignored(rel, True) or _excluded(rel, settings.exclude):
                    continue
                if not _is_utf8(entry.name):
                    skipped(rel, "a folder name that is not UTF-8; skipped, rename it")
                    continue
                if _is_virtualenv(entry.path):  # whatever its name (`env/` is often a package of RL code)
                    continue
                stack.append(rel)
                continue
            if ignore.ignored(rel, False) or _excluded(rel, settings.exclude):
                continue
            wanted = _wanted(entry.name)
            if wanted != "python" and is_file and not is_link and _MARKER.match(entry.name):
                files.markers.append(rel)
            if wanted is None:
                continue
            if not is_link and not is_file:
                try:
                    problem = f"{file_kind(entry.stat(follow_symlinks=False).st_mode)}, not a regular file; skipped"
                except OSError:
                    continue
            if problem is not None or not _is_utf8(entry.name):
                if wanted != "maybe":  # an extensionless file is not known to be ours to read
                    skipped(rel, problem or "a file name that is not UTF-8; skipped, rename it")
                continue
            if wanted == "python":
                files.python.append(rel)
            elif wanted == "other" or _has_shell_shebang(entry.path):
                files.other.append(rel)
    files.python.sort()
    files.other.sort()
    files.markers.sort()
    layout = read_layout(root, files.python, files.other)
    files.diagnostics += layout.diagnostics
    files.projects = {p.folder: p.name or "" for p in layout.projects}
    files.modules = module_names(root, files.python, layout)
    return files


def module_names(root: Path, paths: list[str], layout: Layout | None = None) -> dict[str, str]:
    """Dotted module per path: the importable name, relative to the file's source root
    (see :mod:`.layout`; without ``layout``, one is derived from the paths alone).

    Below a declared root (packaging metadata, a ``src/`` folder) names are relative to it,
    PEP 420 namespace folders included. Below the repo root or a project folder a name
    starts at the topmost regular package on the file's path (namespace folders inside it
    included: ``pkg/models/`` without ``__init__.py`` is still ``pkg.models``), or at the
    namespace folder above it when the package's own files import it that way. A file in
    no package (a script) is named from the repository root. A repository whose root holds
    an ``__init__.py`` is itself a package: see :func:`root_package_name`.
    """
    if layout is None:
        layout = read_layout(None, paths, ())
    init_dirs = {p.rsplit("/", 1)[0] if "/" in p else "" for p in paths if p.rsplit("/", 1)[-1] == "__init__.py"}
    roots = sorted(layout.roots, key=lambda r: (-len(r.folder), r.folder))
    top = root_package_name(root, paths) if "" in init_dirs else None
    evidence = _NamespaceEvidence(root, paths)
    heads: dict[str, list[str]] = {}  # folder -> the dotted parts of a module in it, but its own name

    def head(folder: str) -> list[str]:
        got = heads.get(folder)
        if got is None:
            r = next((r for r in roots if not r.folder or folder == r.folder or folder.startswith(r.folder + "/")),
                     SourceRoot(""))
            rel = folder[len(r.folder):].lstrip("/") if r.folder else folder
            dirs = rel.split("/") if rel else []
            prefix = r.prefix.split(".") if r.prefix else []
            base = f"{r.folder}/" if r.folder else ""
            first = next((i for i in range(len(dirs)) if base + "/".join(dirs[: i + 1]) in init_dirs), None)
            if top is not None and not r.folder:
                got = [top, *dirs]
            elif first is None:
                got = [*prefix, *dirs] if r.declared else (folder.split("/") if folder else [])
            elif first == 0 or r.declared or evidence.namespace(r.folder, dirs[:first], dirs[first]):
                got = [*prefix, *dirs]
            else:
                got = dirs[first:]
            heads[folder] = got
        return got

    out: dict[str, str] = {}
    for path in paths:
        folder, _, name = path.rpartition("/")
        mod_parts = [*head(folder), name[:-3]]
        if mod_parts[-1] == "__init__":
            mod_parts = mod_parts[:-1] or [folder.rsplit("/", 1)[-1] if folder else "__init__"]
        out[path] = ".".join(_identifier(p) for p in mod_parts)
    return out


def _identifier(part: str) -> str:
    return part if _IDENT.match(part) else part.replace("-", "_").replace(".", "_")


_SELF_IMPORT = re.compile(rb"^[ \t]*(?:from|import)[ \t]+([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)", re.M)


def root_package_name(root: Path, paths: list[str]) -> str:
    """The package name of a repository whose root folder holds ``__init__.py``.

    Such a checkout is importable only from its parent folder, as the folder's own name
    (its relative imports need a package around them); so names start with that name. The
    folder may have been cloned under another name (``pkg-main``): when the root's modules
    import one another absolutely (``from pkg.trainer import ...``), the name they use wins.
    """
    tops = {p.split("/", 1)[0].removesuffix(".py") for p in paths}
    votes: dict[str, int] = {}
    for rel in [p for p in paths if "/" not in p][:EVIDENCE_FILES]:
        for m in _SELF_IMPORT.finditer(_head(str(root / rel), EVIDENCE_BYTES)):
            name, child = m.group(1).decode(), m.group(2).decode()
            if child in tops and name not in tops:
                votes[name] = votes.get(name, 0) + 1
    if votes:
        return max(sorted(votes), key=lambda n: votes[n])
    name = _identifier(root.name or "pkg")
    return name if _IDENT.match(name) else f"_{name}"


class _NamespaceEvidence:
    """Whether folders without ``__init__.py`` above a package form a namespace package: the
    files below them, or the package's own files, import through them (``from ns.pkg.x import y``).
    Reads at most ``EVIDENCE_FILES`` files, ``EVIDENCE_BYTES`` each, per look; answers are kept."""

    BUDGET = 2000  # file heads read per repository, whatever a hostile tree holds

    def __init__(self, root: Path, paths: list[str]) -> None:
        self.root, self.paths = root, paths
        self.known: dict[tuple[str, ...], bool] = {}
        self.left = self.BUDGET

    def namespace(self, base: str, gap: list[str], package: str) -> bool:
        """Whether the first files below the namespace folder, or the package's own files (a
        large sibling folder listed first must not hide them), import through it."""
        return self._imports(base, gap, "") or self._imports(base, gap, package)

    def _imports(self, base: str, gap: list[str], package: str) -> bool:
        key = (base, *gap, package)
        if key not in self.known:
            folder = "/".join(filter(None, (base, *gap, package)))
            dotted = re.escape(".".join(gap).encode())
            pattern = re.compile(rb"^[ \t]*(?:from|import)[ \t]+" + dotted + rb"\.[A-Za-z_]", re.M)
            files = [p for p in self.paths if p.startswith(folder + "/")][: min(EVIDENCE_FILES, self.left)]
            self.left -= len(files)
            self.known[key] = any(pattern.search(_head(str(self.root / p), EVIDENCE_BYTES)) for p in files)
        return self.known[key]


def env_files(root: Path, python: list[str], other: list[str]) -> list[str]:
    """``.env`` files (no suffix, so discovery does not list them) in the folders the repo has:
    the topology stage reads their keys, and the whole-run cache key hashes them for that reason.

    Regular files inside the repo (discovery already reported links that leave it) with a name
    a diagnostic can show; readers still refuse a FIFO swapped in since."""
    dirs = {posixpath.dirname(p) for p in (*python, *other)}
    out = []
    for d in sorted(dirs):
        try:
            names = os.listdir(root / d if d else root)
        except OSError:
            continue
        for name in names:
            if name == ".env" or name.startswith(".env."):
                rel = f"{d}/{name}" if d else name
                path = root / rel
                if display_name(name) is name and os.path.isfile(path) and inside(root, path):
                    out.append(rel)
    return out

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
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

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
    return (os.path.lexists(j(path, "pyvenv.cfg")) or os.path.lexists(j(path, "bin", "activate"))
            or os.path.lexists(j(path, "Scripts", "activate")) or os.path.isdir(j(path, "conda-meta")))


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


@dataclass(slots=True)
class RepoFiles:
    root: Path
    python: list[str] = field(default_factory=list)  # POSIX paths relative to root
    other: list[str] = field(default_factory=list)
    modules: dict[str, str] = field(default_factory=dict)  # path -> dotted module
    diagnostics: list[Diagnostic] = field(default_factory=list)


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
    files.modules = module_names(root, files.python)
    return files


def module_names(root: Path, paths: list[str]) -> dict[str, str]:
    """Dotted module per path: packages up to their topmost ``__init__.py``; ``src/`` layout;
    files outside packages (scripts, namespace packages) relative to the root."""
    pyset = set(paths)
    out: dict[str, str] = {}
    has_src = any(p.startswith("src/") for p in paths)
    for path in paths:
        parts = path[:-3].split("/")
        dirs = parts[:-1]
        # climb while the directory is a regular package
        top = len(dirs)
        while top > 0 and "/".join(dirs[:top] + ["__init__.py"]) in pyset:
            top -= 1
        if top < len(dirs):
            mod_parts = parts[top:]
        elif has_src and parts[0] == "src" and len(parts) > 1:
            mod_parts = parts[1:]
        else:
            mod_parts = parts
        if mod_parts[-1] == "__init__":
            mod_parts = mod_parts[:-1] or [parts[-2] if len(parts) > 1 else "__init__"]
        out[path] = ".".join(p if _IDENT.match(p) else p.replace("-", "_").replace(".", "_") for p in mod_parts)
    return out

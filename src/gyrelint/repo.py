"""Find the files of a repository and give each Python file its dotted module name.

Reads only; follows no symlink that leaves the root and no directory symlink at all
(so symlink loops cannot trap the walk).
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .model import Diagnostic
from .settings import Settings

SKIP_DIRS = {
    ".git", ".hg", ".svn", ".venv", "venv", ".env", "node_modules", "__pycache__", "build", "dist",
    ".tox", ".nox", ".eggs", ".mypy_cache", ".pytest_cache", ".ruff_cache", "site-packages", ".gyrelint-cache",
    ".idea", ".vscode", "wandb", "outputs", "checkpoints",
}
SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".slurm", ".sbatch")
_MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
_SHEBANG_SHELLS = (b"sh", b"bash", b"zsh", b"dash", b"ksh")


def _is_virtualenv(path: Path) -> bool:
    return ((path / "pyvenv.cfg").exists() or (path / "bin" / "activate").exists()
            or (path / "Scripts" / "activate").exists() or (path / "conda-meta").is_dir())


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


def _has_shell_shebang(path: str) -> bool:
    """``#!/bin/bash``, ``#!/usr/bin/env sh``...: a launcher script without a suffix."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(128)
    except OSError:
        return False
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

    def add_file(self, path: Path, base: str) -> None:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
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


def discover(root: Path, settings: Settings) -> RepoFiles:
    root = root.resolve()
    files = RepoFiles(root=root)
    ignore = GitIgnore()
    if settings.respect_gitignore:
        ignore.add_file(root / ".gitignore", "")
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        abs_dir = root / rel_dir if rel_dir else root
        if rel_dir and settings.respect_gitignore and (abs_dir / ".gitignore").is_file():
            ignore.add_file(abs_dir / ".gitignore", rel_dir)
        try:
            entries = sorted(os.scandir(abs_dir), key=lambda e: e.name)
        except OSError as exc:
            files.diagnostics.append(Diagnostic(rel_dir or ".", 0, f"cannot list directory ({exc.strerror}); skipped"))
            continue
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                is_link = entry.is_symlink()
                if is_link:
                    target = Path(entry.path).resolve()
                    if not target.is_relative_to(root):
                        files.diagnostics.append(
                            Diagnostic(rel, 0, "symlink points outside the repository; not followed", "input")
                        )
                        continue
                    if target.is_dir():
                        continue  # directory symlinks are never followed (loops)
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if entry.name in SKIP_DIRS or entry.name.endswith(".egg-info"):
                    continue
                if _is_virtualenv(Path(entry.path)):  # whatever its name (`env/` is often a package of RL code)
                    continue
                if ignore.ignored(rel, True) or _excluded(rel, settings.exclude):
                    continue
                stack.append(rel)
                continue
            if ignore.ignored(rel, False) or _excluded(rel, settings.exclude):
                continue
            suffix = os.path.splitext(entry.name)[1]
            if suffix == ".py":
                files.python.append(rel)
            elif suffix in OTHER_SUFFIXES or entry.name.startswith("README") or entry.name in _MAKEFILES:
                files.other.append(rel)
            elif is_dockerfile(entry.name) or (not suffix and _has_shell_shebang(entry.path)):
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

"""Read a git revision into a temporary folder without touching the user's checkout.

Only read-only plumbing runs (``rev-parse``, ``archive``): no checkout, no index
write, no hook. Refs are validated before they reach git (no leading ``-``, no shell
metacharacters), passed as list arguments (never through a shell), and resolved to
a commit id first, so an option-looking or odd ref can never be read as a flag.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import tarfile
from pathlib import Path

_REF = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./@{}~^+-]{0,254}$")
_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
GIT_TIMEOUT = 300


class GitError(Exception):
    """A git problem the user can fix (not a repo, unknown ref...)."""


def check_ref(ref: str) -> str:
    if not ref or ref.startswith("-") or not _REF.match(ref) or ".." in ref or "@{" in ref and not ref.endswith("}"):
        raise GitError(f"{ref!r}: not an acceptable git ref (letters, digits and ._/@{{}}~^+- only, not starting "
                       f"with '-'); pass a branch, tag or commit id")
    return ref


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"})
    return env


def _git(cwd: Path, *args: str, binary: bool = False) -> bytes | str:
    try:
        proc = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, timeout=GIT_TIMEOUT,
                              env=_env(), stdin=subprocess.DEVNULL, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed; install git to compare revisions") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took over {GIT_TIMEOUT} s; try a smaller PATH") from None
    if proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(msg[-1] if msg else f"git {args[0]} failed")
    return proc.stdout if binary else proc.stdout.decode("utf-8", "replace")


def repo_prefix(path: Path) -> tuple[Path, str]:
    """(top-level folder of the repository holding ``path``, path of ``path`` inside it)."""
    if not path.is_dir():
        raise GitError(f"{path}: not a directory; pass a folder inside a git repository")
    try:
        top = str(_git(path, "rev-parse", "--show-toplevel")).strip()
        prefix = str(_git(path, "rev-parse", "--show-prefix")).strip()
    except GitError as exc:
        raise GitError(f"{path}: not inside a git repository ({exc})") from None
    return Path(top), prefix.rstrip("/")


def resolve(top: Path, ref: str) -> str:
    check_ref(ref)
    try:
        sha = str(_git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")).strip()
    except GitError:
        sha = ""
    if not _SHA.match(sha):
        raise GitError(f"{ref}: unknown revision in {top}; fetch it first (e.g. `git fetch upstream`) or pass a "
                       f"commit id")
    return sha


def export(top: Path, sha: str, prefix: str, dest: Path) -> Path:
    """Write the tree of commit ``sha`` (under ``prefix``) into ``dest``; returns the folder to analyze."""
    if not _SHA.match(sha):
        raise GitError(f"{sha}: not a commit id")
    args = ["archive", "--format=tar", sha]
    if prefix:
        args += ["--", prefix]
    data = _git(top, *args, binary=True)
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
        members = [m for m in tar.getmembers() if (m.isfile() or m.isdir()) and _safe(m.name)]
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, members=members, filter="data")
        else:  # pragma: no cover - Python without extraction filters
            tar.extractall(dest, members=members)  # noqa: S202 - names checked by _safe
    out = dest / prefix if prefix else dest
    out.mkdir(parents=True, exist_ok=True)
    return out


def _safe(name: str) -> bool:
    parts = Path(name).parts
    return not name.startswith("/") and ".." not in parts

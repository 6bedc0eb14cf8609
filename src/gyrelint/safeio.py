"""Reading input that a hostile repository or log may have planted.

Every file gyrelint reads from an analyzed repo (Python, pyproject, READMEs, launchers,
configs) or from a user-given log goes through :func:`read_input`, so one place decides
what a readable input is:

* a regular file, nothing else: a FIFO or a device named ``x.py`` would block the run or
  never end, so the file is opened non-blocking and checked with ``fstat`` on the opened
  descriptor (no race between the check and the read);
* inside the root it was found under, when a root is given: a symlink planted in the repo
  that points at ``~/.ssh/id_rsa`` would otherwise carry its content into a public report;
* at most ``limit`` bytes: a larger file is refused, never read in part.

Errors are :class:`InputFileError` (an ``OSError``) with a short reason a diagnostic can
show as it is.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class InputFileError(OSError):
    """A path that is not a readable input file; ``reason`` says why in a few words."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(reason)
        self.path = os.fspath(path)
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


def file_kind(mode: int) -> str:
    """What a non-regular file is, in a few words for a diagnostic (``a FIFO``, ``a device``...)."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def inside(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """Whether ``path``, all symlinks followed, stays under ``root`` (also resolved)."""
    try:
        real_root = os.path.realpath(root, strict=True)
        real = os.path.realpath(path, strict=True)
    except (OSError, RuntimeError, ValueError):  # a loop, a dangling link, a NUL byte
        return False
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def read_input(path: str | os.PathLike[str], limit: int, root: str | os.PathLike[str] | None = None) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit`` of them), or InputFileError."""
    if not os.path.lexists(path):
        raise InputFileError(path, "no such file")
    if root is not None and not inside(root, path):
        raise InputFileError(path, "a symlink that leaves the repository, or a symlink loop; not read")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == getattr(os, "ELOOP", -1):
            raise InputFileError(path, "a symlink loop; not read") from exc
        raise InputFileError(path, f"unreadable ({exc.strerror or exc.__class__.__name__})") from exc
    except ValueError as exc:  # a NUL byte in the name
        raise InputFileError(path, "a file name gyrelint cannot open") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(path, f"{file_kind(st.st_mode)}, not a regular file; skipped")
        if st.st_size > limit:
            raise InputFileError(path, f"larger than {limit} bytes ({st.st_size}); skipped")
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(limit + 1)
    except InputFileError:
        raise
    except OSError as exc:
        raise InputFileError(path, f"unreadable ({exc.strerror or exc.__class__.__name__})") from exc
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew while we read
        raise InputFileError(path, f"larger than {limit} bytes; skipped")
    return data


def read_input_text(path: str | os.PathLike[str], limit: int, root: str | os.PathLike[str] | None = None) -> str:
    """:func:`read_input` decoded as UTF-8, undecodable bytes replaced."""
    return read_input(path, limit, root).decode("utf-8", errors="replace")


def is_regular(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (not following a final symlink) is a regular file; never opens it."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False


__all__ = ["InputFileError", "file_kind", "inside", "is_regular", "read_input", "read_input_text", "write_output"]


# -- writing where a hostile repo may have planted a symlink ---------------------------------------
# ``gyrelint report . -o report/``, ``map -o docs/map.svg`` or a baseline often target a file inside
# the analyzed repo; a repo that ships ``report/index.html -> ~/.bashrc`` must not get that file
# overwritten. The output goes to a fresh temporary file next to the target (created exclusively,
# never through a link) and is renamed over the target name, which replaces a symlink itself
# instead of following it.


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_output(path: str | os.PathLike[str], data: bytes | str) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` without following a symlink at ``path``."""
    target = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    if target.is_dir() and not target.is_symlink():
        raise IsADirectoryError(21, "is a folder", str(target))
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:40]}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return target

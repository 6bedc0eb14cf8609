"""Writing a report file where a hostile repo may have planted a symlink.

``gyrelint report . -o report/`` or ``map -o docs/map.svg`` often targets a folder inside the
analyzed repo; a repo that ships ``report/index.html -> ~/.bashrc`` must not get that file
overwritten. The output is written to a fresh temporary file next to the target (created
exclusively, never through a link) and renamed over the target name, which replaces a
symlink itself instead of following it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


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

"""A digest of gyrelint's own source, so caches never outlive the code that wrote them.

A version number alone is not enough: an editable install or a fork changes the code
without changing the version, and a stale cache would then give stale answers.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from . import __version__

_PACKAGE = Path(__file__).resolve().parent


@functools.cache
def code_digest(subpackage: str = "") -> str:
    """``<version>+<digest>`` of the .py files of the package (or one subpackage)."""
    base = _PACKAGE / subpackage if subpackage else _PACKAGE
    h = hashlib.sha256()
    for path in sorted(base.rglob("*.py")):
        if "demo" in path.relative_to(_PACKAGE).parts:
            continue
        try:
            h.update(str(path.relative_to(_PACKAGE)).encode() + b"\0" + path.read_bytes())
        except OSError:
            continue
    return f"{__version__}+{h.hexdigest()[:16]}"

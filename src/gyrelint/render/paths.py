"""Where a printed path starts: the one mapping from a repo-relative file to what the user opens.

The analysis keeps every file relative to the analyzed root (fingerprints, baselines and the
JSON contract depend on that). A person or an editor opens paths from the folder they stand
in, so every human-facing renderer prints ``paths.show(file)``: ``gyrelint check sub/demo``
prints ``sub/demo/minirl/main.py``. The prefix is computed once per run, not per file or per
renderer, so two outputs of one run never disagree on a path.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..model import Diagnostic


@dataclass(frozen=True, slots=True)
class PathContext:
    """How repo-relative files are shown: ``prefix`` + file (``""`` keeps them repo-relative)."""

    prefix: str = ""

    def show(self, file: str) -> str:
        """The file as the user opens it from where gyrelint ran. Absolute names (a ``--config``
        outside the repo, a log file) and empty ones are shown as they are."""
        if not file or not self.prefix or os.path.isabs(file):
            return file
        if file == os.curdir:  # the root itself
            return self.prefix.rstrip("/") or "/"
        return self.prefix + file

    def loc(self, file: str, line: int) -> str:
        """``file:line``, or the file alone when there is no line."""
        shown = self.show(file)
        return f"{shown}:{line}" if line else shown

    def diagnostic(self, d: Diagnostic) -> str:
        """An input problem as ``file:line: message`` (``str(d)`` with the file shown)."""
        return f"{self.loc(d.file, d.line)}: {d.message}"


REPO_RELATIVE = PathContext()

# ``minirl/main.py:49`` inside a sentence built by a stage (topology reasons, rule messages):
# a relative path with a source or config suffix and a line, not part of a URL or an absolute path
_PROSE_LOC = re.compile(r"(?<![\w/.:~-])((?:[\w.-]+/)*[\w.-]+\.(?:py|pyi|ya?ml|json|toml|cfg|ini|sh)):(\d+)\b")


def prose(paths: PathContext, text: str) -> str:
    """A stage's sentence with its ``file:line`` mentions shown like every other path of the run.

    Stages build some messages before anyone knows where the user stands; they name files
    repo-relative. Only ``relative/path.ext:N`` tokens with a code or config suffix are
    mapped, so a URL (``http://host:8000``) or an absolute path stays as written."""
    if not paths.prefix or not text:
        return text
    return _PROSE_LOC.sub(lambda m: paths.loc(m.group(1), int(m.group(2))), text)


def root_prefix(root: str | Path, cwd: str | Path) -> str:
    """What to put before a repo-relative file so that it opens from ``cwd``: ``""`` when the
    root is the cwd, ``sub/demo/`` below it, else the shorter of ``../other/`` and the absolute
    root (the relative one on a tie), so the choice depends only on the two folders."""
    root_abs = os.path.abspath(root)
    try:
        rel = os.path.relpath(root_abs, os.path.abspath(cwd))
    except ValueError:  # another drive (Windows): only the absolute path opens
        rel = root_abs
    if rel == os.curdir:
        return ""
    choice = rel if not rel.startswith(os.pardir) or len(rel) <= len(root_abs) else root_abs
    return Path(choice).as_posix().rstrip("/") + "/"


def path_context(root: str | Path, cwd: str | Path | None = None, root_relative: bool = False) -> PathContext:
    """The context of one run: paths from ``cwd`` (default: the current folder), or repo-relative
    with ``root_relative`` (``--root-relative``, the behaviour before paths followed the cwd)."""
    if root_relative:
        return REPO_RELATIVE
    if cwd is None:
        try:
            cwd = Path.cwd()
        except OSError:  # the current folder was deleted under us: nothing opens from it
            return PathContext(Path(os.path.abspath(root)).as_posix().rstrip("/") + "/")
    return PathContext(root_prefix(root, cwd))

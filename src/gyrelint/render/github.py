"""GitHub Actions workflow commands: one ``::error file=..,line=..::msg`` annotation per finding.

Every line starts with gyrelint's own ``::command``; repo text is percent-encoded so it can
neither end the line nor smuggle in another command (``escape.github_data``)."""

from __future__ import annotations

from ..escape import github_data as _data
from ..escape import github_property as _prop
from ..model import Finding
from .paths import REPO_RELATIVE, PathContext, prose

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def render_github(findings: list[Finding], paths: PathContext = REPO_RELATIVE) -> str:
    """``paths``: Actions resolves ``file=`` from the workspace root, the cwd of the step."""
    lines = []
    for f in findings:
        cmd = _COMMAND[f.severity.value]
        message = prose(paths, f.message)
        msg = f"{message}. What to do: {f.fix}" if f.fix else message
        lines.append(f"::{cmd} file={_prop(paths.show(f.file))},line={max(f.line, 1)},title={_prop(f.rule)}::{_data(msg)}")
    return "\n".join(lines) + ("\n" if lines else "")

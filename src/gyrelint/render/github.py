"""GitHub Actions workflow commands: one ``::error file=..,line=..::msg`` annotation per finding."""

from __future__ import annotations

from ..model import Finding

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(findings: list[Finding]) -> str:
    lines = []
    for f in findings:
        cmd = _COMMAND[f.severity.value]
        msg = f"{f.message}. What to do: {f.fix}" if f.fix else f.message
        lines.append(f"::{cmd} file={_prop(f.file)},line={max(f.line, 1)},title={_prop(f.rule)}::{_data(msg)}")
    return "\n".join(lines) + ("\n" if lines else "")

"""Placeholder wiring; the rule catalog replaces this."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import Finding
from ..settings import Settings

if TYPE_CHECKING:
    from ..api import Analysis


def run_rules(analysis: Analysis, settings: Settings) -> list[Finding]:
    return []

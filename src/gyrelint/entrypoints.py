"""Stage 2: where runs start. Placeholder wiring; the entry-point finder replaces this."""

from __future__ import annotations

from .index import Index
from .model import Diagnostic, EntryPoint
from .settings import Settings


def find_entry_points(index: Index, settings: Settings) -> tuple[list[EntryPoint], list[Diagnostic]]:
    out = []
    for s in index.summaries.values():
        if s.main_guard_line:
            out.append(EntryPoint(s.module, s.path, "main-guard", s.path, s.main_guard_line))
    return out, []

"""docs/signals.md is generated from the catalog and must match it."""

from pathlib import Path

from gyrelint.semantics.catalog import SIGNALS
from gyrelint.semantics.catalog_doc import render

DOC = Path(__file__).resolve().parent.parent / "docs" / "signals.md"


def test_signals_doc_is_current():
    assert DOC.read_text(encoding="utf-8").rstrip("\n") == render().rstrip("\n"), (
        "docs/signals.md is stale: run python -m gyrelint.semantics.catalog_doc > docs/signals.md")


def test_every_signal_documented_once():
    text = render()
    for s in SIGNALS:
        assert text.count(f"| `{s.id}` |") == 1, s.id

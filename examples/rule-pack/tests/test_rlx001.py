"""RLX001's own bad/good examples through gyrelint's pipeline, as gyrelint tests its built-ins."""

from __future__ import annotations

from pathlib import Path

import pytest
from gyrelint_rlx.rlx001_sample_with_grad import SampleWithGrad as RULE

from gyrelint.api import analyze
from gyrelint.rules.catalog import by_id
from gyrelint.rules.docs import render_rule_doc
from gyrelint.settings import Settings

DOCS = Path(__file__).resolve().parents[1] / "docs"
CASES = [("bad", i) for i in range(len(RULE.bad))] + [("good", i) for i in range(len(RULE.good))]


def test_the_pack_is_registered():
    assert by_id().get(RULE.id) is RULE, "install the pack (pip install -e .) so gyrelint discovers it"


@pytest.mark.parametrize("which,i", CASES, ids=[f"{w}{i}" for w, i in CASES])
def test_examples(which: str, i: int, tmp_path: Path):
    example = (RULE.bad if which == "bad" else RULE.good)[i]
    for rel, text in example.files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    hits = [f for f in analyze(tmp_path, Settings(use_cache=False, jobs=1)).findings if f.rule == RULE.id]
    if which == "bad":
        assert hits, f"{RULE.id} did not fire on its bad example ({example.note})"
        assert all(f.fix and f.evidence and f.file in example.files for f in hits)
    else:
        assert not hits, [f.message for f in hits]


def test_docs_page_is_current():
    assert (DOCS / f"{RULE.id}.md").read_text(encoding="utf-8") == render_rule_doc(RULE), (
        "regenerate docs/RLX001.md from the rule (see README.md)")

"""Every catalog signal's examples, run through the whole pipeline.

Each example is a small module defining ``target`` (or the function named in a
``# gyrelint-example-target: NAME`` comment); a must-match example has to give
``target`` the signal as its own evidence, a must-not-match example must not.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gyrelint.api import analyze
from gyrelint.semantics.catalog import SIGNALS
from gyrelint.semantics.signals import HANDOFF, NEUTRAL, SAMPLING, TRAINING, TRAJECTORY, WEIGHT_SYNC

_TARGET = re.compile(r"#\s*gyrelint-example-target:\s*([\w.]+)")


def _target_name(src: str) -> str:
    m = _TARGET.search(src)
    return m.group(1) if m else "target"


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory):
    root: Path = tmp_path_factory.mktemp("catalog")
    cases = []
    for i, sig in enumerate(SIGNALS):
        for tag, examples in (("m", sig.examples_match), ("n", sig.examples_nomatch)):
            for j, src in enumerate(examples):
                mod = f"ex_{i:03d}_{tag}_{j}"
                (root / f"{mod}.py").write_text(src, encoding="utf-8")
                cases.append((sig.id, tag == "m", mod, _target_name(src)))
    result = analyze(root, use_cache=False, jobs=1, run_rules=False)
    return result, cases




def test_catalog_is_big_enough_and_well_formed():
    ids = [s.id for s in SIGNALS]
    assert len(ids) == len(set(ids)), "duplicate signal ids"
    assert len(SIGNALS) >= 40
    for s in SIGNALS:
        assert s.side in (SAMPLING, TRAINING, HANDOFF, NEUTRAL), s.id
        assert (s.kind in (TRAJECTORY, WEIGHT_SYNC)) == (s.side == HANDOFF), s.id
        assert s.rationale and "\n" not in s.rationale, s.id
        assert s.examples_match and s.examples_nomatch, f"{s.id} needs examples both ways"
        assert s.calls or s.methods or s.body, s.id
    sides = {s.side for s in SIGNALS}
    assert sides == {SAMPLING, TRAINING, HANDOFF, NEUTRAL}


def test_every_example(example_run):
    from gyrelint.semantics.tag import tag

    result, cases = example_run
    sem = tag(result.index, result.graphs, result.settings)
    failures = []
    for sid, must, mod, name in cases:
        cands = [q for q in sem.sides if q == f"{mod}.{name}" or q.startswith(f"{mod}.") and q.endswith(f".{name}")]
        assert cands, f"{mod}: no function {name!r} indexed"
        got = {m.signal.id for q in cands for m in sem.sides[q].own_matches}
        if must and sid not in got:
            failures.append(f"{sid}: must match {mod}.py (got {sorted(got)})")
        if not must and sid in got:
            failures.append(f"{sid}: must not match {mod}.py")
    assert not failures, "\n".join(failures)

"""Every fuzz target of bench/fuzz.py (index, light paths, config readers, log reader, cache decoder)
runs in CI with a fixed budget: one derandomized round of inputs each, so a crash that a change
brings back fails the build. The long, random runs stay in bench/fuzz.py."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("gyrelint_bench_fuzz", ROOT / "bench" / "fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = fuzz
_spec.loader.exec_module(fuzz)

TARGETS = {t.name: t for t in fuzz.targets()}
EXAMPLES = 150  # per target: about a second each on 2 cores


def test_every_untrusted_reader_has_a_target():
    assert set(TARGETS) >= {"parse/index", "parse/index, light paths", "config readers", "log reader", "cache decoder"}


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_target_survives_a_fixed_budget(name: str):
    target = TARGETS[name]
    fuzz._property(target, examples=EXAMPLES, derandomize=True)()
    assert target.tried >= EXAMPLES // 2  # hypothesis may stop early on a small input space, never at zero
    assert not target.crashes, target.crashes[0][1]

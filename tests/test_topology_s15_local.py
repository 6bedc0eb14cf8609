"""Process verdicts from code patterns the earlier passes missed (session 15).

Each fixture is a small repo of made-up names under ``tests/fixtures/`` written for one pattern."""

from __future__ import annotations

from pathlib import Path

from gyrelint.api import analyze

FIX = Path(__file__).parent / "fixtures"


def _analyze(name: str):
    return analyze(FIX / name, use_cache=False, jobs=1, run_rules=False)


def test_weights_read_by_a_state_dict_getter_into_an_in_process_engine_are_one_process():
    """A Ray-hosted hybrid worker reads its sharded module's weights with the distributed checkpoint
    API's getter (``get_model_state_dict(self.module)``, no method of the module) and loads them into
    the model of the engine the same instance holds: generation and the update share a process, so
    the Ray actors only host copies of it."""
    a = _analyze("topology_getter_load")
    local = [e for e in a.topology.code_evidence if e.signal == "engine-local-load"]
    assert local and local[0].file == "kestrel/hybrid.py"
    assert "self.module" in local[0].detail and "self.engine" in local[0].detail
    assert a.topology.verdict == "same-process"

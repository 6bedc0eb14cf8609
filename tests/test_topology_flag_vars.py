"""A shell variable that holds a flag itself (``OFFLOAD="--offload"``, later ``$OFFLOAD`` on the command
line) is that flag: one entry, not an upper-case twin."""

from pathlib import Path

from gyrelint.api import analyze

FIXTURE = Path(__file__).parent / "fixtures" / "topology_flag_vars"


def test_a_variable_holding_a_flag_folds_into_the_flag():
    keys = [e for e in analyze(FIXTURE).topology.keys if not e.scope]
    names = sorted(e.name for e in keys)
    assert names == ["--colocate_engine", "--offload"]
    assert all(e.file == "tidepool/main.py" for e in keys)

"""Environment variables read through a loop over a literal list of their names are keys."""

from pathlib import Path

from test_topology_entries import run

FIX = Path(__file__).parent / "fixtures" / "topology_env_loop"


def test_env_reads_over_a_literal_list_of_names_are_keys():
    topo = run(FIX)
    got = {e.name: e for e in topo.keys if not e.scope}
    assert {"RDV_HEAD_ADDR", "RDV_HEAD_PORT", "POOL_NUM_NODES", "POOL_NODE_RANK"} <= set(got), sorted(got)
    assert got["RDV_HEAD_ADDR"].file == "pkg/launch.py"

"""YAML sections splatted into constructors: a key is the constructor's parameter, classed by its use there."""

import shutil
from dataclasses import replace
from pathlib import Path

from gyrelint.graphs.model import Graphs
from gyrelint.index import build_index
from gyrelint.settings import load_settings
from gyrelint.topology import analyze_topology

FIXTURE = Path(__file__).parent / "fixtures" / "topology_yaml_splat"
# dotted YAML path → class its constructor parameter earns by use
LISTED = {"pool.args.n_lanes": "process", "learner.args.put_on": "process"}
ABSENT = ("pool.args.horizon", "learner.args.learning_rate")  # plain parameters: decide nothing


def test_yaml_section_splatted_into_a_constructor_is_classed_by_the_parameter_use(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    settings, _ = load_settings(root)
    settings = replace(settings, use_cache=False, jobs=1)
    topo, _diags = analyze_topology(build_index(root, settings), Graphs(), settings)
    got = {e.name: e for e in topo.keys}
    for name, cls in LISTED.items():
        assert name in got, (name, sorted(got))
        assert got[name].cls == cls, (name, got[name].cls)
        assert "parameter" in got[name].evidence, got[name].evidence
    for name in ABSENT:
        assert name not in got, name
    assert sum(1 for e in topo.keys if e.name == "pool.args.n_lanes") == 1

"""Config sections that reach a constructor through a class registry, a dict merge or ``.update``, an
instance attribute and a helper call: the key is classed by what the constructor parameter ends up doing."""

from pathlib import Path

from gyrelint.api import analyze

FIXTURE = Path(__file__).parent / "fixtures" / "topology_splat_registry"
# dotted YAML path -> class its constructor parameter earns by use
LISTED = {"scorer.args.place": "process", "solver.args.lanes": "process"}
ABSENT = ("scorer.args.window", "solver.args.rate")  # plain parameters: decide nothing


def test_sections_reaching_constructors_through_registries_and_merges_are_classed_by_use():
    a = analyze(FIXTURE, use_cache=False, jobs=1, run_rules=False)
    got = {e.name: e for e in a.topology.keys}
    for name, cls in LISTED.items():
        assert name in got, (name, sorted(got))
        assert got[name].cls == cls, (name, got[name].cls)
        assert "parameter" in got[name].evidence, got[name].evidence
        assert not got[name].scope, got[name].scope  # the launcher's YAML file is read by the run
    for name in ABSENT:
        assert name not in got or got[name].scope, name
    assert sum(1 for e in a.topology.keys if e.name == "scorer.args.place") == 1


def test_a_parameter_no_config_file_sets_is_a_key_of_the_section_splatted_into_its_constructor():
    a = analyze(FIXTURE, use_cache=False, jobs=1, run_rules=False)
    got = {e.name: e for e in a.topology.keys}
    assert "solver.args.pin" in got, sorted(got)  # FastSolver(pin=...) places a tensor; the YAML leaves it out
    e = got["solver.args.pin"]
    assert (e.cls, e.file, e.value, e.scope) == ("process", "quartz/solvers.py", "cpu", ""), e
    assert "solver.args.rate" not in got  # a plain parameter

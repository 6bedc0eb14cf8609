"""A plugin's constructor that takes the parsed YAML as ``train_config: dict`` (a callback a training
framework builds "with config") reads the run's keys, although no repo call site hands it a config."""

from pathlib import Path

from test_topology_entries import run

FIX = Path(__file__).parent / "fixtures" / "topology_dict_config"


def listed(topo):
    return {e.name: e for e in topo.keys if not e.scope}


def test_reads_on_a_dict_typed_config_of_a_constructor_are_keys():
    got = listed(run(FIX))
    assert "variables.engine_tensor_parallel_size" in got, sorted(got)
    tp = got["variables.engine_tensor_parallel_size"]
    assert (tp.file, tp.line) == ("pkg/loop.py", 7)
    assert "tensor_parallel_size" not in got  # an unannotated model config may be the model's own

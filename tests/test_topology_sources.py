"""Every config source kind yields dotted keys with value, file and line (fixture topology_cross)."""

from dataclasses import replace
from pathlib import Path

import pytest

from gyrelint.graphs.model import Graphs
from gyrelint.index import build_index
from gyrelint.settings import load_settings
from gyrelint.topology import analyze_topology

FIXTURES = Path(__file__).parent / "fixtures"


def run(root: Path, **overrides):
    settings, _ = load_settings(root)
    settings = replace(settings, use_cache=False, jobs=1, **overrides)
    index = build_index(root, settings)
    return analyze_topology(index, Graphs(), settings)


@pytest.fixture(scope="module")
def cross():
    topo, diags = run(FIXTURES / "topology_cross")
    keys = {(k.key, k.file): k for k in topo.config_keys}
    return topo, diags, keys


def line_of(path: Path, needle: str) -> int:
    for no, text in enumerate(path.read_text().splitlines(), 1):
        if needle in text:
            return no
    raise AssertionError(needle)


@pytest.mark.parametrize(("key", "file", "cls", "value", "source", "needle"), [
    # YAML with Hydra composition: rollout/engine.yaml is mounted at actor.rollout
    ("trainer.nnodes", "conf/config.yaml", "process", "2", "yaml", "nnodes: 2"),
    ("actor.rollout.tensor_model_parallel_size", "conf/rollout/engine.yaml", "process", "2", "yaml", "tensor_model"),
    ("actor.rollout.server.port", "conf/rollout/engine.yaml", "port", "8000", "yaml", "port: 8000"),
    ("actor.master_port", "conf/config.yaml", "port", "${oc.env:MASTER_PORT,29500}", "yaml", "master_port"),
    ("name_resolve.type", "conf/config.yaml", "comm", "nfs", "yaml", "type: nfs"),
    # TOML / JSON / INI / .env
    ("server.port", "settings.toml", "port", "1234", "toml", "port = 1234"),
    ("router.url", "endpoints.json", "port", "http://localhost:30000", "json", '"url"'),
    ("dist.backend", "dist.ini", "comm", "nccl", "ini", "backend"),
    ("dist.world_size", "dist.ini", "process", "4", "ini", "world_size"),
    ("REDIS_PORT", ".env", "port", "6379", "env", "REDIS_PORT"),
    # launch script: export, shell variable, Hydra overrides, --flag value, --flag=value
    ("MASTER_ADDR", "scripts/run.sh", "port", "10.0.0.1", "env", "export MASTER_ADDR"),
    ("NNODES", "scripts/run.sh", "process", "2", "script", "NNODES=2"),
    ("actor.rollout.num_engines", "scripts/run.sh", "process", "4", "hydra-override", "python -m"),
    ("trainer.nnodes", "scripts/run.sh", "process", "$NNODES", "hydra-override", "python -m"),
    ("vllm.num_engines", "scripts/run.sh", "process", "4", "script", "python -m"),
    ("router-port", "scripts/run.sh", "port", "9000", "script", "python -m"),
    # Python: argparse through helpers, argument groups, a prefixing wrapper and dotted flags; click
    ("num-nodes", "rlpkg/args.py", "process", "1", "argparse", "--num-nodes"),
    ("master_addr", "rlpkg/args.py", "port", "127.0.0.1", "argparse", "--master_addr"),
    ("vllm.num_engines", "rlpkg/args.py", "process", "2", "argparse", 'add("num_engines"'),
    ("vllm.tensor_parallel_size", "rlpkg/args.py", "process", "1", "argparse", "--vllm.tensor"),
    ("server-port", "rlpkg/args.py", "port", "8080", "click", "--server-port"),
    ("shm-dir", "rlpkg/args.py", "comm", "/dev/shm/x", "click", "--shm-dir"),
    # dataclasses (nested), OmegaConf structured, pydantic
    ("rollout.num_engines", "rlpkg/config.py", "process", "4", "dataclass", "num_engines: int"),
    ("rollout.server_port", "rlpkg/config.py", "port", "30000", "dataclass", "server_port"),
    ("world_size", "rlpkg/config.py", "process", "8", "dataclass (OmegaConf)", "world_size"),
    ("endpoint", "rlpkg/config.py", "port", "http://10.0.0.2:8000/v1", "pydantic", "endpoint"),
    ("replicas", "rlpkg/config.py", "process", "2", "pydantic", "replicas"),
    # field(default=...) defaults are read from the field's own lines; a value can decide the class
    ("host_ip", "rlpkg/config.py", "port", "10.0.0.3", "dataclass", "host_ip"),
    ("backend", "rlpkg/config.py", "comm", "gloo", "dataclass", "backend: str = field"),
    # a prefixing helper imported from another module
    ("sampler-port", "rlpkg/args.py", "port", "30000", "argparse", "add_rollout_args(parser"),
])
def test_source(cross, key, file, cls, value, source, needle):
    _topo, _diags, keys = cross
    k = keys.get((key, file))
    assert k is not None, f"{key} from {file} missing; got {sorted(x for x, f in keys if f == file)}"
    assert (k.cls, k.value, k.source) == (cls, value, source)
    assert k.line == line_of(FIXTURES / "topology_cross" / file, needle)
    assert k.reason


def test_unclassified_keys_are_not_reported(cross):
    _topo, _diags, keys = cross
    names = {k for k, _f in keys}
    # ``actor.lora_rank`` is set in a config and read by no weight push or role switch: a matrix rank, no knob
    # of the layout (a LoRA rank the weight push reads is one: tests/test_topology_adapter_use.py)
    for absent in ("trainer.report_to", "trainer.transport_lr", "actor.lora_rank", "report_to", "temperature",
                   "rollout.temperature", "defaults", "verbose", "num_workers"):
        assert absent not in names


def test_fixture_is_clean(cross):
    _topo, diags, _keys = cross
    assert diags == []


def test_config_class_fields_take_their_own_line_and_field_default(tmp_path: Path) -> None:
    """The line and default of a field come from the field itself, never from a docstring
    line that looks like one (``cp: context parallel size``)."""
    (tmp_path / "cfg.py").write_text(
        "from dataclasses import dataclass, field\n\n\n"
        "@dataclass\n"
        "class ParallelConfig:\n"
        '    """Sizes.\n\n'
        "    Attributes:\n"
        "        tensor_parallel_size: devices per tensor-parallel group\n"
        "        master_port: where rank 0 listens\n"
        '    """\n\n'
        "    tensor_parallel_size: int = field(\n"
        '        default=2, metadata={"help": "tp"}\n'
        "    )\n"
        "    master_port: int = 29511\n")
    topo, _ = run(tmp_path)
    keys = {k.key: (k.line, k.value) for k in topo.config_keys}
    assert keys["tensor_parallel_size"] == (13, "2")
    assert keys["master_port"] == (16, "29511")

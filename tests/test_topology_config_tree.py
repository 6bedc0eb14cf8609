"""Nested config classes: every leaf field of a pydantic / dataclass config tree is one key under the path a user
types, spelled as the library that parses it spells it, with its type resolved through the symbol table (also
across the packages of a workspace)."""

from pathlib import Path

import libcst as cst
from test_topology_entries import run

from gyrelint.index.extract import extract

FIXTURES = Path(__file__).parent / "fixtures"


def entries(topo):
    return {e.name: e for e in topo.keys if not e.scope}


def test_the_index_keeps_every_class_an_annotation_names():
    src = ("class C(BaseModel):\n"
           "    a: Annotated[Inference | None, Field(description='x')] = None\n"
           "    b: Annotated[FileB | NcclB, Field(discriminator='type')]\n"
           "    c: list[Worker]\n"
           "    d: Optional[Client] = None\n"
           "    e: Literal['x', 'y'] = 'x'\n"
           "    f: dict[str, int] = {}\n"
           "    g: Plain = Plain()\n")
    s = extract(cst.parse_module(src), "m.py", "m", False)
    got = dict(s.classes[0].field_types)
    # sparse: ``Optional[Client]`` and ``Plain`` are what the field's annotation text already says
    assert got == {"a": ("Inference",), "b": ("FileB", "NcclB"), "c": ("Worker",)}
    assert [f.annotation for f in s.classes[0].fields if f.name in ("d", "g")] == ["Client", "Plain"]


def test_a_pydantic_settings_tree_across_workspace_packages_is_keyed_by_its_cli_path():
    topo = run(FIXTURES / "topology_workspace")
    got = entries(topo)
    # Annotated[InferenceConfig | None, Field(...)] nests; the class comes from another file of the config package
    tp = got["--inference.parallel.tp"]
    assert (tp.cls, tp.default, tp.value, tp.type) == ("process", "1", "2", "int")
    assert tp.file == "packages/rlconf/src/rlconf/inference.py" and tp.uses == 1  # the launcher's flag folds in
    # cli_kebab_case: the user types dashes
    lag = got["--orchestrator.max-async-level"]
    assert (lag.cls, lag.default, lag.value) == ("layout", "2", "1")
    assert got["--orchestrator.client.base-url"].cls == "port"  # Optional[ClientConfig]
    # a discriminated union: both members' fields under the one path, folded per key
    broadcast = got["--weight-broadcast.type"]
    assert broadcast.cls == "comm" and broadcast.uses == 1
    assert got["--trainer.fsdp-cpu-offload"].cls == "layout"
    # env_prefix + env_nested_delimiter: the env var a script exports is the same field
    port = got["--inference.server.port"]
    assert (port.value, port.default) == ("8001", "8000")
    assert "RL_INFERENCE__SERVER__PORT" in port.aliases
    assert "RL_INFERENCE__SERVER__PORT" not in got
    # nothing un-nested, and the other package's InferenceConfig (an eval client) is not mounted
    names = {e.name.lstrip("-") for e in topo.keys}
    assert not {"tp", "dp", "port", "host", "parallel.tp", "type"} & names
    assert not any("eval_" in n for n in names)
    assert len(names) == len(topo.keys)  # one entry per key


def test_dataclass_trees_parsed_by_tyro_draccus_and_hfargumentparser():
    got = entries(run(FIXTURES / "topology_dataclass_cli"))
    # tyro: dotted, dashes for underscores; the field type comes from another module
    tp = got["--rollout.engine.tensor-parallel-size"]
    assert (tp.cls, tp.default, tp.file) == ("process", "1", "agentrl/engine_args.py")
    # the read on what tyro.cli returns folds into the field's entry as a use
    assert tp.uses == 1 and tp.where[0].file == "agentrl/train.py"
    assert got["--rollout.num-engines"].cls == "process"
    assert got["--rollout.engine.enable-sleep-mode"].cls == "layout"
    assert got["--learner.offload-optimizer"].cls == "layout"
    # draccus (a decorated entry point taking the config): dotted, underscores kept
    assert got["--server.port"].declared_as == "dataclass (CLI: draccus)"
    # HfArgumentParser: flat flags
    assert got["--vllm_server_port"].cls == "port"
    assert not {"tensor_parallel_size", "engine.tensor_parallel_size", "port"} & {e.name.lstrip("-") for e in got.values()}


def test_keys_that_pick_a_class_which_starts_processes_are_layout_keys():
    topo = run(FIXTURES / "topology_class_maps")
    got = entries(topo)
    # a YAML value looked up in a module-level map of classes; one of them launches a server
    provider = got["generation.provider"]
    assert provider.cls == "layout" and provider.value == "fast"
    assert provider.evidence == "selects a class that starts a server process (ServedEngine)"
    # ``MAP.get(args.x)`` on an argparse flag
    assert got["--sampler-kind"].evidence.startswith("selects a class that starts a server process")
    # a Hydra ``_target_`` naming a class that creates Ray actors
    target = got["orchestrator._target_"]
    assert target.cls == "layout" and target.evidence.endswith("starts Ray actors (ActorOrchestrator)")
    # targets of a library class or of a repo class that starts nothing choose no layout
    assert "optim._target_" not in got and "scorer._target_" not in got
    assert "generation.temperature" not in got


TYPED = {
    "lib/__init__.py": "",
    "lib/engine.py": ("from typing import TypedDict\n\n\n"
                      "class EngineArgs(TypedDict, total=False):\n"
                      "    tensor_parallel_size: int\n"
                      "    enable_sleep_mode: bool\n"),
    "lib/model.py": ("from typing import TypedDict\n\nfrom pydantic import BaseModel\n\nfrom lib.engine import EngineArgs\n\n\n"
                     "class InternalConfig(TypedDict, total=False):\n"
                     "    engine_args: 'EngineArgs'\n\n\n"
                     "class Model(BaseModel):\n"
                     "    name: str\n"
                     "    _internal_config: InternalConfig | None = None\n"),
    "lib/service.py": ("from dataclasses import dataclass\n\nfrom lib.model import InternalConfig\n\n\n"
                       "@dataclass\nclass Service:\n    config: InternalConfig\n"),
    "lib/server.py": ("from typing import TypedDict\n\nfrom lib.engine import EngineArgs\n\n\n"
                      "class ServerConfig(TypedDict, total=False):\n    engine_args: EngineArgs\n"),
}


def test_a_typed_dict_tree_reached_from_several_roots_is_one_entry_per_field(tmp_path):
    from repo_tree import write_tree

    topo = run(write_tree(tmp_path, TYPED))
    tp = [e for e in topo.keys if e.name.endswith("tensor_parallel_size")]
    # _internal_config (a private field holding a config tree), config, and the bare engine_args root
    assert len(tp) == 1 and tp[0].cls == "process" and tp[0].declared_as == "TypedDict"
    assert tp[0].file == "lib/engine.py" and tp[0].uses == 2
    assert len([e for e in topo.keys if e.name.endswith("enable_sleep_mode")]) == 1


def test_an_untagged_readme_command_loads_its_config_file(tmp_path):
    from repo_tree import write_tree

    root = write_tree(tmp_path, {
        "README.md": "Run:\n\n```\npython -m app.main --config app/grpo.yaml\n```\n\n```\nnot: a command\n```\n",
        "app/__init__.py": "",
        "app/main.py": "import sys\n\nimport yaml\n\ncfg = yaml.safe_load(open(sys.argv[2]))\n",
        "app/grpo.yaml": "trainer:\n  tensor_parallel_degree: 2\n",
        "app/other.yaml": "trainer:\n  pipeline_parallel_degree: 2\n",
    })
    topo = run(root)
    listed = {e.name: e for e in topo.keys if not e.scope}
    assert listed["trainer.tensor_parallel_degree"].value == "2"
    assert "trainer.pipeline_parallel_degree" not in listed  # no launcher names that file


def test_a_settings_base_class_gives_every_root_its_cli_and_env_spelling(tmp_path):
    from repo_tree import write_tree

    root = write_tree(tmp_path, {
        "conf/__init__.py": "",
        "conf/base.py": ("from pydantic_settings import BaseSettings, SettingsConfigDict\n\n\n"
                         "class BaseConfig(BaseSettings):\n"
                         "    model_config = SettingsConfigDict(cli_parse_args=True, cli_kebab_case=True,\n"
                         "                                      env_prefix='APP_', env_nested_delimiter='__')\n"),
        "conf/sections.py": ("from conf.base import BaseConfig\n\n\n"
                             "class ServerConfig(BaseConfig):\n    port: int = 8000\n\n\n"
                             "class OrchestratorConfig(BaseConfig):\n"
                             "    server: ServerConfig = ServerConfig()\n    max_async_level: int = 1\n"),
        "run.sh": "#!/bin/bash\nexport APP_SERVER__PORT=9000\npython -m conf.sections --max-async-level 2\n",
    })
    topo = run(root)
    got = entries(topo)
    port = got["--server.port"]  # nested: the section class is not a root of its own
    assert (port.cls, port.default, port.value) == ("port", "8000", "9000")
    assert got["--max-async-level"].value == "2"
    assert not {"--port", "port", "APP_SERVER__PORT"} & set(got)


def test_a_config_file_named_positionally_on_a_launch_line_is_loaded(tmp_path):
    from repo_tree import write_tree

    root = write_tree(tmp_path, {
        "launch.sh": "#!/bin/bash\nsky launch cluster/task.yaml -c dev -y\n",
        "cluster/task.yaml": "resources:\n  cloud: aws\nnum_nodes: 2\n",
        "cluster/unused.yaml": "num_nodes: 4\n",
    })
    topo = run(root)
    nodes = [e for e in topo.keys if e.name == "num_nodes"]
    assert len(nodes) == 1 and not nodes[0].scope and nodes[0].file == "cluster/task.yaml"


def test_two_fields_of_one_root_holding_the_same_class_stay_two_knobs(tmp_path):
    from repo_tree import write_tree

    root = write_tree(tmp_path, {
        "cfg.py": ("from dataclasses import dataclass, field\n\n\n"
                   "@dataclass\nclass EngineConfig:\n    backend: str = 'fsdp'\n    offload: bool = False\n\n\n"
                   "@dataclass\nclass RunConfig:\n"
                   "    actor: EngineConfig = field(default_factory=EngineConfig)\n"
                   "    ref: EngineConfig = field(default_factory=EngineConfig)\n"),
    })
    got = entries(run(root))
    assert {"actor.offload", "ref.offload"} <= set(got)
    assert got["actor.offload"].uses == 0 and got["ref.offload"].uses == 0


def test_a_field_seen_under_a_dict_section_folds_into_its_named_path_shown_in_full():
    from gyrelint.topology.entries import Occurrence, fold
    from gyrelint.topology.sources import RawKey

    def occ(key, root):
        return Occurrence(RawKey(key, "1", "pkg/rollout.py", 12, "dataclass", "RolloutConfig", "int", None, root),
                          ("process", "token 'nnodes'"))

    entries_, _flat, _folded = fold([occ("nnodes", "pkg.RolloutConfig"),
                                     occ("teacher_models.*.inference.nnodes", "pkg.DistillationConfig"),
                                     occ("distillation.teacher_models.math.inference.nnodes", "")])
    got = {e.name: e for e in entries_}
    # the ``*`` section matches the named one; the entry shows the fullest path
    assert got["distillation.teacher_models.math.inference.nnodes"].uses == 1
    assert "teacher_models.*.inference.nnodes" not in got
    assert got["nnodes"].uses == 0  # a root's own undotted field is not folded by declaration alone

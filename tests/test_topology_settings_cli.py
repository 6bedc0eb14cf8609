"""pydantic-settings command lines: a field is keyed by the name a user types — its ``Field(alias=...)`` (or the
first ``AliasChoices`` of ``validation_alias``) when it has one — with the default given positionally to
``Field``, and the TOML file ``model_config`` names is loaded config whose values fold into those keys."""

from repo_tree import write_tree
from test_topology_entries import run

CONF = '''from typing import Annotated

from pydantic import AliasChoices, BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class EngineConfig(BaseModel):
    max_model_len: int = Field(8192, alias="max-model-len")
    tensor_parallel: Annotated[int, Field(validation_alias=AliasChoices("tensor-parallel-size", "tp"))] = 1
    data_parallel_size: int = Field(1, description="engine replicas")
    gpu_memory_utilization: float = 0.9


class RLConfig(BaseSettings):
    model_config = SettingsConfigDict(cli_parse_args=True, cli_kebab_case=True, toml_file="configs/rl.toml")

    vllm: EngineConfig = EngineConfig()
    trainer_gpus: int = 1
'''


def test_aliases_positional_defaults_and_the_toml_file_of_a_settings_cli(tmp_path):
    topo = run(write_tree(tmp_path, {
        "app/config.py": CONF,
        "configs/rl.toml": "trainer-gpus = 2\n\n[vllm]\ntensor-parallel-size = 2\ngpu-memory-utilization = 0.5\n",
    }))
    got = {e.name: e for e in topo.keys if not e.scope}
    tp = got["--vllm.tensor-parallel-size"]
    assert (tp.cls, tp.default, tp.value, tp.file) == ("process", "1", "2", "app/config.py")
    dp = got["--vllm.data-parallel-size"]
    assert (dp.cls, dp.default) == ("process", "1")  # ``Field(1, ...)``: the default is the first argument
    assert got["--vllm.gpu-memory-utilization"].value == "0.5"  # the TOML file model_config names is loaded
    assert got["--trainer-gpus"].value == "2"
    names = {e.name for e in topo.keys}
    assert "--vllm.tensor-parallel" not in names and "vllm.tensor-parallel-size" not in names

"""Command-line and config libraries beyond one config class: a function's parameters parsed by fire, typer,
tyro or jsonargparse; Hydra structured configs stored in a ``ConfigStore`` group; pydantic-settings options given
as class keywords or at construction, with ``cli_prefix``; simple_parsing's flat flags. Each key is listed under
the name a user types."""

from repo_tree import write_tree
from test_topology_entries import run


def listed(topo):
    return {e.name: e for e in topo.keys if not e.scope}


def test_the_parameters_of_a_function_a_cli_library_runs_are_flags(tmp_path):
    got = listed(run(write_tree(tmp_path, {
        "pkg/conf.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass PoolConf:\n"
                       "    num_gpus: int = 1\n    lr: float = 1e-5\n",
        "pkg/fire_main.py": "import fire\n\n\ndef serve(relay_port: int = 7000, seed: int = 1):\n    pass\n\n\n"
                            "if __name__ == '__main__':\n    fire.Fire(serve)\n",
        "pkg/typer_main.py": "import typer\n\napp = typer.Typer()\n\n\n@app.command()\n"
                             "def train(num_rollout_workers: int = 2, epochs: int = 3):\n    pass\n",
        "pkg/tyro_main.py": "import tyro\n\nfrom pkg.conf import PoolConf\n\n\n"
                            "def run(pool: PoolConf, bind_host: str = '0.0.0.0'):\n    pass\n\n\n"
                            "def main():\n    tyro.cli(run)\n",
        "pkg/jsonarg_main.py": "from jsonargparse import CLI\n\n\nclass Launcher:\n"
                               "    def __init__(self, n_engines: int = 4, name: str = 'x'):\n        pass\n\n\n"
                               "def main():\n    CLI(Launcher)\n",
    })))
    assert got["--relay_port"].cls == "port" and got["--relay_port"].default == "7000"  # fire: as written
    assert got["--num-rollout-workers"].cls == "process"  # typer: kebab case
    assert got["--pool.num-gpus"].cls == "process"  # tyro: a config-typed parameter nests its fields
    assert got["--bind-host"].cls == "port"
    assert got["--n_engines"].cls == "process"  # jsonargparse on a class: its constructor's parameters
    assert not {"--seed", "--epochs", "--name"} & set(got)


def test_a_hydra_config_store_group_mounts_the_node_fields_under_the_group(tmp_path):
    got = listed(run(write_tree(tmp_path, {
        "pkg/conf.py": "from dataclasses import dataclass\n\nfrom hydra.core.config_store import ConfigStore\n\n\n"
                       "@dataclass\nclass ServeConf:\n    port: int = 8000\n    num_replicas: int = 2\n\n\n"
                       "@dataclass\nclass TopConf:\n    world_size: int = 8\n\n\n"
                       "cs = ConfigStore.instance()\n"
                       "cs.store(group='engine/server', name='base', node=ServeConf)\n"
                       "cs.store(name='top', node=TopConf)\n",
    })))
    assert got["engine.server.port"].cls == "port"
    assert got["engine.server.num_replicas"].cls == "process"
    assert "port" not in got and "num_replicas" not in got
    assert "world_size" in got  # stored without a group: at the root


def test_pydantic_settings_options_as_class_keywords_or_at_construction(tmp_path):
    got = listed(run(write_tree(tmp_path, {
        "pkg/settings.py": "from pydantic import BaseModel\nfrom pydantic_settings import BaseSettings\n\n\n"
                           "class Engine(BaseModel):\n    tensor_parallel_size: int = 1\n\n\n"
                           "class RunSettings(BaseSettings, cli_parse_args=True, cli_kebab_case=True, "
                           "env_prefix='RUN_', env_nested_delimiter='__'):\n"
                           "    engine: Engine = Engine()\n    trainer_gpus: int = 1\n\n\n"
                           "class ServeSettings(BaseSettings):\n    serve_port: int = 9000\n\n\n"
                           "def main():\n    ServeSettings(_cli_parse_args=True, _cli_prefix='serve')\n",
        "run.sh": "RUN_ENGINE__TENSOR_PARALLEL_SIZE=2 python -m pkg.settings\n",
    })))
    tp = got["--engine.tensor-parallel-size"]
    assert tp.cls == "process" and "RUN_ENGINE__TENSOR_PARALLEL_SIZE" in tp.aliases and tp.value == "2"
    assert "--trainer-gpus" in got
    assert got["--serve.serve_port"].cls == "port"  # ``cli_prefix``: the flags sit under it


def test_simple_parsing_flags_are_flat(tmp_path):
    got = listed(run(write_tree(tmp_path, {
        "pkg/main.py": "from dataclasses import dataclass\n\nfrom simple_parsing import ArgumentParser\n\n\n"
                       "@dataclass\nclass Net:\n    master_port: int = 29500\n\n\n"
                       "@dataclass\nclass Opts:\n    net: Net = Net()\n    num_nodes: int = 1\n\n\n"
                       "def main():\n    p = ArgumentParser()\n    p.add_arguments(Opts, dest='opts')\n"
                       "    return p.parse_args()\n",
    })))
    assert "--master_port" in got and "--num_nodes" in got
    assert "--net.master_port" not in got


def test_jsonargparse_nested_keys_tyro_arg_names_and_negated_switches(tmp_path):
    got = listed(run(write_tree(tmp_path, {
        "pkg/conf.py": "from dataclasses import dataclass\nfrom typing import Annotated\n\nimport tyro\n\n\n"
                       "@dataclass\nclass Gen:\n"
                       "    tensor_parallel: Annotated[int, tyro.conf.arg(name='tp-size')] = 1\n"
                       "    colocate_engine: bool = True\n\n\n"
                       "def main():\n    tyro.cli(Gen)\n",
        "pkg/serve.py": "from jsonargparse import ArgumentParser\n\n\nclass Router:\n"
                        "    def __init__(self, listen_port: int = 8100):\n        pass\n\n\n"
                        "def parse():\n    p = ArgumentParser()\n    p.add_class_arguments(Router, 'router')\n"
                        "    return p.parse_args()\n",
        "run.sh": "python -m pkg.conf --tp-size 2 --no-colocate-engine\n",
    })))
    tp = got["--tp-size"]  # declared by the field (not only the script's flag), default and value folded
    assert (tp.cls, tp.file, tp.default, tp.value) == ("process", "pkg/conf.py", "1", "2")
    assert got["--router.listen_port"].cls == "port"
    assert "--no-colocate-engine" not in got and "--no-colocate-engine" in got["--colocate-engine"].aliases

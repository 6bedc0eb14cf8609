"""Keys found from how code uses them (session 15, issue 15): a condition that turns a role on or off,
the config a library hands a plugin it builds, and sequence-parallel degrees. Trees in made-up names."""

from repo_tree import write_tree
from test_topology_entries import run


def listed(topo):
    return {e.name: e for e in topo.keys if not e.scope}


CONF = ("algo:\n  estimator: grpo\n  no_kl: false\n  lr: 0.1\n  temperature: 1.0\n"
        "worker:\n  ulysses_size: 1\n  ring_attn_size: 1\n")
MAIN = ("from omegaconf import OmegaConf\n\n\n"
        "class Runner:\n"
        "    def __init__(self, path):\n"
        "        cfg = OmegaConf.load(path)\n"
        "        self.lr = cfg.algo.lr\n"
        "        self.use_critic = False\n"
        "        if cfg.algo.estimator == 'gae':\n"
        "            self.use_critic = True\n"
        "        if cfg.algo.no_kl:\n"
        "            self.use_reference_policy = False\n"
        "        else:\n"
        "            self.use_reference_policy = True\n"
        "        if cfg.algo.temperature > 1.0 and cfg.algo.lr < 1.0:\n"
        "            self.use_critic = True\n"
        "        self.sp = cfg.worker.ulysses_size * cfg.worker.ring_attn_size\n")


def test_a_key_whose_test_turns_a_role_on_or_off_decides_the_workers(tmp_path):
    """``if cfg.algo.estimator == 'gae': self.use_critic = True``: the estimator decides whether critic
    workers start, and ``no_kl`` whether reference workers do (failed before: neither was listed). A
    plain statement before a switch (``self.lr = cfg.algo.lr``) and a test over two keys decide nothing."""
    got = listed(run(write_tree(tmp_path, {"pkg/conf.yaml": CONF, "pkg/main.py": MAIN})))
    assert got["algo.estimator"].cls == "process" and "'critic' role" in got["algo.estimator"].evidence
    assert got["algo.no_kl"].cls == "process" and "'reference_policy' role" in got["algo.no_kl"].evidence
    assert "algo.lr" not in got and "algo.temperature" not in got


def test_sequence_parallel_degrees_split_a_model_over_processes(tmp_path):
    got = listed(run(write_tree(tmp_path, {"pkg/conf.yaml": CONF, "pkg/main.py": MAIN})))
    assert got["worker.ulysses_size"].cls == "process"
    assert got["worker.ring_attn_size"].cls == "process"


PLUGIN = ("from hostlib.interfaces import PluginWithConfig\n\n\n"
          "class Feeder(PluginWithConfig):\n"
          "    def __init__(self, run_config: dict):\n"
          "        knobs = run_config['knobs']\n"
          "        self.engine_tp = knobs.get('engine_tensor_parallel_size', None)\n"
          "        self.sync_backend = knobs.get('weight_sync_backend', 'nccl')\n"
          "        self.width = knobs.get('width', 3)\n\n\n"
          "class Local:\n"
          "    def __init__(self, other_config: dict):\n"
          "        self.tp = other_config.get('tensor_parallel_size', 1)\n")


def test_the_dict_config_a_library_hands_a_plugin_is_the_runs_config(tmp_path):
    """A class on a library base is built by that library, which hands it the run's config as a plain
    ``dict``: its reads are keys (failed before: ``run_config: dict`` was no config)."""
    got = listed(run(write_tree(tmp_path, {"pkg/plugin.py": PLUGIN})))
    assert got["knobs.engine_tensor_parallel_size"].cls == "process"
    assert "knobs.weight_sync_backend" in got


SBATCH = ("#!/bin/bash\n#SBATCH --job-name=grove\n#SBATCH --nodes=2\n#SBATCH --gpus-per-task=8 --exclusive\n"
          "srun python -m pkg.train --config pkg/conf.yaml\n")


def test_batch_scheduler_directives_are_the_jobs_flags(tmp_path):
    """``#SBATCH --gpus-per-task=8`` is a comment to the shell and the job's allocation to Slurm
    (failed before: directives were skipped as comments)."""
    got = listed(run(write_tree(tmp_path, {"jobs/run.sbatch": SBATCH, "pkg/conf.yaml": CONF, "pkg/main.py": MAIN})))
    names = {n.lstrip("-") for n in got}
    assert {"nodes", "gpus-per-task"} <= names
    assert "job-name" not in names


LAUNCH = ("import os\nimport subprocess\nimport sys\nfrom typing import Literal\n"
          "from dataclasses import dataclass\n\n\n"
          "@dataclass\nclass ScoreArgs:\n    scorer_type: Literal['lora', 'full', 'api'] = 'lora'\n\n\n"
          "def launch():\n"
          "    if os.getenv('FORCE_TORCHRUN', '0') == '1':\n"
          "        subprocess.run(['torchrun', '--nproc-per-node', '2', *sys.argv])\n")


def test_a_torchrun_switch_and_a_role_served_by_an_api(tmp_path):
    """``FORCE_TORCHRUN`` relaunches the program under torchrun, one process per device; a scorer whose
    type may be ``api`` is served remotely instead of loaded beside the trainer (failed before: neither)."""
    got = listed(run(write_tree(tmp_path, {"pkg/launch.py": LAUNCH})))
    assert got["FORCE_TORCHRUN"].cls == "process"
    assert got["scorer_type"].cls == "layout" and "'api'" in got["scorer_type"].evidence

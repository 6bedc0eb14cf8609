"""The config a Ray actor's constructor takes is the run's config even unannotated: workers are built through a
role -> class mapping no value flow follows, so their reads are keys (relative to an unknown section)."""

from repo_tree import write_tree
from test_topology_entries import run


def listed(topo):
    return {e.name: e for e in topo.keys if not e.scope}


def test_reads_on_a_ray_workers_config_are_keys_and_a_models_config_is_not(tmp_path):
    got = listed(run(write_tree(tmp_path, {
        "pkg/workers.py": "class ValueWorker:\n    def __init__(self, config):\n        self.config = config\n\n"
                          "    def setup(self):\n"
                          "        self._park = self.config.model.shard_conf.param_offload\n"
                          "        return self.config.model.shard_conf.grad_offload\n\n\n"
                          "class TinyNet:\n    def __init__(self, config):\n        self.config = config\n\n"
                          "    def build(self):\n        return self.config.kv_offload\n",
        "pkg/main.py": "import ray\n\nfrom pkg.workers import TinyNet, ValueWorker\n\n"
                       "MAPPING = {'value': ray.remote(ValueWorker)}\n\n\n"
                       "def build():\n    return TinyNet(None)\n",
    })))
    offload = got["model.shard_conf.param_offload"]
    assert (offload.cls, offload.file, offload.line) == ("layout", "pkg/workers.py", 6)
    assert "model.shard_conf.grad_offload" in got
    assert "kv_offload" not in got  # a plain class's ``config`` may be a model's own: not a run config

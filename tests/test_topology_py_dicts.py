"""Config written in Python: a nested dict of overrides merged into an OmegaConf config (in place, through a local
name, or returned by a function of the repo) and ``key=value`` dotlists are keys under their dotted path."""

from repo_tree import write_tree
from test_topology_entries import run


def listed(topo):
    return {e.name: e for e in topo.keys if not e.scope}


MAIN = '''from omegaconf import OmegaConf

from recipes.defaults import cluster_overrides


def build(base):
    extra = {"sampler": {"engine_replicas": 3}}
    cfg = OmegaConf.merge(base, OmegaConf.create(cluster_overrides()), extra)
    cfg = OmegaConf.merge(cfg, OmegaConf.from_dotlist(["learner.offload_grads=true", "seed=3"]))
    return OmegaConf.merge(cfg, {"gateway": {"listen_port": 8181, "banner": "hi"}})
'''
DEFAULTS = '''def cluster_overrides():
    """Overrides for one node."""
    return {
        "learner": {
            "num_nodes": 2,
            "lr": 1e-6,
        },
        "sampler": {"name": "vllm", "gpu_memory_utilization": 0.6},
    }
'''


def test_dict_literals_and_dotlists_merged_into_a_config_are_keys(tmp_path):
    got = listed(run(write_tree(tmp_path, {"recipes/main.py": MAIN, "recipes/defaults.py": DEFAULTS})))
    nodes = got["learner.num_nodes"]
    assert (nodes.cls, nodes.value, nodes.file, nodes.line) == ("process", "2", "recipes/defaults.py", 5)
    assert got["sampler.name"].cls == "layout" and got["sampler.name"].value == "vllm"
    assert got["sampler.gpu_memory_utilization"].cls == "layout"
    assert got["sampler.engine_replicas"].value == "3"  # a local name holding a literal
    assert got["gateway.listen_port"].cls == "port"  # a literal written in the call
    assert got["learner.offload_grads"].value == "true"  # a dotlist
    assert not {"learner.lr", "gateway.banner", "seed"} & set(got)


def test_interconnect_tuning_env_set_in_a_config_dict_is_set_aside(tmp_path):
    topo = run(write_tree(tmp_path, {"recipes/main.py": (
        "from omegaconf import OmegaConf\n\n\ndef build():\n"
        "    return OmegaConf.create({'runtime_env': {'env_vars': {'NCCL_DEBUG': 'WARN', 'MASTER_PORT': '6000'}}})\n")}))
    got = {e.name: e for e in topo.keys}
    assert got["runtime_env.env_vars.NCCL_DEBUG"].scope == "hardware-tuning"
    assert got["runtime_env.env_vars.MASTER_PORT"].scope == ""

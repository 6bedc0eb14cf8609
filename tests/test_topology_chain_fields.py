"""A config held in a class field annotated ``DictConfig`` (a dataclass client built by a launcher that is not in
the tree) is a config: the chains read on ``self.<field>`` are keys, relative to where the launcher mounts it."""

from repo_tree import write_tree
from test_topology_entries import run

CLIENT = '''from dataclasses import dataclass

from omegaconf import DictConfig

from .comm import Server


@dataclass
class RemoteCriticClient:
    cfg: DictConfig

    def __post_init__(self):
        self.server = Server(self.cfg.critic.ip, self.cfg.critic.port)
        self.combined = self.cfg.get("combine_rm_and_critic_server", False)


class Model:
    hidden: int = 4

    def forward(self):
        return self.hidden
'''


def test_chains_on_a_dictconfig_field_are_keys(tmp_path):
    topo = run(write_tree(tmp_path, {
        "rlpkg/__init__.py": "",
        "rlpkg/comm.py": "class Server:\n    def __init__(self, ip, port):\n        self.addr = (ip, port)\n",
        "rlpkg/client.py": CLIENT,
    }))
    got = {e.name: e for e in topo.keys if not e.scope}
    assert got["critic.port"].cls == "port" and got["critic.port"].declared_as == "config read"
    assert got["critic.ip"].cls == "port"
    assert got["combine_rm_and_critic_server"].cls == "process"
    assert got["combine_rm_and_critic_server"].default == "false"


def test_a_get_by_a_module_constant_names_the_key(tmp_path):
    topo = run(write_tree(tmp_path, {
        "app/__init__.py": "",
        "app/keys.py": "LAUNCHER_KEY = 'launcher'\nNODES_KEY = 'num_nodes'\n",
        "app/main.py": "from omegaconf import DictConfig\n\nfrom .keys import LAUNCHER_KEY, NODES_KEY\n\n\n"
                       "def main(cfg: DictConfig):\n"
                       "    kind = cfg.get(LAUNCHER_KEY, 'slurm')\n"
                       "    return kind, cfg.get(NODES_KEY)\n",
    }))
    got = {e.name: e for e in topo.keys if not e.scope}
    assert (got["launcher"].cls, got["launcher"].default) == ("process", "slurm")
    assert got["num_nodes"].cls == "process"


def test_which_launcher_allocates_the_processes_is_a_process_key():
    from gyrelint.topology.classify import classify

    assert classify("launcher_config.launcher")[0] == "process"
    assert classify("launcher_config.launcher_args") is None

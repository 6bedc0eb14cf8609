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

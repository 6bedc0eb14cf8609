"""One entry per key across spellings a code base gives one knob: an environment variable that overrides or
carries a key read on the same line, the variables a torch/DeepSpeed launcher sets beside ``--local_rank``, and
shell text that is no setting at all (a function's ``local`` variable, a ``pip install`` pin)."""

from repo_tree import write_tree
from test_topology_entries import run

from gyrelint.topology.sources.shell import read_shell


def listed(topo):
    return {e.name: e for e in topo.keys if not e.scope}


def test_an_env_var_beside_the_key_it_overrides_or_carries_is_that_key(tmp_path):
    topo = run(write_tree(tmp_path, {
        "pkg/conf.yaml": "gateway_base_url: http://10.0.0.2:9000\nrollout:\n  master_port: 29500\n",
        "pkg/main.py": "import os\nfrom omegaconf import OmegaConf\n\n\n"
                       "def main():\n"
                       "    cfg = OmegaConf.load('pkg/conf.yaml')\n"
                       "    url = os.environ.get('GATEWAY_BASE_URL', cfg.get('gateway_base_url', 'http://x:1'))\n"
                       "    os.environ['MASTER_PORT'] = str(cfg.rollout.master_port)\n"
                       "    return url\n",
    }))
    got = listed(topo)
    assert "GATEWAY_BASE_URL" not in got and "MASTER_PORT" not in got
    assert "GATEWAY_BASE_URL" in got["gateway_base_url"].aliases
    assert "MASTER_PORT" in got["rollout.master_port"].aliases


def test_the_launcher_set_local_rank_is_the_local_rank_flag(tmp_path):
    topo = run(write_tree(tmp_path, {
        "pkg/cli.py": "import argparse\nimport os\n\n\ndef parse():\n    p = argparse.ArgumentParser()\n"
                      "    p.add_argument('--local_rank', type=int, default=-1)\n    return p.parse_args()\n",
        "pkg/dist.py": "import os\n\n\ndef rank():\n    return int(os.environ.get('LOCAL_RANK', '0'))\n",
        "pkg/worker.py": "import os\n\n\ndef device():\n    return int(os.environ['RANK'])\n",
    }))
    got = listed(topo)
    assert "LOCAL_RANK" not in got and "LOCAL_RANK" in got["--local_rank"].aliases
    assert "RANK" in got  # no ``--rank`` flag: the variable stands alone


def test_shell_function_locals_and_install_pins_are_no_keys():
    keys = {r.key for r in read_shell("a.sh", "mount() {\n  local workspace_url=\"$1\"\n}\n"
                                      "pip install vllm==0.15.0\nuv pip install 'sglang>=0.4'\n"
                                      "python -m pip install deepspeed==0.16\nNNODES=2 python -m app --tp 2\n"
                                      "uv run app --pp 2\n")}
    assert keys == {"NNODES", "tp", "pp"}

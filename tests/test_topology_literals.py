"""Keys classified by the literal values code compares them with, writes into them or allows for them: a knob
whose name says nothing (``sync.channel``, ``launch.flavour``) decides the layout when it is tested against a
transport, engine or launch-mode name."""

from repo_tree import write_tree
from test_topology_entries import run


def listed(topo):
    return {e.name: e for e in topo.keys if not e.scope}


CONF = ("sync:\n  channel: auto\n  buffer_mb: 64\nlaunch:\n  flavour: auto\ngrader:\n  via: auto\n"
        "pretty:\n  style: auto\n  width: 3\n")
MAIN = ("from omegaconf import OmegaConf\n\n\n"
        "def main():\n"
        "    cfg = OmegaConf.load('pkg/conf.yaml')\n"
        "    if cfg.sync.channel == 'nccl':\n"
        "        pass\n"
        "    if cfg.launch.flavour in ('colocate', 'disaggregated'):\n"
        "        pass\n"
        "    cfg.grader.via = 'vllm'\n"
        "    if cfg.pretty.style == 'local' and cfg.pretty.width > 2:\n"
        "        pass\n"
        "    print('nccl', cfg.sync.buffer_mb)\n")


def test_a_key_compared_with_or_set_to_a_transport_engine_or_mode_name_is_listed(tmp_path):
    got = listed(run(write_tree(tmp_path, {"pkg/conf.yaml": CONF, "pkg/main.py": MAIN})))
    assert got["sync.channel"].cls == "comm" and "'nccl'" in got["sync.channel"].evidence
    assert got["launch.flavour"].cls == "layout" and "'colocate'" in got["launch.flavour"].evidence
    assert got["grader.via"].cls == "layout" and "'vllm'" in got["grader.via"].evidence
    # two keys on one line: the literal belongs to neither; a weak mode word on a leaf that names no mode
    assert "pretty.style" not in got and "pretty.width" not in got
    # a literal handed to a call beside the key is about the call
    assert "sync.buffer_mb" not in got


def test_literal_types_and_choices_declare_the_values_a_key_may_take(tmp_path):
    got = listed(run(write_tree(tmp_path, {
        "pkg/conf.py": "from dataclasses import dataclass\nfrom typing import Literal\n\n\n@dataclass\n"
                       "class MoverConfig:\n"
                       "    carrier: Literal['nccl', 'cuda_ipc'] = 'nccl'\n"
                       "    provider: Literal['vllm', 'sglang'] | None = None\n"
                       "    colour: Literal['red', 'blue'] = 'red'\n\n\n@dataclass\nclass TelemetryConfig:\n"
                       "    sink: Literal['http', 'stdout'] = 'stdout'\n",
        "pkg/weights_merger.py": "import argparse\n\n\ndef parse():\n    p = argparse.ArgumentParser()\n"
                                 "    p.add_argument('--flavour', choices=['fsdp', 'megatron'])\n"
                                 "    return p.parse_args()\n",
        "pkg/cli.py": "import argparse\n\n\ndef parse():\n    p = argparse.ArgumentParser()\n"
                      "    p.add_argument('--relay',\n                   choices=['gloo', 'nccl'])\n"
                      "    p.add_argument('--tint', choices=['red', 'blue'])\n    return p.parse_args()\n",
    })))
    assert got["carrier"].cls == "comm"
    assert got["provider"].cls == "layout" and "'vllm'" in got["provider"].evidence
    assert got["--relay"].cls == "comm"  # choices written on the call's next line
    assert "colour" not in got and "--tint" not in got
    # where traces are exported, and the backend a checkpoint merger reads, are no layout of the run
    assert "sink" not in got and "--flavour" not in got

"""One entry per key: folding, scope, loaded config files, empty values, classes by value and by use,
composed flags, and the text and JSON a person reads."""

import json
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner
from repo_tree import write_tree

from gyrelint.graphs.model import Graphs
from gyrelint.index import build_index
from gyrelint.render.schemas import report_schema
from gyrelint.settings import load_settings
from gyrelint.topology import analyze_topology
from gyrelint.topology.scope import SCOPES, file_scope, key_scope


def run(root: Path):
    settings, _ = load_settings(root)
    settings = replace(settings, use_cache=False, jobs=1)
    index = build_index(root, settings)
    topo, _diags = analyze_topology(index, Graphs(), settings)
    return topo


def entries(topo):
    return {e.name: e for e in topo.keys}


ARGS = ("import argparse\n\n\ndef parse():\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--rollout-port', type=int, default=30000)\n"
        "    p.add_argument('--actor-num-nodes', type=int, default=1)\n    return p.parse_args()\n")


def test_repeats_fold_into_one_entry_with_its_definition_value_and_uses(tmp_path):
    topo = run(write_tree(tmp_path, {
        "pkg/args.py": ARGS,
        "scripts/run.sh": "python -m pkg.main --rollout-port 9000 --actor-num-nodes 2\n"
                          "python -m pkg.main --rollout-port 9001\n",
        "scripts/sweep.sh": "python -m pkg.eval --rollout_port 9002\n",
    }))
    got = entries(topo)
    port = got["--rollout-port"]
    assert (port.cls, port.file, port.line, port.declared_as) == ("port", "pkg/args.py", 6, "argparse")
    assert port.definition and port.default == "30000" and port.type == "int"
    assert port.value == "9000"  # what the launcher sets beats the default
    assert port.uses == 3 and len(port.where) == 3 and port.where[0].file.startswith("scripts/")
    assert sum(1 for e in topo.keys if e.name.lstrip("-").replace("-", "_") == "rollout_port") == 1
    assert topo.folded["repeats"] == 3 + 1  # three more rollout-port places, one more actor-num-nodes
    assert got["--actor-num-nodes"].why == "how many nodes the run spans"


def test_tests_docs_ci_and_interconnect_tuning_are_set_aside_with_their_reason(tmp_path):
    topo = run(write_tree(tmp_path, {
        "pkg/main.py": "import os\n\nADDR = os.environ.get('MASTER_ADDR', '127.0.0.1')\n"
                       "IFACE = os.environ.get('NCCL_SOCKET_IFNAME', 'eth0')\n",
        "tests/test_server.py": "import os\n\nPORT = os.environ.get('TEST_SERVER_PORT', '8000')\n",
        "docs/launch.md": "```bash\ntorchrun --nproc_per_node 8 train.py\n```\n",
        ".github/workflows/ci.yml": "env:\n  RAY_ADDRESS: 127.0.0.1:6379\n",
        "Dockerfile": "FROM python\n",
    }))
    got = entries(topo)
    assert got["MASTER_ADDR"].scope == "" and got["MASTER_ADDR"].cls == "port"
    assert got["NCCL_SOCKET_IFNAME"].scope == "hardware-tuning"
    assert got["TEST_SERVER_PORT"].scope == "tests"
    assert got["--nproc_per_node"].scope == "docs"
    listed = {k.key for k in topo.config_keys}
    assert "MASTER_ADDR" in listed and not {"NCCL_SOCKET_IFNAME", "TEST_SERVER_PORT", "nproc_per_node"} & listed
    assert topo.folded["tests"] == 1 and topo.folded["hardware-tuning"] == 1 and topo.folded["docs"] == 1
    assert [e.scope for e in topo.keys] == sorted((e.scope for e in topo.keys), key=bool)  # listed ones first


def test_scope_rules():
    assert file_scope("tests/unit/x.py") == "tests" and file_scope("pkg/test_x.py") == "tests"
    assert file_scope("docs/guide.md") == "docs" and file_scope("README.md") == "docs"
    assert file_scope(".github/workflows/ci.yml") == "ci" and file_scope("docker/Dockerfile.gpu") == "container"
    assert file_scope("third_party/vllm/x.py") == "vendored" and file_scope("pkg/trainer.py") == ""
    assert key_scope("HTTPS_PROXY", "env (python)") == "hardware-tuning"
    assert key_scope("GLOO_SOCKET_IFNAME", "env") == "hardware-tuning"
    assert key_scope("MASTER_PORT", "env") == "" and key_scope("nccl_timeout", "script") == ""
    assert file_scope("scripts/converter_hf_to_mcore.py") == "tools"
    assert {"tests", "docs", "ci", "container", "vendored", "tools", "hardware-tuning", "unloaded-config"} == set(SCOPES)


def test_config_files_count_only_when_loaded_and_empty_values_are_absent(tmp_path):
    topo = run(write_tree(tmp_path, {
        "pkg/main.py": "import hydra\nimport json\n\n\n@hydra.main(config_path='../conf', config_name='run')\n"
                       "def main(cfg):\n    return json.load(open('serve.json'))\n",
        "conf/run.yaml": "defaults:\n  - engine: vllm\ntrainer:\n  nnodes: 2\n  ports: []\n  master_addr: ''\n",
        "conf/engine/vllm.yaml": "tensor_parallel_size: 2\n",
        "serve.json": '{"server_port": 8000}\n',
        "fixtures/sample.json": '{"server_port": 1234, "num_gpus": 64}\n',
    }))
    got = entries(topo)
    assert got["trainer.nnodes"].scope == "" and got["server_port"].scope == ""
    assert got["engine.tensor_parallel_size"].scope == ""  # pulled in by the Hydra defaults of a loaded file
    assert got["num_gpus"].scope == "unloaded-config"
    assert got["trainer.ports"].value is None and got["trainer.master_addr"].value is None
    ports = [r for r in topo.reasons if "ports/addresses configured" in r]
    assert ports and "trainer.ports" not in ports[0] and "1234" not in ports[0]


def test_classes_by_value_and_layout_switches(tmp_path):
    topo = run(write_tree(tmp_path, {
        "pkg/main.py": "import yaml\n\nCFG = yaml.safe_load(open('run.yaml'))\n",
        "run.yaml": "actor:\n  strategy: fsdp\n  param_offload: true\nrollout:\n  name: vllm\n  mode: async\n"
                    "  max_staleness: 2\n  gpu_memory_utilization: 0.5\n  worker_cls: pkg.workers.RolloutWorker\n"
                    "  buffer_url: http://localhost:8000\n  router_timeout: 30\nreward:\n  save_strategy: steps\n"
                    "timeouts:\n  get_s: 600\nprofiler:\n  timeout: 5\n",
    }))
    got = entries(topo)
    for name in ("actor.strategy", "actor.param_offload", "rollout.name", "rollout.mode", "rollout.max_staleness",
                 "rollout.gpu_memory_utilization", "rollout.worker_cls"):
        assert got[name].cls == "layout", name
    assert got["rollout.buffer_url"].cls == "port"  # a buffer's URL is a peer of the run
    assert got["rollout.router_timeout"].cls == "comm" and "timeout" in got["rollout.router_timeout"].evidence
    assert "reward.save_strategy" not in got
    # a timeout is a wait on another process (GYR008 reads these entries), unless it times in-process work
    assert got["timeouts.get_s"].cls == "comm" and got["timeouts.get_s"].value == "600"
    assert "profiler.timeout" not in got
    assert got["actor.param_offload"].why.startswith("moves weights")


def test_a_key_read_where_actors_are_placed_is_classified_by_use(tmp_path):
    topo = run(write_tree(tmp_path, {
        "pkg/config.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass LaunchConfig:\n"
                         "    pool_shape: str = '2x4'\n    learning_rate: float = 1e-6\n",
        "pkg/launch.py": "from ray.util.placement_group import placement_group\n\n\n"
                         "def place(config):\n    lr = config.learning_rate\n"
                         "    return placement_group(\n        bundles=config.pool_shape,\n    ), lr\n",
    }))
    got = entries(topo)
    assert got["pool_shape"].cls == "process" and "placement groups" in got["pool_shape"].evidence
    assert "learning_rate" not in got  # read in the same function, but not by the call that places actors


def test_flags_of_a_prefixed_third_party_helper_are_declared_at_the_wrapper(tmp_path):
    topo = run(write_tree(tmp_path, {
        "pkg/args.py": "from sglang.srt.server_args import ServerArgs\n\n\ndef add_engine_args(parser):\n"
                       "    old = parser.add_argument\n\n    def wrapper(*flags, **kw):\n"
                       "        name = f\"--engine-{flags[0].lstrip('-')}\"\n        old(name, **kw)\n\n"
                       "    parser.add_argument = wrapper\n    ServerArgs.add_cli_args(parser)\n"
                       "    parser.add_argument = old\n",
        "scripts/run.sh": "WEIGHT_SYNC_ARGS=(\n  --engine-mem-fraction-static 0.7\n  --engine-tp-size 4\n)\n"
                          "python -m pkg.train \"${ARGS[@]}\"\n",
    }))
    got = entries(topo)
    mem = got["--engine-mem-fraction-static"]
    assert (mem.file, mem.line, mem.cls, mem.value) == ("pkg/args.py", 8, "layout", "0.7")
    assert "sglang.srt.server_args.ServerArgs.add_cli_args" in mem.declared_as and mem.definition
    assert got["--engine-tp-size"].cls == "process" and "WEIGHT_SYNC_ARGS" not in got  # an array's name is no key


def test_text_and_json_show_entries_and_what_was_folded(tmp_path):
    from gyrelint.cli import main

    root = write_tree(tmp_path, {
        "pkg/args.py": ARGS,
        "pkg/net.py": "import socket\n\ns = socket.socket()\ns.bind(('0.0.0.0', 1))\n",
        "scripts/run.sh": "python -m pkg.main --rollout-port 9000\n",
        "tests/test_x.py": "import os\n\nP = os.environ.get('TEST_MASTER_PORT')\n",
    })
    res = CliRunner().invoke(main, ["topology", str(root), "--no-cache", "-j", "1", "--root-relative"])
    assert res.exit_code == 0, res.output
    text = res.output
    assert text.index("[process]") < text.index("[port]")
    assert "--rollout-port = 9000 (default 30000, int)  pkg/args.py:6 argparse" in text
    assert "where a process listens or connects" in text and "1 more place: scripts/run.sh:1" in text
    assert "folded away: 1 repeat" in text and "set aside: 1 tests (--all lists them)" in text
    assert "TEST_MASTER_PORT" not in text
    res = CliRunner().invoke(main, ["topology", str(root), "--no-cache", "-j", "1", "--all", "--root-relative"])
    assert "TEST_MASTER_PORT" in res.output and "[tests]" in res.output
    res = CliRunner().invoke(main, ["topology", str(root), "--no-cache", "-j", "1", "--format", "json"])
    data = json.loads(res.stdout)["topology"]
    keys = {k["name"]: k for k in data["keys"]}
    assert keys["--rollout-port"]["uses"] == 1 and keys["--rollout-port"]["where"][0]["file"] == "scripts/run.sh"
    assert keys["TEST_MASTER_PORT"]["scope"] == "tests" and data["folded"] == {"repeats": 1, "tests": 1}


def test_report_schema_describes_key_entries():
    topo = report_schema()["properties"]["topology"]["properties"]
    entry = topo["keys"]["items"]
    assert entry["properties"]["class"]["enum"] == ["process", "port", "comm", "layout"]
    assert set(entry["properties"]["scope"]["enum"]) == {"", *SCOPES}
    assert {"name", "class", "value", "default", "file", "line", "uses", "scope"} <= set(entry["required"])


def test_a_variable_that_carries_one_flag_value_folds_into_that_flag(tmp_path):
    topo = run(write_tree(tmp_path, {
        "pkg/args.py": ARGS + "\n\nimport os\n\nSERVE = os.environ.get('ROLLOUT_PORT')\n",
        "scripts/run.sh": "ACTOR_NUM_NODES=4\npython -m pkg.main --actor-num-nodes ${ACTOR_NUM_NODES:-2}\n",
        "scripts/other.sh": "MASTER_PORT=1\npython -m a --x-port $MASTER_PORT\npython -m b --y-port $MASTER_PORT\n",
    }))
    got = entries(topo)
    nodes = got["--actor-num-nodes"]
    assert "ACTOR_NUM_NODES" not in got and nodes.value == "4" and "ACTOR_NUM_NODES" in nodes.aliases
    assert "ROLLOUT_PORT" not in got and got["--rollout-port"].uses == 1  # env read in the declaring file
    assert "MASTER_PORT" in got  # carries two flags' values: stays its own key

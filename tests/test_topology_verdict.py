"""Verdict, ranked reasons, colocation, transports and link checks on small fixture repos."""

import json
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from gyrelint.graphs.model import Graphs
from gyrelint.index import build_index
from gyrelint.model import CodeEvidence, ConfigKey
from gyrelint.settings import load_settings
from gyrelint.topology import analyze_topology
from gyrelint.topology.evidence import EvidenceResult
from gyrelint.topology.verdict import decide

FIXTURES = Path(__file__).parent / "fixtures"


def run(name: str):
    root = FIXTURES / name
    settings, _ = load_settings(root)
    settings = replace(settings, use_cache=False, jobs=1)
    return analyze_topology(build_index(root, settings), Graphs(), settings)


def test_ray_and_http_repo_is_cross_process():
    topo, _ = run("topology_cross")
    assert topo.verdict == "cross-process"
    assert topo.reasons[0].startswith("cross-process: Ray")
    assert topo.trajectory_transport.startswith("Ray object store")
    assert "HTTP from an inference server" in topo.trajectory_transport
    assert topo.weight_transport.startswith("NCCL broadcast")
    assert topo.colocated  # hybrid_engine: true, fractional GPUs
    signals = {e.signal for e in topo.code_evidence}
    assert {"ray-init", "ray-actor", "http-generate", "nccl-broadcast", "dist-init", "fractional-gpu"} <= signals
    assert [c.signal for c in topo.link_checks] == ["health-check"]
    assert topo.link_checks[0].file == "rlpkg/launch.py"


def test_single_process_repo_is_same_process():
    topo, _ = run("topology_same")
    assert topo.verdict == "same-process"
    assert "generates in-process" in topo.reasons[0]
    assert topo.trajectory_transport == "in-process call"
    assert topo.weight_transport == "in-process call"
    assert not topo.colocated
    assert not topo.link_checks


def test_multiprocessing_repo():
    topo, _ = run("topology_mp")
    assert topo.verdict == "cross-process"
    assert topo.trajectory_transport.startswith("multiprocessing queue")
    assert "ZMQ" in topo.trajectory_transport and "shared memory" in topo.trajectory_transport
    assert topo.weight_transport.startswith("multiprocessing queue")  # state_dict read, then put on a queue
    lines = {(e.signal, e.line) for e in topo.code_evidence}
    assert ("mp-queue", 18) in lines and ("mp-process", 19) in lines and ("shared-memory", 24) in lines


def test_service_signals():
    topo, _ = run("topology_services")
    signals = {e.signal for e in topo.code_evidence}
    assert {"http-server", "subprocess-server", "grpc", "redis", "etcd", "socket-server", "cuda-ipc",
            "http-generate"} <= signals
    assert topo.verdict == "cross-process"
    assert topo.weight_transport.startswith("CUDA IPC handles")
    route = next(e for e in topo.code_evidence if e.signal == "http-server" and "/update_weights" in e.detail)
    assert route.line == 17
    assert [c.signal for c in topo.link_checks] == ["retry-with-logging"]


def test_process_liveness_and_placement_groups_are_not_link_checks(tmp_path):
    (tmp_path / "run.py").write_text(
        "import multiprocessing as mp\n\nfrom ray.util.placement_group import placement_group\n\n\n"
        "def main(q):\n    p = mp.Process(target=print)\n    p.start()\n"
        "    if not p.is_alive():\n        raise SystemExit(1)\n    pg = placement_group([])\n    pg.ready()\n"
        "    return h.ping.remote()\n")
    settings, _ = load_settings(tmp_path)
    settings = replace(settings, use_cache=False, jobs=1)
    topo, _ = analyze_topology(build_index(tmp_path, settings), Graphs(), settings)
    assert [(c.signal, c.line) for c in topo.link_checks] == [("ready-wait", 13)]


def _key(key, cls, value):
    return ConfigKey(key, cls, value, "c.yaml", 1, "token", "yaml")


def _ev(*signals):
    evidence = [CodeEvidence(s, "a.py", i + 1) for i, s in enumerate(signals)]
    counts = {}
    for s in signals:
        counts[s] = counts.get(s, 0) + 1
    return EvidenceResult(evidence, [], counts, {})


def test_no_evidence_at_all_is_unknown():
    topo = decide([], _ev())
    assert topo.verdict == "unknown"
    assert topo.trajectory_transport == "unknown" and topo.weight_transport == "unknown"


def test_values_matter_one_node_is_not_cross_process_evidence():
    one = decide([_key("trainer.nnodes", "process", "1")], _ev())
    assert one.verdict == "same-process"
    two = decide([_key("trainer.nnodes", "process", "2"), _key("master_port", "port", "29500")], _ev())
    assert two.verdict == "cross-process"
    assert any("nnodes=2" in r for r in two.reasons)


def test_torch_distributed_alone_is_not_decisive():
    assert decide([], _ev("dist-init")).verdict == "unknown"
    assert decide([], _ev("dist-init", "inference-engine")).verdict == "same-process"
    assert decide([], _ev("dist-init", "hf-generate")).verdict == "same-process"
    assert decide([], _ev("dist-init", "ray-actor")).verdict == "cross-process"


def test_reasons_are_ranked_strongest_first():
    topo = decide([_key("n", "process", "1")], _ev("subprocess", "zmq", "ray-init"))
    assert "Ray" in topo.reasons[0] and "ZMQ" in topo.reasons[1]


def test_weight_transport_words():
    assert decide([], _ev("ray-actor", "cuda-ipc")).weight_transport == "CUDA IPC handles"
    assert decide([], _ev("http-weights")).weight_transport == "HTTP to an inference server"
    assert decide([], _ev("ray-actor")).weight_transport == "Ray object store"


def test_cli_text_and_json():
    from gyrelint.cli import main

    root = str(FIXTURES / "topology_cross")
    res = CliRunner().invoke(main, ["topology", root, "--no-cache", "-j", "1"])
    assert res.exit_code == 0, res.output
    assert "cross-process" in res.output.splitlines()[0]
    assert "[port]" in res.output and "conf/rollout/engine.yaml:3" in res.output
    res = CliRunner().invoke(main, ["topology", root, "--no-cache", "-j", "1", "--format", "json", "--class", "comm"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["schema"] == "gyrelint/1"
    assert data["topology"]["verdict"] == "cross-process"
    assert {k["class"] for k in data["topology"]["config_keys"]} == {"comm"}
    res = CliRunner().invoke(main, ["topology", str(FIXTURES / "does_not_exist")])
    assert res.exit_code == 2

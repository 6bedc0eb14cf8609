"""Layout knobs of a launcher: memory residency between phases, engine GPUs, off-policy lag, requests in
flight, launch modes by value, role switches written as ``<role>_enabled``, and a launch command kept in a
shell string (``cmd="deepspeed ..."; eval $cmd``)."""

from pathlib import Path

from gyrelint.api import analyze

FIXTURE = Path(__file__).parent / "fixtures" / "topology_launch_knobs"


def _listed():
    return {e.name.lstrip("-").replace("-", "_"): e for e in analyze(FIXTURE).topology.keys if not e.scope}


def test_layout_knobs_of_a_launcher_are_listed():
    listed = _listed()
    want = {"weight_bridge_mode": "layout", "vllm_gpu": "process", "release_inference_cache": "layout",
            "unpin_actor_parameters": "layout", "deployment_type": "layout", "slurm": "process",
            "max_batches_offpolicy": "layout", "num_max_requests_at_once": "layout", "teacher_enabled": "process"}
    got = {k: listed[k].cls for k in want if k in listed}
    assert got == want
    assert "learning_rate" not in listed


def test_a_launch_command_held_in_a_shell_string_is_read():
    listed = _listed()
    assert "num_nodes" in listed
    assert "cmd" not in listed and "OUT" not in listed

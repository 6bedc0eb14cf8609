"""Keys of a library's public Python API: the keyword arguments a user passes to what the package exports and
the user-facing code (examples, scripts) calls, or the top-level package publishes in ``__all__``."""

from pathlib import Path

from test_topology_entries import run

from gyrelint.topology.classify import classify

FIXTURE = Path(__file__).parent / "fixtures" / "topology_api_params"


def listed(topo):
    return {e.name: e for e in topo.keys if not e.scope}


def test_keyword_arguments_of_the_public_api_are_layout_keys():
    got = listed(run(FIXTURE))
    # the constructor an example calls; ``in_process`` says one process or two
    in_process = got["in_process"]
    assert (in_process.cls, in_process.default, in_process.file) == ("process", "false", "src/rlkit/local/backend.py")
    assert in_process.declared_as == "keyword argument (LocalBackend)" and in_process.definition
    # a factory classmethod an example calls
    assert got["gpu"].cls == "process" and got["resources"].cls == "process"
    assert got["gpu"].declared_as == "keyword argument (CloudBackend.initialize_cluster)"
    # the exported base class whose constructor the used subclasses run
    assert (got["base_url"].cls, got["base_url"].default) == ("port", "http://0.0.0.0:7999")
    # a function the top-level package lists in ``__all__`` (called from notebooks only)
    assert got["max_concurrent_batches"].cls == "layout"


def test_internals_objects_and_per_call_arguments_are_not_keys():
    names = {e.name for e in run(FIXTURE).keys}
    # ``apply_patch`` is exported by a subpackage but no user-facing code calls it
    assert not {"ulysses_sp_size", "worker_nodes"} & names
    # a repo object handed in is not a setting; a plain method's argument is per call, not a setting
    assert not {"service", "poll_timeout", "timeout"} & names


def test_words_for_one_process_or_two_and_for_what_a_role_runs_on():
    assert classify("in_process")[0] == "process"
    assert classify("use_subprocess")[0] == "process"
    assert classify("gpu")[0] == "process" and classify("resources")[0] == "process"
    assert classify("gpu_memory_utilization")[0] == "layout"  # whole-leaf tokens only
    assert classify("batch_in_process") is None
    assert classify("raise_timeout", "true") is None  # what to do on a timeout, not how long to wait
    # a key named after a training backend holds that backend's settings: given, it turns the backend on
    assert classify("_internal_config.trainer_args.deepspeed")[0] == "layout"
    assert classify("checkpoint.megatron") is None
    assert classify("vllm", "=0.15.0") is None  # ``pip install vllm==0.15.0`` pins a package
    # a parallel size right after an engine's name
    assert classify("trainer.vllm_tp_DEPRECATED")[0] == "process"
    assert classify("my_tp_thing") is None
    assert classify("use_megatron_fsdp", "false") is None


def test_layout_words_of_other_spellings():
    assert classify("collocate", "true")[0] == "layout"  # a spelling frameworks use
    assert classify("vllm_gpu_ratio", "0.5")[0] == "layout"  # the engine's GPU share as a ratio
    assert classify("zero_stage", "3")[0] == "layout"
    assert classify("trt_llm.unload_engine_train", "true")[0] == "layout"
    assert classify("model.unload_checkpoint") is None
    assert classify("refit_buffer_size_gb", "4")[0] == "comm"
    assert classify("weight_broadcast.type", "filesystem")[0] == "comm"
    assert classify("rollout_transport.type", "file")[0] == "comm"
    assert classify("transport_lr") is None
    assert classify("dp_replicate", "1")[0] == "process" and classify("num_api_servers", "2")[0] == "process"
    assert classify("vllm_sleep", "true")[0] == "layout" and classify("sleep_interval", "1") is None
    # a boolean that starts, merges or skips a server process
    assert classify("combine_rm_and_critic_server", "true")[0] == "process"
    assert classify("combine_rm_and_critic_server")[0] == "process"  # read without a default: the verb says it
    assert classify("logging.use_server", "true") is None and classify("server_name", "x") is None
    assert classify("server") is None


def test_counts_of_copies_sandbox_backends_and_a_role_class_backend():
    assert classify("fireworks_config.policy_trainer_replica_count", "1")[0] == "process"
    assert classify("node_count", "2")[0] == "process"
    assert classify("sandbox-backend", "docker")[0] == "layout"
    # the generic ``backend`` keyword of a role's own class names what it runs on; of anything else it says nothing
    assert classify("backend", "verl", context="AgentTrainer")[0] == "layout"
    assert classify("backend", "x", context="DataLoader") is None
    assert classify("backend", "x", context="TrainerConfig") is None


def test_the_one_line_why_of_an_api_keyword():
    got = listed(run(FIXTURE))
    assert got["in_process"].why == "whether a service runs in the caller's process or in a process of its own"
    assert got["max_concurrent_batches"].why == "how much work is kept in flight against the engine at once"

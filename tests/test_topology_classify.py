"""Token classification of config keys: right class, stated reason, no substring matches."""

import pytest

from gyrelint.settings import SettingsError, TopologySettings, read_settings
from gyrelint.topology.classify import Vocabulary, classify, tokenize


@pytest.mark.parametrize(("key", "tokens"), [
    ("trainer.nnodes", ["trainer", "nnodes"]),
    ("tensorModelParallelSize", ["tensor", "model", "parallel", "size"]),
    ("--router-port", ["router", "port"]),
    ("HTTPServerPort", ["http", "server", "port"]),
    ("MASTER_ADDR", ["master", "addr"]),
])
def test_tokenize(key, tokens):
    assert tokenize(key) == tokens


@pytest.mark.parametrize(("key", "value", "cls"), [
    ("trainer.nnodes", "2", "process"),
    ("actor_rollout_ref.rollout.tensor_model_parallel_size", "2", "process"),
    ("vllm.num_engines", "4", "process"),
    ("vllmNumEngines", None, "process"),
    ("n_gpus_per_node", "8", "process"),
    ("local_rank", "-1", "process"),
    ("WORLD_SIZE", None, "process"),
    ("colocate_all_models", "false", "layout"),
    ("master_addr", "127.0.0.1", "port"),
    ("MASTER_PORT", "29500", "port"),
    ("rollout.server.host", "0.0.0.0", "port"),
    ("vllm_server_base_url", None, "port"),
    ("sglang_router_ip", None, "port"),
    ("dist_backend", "nccl", "comm"),
    ("rollout_queue_size", "8", "comm"),
    ("shared_memory_size", None, "comm"),
    ("dump_dir", "/tmp/x", "comm"),
    ("name_resolve.type", "nfs", "comm"),
    ("use_ray", "true", "comm"),
    ("sync_backend", "nccl", "comm"),  # decided by the value
    ("init_address", "tcp://10.0.0.1:23456", "port"),  # address token
    ("rendezvous", "tcp://10.0.0.1:23456", "port"),  # decided by the value
    ("DIST_INIT_METHOD", None, "comm"),
    ("inference.agent.num_workers", "8", "process"),
    ("queue.trajectory_maxsize", "4", "comm"),  # inside a transport's own section
    ("multiprocessing.start_method", "spawn", "process"),
    ("base_url", "https://api.example.com/v1", "port"),  # an external API server is a peer
    ("target", "http://10.0.0.5:8000/generate", "port"),  # decided by the value: an address with a port
])
def test_classify_positive(key, value, cls):
    hit = classify(key, value)
    assert hit is not None and hit[0] == cls, (key, hit)
    assert hit[1]  # a reason is always given


@pytest.mark.parametrize(("key", "value"), [
    ("report_to", "wandb"),
    ("transport_lr", "0.1"),
    ("support_matrix", None),
    ("import_path", "a.b"),
    ("lora_rank", "16"),
    ("router_aux_loss_coef", "0.001"),
    ("moe_router_dtype", "fp32"),
    ("attn_backend", "flash_attn"),
    ("dataloader_num_workers", "4"),
    ("hub_model_url", "https://example.org"),
    ("learning_rate", "1e-5"),
    ("device", "cuda"),
    ("hello_world", "1"),
    ("export_dir", "/tmp"),
    ("actor.model.lora.lora_A_init_method", "xavier"),
    ("data.filter_overlong_prompts_workers", "1"),
    ("trie_node.nodes", None),
    ("rollout.router_config_path", "x.json"),
    ("actor.megatron.max_seqlen_per_dp_cp_rank", "4096"),
    ("critic.profiler.all_ranks", "false"),
    ("contact_links.0.url", "https://github.com/org/repo/blob/main/CONTRIBUTING.md"),
    ("docs_url", "https://example.org/guide/setup.html"),
    ("repos.0.repo", "https://github.com/org/hooks"),
    ("homepage", "https://example.org"),
    ("extra-index-url", "https://download.example.org/whl/cu121"),
])
def test_classify_negative(key, value):
    assert classify(key, value) is None


def test_the_token_nearest_the_end_wins():
    assert classify("nccl_port", "1")[0] == "port"
    assert classify("rank_port", "1")[0] == "port"
    assert classify("http_timeout", "3")[0] == "comm"


def test_settings_extend_and_ignore():
    vocab = Vocabulary.from_settings(TopologySettings(process=("actors", "learner_count"), port=("gateway",),
                                                      comm=("my.custom.*",), ignore=("tp", "secret.*")))
    assert classify("rollout_actors", "4", vocab)[0] == "process"
    assert classify("learner_count", "4", vocab)[0] == "process"
    assert classify("model.gateway", "x", vocab)[0] == "port"
    assert classify("my.custom.thing", "x", vocab) == ("comm", "key matches 'my.custom.*'")
    assert classify("tp", "2", vocab) is None
    assert classify("tp", "2") is not None
    assert classify("secret.port", "1", vocab) is None


def test_settings_with_a_bad_type_is_refused(tmp_path):
    # it was a diagnostic (the key ignored); the settings loader now refuses it up front
    (tmp_path / "pyproject.toml").write_text("[tool.gyrelint.topology]\nprocess = 3\n")
    with pytest.raises(SettingsError, match=r"\[tool.gyrelint.topology\] process: expected a config-key token"):
        read_settings(tmp_path, user_config=False)


def test_settings_add_layout_words(tmp_path):
    """``layout = [...]`` sits beside process/port/comm: a token or a glob, read and checked like them."""
    assert classify("trainer.cohost", "true") is None  # the project's own word for colocation
    (tmp_path / "pyproject.toml").write_text(
        '[tool.gyrelint.topology]\nlayout = ["cohost", "engine.pin_*"]\n', encoding="utf-8")
    settings = read_settings(tmp_path, user_config=False)
    assert settings.topology.layout == ("cohost", "engine.pin_*")
    vocab = Vocabulary.from_settings(settings.topology)
    assert classify("trainer.cohost", "true", vocab)[0] == "layout"
    assert classify("engine.pin_memory_pool", "x", vocab) == ("layout", "key matches 'engine.pin_*'")


@pytest.mark.parametrize("value", ["3", "[1]", '[["cohost"]]', "{ a = 1 }"])
def test_layout_words_of_the_wrong_type_are_refused(tmp_path, value):
    (tmp_path / "pyproject.toml").write_text(f"[tool.gyrelint.topology]\nlayout = {value}\n", encoding="utf-8")
    with pytest.raises(SettingsError, match=r"\[tool.gyrelint.topology\] layout"):
        read_settings(tmp_path, user_config=False)


def test_a_settings_layout_word_lists_the_key_in_the_topology(tmp_path):
    import shutil

    from gyrelint.api import analyze, demo_root

    root = tmp_path / "minirl"
    shutil.copytree(demo_root(), root)
    cfg = root / "configs" / "default.yaml"
    cfg.write_text(cfg.read_text(encoding="utf-8").replace("trainer:\n", "trainer:\n  cohost: true\n", 1),
                   encoding="utf-8")
    plain = analyze(root, use_cache=False, cache_dir=tmp_path / "c0")
    assert "trainer.cohost" not in {k.name for k in plain.topology.keys}
    (root / "pyproject.toml").write_text('[tool.gyrelint.topology]\nlayout = ["cohost"]\n', encoding="utf-8")
    got = analyze(root, use_cache=False, cache_dir=tmp_path / "c1")
    assert [(k.cls, k.value, k.line) for k in got.topology.keys if k.name == "trainer.cohost"] == [("layout", "true", 16)]


def test_a_reward_models_worker_settings_are_layout_like_any_roles():
    # the reward model runs in workers of its own: their offload, colocation, pools and async launch are the layout
    for key in ("reward_model.launch_reward_fn_async", "train.colocate_critic_reward", "reward.offload",
                "reward_model.enable_resource_pool", "reward_model.model.fsdp_config.param_offload"):
        hit = classify(key)
        assert hit is not None and hit[0] == "layout", key
    assert classify("reward.loss_coef") is None and classify("reward_clip") is None


def test_a_switch_that_turns_a_role_on_and_the_work_kept_in_flight():
    for key in ("actor.use_ref", "algorithm.use_critic", "use_reference_policy", "enable_reward_model"):
        hit = classify(key)
        assert hit is not None and hit[0] == "process", key
    for key in ("model_config.max_concurrency", "workflow.n_parallel_tasks"):
        hit = classify(key)
        assert hit is not None and hit[0] == "layout", key
    assert classify("use_kl_loss") is None and classify("use_reference_answer_format") is None


def test_checkpoint_engines_move_weights_and_remote_runtimes_are_layout():
    assert classify("async_training.checkpoint_engine.enable")[0] == "comm"
    assert classify("rollout.checkpoint_engine.device_buffer_size_M")[0] == "comm"
    assert classify("agent.remote_runtime.enabled")[0] == "layout"
    assert classify("agent.remote_runtime.backend")[0] == "layout"
    assert classify("checkpoint.save_interval") is None and classify("remote_code") is None
    assert classify("rollout.checkpoint_engine._target_", "pkg.config.EngineConfig") is None  # the section's class

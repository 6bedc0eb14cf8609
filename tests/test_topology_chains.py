"""Config keys declared by use: attribute chains read on OmegaConf/Hydra/dict config objects, named from
the root as a Hydra override names them, and config files loaded through a framework's own runner."""

from dataclasses import replace
from pathlib import Path

import libcst as cst
from test_topology_entries import run

from gyrelint.index import build_index
from gyrelint.index.extract import extract
from gyrelint.settings import load_settings
from gyrelint.topology.classify import classify

FIXTURE = Path(__file__).parent / "fixtures" / "topology_config_chains"


def entries(topo):
    return {e.name: e for e in topo.keys}


def test_the_index_records_whole_chains_on_plain_names():
    src = ("def f(cfg, model):\n"
           "    a = cfg.trainer.ppo.enable\n"
           "    b = cfg['model']['tp']\n"
           "    c = cfg.rollout.get('port', 5000)\n"
           "    cfg.model.items()\n"
           "    self.cfg.actor.offload = True\n")
    s = extract(cst.parse_module(src), "m.py", "m", False)
    got = {(c.root, c.path, c.mode, c.default) for c in s.chains}
    assert ("cfg", ("trainer", "ppo", "enable"), "read", None) in got
    assert ("cfg", ("model", "tp"), "read", None) in got
    assert ("cfg", ("rollout", "port"), "read", 5000) in got
    assert ("cfg", ("model",), "read", None) in got  # the method called on a chain is no key
    assert ("self", ("cfg", "actor", "offload"), "write", None) in got
    assert not any(c.path[:2] == ("trainer", "ppo") and len(c.path) < 3 for c in s.chains)  # outermost only


def test_chains_on_a_config_are_keys_named_from_the_root():
    got = entries(run(FIXTURE))
    # the runner wrapping hydra.main makes ``cfg`` the root; ``trainer_cfg.ppo`` is passed to a constructor,
    # kept as ``self.cfg`` by the base class and read in a subclass method
    colocate = got["trainer.ppo.colocate_rollout"]
    assert (colocate.cls, colocate.declared_as, colocate.default) == ("layout", "config read", "false")
    assert colocate.file == "rlpkg/trainer.py" and colocate.line == 21
    assert got["trainer.ppo.rollout.offload_optimizer"].cls == "layout"
    # a sub-config passed to a helper keeps its full path
    assert got["trainer.ppo.trt_llm.num_servers"].cls == "process"
    port = got["trainer.ppo.trt_llm.port"]
    assert (port.cls, port.default, port.value) == ("port", "5000", "6000")  # the launcher's override sets it
    # classified by use: read where a placement group is made
    assert got["trainer.ppo.trt_llm.pool_shape"].evidence.startswith("read where Ray placement groups")
    # OmegaConf.load result and OmegaConf.select path
    assert got["reward_model.remote_url"].cls == "port"
    assert got["reward_model.num_replicas"].cls == "process"


def test_a_yaml_declaration_and_its_reads_fold_into_one_entry_declaration_first():
    topo = run(FIXTURE)
    tp = [e for e in topo.keys if e.name.endswith("tensor_model_parallel_size")]
    assert len(tp) == 1
    assert (tp[0].name, tp[0].declared_as, tp[0].file, tp[0].value) == (
        "model.tensor_model_parallel_size", "yaml", "rlpkg/conf/ppo_actor.yaml", "2")
    assert tp[0].uses == 1 and tp[0].where[0].file == "rlpkg/trainer.py"
    names = [e.name for e in topo.keys if not e.scope]
    assert len(names) == len(set(names))


def test_chains_on_models_and_sections_alone_are_not_keys():
    names = {e.name for e in run(FIXTURE).keys}
    assert not any("hidden_size" in n or "weight" in n for n in names)  # a model's own attributes
    assert "trainer" not in names and "trainer.ppo.trt_llm" not in names  # sections of longer keys


def test_an_engine_switch_under_the_engine_section_is_a_layout_key():
    got = entries(run(FIXTURE))
    enable = got["trainer.ppo.trt_llm.enable"]
    assert (enable.cls, enable.declared_as, enable.value) == ("layout", "yaml", "true")
    assert classify("rollout.vllm.enabled", "true")[0] == "layout"
    assert classify("model.use_sglang", "true")[0] == "layout"
    assert classify("data.tokenizer.vllm.enable") is None  # vetoed context


def test_config_files_named_by_a_wrapper_or_by_launcher_flags_are_loaded():
    got = {e.name: e for e in run(FIXTURE).keys}
    assert got["model.pipeline_model_parallel_size"].scope == ""  # --config-path=alt_conf --config-name=big
    assert got["rollout_port"].scope == "unloaded-config"


def test_a_config_handed_to_a_library_base_class_is_read_through_its_conventional_name():
    got = entries(run(FIXTURE))
    assert got["critic.critic_server_port"].cls == "port"
    assert got["critic.num_critic_replicas"].cls == "process"  # getattr(self.cfg, "num_critic_replicas", 1)
    # a helper handed the class and the config builds it: the class's ``cfg`` is ``cfg.reward``
    assert got["reward.pipeline_model_parallel_size"].cls == "process"
    assert "pipeline_model_parallel_size" not in got  # not left relative


def test_a_config_goes_through_a_converter_a_multiline_call_and_getattr_aliases():
    got = entries(run(FIXTURE))
    # RolloutWorker(\n config=cfg.rollout,\n): the argument sits on a later line than the call
    # self.config = to_settings(config): a repo function that returns the section it got
    assert got["rollout.free_cache_engine"].cls == "layout"
    # engine_cfg = getattr(self.config, "engine", None); getattr(engine_cfg, "gpu_memory_utilization", 0.5)
    util = got["rollout.engine.gpu_memory_utilization"]
    assert (util.cls, util.default) == ("layout", "0.5")
    assert "rollout.engine" not in got  # a section handed on, not a knob
    # a mixin reads the config the class it is mixed into keeps: trainer.ppo
    assert got["trainer.ppo.num_rollout_workers"].cls == "process"


def test_a_config_passed_to_an_actor_method_follows_the_call_graph():
    from gyrelint.api import analyze

    topo = analyze(FIXTURE, use_cache=False, jobs=1, run_rules=False).topology
    got = {e.name: e for e in topo.keys}
    # runner = TaskRunner.remote(); runner.run.remote(cfg.job): the call graph names TaskRunner.run
    assert got["job.actor_num_nodes"].cls == "process"
    assert "actor_num_nodes" not in got


def test_chains_survive_the_summary_cache(tmp_path):
    settings, _ = load_settings(FIXTURE)
    settings = replace(settings, use_cache=True, cache_dir=tmp_path, jobs=1)
    cold = build_index(FIXTURE, settings)
    warm = build_index(FIXTURE, settings)
    assert warm.stats.cached == len(warm.summaries)  # every summary came back from the cache
    chains = cold.summaries["rlpkg/launch.py"].chains
    assert any(c.path == ("port",) and c.default == 5000 for c in chains)
    assert {p: s.chains for p, s in warm.summaries.items()} == {p: s.chains for p, s in cold.summaries.items()}


def test_only_short_scalar_defaults_are_kept_in_the_summary():
    src = ("def f(cfg):\n"
           f"    a = cfg.get('x', '{'y' * 300}')\n"
           "    b = cfg.get('z', [1, 2])\n"
           "    c = cfg.get('w', 3)\n")
    s = extract(cst.parse_module(src), "m.py", "m", False)
    assert {c.path: c.default for c in s.chains} == {("x",): None, ("z",): None, ("w",): 3}


def test_the_text_listing_says_a_read_where_reason_once():
    """A key classed by where it is read has a why line that is the evidence's own first words: the
    listing printed "read where Ray placement groups are made — read where Ray placement groups
    are made (rlpkg/launch.py:13)" before."""
    from click.testing import CliRunner

    from gyrelint.cli import main

    res = CliRunner().invoke(main, ["topology", str(FIXTURE), "--no-cache", "-j", "1", "--root-relative"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("trainer.ppo.trt_llm.pool_shape"))
    assert lines[at + 1].strip() == "read where Ray placement groups are made (rlpkg/launch.py:13)"
    assert not any(line.count("read where") > 1 for line in lines)

"""Rule unit tests on hand-built analyses: each rule fires on its fault and stays quiet otherwise."""

from __future__ import annotations

import json
import re

import pytest

from gyrelint.index import parse_source
from gyrelint.model import (
    CodeEvidence,
    ConfigKey,
    EntryPoint,
    FieldContract,
    FieldUse,
    Handoff,
    KeyEntry,
    Severity,
    Side,
    Topology,
)
from gyrelint.rules import BY_ID, RULES, run_rules
from gyrelint.rules.base import fingerprint
from gyrelint.rules.gyr006_missing_counters import classify
from gyrelint.rules.gyr007_silent_drop import drops_data
from gyrelint.rules.registry import evaluate
from gyrelint.rules.testing import fn, make_analysis
from gyrelint.settings import Settings, SettingsError, Thresholds


def summary(path: str, source: str):
    module = path[:-3].replace("/", ".")
    s, diag = parse_source(path, module, source.encode())
    assert diag is None, diag
    return s


def ids(findings) -> list[str]:
    return [f.rule for f in findings]


def only(rule: str, analysis) -> list:
    return [f for f in run_rules(analysis, analysis.settings) if f.rule == rule]


LOOP = [fn("pkg.loop.rollout", Side.SAMPLING), fn("pkg.loop.train", Side.TRAINING),
        fn("pkg.loop.main", Side.DRIVER)]


# -- GYR001 / GYR002 -------------------------------------------------------------------------------

def test_gyr001_fires_when_sampling_code_is_unreached():
    a = make_analysis([fn("pkg.gen.rollout", Side.SAMPLING, reached=False, line=7),
                       fn("pkg.train.step", Side.TRAINING)])
    found = only("GYR001", a)
    assert len(found) == 1
    assert (found[0].file, found[0].line) == ("pkg/gen.py", 7)
    assert "no entry point reaches" in found[0].message


def test_gyr001_fires_when_only_training_exists_and_gyr002_stays_quiet():
    a = make_analysis([fn("pkg.train.step", Side.TRAINING, line=3)])
    assert len(only("GYR001", a)) == 1
    assert only("GYR002", a) == []


def test_gyr002_fires_when_training_is_unreached():
    a = make_analysis([fn("pkg.gen.rollout", Side.SAMPLING), fn("pkg.train.step", Side.TRAINING, reached=False)])
    assert ids(only("GYR002", a)) == ["GYR002"]
    assert only("GYR001", a) == []


def test_chain_rules_quiet_on_a_non_rl_repo_and_on_an_empty_analysis():
    assert run_rules(make_analysis([fn("pkg.util.helper")]), Settings()) == []
    assert run_rules(make_analysis(), Settings()) == []


# -- GYR003 ----------------------------------------------------------------------------------------

def test_gyr003_loop_not_online():
    a = make_analysis(LOOP, handoff=Handoff(online=False))
    found = only("GYR003", a)
    assert len(found) == 1 and found[0].severity is Severity.ERROR
    assert "never reach the sampler" in found[0].message
    assert "timeout" not in found[0].fix.lower() or "never" in found[0].fix.lower()


def test_gyr003_points_at_the_weight_sync_when_it_exists_but_is_disconnected():
    sync = fn("pkg.sync.push", Side.HANDOFF, kind="weight_sync", line=12)
    a = make_analysis([*LOOP, sync], handoff=Handoff(weight_sync=[sync.qualname], online=False))
    found = only("GYR003", a)
    assert (found[0].file, found[0].line) == ("pkg/sync.py", 12)
    assert only("GYR003", make_analysis([*LOOP, sync], handoff=Handoff(online=True))) == []


# -- GYR004 ----------------------------------------------------------------------------------------

def test_gyr004_one_finding_per_read_location_of_a_missing_field():
    fields = FieldContract(
        produced={"input_ids": [FieldUse("input_ids", "pkg/gen.py", 4, "pkg.gen.rollout")]},
        consumed={"input_ids": [FieldUse("input_ids", "pkg/train.py", 9, "pkg.train.step")],
                  "advantages": [FieldUse("advantages", "pkg/train.py", 10, "pkg.train.step"),
                                 FieldUse("advantages", "pkg/loss.py", 3, "pkg.loss.pg")]})
    found = only("GYR004", make_analysis(LOOP, handoff=Handoff(online=True, fields=fields)))
    assert sorted((f.file, f.line) for f in found) == [("pkg/loss.py", 3), ("pkg/train.py", 10)]
    assert all("'advantages'" in f.message for f in found)
    assert len({f.fingerprint for f in found}) == 2


def test_gyr004_quiet_when_no_producer_was_seen():
    fields = FieldContract(consumed={"x": [FieldUse("x", "pkg/train.py", 9, "pkg.train.step")]})
    assert only("GYR004", make_analysis(LOOP, handoff=Handoff(online=True, fields=fields))) == []


# -- GYR005 ----------------------------------------------------------------------------------------

def test_gyr005_cross_process_without_link_check():
    ev = [CodeEvidence("ray-actor", "pkg/launch.py", 14, "Rollout.remote()")]
    found = only("GYR005", make_analysis(topology=Topology(verdict="cross-process", code_evidence=ev,
                                                          trajectory_transport="Ray object store")))
    assert [(f.file, f.line) for f in found] == [("pkg/launch.py", 14)]
    assert "Ray object store" in found[0].message
    checked = Topology(verdict="cross-process", code_evidence=ev,
                       link_checks=[CodeEvidence("ping", "pkg/launch.py", 20)])
    assert only("GYR005", make_analysis(topology=checked)) == []
    assert only("GYR005", make_analysis(topology=Topology(verdict="same-process", code_evidence=ev))) == []


# -- GYR006 ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,expected", [
    ("rollout/num_samples", {"sampled"}), ("num_trajectories", {"sampled"}), ("samples_consumed", {"consumed"}),
    ("train/consumed_samples", {"consumed"}), ("global_step", {"step"}), ("trainer/global_step", {"step"}),
    ("step", {"step"}), ("policy_version", {"step"}), ("loss", set()), ("report_step_time", set()),
    ("learning_rate", set()), ("stepsize", set()),
])
def test_counter_names(name, expected):
    assert classify(name) == expected


def test_gyr006_missing_counters_each_reported_once():
    quiet = summary("pkg/loop.py", 'def main():\n    print("loss", 1.0)\n')
    found = only("GYR006", make_analysis(LOOP, summaries=[quiet]))
    assert len(found) == 3
    assert len({f.fingerprint for f in found}) == 3


def test_gyr006_counters_seen_in_metrics_and_logs():
    src = ('import logging\nlog = logging.getLogger(__name__)\n'
           'def main(metrics, n, step):\n'
           '    metrics["rollout/num_samples"] = n\n'
           '    log.info(f"global_step={step} consumed={n}")\n')
    assert only("GYR006", make_analysis(LOOP, summaries=[summary("pkg/loop.py", src)])) == []


def test_gyr006_probe_calls_count():
    src = ("from gyrelint import probe\n"
           "def main(batch):\n    probe.sampled(len(batch))\n    probe.consumed(len(batch))\n    probe.step()\n")
    assert only("GYR006", make_analysis(LOOP, summaries=[summary("pkg/loop.py", src)])) == []


# -- GYR007 ----------------------------------------------------------------------------------------

DROP = '''\
def train_epoch(model, batches):
    for batch in batches:
        if batch["rewards"].std() == 0:
            continue
        if not self.training:
            return
        if len(batch) == 0:
            log.warning("empty batch")
            continue
        model(batch)
'''


def test_gyr007_silent_drop_only_on_unlogged_data_conditions():
    a = make_analysis([fn("pkg.train.train_epoch", Side.TRAINING)], summaries=[summary("pkg/train.py", DROP)])
    found = only("GYR007", a)
    assert [(f.file, f.line) for f in found] == [("pkg/train.py", 3)]
    assert "continue" in found[0].message


def test_gyr007_only_code_that_runs_and_does_the_work_itself():
    from gyrelint.model import Evidence

    own = fn("pkg.train.train_epoch", Side.TRAINING)
    own.evidence = [Evidence("optimizer-step", "pkg/train.py", 9)]
    a = make_analysis([own], summaries=[summary("pkg/train.py", DROP)])
    assert len(only("GYR007", a)) == 1
    via = fn("pkg.train.train_epoch", Side.TRAINING)
    via.evidence = [Evidence("optimizer-step", "pkg/opt.py", 3, "callee:pkg.opt.step")]
    assert only("GYR007", make_analysis([via], summaries=[summary("pkg/train.py", DROP)])) == []
    unreached = fn("pkg.train.train_epoch", Side.TRAINING, reached=False)
    other = fn("pkg.main.main", Side.DRIVER)
    assert only("GYR007", make_analysis([unreached, other], summaries=[summary("pkg/train.py", DROP)])) == []


def test_gyr007_quiet_on_sampling_side():
    a = make_analysis([fn("pkg.train.train_epoch", Side.SAMPLING)], summaries=[summary("pkg/train.py", DROP)])
    assert only("GYR007", a) == []


@pytest.mark.parametrize("cond,expected", [
    ('batch["rewards"].std() == 0', True), ("len(samples) > max_len", True), ("torch.isnan(loss)", True),
    ("not self.training", False), ("self.use_kl", False), ("rank != 0", False), ("x is None", False),
    ("len(samples) == 0", False), ("not batch", False), ('key == "input_ids"', False),
    ('k in ("a", "b")', False), ("len(window) < accumulation_steps", False), ("key not in data", False),
    ("domain not in grouped_data.keys()", False), ("uid not in valid_batch_uids", True),
])
def test_drop_conditions(cond, expected):
    assert drops_data(cond) is expected


# -- GYR008 ----------------------------------------------------------------------------------------

TIMEOUTS = '''\
import datetime
import argparse
import requests
import torch.distributed as dist

def init_group(addr):
    dist.init_process_group("nccl", init_method=addr, timeout=datetime.timedelta(hours=10))

def fetch(url):
    return requests.post(url, json={}, timeout=7200, max_retries=3)

def quick(url):
    return requests.post(url, timeout=30)

def unrelated(x):
    return compute(x, timeout=99999)

parser = argparse.ArgumentParser()
parser.add_argument("--rollout-timeout", type=int, default=36000)
parser.add_argument("--eval-timeout", type=int, default=36000)
'''


def test_gyr008_high_timeouts_in_handoff_code_and_options():
    a = make_analysis([fn("pkg.net.init_group", Side.HANDOFF, kind="weight_sync")],
                      summaries=[summary("pkg/net.py", TIMEOUTS)])
    found = only("GYR008", a)
    assert sorted(f.line for f in found) == [7, 10, 19]
    assert all("timeout" not in f.fix.lower().split("keep")[0] for f in found)


CONSTS = '''\
import datetime
import torch.distributed as dist

GROUP_TIMEOUT = datetime.timedelta(seconds=7200)


def join(addr):
    dist.init_process_group("nccl", init_method=addr, timeout=GROUP_TIMEOUT)


class Engine:
    def setup(self, timeout=datetime.timedelta(minutes=90)):
        dist.init_process_group("nccl", timeout=timeout)
'''


def test_gyr008_follows_module_constants_and_parameter_defaults():
    syncs = [fn("pkg.c.join", Side.HANDOFF, kind="weight_sync"), fn("pkg.c.Engine.setup", Side.HANDOFF,
                                                                   kind="weight_sync")]
    found = only("GYR008", make_analysis(syncs, summaries=[summary("pkg/c.py", CONSTS)]))
    assert sorted(f.line for f in found) == [4, 12]
    # the same code outside the handoff (a training process group) is not judged
    assert only("GYR008", make_analysis(summaries=[summary("pkg/c.py", CONSTS)])) == []
    assert any("GROUP_TIMEOUT" in f.message and "pkg/c.py:8" in f.message for f in found)


RETRY = '''\
import logging
import aiohttp
import requests

log = logging.getLogger(__name__)


def quiet(url, max_retries=50):
    return requests.post(url, timeout=10)


def loud(url, max_retries=50):
    for i in range(max_retries):
        log.warning("attempt %d", i)


def forever(url):
    return aiohttp.ClientTimeout(total=None)


def bounded(url):
    return aiohttp.ClientTimeout(total=None, sock_read=900)
'''


def test_gyr008_unlogged_retries_and_no_timeout_at_all():
    hand = [fn(f"pkg.r.{n}", Side.HANDOFF, kind="trajectory") for n in ("quiet", "loud", "forever", "bounded")]
    found = only("GYR008", make_analysis(hand, summaries=[summary("pkg/r.py", RETRY)]))
    assert sorted(f.line for f in found) == [8, 18]
    assert any("waits forever" in f.message for f in found)


def test_gyr008_threshold_is_configurable_and_config_keys_count():
    def entry(name: str, value: str, file: str, line: int, scope: str = "") -> KeyEntry:
        return KeyEntry(name, "comm", value, None, file, line, "yaml", "a timeout", scope=scope)

    # GYR008 reads the topology's key entries (one per knob, at its definition), not occurrences
    keys = [entry("rollout.max_retries", "50", "conf.yaml", 4), entry("rollout.request_timeout", "60", "conf.yaml", 5),
            entry("ci.max_retries", "90", "tests/conf.yaml", 2, scope="tests")]  # set aside: not judged
    a = make_analysis(topology=Topology(keys=keys))
    assert [(f.file, f.line) for f in only("GYR008", a)] == [("conf.yaml", 4)]
    strict = make_analysis(topology=Topology(keys=keys), settings=Settings(thresholds=Thresholds(timeout=30)))
    assert len(only("GYR008", strict)) == 2
    documented = [entry("HCCL_CONNECT_TIMEOUT", "7200", "docs/npu.md", 9)]
    assert only("GYR008", make_analysis(topology=Topology(keys=documented))) == []


# -- GYR009 ----------------------------------------------------------------------------------------

def test_gyr009_missing_entry_target():
    e = EntryPoint(None, None, "readme", "README.md", 12, "python -m pkg.train_ppo", exists=False)
    ok = EntryPoint("pkg.train", "pkg/train.py", "readme", "README.md", 14, "python -m pkg.train")
    found = only("GYR009", make_analysis(entry_points=[e, ok]))
    assert [(f.file, f.line) for f in found] == [("README.md", 12)]
    assert "pkg.train_ppo" in found[0].message


# -- GYR010 ----------------------------------------------------------------------------------------

SYNC_BAD = "def push(model, llm):\n    llm.load_weights(model.state_dict().items())\n"
SYNC_GOOD = "def push(model, llm, global_step):\n    llm.load_weights(model.state_dict().items())\n"


@pytest.mark.parametrize("src,fires", [(SYNC_BAD, True), (SYNC_GOOD, False)])
def test_gyr010_weight_sync_without_version(src, fires):
    sync = fn("pkg.sync.push", Side.HANDOFF, kind="weight_sync")
    a = make_analysis([*LOOP, sync], summaries=[summary("pkg/sync.py", src)],
                      handoff=Handoff(weight_sync=[sync.qualname], online=True))
    assert bool(only("GYR010", a)) is fires


def test_gyr010_sampler_reporting_a_version_is_enough():
    sync = fn("pkg.sync.push", Side.HANDOFF, kind="weight_sync")
    gen = fn("pkg.gen.rollout", Side.SAMPLING)
    src = 'def rollout(engine, out):\n    out["policy_version"] = engine.version\n'
    a = make_analysis([sync, gen], summaries=[summary("pkg/sync.py", SYNC_BAD), summary("pkg/gen.py", src)])
    assert only("GYR010", a) == []


# -- GYR011 ----------------------------------------------------------------------------------------

def test_gyr011_config_many_code_none():
    keys = [ConfigKey("trainer.nnodes", "process", "2", "conf.yaml", 2)]
    found = only("GYR011", make_analysis(topology=Topology(config_keys=keys)))
    assert [(f.file, f.line) for f in found] == [("conf.yaml", 2)]
    with_code = Topology(config_keys=keys, code_evidence=[CodeEvidence("ray-init", "pkg/l.py", 3)])
    assert only("GYR011", make_analysis(topology=with_code)) == []


def test_gyr011_code_many_config_single():
    keys = [ConfigKey("trainer.nnodes", "process", "1", "conf.yaml", 2)]
    topo = Topology(verdict="unknown", config_keys=keys, code_evidence=[CodeEvidence("ray-init", "pkg/l.py", 3)])
    assert [(f.file, f.line) for f in only("GYR011", make_analysis(topology=topo))] == [("pkg/l.py", 3)]
    ported = Topology(config_keys=[*keys, ConfigKey("server.port", "port", "8000", "conf.yaml", 5)],
                      code_evidence=topo.code_evidence)
    assert only("GYR011", make_analysis(topology=ported)) == []


# -- settings, suppression, fingerprints ------------------------------------------------------------

def test_select_ignore_prefixes_and_severity_overrides():
    a = make_analysis(LOOP, handoff=Handoff(online=False))
    assert set(ids(run_rules(a, Settings()))) == {"GYR003", "GYR006"}
    assert set(ids(run_rules(a, Settings(select=("GYR00",), ignore=("GYR006",))))) == {"GYR003"}
    assert ids(run_rules(a, Settings(select=("GYR006",)))) == ["GYR006"] * 3
    out = run_rules(a, Settings(rules={"GYR003": "info", "GYR006": "off"}))
    assert [(f.rule, f.severity) for f in out] == [("GYR003", Severity.INFO)]


def test_bad_rule_settings_are_refused():
    # they were diagnostics once; bad settings now stop the run before any rule runs
    # a Settings built in Python is checked for the form of its ids when built, against the
    # registry when the rules run
    with pytest.raises(SettingsError, match="GYR999: unknown rule id"):
        run_rules(make_analysis(), Settings(rules={"GYR999": "error"}))
    with pytest.raises(SettingsError, match="select: unknown rule code 'XYZ9'"):
        run_rules(make_analysis(), Settings(select=("XYZ9",)))
    with pytest.raises(SettingsError, match="unknown rule id"):
        Settings(rules={"not an id": "error"})
    with pytest.raises(SettingsError, match="GYR003: expected one of error, warning, info, off, got 'loud'"):
        Settings(rules={"GYR003": "loud"})


def test_inline_suppression_on_the_reported_line():
    src = DROP.replace("        if batch[\"rewards\"].std() == 0:", "        if batch[\"rewards\"].std() == 0:  # gyrelint: ignore[GYR007]")
    a = make_analysis([fn("pkg.train.train_epoch", Side.TRAINING)], summaries=[summary("pkg/train.py", src)])
    assert only("GYR007", a) == []
    other = DROP.replace("        if batch[\"rewards\"].std() == 0:", "        if batch[\"rewards\"].std() == 0:  # gyrelint: ignore[GYR003]")
    a = make_analysis([fn("pkg.train.train_epoch", Side.TRAINING)], summaries=[summary("pkg/train.py", other)])
    assert len(only("GYR007", a)) == 1


def test_fingerprints_survive_moved_lines_but_not_other_content():
    def fps(src):
        a = make_analysis([fn("pkg.train.train_epoch", Side.TRAINING, line=src.count("\n", 0, src.index("def")) + 1)],
                          summaries=[summary("pkg/train.py", src)])
        return [(f.line, f.fingerprint) for f in only("GYR007", a)]

    before = fps(DROP)
    after = fps("import os\n\n\n# a comment\n" + DROP)
    assert before[0][0] != after[0][0]
    assert before[0][1] == after[0][1]
    changed = fps(DROP.replace('batch["rewards"].std() == 0', 'batch["scores"].std() == 0'))
    assert changed[0][1] != before[0][1]
    assert fingerprint("GYR001", "a.py", "k") != fingerprint("GYR001", "b.py", "k")


def test_a_crashing_rule_becomes_a_diagnostic(monkeypatch):
    rule = BY_ID["GYR005"]

    def boom(self, ctx):
        raise RuntimeError("kaput")
        yield

    monkeypatch.setattr(rule, "check", boom)
    a = make_analysis(LOOP, handoff=Handoff(online=False))
    assert "GYR003" in ids(evaluate(a))
    assert any("GYR005" in d.message for d in a.diagnostics)


def test_catalog_metadata():
    assert len(RULES) >= 10
    assert len({r.id for r in RULES}) == len(RULES)
    for r in RULES:
        assert r.id.startswith("GYR") and len(r.id) == 6
        assert r.bad and r.good, r.id
        assert r.summary and r.rationale and r.fix and r.docs_url().endswith(f"{r.id}.md")
        assert r.message == r.summary and r.severity in tuple(Severity)
        assert not re.search(r"(?<!never )(raise|increase|bump|longer) (the |a )?timeout", r.fix.lower()), r.id


def test_gyr001_sampler_started_as_a_process_target_counts_as_reached():
    src = ("import multiprocessing as mp\n\ndef run_sampler(q):\n    pass\n\n"
           "def main():\n    p = mp.Process(target=run_sampler, args=(1,))\n    p.start()\n")
    funcs = [fn("pkg.main.run_sampler", Side.SAMPLING, reached=False), fn("pkg.main.main", Side.TRAINING)]
    a = make_analysis(funcs, summaries=[summary("pkg/main.py", src)])
    assert only("GYR001", a) == []
    unstarted = src.replace("target=run_sampler", "target=other")
    a = make_analysis(funcs, summaries=[summary("pkg/main.py", unstarted)])
    assert len(only("GYR001", a)) == 1


def test_gyr006_counter_methods_named_after_the_counter():
    src = ("def loop(stats, batch, step):\n    stats.sampled(len(batch))\n    stats.consumed(len(batch))\n"
           "    log_metrics({'global_step': step})\n")
    assert only("GYR006", make_analysis(LOOP, summaries=[summary("pkg/loop.py", src)])) == []


def test_gyr003_online_verdict_whose_path_skips_every_weight_sync_step():
    sync = fn("pkg.sync.push", Side.HANDOFF, kind="weight_sync", line=5)
    path_ok = Handoff(online=True, weight_sync=[sync.qualname], weight_sync_path=["pkg.loop.train", sync.qualname])
    assert only("GYR003", make_analysis([*LOOP, sync], handoff=path_ok)) == []
    path_bad = Handoff(online=True, weight_sync=[sync.qualname],
                       weight_sync_path=["pkg.loop.train", "pkg.loop.rollout"])
    found = only("GYR003", make_analysis([*LOOP, sync], handoff=path_bad))
    assert [(f.file, f.line) for f in found] == [("pkg/sync.py", 5)]


# -- GYR004 on the bundled demo and on reads through a batch's items -----------------------------

def _demo_copy(tmp_path):
    import shutil

    from gyrelint.api import demo_root

    root = tmp_path / "minirl"
    shutil.copytree(demo_root(), root)
    return root


def test_demo_fields_read_through_the_batch_items_are_consumed(tmp_path):
    """The trainer reads obs/actions/log_probs/policy_version from every trajectory of the batch
    (``for t in batch``, ``enumerate(batch)``); the report said 0 fields read by training."""
    from gyrelint.api import analyze

    a = analyze(_demo_copy(tmp_path), use_cache=False)
    consumed = a.handoff.fields.consumed
    assert {"obs", "actions", "log_probs", "policy_version", "rewards", "group_id"} <= set(consumed)
    assert a.handoff.fields.missing == []
    assert "GYR004" not in ids(a.findings)


def test_demo_field_renamed_on_the_producer_side_only_is_gyr004(tmp_path):
    from click.testing import CliRunner

    from gyrelint.cli import main

    root = _demo_copy(tmp_path)
    sampler = root / "minirl" / "sampler.py"
    src = sampler.read_text()
    assert '"obs": torch.stack(observations)' in src
    sampler.write_text(src.replace('"obs": torch.stack(observations)', '"observation": torch.stack(observations)'))
    r = CliRunner().invoke(main, ["check", str(root), "--no-cache", "--format", "json"], catch_exceptions=False)
    assert r.exit_code == 1, r.output
    found = [f for f in json.loads(r.stdout)["findings"] if f["rule"] == "GYR004"]
    assert [(f["file"], "'obs'" in f["message"]) for f in found] == [("minirl/trainer.py", True)]


_ITEM_LOOP = '''\
import dataclasses

import torch
from vllm import LLM, SamplingParams


@dataclasses.dataclass
class Episode:
    tokens: list
    reward: float
    behaviour_logp: list


def collect(llm, prompts):
    outs = llm.generate(prompts, SamplingParams(temperature=1.0))
    return [Episode(tokens=o.outputs[0].token_ids, reward=0.0, behaviour_logp=[]) for o in outs]


def to_rows(llm, prompts):
    outs = llm.generate(prompts, SamplingParams(temperature=1.0))
    return [{"ids": o.outputs[0].token_ids, "score": 1.0, "mask": None} for o in outs]


def learn_from_episodes(model, optimizer, episodes):
    rewards = torch.tensor([e.reward for e in episodes])
    logps = [e.behaviour_logp for e in episodes]
    loss = -(model(logps) * rewards).mean()
    loss.backward()
    optimizer.step()


def learn_from_rows(model, optimizer, rows):
    total = 0.0
    for i in range(len(rows)):
        total += rows[i]["score"]
    for k, row in enumerate(rows):
        total += model(row["ids"]).sum() * row["advantage"]
    loss = -total
    loss.backward()
    optimizer.step()


def main(model, llm, prompts):
    optimizer = torch.optim.AdamW(model.parameters())
    for _ in range(10):
        learn_from_episodes(model, optimizer, collect(llm, prompts))
        learn_from_rows(model, optimizer, to_rows(llm, prompts))


if __name__ == "__main__":
    main(torch.nn.Linear(4, 4), LLM("m"), ["hi"])
'''


def test_fields_read_on_items_of_a_batch_dicts_and_dataclasses(tmp_path):
    """``[e.x for e in episodes]`` on a dataclass, ``rows[i]["x"]`` and ``for k, row in enumerate(rows)``:
    reads on the items are reads of the batch; the one never produced is reported."""
    from gyrelint.api import analyze

    (tmp_path / "loop.py").write_text(_ITEM_LOOP)
    a = analyze(tmp_path, use_cache=False)
    fc = a.handoff.fields
    assert {"reward", "behaviour_logp", "score", "ids"} <= set(fc.consumed)
    assert fc.missing == ["advantage"]
    assert [re.findall(r"'(\w+)'", f.message)[0] for f in a.findings if f.rule == "GYR004"] == ["advantage"]

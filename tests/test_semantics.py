"""Sides, handoff, weight-sync path, field contract and boundary modules on small fixture repos."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from gyrelint.api import analyze
from gyrelint.model import HandoffKind, Side
from gyrelint.render.text import render_text

FIX = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    return analyze(FIX / "semantics_loop", use_cache=False, jobs=1)


@pytest.fixture(scope="module")
def offline(tmp_path_factory):
    return analyze(FIX / "semantics_offline", use_cache=False, jobs=1)


def side(a, q):
    return a.functions[q].side


def test_chains_are_found_by_what_bodies_call(loop):
    assert side(loop, "looprl.sampler.RolloutWorker.generate") == Side.SAMPLING
    assert side(loop, "looprl.trainer.Learner.train_step") == Side.TRAINING
    assert side(loop, "looprl.main.main") == Side.DRIVER
    assert side(loop, "looprl.protocol.stack_episodes") == Side.HANDOFF
    assert loop.functions["looprl.protocol.stack_episodes"].handoff_kind == HandoffKind.TRAJECTORY


def test_same_name_methods_can_sit_on_opposite_sides(loop):
    # Stepper.act steps an environment, Stepper.update and Learner.step step an optimizer
    assert side(loop, "looprl.sampler.Stepper.act") == Side.SAMPLING
    assert side(loop, "looprl.sampler.Stepper.update") == Side.TRAINING
    assert side(loop, "looprl.trainer.Learner.step") == Side.TRAINING
    # the environment's own step() touches no library: neutral, whatever its name
    assert side(loop, "looprl.sampler.Env.step") == Side.NEUTRAL


def test_ray_actor_method_is_judged_by_its_body(loop):
    f = loop.functions["looprl.sampler.RolloutWorker.receive_weights"]
    assert f.side == Side.HANDOFF and f.handoff_kind == HandoffKind.WEIGHT_SYNC
    assert any(e.signal == "engine-load-weights" and e.via == "own" and e.line == 17 for e in f.evidence)


def test_evidence_names_the_callee_for_delegating_functions(loop):
    f = loop.functions["looprl.main.push_weights"]
    assert f.side == Side.HANDOFF and f.handoff_kind == HandoffKind.WEIGHT_SYNC
    assert any(e.via == "callee:looprl.sampler.RolloutWorker.receive_weights" for e in f.evidence)
    d = loop.functions["looprl.main.main"]
    vias = {e.via for e in d.evidence}
    assert "callee:looprl.sampler.RolloutWorker.generate" in vias
    assert "callee:looprl.trainer.Learner.train_step" in vias


def test_weight_sync_path_goes_from_sender_to_sampler(loop):
    """The headline path is the weights' own way, sender → receiver, not the climb from the
    optimizer step up to the step loop and back down (it started at ``Learner.train_step`` and ran
    through ``main.main`` before)."""
    h = loop.handoff
    assert h.online is True
    assert h.weight_sync_path == ["looprl.main.push_weights", "looprl.sampler.RolloutWorker.receive_weights"]
    assert "looprl.sampler.RolloutWorker.receive_weights" in h.weight_sync


def test_weight_sync_path_crosses_the_queue_between_two_processes():
    """The demo's trainer puts its state dict on a weight queue and each sampler process takes it
    off and loads it: no call joins them, so the path used to stop at the sender (and, before the
    receiver was seen through the unpacked queue item, it held only the receiver)."""
    from gyrelint.api import analyze, demo_root

    a = analyze(demo_root(), use_cache=False, jobs=1, run_rules=False)
    assert a.handoff.weight_sync_path == ["minirl.trainer.Trainer.sync_weights",
                                          "minirl.sampler.load_latest_weights"]
    assert any(e.signal == "weight-payload-receive" for e in a.functions["minirl.sampler.load_latest_weights"].evidence)


def test_field_contract_reports_the_field_nobody_produces(loop):
    fc = loop.handoff.fields
    assert {"tokens", "logprobs", "rewards"} <= set(fc.produced)
    assert fc.missing == ["values"]
    use = fc.consumed["values"][0]
    assert (use.file, use.line, use.function) == ("looprl/trainer.py", 15, "looprl.trainer.Learner.train_step")


def test_boundary_module_is_the_one_defining_the_handoff_surface(loop):
    assert "looprl.protocol" in loop.boundary_modules
    assert "looprl.main" not in loop.boundary_modules  # imported by everyone, defines no handoff surface
    mods = {m.module: m for m in loop.modules}
    assert mods["looprl.protocol"].boundary
    assert mods["looprl.trainer"].side == Side.TRAINING


def test_every_indexed_function_is_reported(loop):
    indexed = {f"{s.module}.{f.qualname}" for s in loop.index.summaries.values() for f in s.functions}
    assert indexed <= set(loop.functions)
    assert loop.functions["looprl.main.main"].reached


def test_offline_loop_and_look_alikes(offline):
    assert side(offline, "offrl.loop.learn") == Side.TRAINING
    assert side(offline, "offrl.loop.generate_report") == Side.NEUTRAL
    assert offline.handoff.online is False
    assert offline.handoff.weight_sync_path == []


def test_user_signal_from_pyproject(offline):
    f = offline.functions["offrl.loop.main"]
    assert any(e.signal == "mylib-fetch" and e.via == "own" and e.line == 28 for e in f.evidence)
    assert f.side == Side.DRIVER  # it also calls the sampler and the trainer


def test_bad_user_signal_is_refused_not_a_crash(tmp_path):
    # a bad entry was a diagnostic (the rest ran); bad settings now stop the run with exit 2,
    # see tests/test_settings.py for every refusal through the CLI
    from gyrelint.semantics.catalog import user_signals
    from gyrelint.settings import SettingsError, read_settings

    for entry, key in [('{id = "b", side = "up", call = "x.y"}', "signals[0].side"),
                       ('{id = "c", side = "handoff", call = "q"}', "signals[0].kind"),
                       ('{id = "d", side = "training"}', "signals[0]")]:
        (tmp_path / "pyproject.toml").write_text(f"[tool.gyrelint]\nsignals = [{entry}]\n")
        with pytest.raises(SettingsError, match=re.escape(key)):
            read_settings(tmp_path, user_config=False)
    (tmp_path / "pyproject.toml").write_text('[tool.gyrelint]\nsignals = [{id = "a", side = "sampling", call = "x.y"}]\n')
    assert [s.id for s in user_signals(read_settings(tmp_path, user_config=False).signals)] == ["a"]


def test_text_report_answers_the_five_questions(loop):
    text = render_text(loop)
    for head in ("1. Sampling chain", "2. Training chain", "3. Handoff", "4. Processes", "5. Loop online: yes",
                 "Counters logged"):
        assert head in text
    assert "looprl/sampler.py:13" in text  # evidence with file:line
    assert "missing: 'values' is read at looprl/trainer.py:15" in text
    assert "'train/global_step' (looprl/main.py:20)" in text
    assert "'rollout/num_samples'" in text


def test_semantics_survive_a_repo_without_any_signal(tmp_path):
    (tmp_path / "m.py").write_text("def f(x):\n    return x + 1\n", encoding="utf-8")
    a = analyze(tmp_path, use_cache=False, jobs=1)
    assert a.functions["m.f"].side == Side.NEUTRAL
    assert a.handoff.online is False and a.boundary_modules == []
    assert "not found" in render_text(a)


def test_fixture_not_modified(tmp_path):
    src = FIX / "semantics_loop"
    before = {p: p.read_bytes() for p in src.rglob("*.py")}
    analyze(src, use_cache=False, jobs=1)
    assert before == {p: p.read_bytes() for p in src.rglob("*.py")}
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_cached_semantics_equal_fresh_ones(tmp_path):
    from gyrelint.settings import Settings

    src = tmp_path / "repo"
    shutil.copytree(FIX / "semantics_loop", src)
    settings = Settings(cache_dir=tmp_path / "cache", jobs=1)
    first = analyze(src, settings)
    assert list((tmp_path / "cache" / "semantics").iterdir())
    second = analyze(src, settings)
    assert second.stats.cached == second.stats.files
    for q, f in first.functions.items():
        g = second.functions[q]
        assert (g.side, g.handoff_kind, g.reached, g.evidence) == (f.side, f.handoff_kind, f.reached, f.evidence)
    assert second.handoff.fields.missing == first.handoff.fields.missing == ["values"]
    assert second.handoff.weight_sync_path == first.handoff.weight_sync_path
    assert second.boundary_modules == first.boundary_modules
    # a change to one file invalidates the stored result
    (src / "looprl" / "trainer.py").write_text(
        (src / "looprl" / "trainer.py").read_text().replace(" + batch.values.mean()", ""))
    third = analyze(src, settings)
    assert third.handoff.fields.missing == []


# ---- drivers reached over Ray handles; batch-type (container) evidence kept local


@pytest.fixture(scope="module")
def ray_driver():
    return analyze(FIX / "semantics_driver_ray", use_cache=False, jobs=1, run_rules=False)


@pytest.fixture(scope="module")
def containers():
    return analyze(FIX / "semantics_containers", use_cache=False, jobs=1, run_rules=False)


def test_orchestrator_over_ray_handles_is_the_driver(ray_driver):
    a = ray_driver
    assert side(a, "orch.loop.Orchestrator.fit") == Side.DRIVER
    assert side(a, "orch.loop.train") == Side.DRIVER  # the launcher that starts the loop
    # the data loader's state_dict() queued with the rollouts is a resume position, not weights
    assert side(a, "orch.generator.Generator.fit") == Side.SAMPLING
    assert a.functions["orch.generator.Generator.fit"].handoff_kind is None
    assert side(a, "orch.learner.Learner.fit") == Side.TRAINING


def test_calls_into_labelled_chains_make_a_driver_below_the_score_thresholds():
    from gyrelint.semantics.sides import SideResult, _calls_both_chains

    res = {"gen.fit": SideResult(side=Side.SAMPLING), "learn.fit": SideResult(side=Side.TRAINING),
           "util.log": SideResult(side=Side.NEUTRAL), "loop.run": SideResult(side=Side.DRIVER)}
    both = {"gen.fit": 0.7, "learn.fit": 0.7}
    assert _calls_both_chains(0.55, 0.9, {}, both, res)
    assert not _calls_both_chains(0.55, 0.9, {}, {"gen.fit": 0.7, "util.log": 0.7}, res)
    assert not _calls_both_chains(0.55, 0.9, {}, {"gen.fit": 0.7, "learn.fit": 0.21}, res)  # name-guessed call
    # decided structurally: own training evidence (inline advantage math) does not veto a driver
    assert _calls_both_chains(0.55, 0.9, {"training": 2.0}, both, res)
    assert not _calls_both_chains(0.3, 0.9, {}, both, res)
    assert _calls_both_chains(0.5, 0.8, {}, {"loop.run": 0.595}, res)  # one of a few same-named drivers


def test_settings_classes_are_no_trajectory_containers(containers):
    a = containers
    assert side(a, "pipe.loop.make_config") == Side.NEUTRAL
    assert side(a, "pipe.records.split") == Side.HANDOFF


def test_batch_type_evidence_reaches_one_caller_that_moves_data(containers):
    a = containers
    assert side(a, "pipe.records.chunked") == Side.HANDOFF  # passes records on
    assert a.functions["pipe.records.chunked"].handoff_kind == HandoffKind.TRAJECTORY
    assert side(a, "pipe.records.describe_chunks") == Side.NEUTRAL  # two calls away from the records
    assert side(a, "pipe.records.test_split") == Side.NEUTRAL  # takes nothing in, moves nothing


def test_batch_type_evidence_does_not_travel_over_name_guessed_calls(containers):
    a = containers
    assert side(a, "pipe.records.Episode.pop") == Side.HANDOFF  # builds records and a TensorDict of responses
    assert side(a, "pipe.records.option") == Side.NEUTRAL  # ``options.pop(key)`` is a dict's pop

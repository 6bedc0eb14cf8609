"""A trainer on TRL's PPOTrainer generates with an unwrapped view of ``self.model``
(``unwrap_model_for_generation`` / ``accelerator.unwrap_model``) and trains it with TRL's ``step``:
one model object samples and trains, so the run is online with nothing to push, in one process."""

from pathlib import Path

from gyrelint.api import analyze

FIXTURE = Path(__file__).parent / "fixtures" / "topology_unwrapped_ppo"


def test_an_unwrapped_view_and_a_library_ppo_step_share_the_instance_model():
    a = analyze(FIXTURE, use_cache=False, jobs=1)
    assert a.functions["fernhill.ppo.PolicyTuner.fit"].side.value == "driver"
    assert a.handoff.online
    assert [e.via for e in a.handoff.online_evidence] == ["self.model"]
    assert a.topology.verdict == "same-process"

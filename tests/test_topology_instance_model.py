"""A loop that samples and trains through one trainer instance whose methods share the model attribute
(``self.actor.module.generate`` / ``self.actor.backward`` + ``self.actor.step``) is online with no weight push,
and one process: the launcher's ports, GPU counts and process groups are data-parallel copies of it."""

from pathlib import Path

from gyrelint.api import analyze

FIXTURE = Path(__file__).parent / "fixtures" / "topology_instance_model"


def test_the_instance_model_is_sampled_and_trained_in_one_process():
    a = analyze(FIXTURE)
    assert a.handoff.online
    assert [e.via for e in a.handoff.online_evidence] == ["trainer.actor"]
    assert a.topology.verdict == "same-process"
    assert any("very model object" in r for r in a.topology.reasons)

"""Pattern F, catalog gaps: library-level signals for what frameworks we never saw sample and train with.

The fixture ``accuracy_library_clients`` (names of its own) samples through a non-OpenAI model
client, runs tool commands in a sandbox, grades with a grading library, plays a multi-agent
library's env, trains through a hosted client method handed to a thread and through a library
engine's ``optimizers`` attribute, ships rollouts through a Redis list and weights through a
tensor store; next to each, a look-alike (an embeddings client, a discrete-event simulation, a KL
metric for the dashboard, rollout packing with a clamp and a loss mask, a heartbeat on the same
list). Eleven of its thirteen labels were wrong before these signals.
"""

from __future__ import annotations

from test_accuracy_patterns import own_signals, wrong_labels

NAME = "accuracy_library_clients"


def test_library_clients_engines_and_transports_take_their_sides():
    assert wrong_labels(NAME) == []


def test_the_evidence_names_the_library_api():
    assert "llm-api-generate" in own_signals(NAME, "marlin.agent.PolicyClient.complete")
    assert "sandbox-exec" in own_signals(NAME, "marlin.agent.Sandbox.run_command")
    assert "message-broker-batch" in own_signals(NAME, "marlin.transport.RolloutSink.push")
    assert "hosted-train-step" in own_signals(NAME, "marlin.learner.HostedLearner.optim_step")


def test_look_alikes_carry_no_side_evidence():
    assert not own_signals(NAME, "marlin.agent.Retriever.embed")
    assert own_signals(NAME, "marlin.worlds.simulate_queueing") <= {"simulation-clock"}
    assert not own_signals(NAME, "marlin.learner.pack_for_update") & {"value-loss"}
    assert not own_signals(NAME, "marlin.learner.kl_report_metrics") & {"kl-penalty"}

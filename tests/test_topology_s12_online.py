"""Online and process verdicts from code patterns the earlier passes missed (session 12, issue 15).

Each fixture is a small repo of made-up names under ``tests/fixtures/`` written for one pattern."""

from __future__ import annotations

from pathlib import Path

from gyrelint.api import analyze

FIX = Path(__file__).parent / "fixtures"


def _analyze(name: str):
    return analyze(FIX / name, use_cache=False, jobs=1, run_rules=False)


def test_one_instance_that_trains_and_pushes_through_a_context_manager_is_online():
    """A hybrid worker's update method reaches the optimizer step; its generation method enters a
    context manager whose ``__enter__`` loads the module's state dict into the engine. A library's
    worker group calls each method, so no repo function calls both: the instance is the joint."""
    a = _analyze("online_instance_push")
    assert a.functions["relay.worker.EngineBridge.__enter__"].handoff_kind.value == "weight_sync"
    # entering the context says nothing of the generation method's own side
    assert a.functions["relay.worker.HybridWorker.generate_sequences"].handoff_kind is None
    assert a.handoff.online
    path = a.handoff.weight_sync_path
    assert "relay.worker.HybridWorker.update_actor" in path and "relay.worker.HybridWorker.generate_sequences" in path
    assert a.topology.verdict == "same-process"


def test_one_class_that_samples_and_trains_one_attribute_is_online_without_a_loop_in_the_repo():
    """A class built in a function on the base it is handed generates with ``self.policy``; the base it
    is handed (found through a registry) steps ``self.policy``'s optimizer; the loop that calls both is
    the library base class's ``learn``. The instance is the evidence: same object, same process."""
    a = _analyze("online_class_model")
    assert a.handoff.online
    ev = a.handoff.online_evidence
    assert ev and ev[0].signal == "same-object" and ev[0].via == "self.policy"
    assert ev[0].file == "drill/wrap.py"
    assert a.topology.verdict == "same-process"


def test_an_adapter_the_trainer_saved_and_loaded_into_an_engine_object_of_the_same_holder_is_one_process():
    """The trainer saves its adapter and the same desk adds it to an engine object (its type known only
    from an annotation: a library loader built the engine) reached through a cached property: the
    engine sits beside the trainer. The HTTP server and the child process carry the client's calls
    to that one process, so the verdict is same-process."""
    a = _analyze("topology_engine_adapter")
    local = [e for e in a.topology.code_evidence if e.signal == "engine-local-load"]
    assert local and local[0].file == "quay/service.py"
    assert "self.holder.trainer" in local[0].detail and "self.holder.engine.async_engine.engine" in local[0].detail
    assert a.topology.verdict == "same-process"


def test_weights_read_by_a_state_dict_function_and_loaded_into_the_engine_beside_them_are_one_process():
    """``get_model_state_dict(self.module)`` reads the trained module as ``self.module.state_dict()``
    does; its result goes into the model of the engine the same object holds, so generation and the
    update share the Ray worker's process (failed before: only method-form reads counted, and the
    Ray actors made the verdict cross-process)."""
    a = _analyze("topology_state_dict_fn")
    local = [e for e in a.topology.code_evidence if e.signal == "engine-local-load"]
    assert local and local[0].file == "moth/bridge.py"
    assert "self.module" in local[0].detail and "self.engine" in local[0].detail
    assert a.topology.verdict == "same-process"

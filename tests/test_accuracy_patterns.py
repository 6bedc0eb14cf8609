"""Side tagging on the per-pattern fixtures of the accuracy error analysis (patterns A, B, C, D, I).

Each fixture under ``tests/fixtures/accuracy_*`` is a small repo written for one pattern, in
names of its own, with its hand labels in ``labels.json`` (``side`` or ``handoff/<kind>``).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from gyrelint.api import analyze

FIX = Path(__file__).parent / "fixtures"


@cache
def _analysis(name: str):
    return analyze(FIX / name, use_cache=False, jobs=1, run_rules=False)


def _got(a, q: str) -> str:
    f = a.functions.get(q)
    if f is None:
        return "absent"
    return f.side.value + (f"/{f.handoff_kind.value}" if f.handoff_kind is not None else "")


def wrong_labels(name: str) -> list[str]:
    """Every labelled function of the fixture whose tag differs from its label."""
    a = _analysis(name)
    labels = json.loads((FIX / name / "labels.json").read_text(encoding="utf-8"))
    return [f"{q}: label {want}, got {_got(a, q)}" for q, want in sorted(labels.items()) if _got(a, q) != want]


def own_signals(name: str, q: str) -> set[str]:
    return {e.signal for e in _analysis(name).functions[q].evidence if e.via == "own"}


def test_chain_of_plain_delegations_keeps_its_side():
    """C: 6-7 exact single-target hops above the engine call or the optimizer step."""
    assert wrong_labels("accuracy_chain") == []


def test_forwarding_wrappers_are_transparent():
    """A: a shared timing decorator and a decorator factory over both sides, plus test doubles."""
    assert wrong_labels("accuracy_wrappers") == []


def test_name_only_hint_survives_a_call_resolved_to_a_test_double():
    """A: a weight-update call whose only repo target is a test module's fake keeps its name-only hint."""
    assert "weight-update-call" in own_signals("accuracy_wrappers", "tidal.learn.Updater.push_weights")


def test_actor_handles_followed_through_zip_enumerate_options_and_runtime_binding():
    """B: handle lists through zip/enumerate/indexing, ``.options(...).remote``, untyped handle
    parameters, and methods a group binds onto itself with ``setattr`` at run time."""
    assert wrong_labels("accuracy_handles") == []


def test_driver_is_the_body_that_calls_both_chains():
    """D: loops with inline advantage math call a deep sampler and the learner; a training step
    that calls a reward scorer stays training."""
    assert wrong_labels("accuracy_driver") == []


def test_callback_arguments_bind_to_the_worker_parameters():
    """I: channels handed over by ``Process(args=/kwargs=)``, ``Thread``, ``submit``,
    ``run_in_executor`` and ``create_task`` are typed inside the worker."""
    assert wrong_labels("accuracy_callbacks") == []
    assert "queue-put" in own_signals("accuracy_callbacks", "relaymp.workers.Actor.run")


def test_trajectory_handoff_reaches_the_consumer_two_hops_from_the_transport():
    """E1: a client method and the feeder above it move what the mailbox carries."""
    assert wrong_labels("accuracy_handoff_hops") == []


def test_training_math_is_recognised_by_its_shape():
    """G: a clipped surrogate, per-group normalisation and discounted returns in unusual words;
    look-alikes (moving average, temperature softmax, report statistics) stay neutral."""
    assert wrong_labels("accuracy_loss_shapes") == []


def test_helpers_take_the_side_of_their_only_callers():
    """K: private helpers called only from one side's code in the same class take that side;
    logging helpers and helpers shared by both sides stay neutral."""
    assert wrong_labels("accuracy_caller_context") == []


def test_a_queue_inside_one_side_is_no_handoff():
    """E2: a sampler's own prompt and result queues (both ends on the sampling side) are plumbing;
    a carrier class whose ends sit on no side of their own stays the trajectory handoff."""
    assert wrong_labels("accuracy_queue_sides") == []


# ---- patterns F, H, L, Q (catalog gaps, operation names in strings, ambiguous signals, registries)
def test_catalog_covers_engine_apis_routes_tools_stores_graders_and_duck_typed_envs():
    """F: an engine's own request/generate APIs, a server-side generate route, tool execution,
    an external key-value store of batches, a grader by shape called from the rollout, an env
    from an unlisted library (stepped and reset), and a record's own (de)serialisation."""
    assert wrong_labels("accuracy_catalog") == []


def test_decode_loop_is_generation_and_data_resampling_is_not():
    """L: a forward pass in a loop that draws a token and appends it is generation; a multinomial
    draw over data weights that the trainer calls is resampling, not acting with the policy."""
    assert wrong_labels("accuracy_decode_loop") == []


def test_operation_named_by_a_string_outside_the_calling_body():
    """H: a route literal handed to a helper that builds the URL (f-string or concatenation), a
    method-name literal handed to a ``getattr``/RPC helper, and a sender of request objects built
    with an endpoint elsewhere."""
    assert wrong_labels("accuracy_endpoints") == []


def test_registry_dispatch_reaches_rollout_side_checkers_worlds_and_tools():
    """Q: classes collected by ``__subclasses__()``, a registering decorator and a ``{name: Cls}``
    literal, looked up by a string and called inside the rollout: their methods are rollout-side."""
    assert wrong_labels("accuracy_registry") == []


def test_training_maths_without_the_usual_words():
    """G (rest): masked token whitening, per-token log-probs from an unreduced cross-entropy, and a
    hand-written parameter update from the gradients; a plain feature scaling stays neutral."""
    assert wrong_labels("accuracy_math_rest") == []


# ---- patterns M, N, O, P, R and the headline/online answers (issue 14 items 1, 4, 5)

def test_weight_sync_found_by_payload_not_by_api_name():
    """O: parameters reaching ``.remote``, HTTP, a ZMQ socket or a transfer object's send make a
    sender; the actor method handed them and a body loading what a socket delivered are receivers;
    the function that pauses, drives the senders and resumes is the orchestrator. The kind follows
    the payload: the same socket type carrying rollouts stays the trajectory handoff."""
    assert wrong_labels("accuracy_weight_payload") == []
    h = _analysis("accuracy_weight_payload").handoff
    assert h.online
    assert h.weight_sync_path[-2:] == ["ferry.learner.Learner.ship", "ferry.engine.EngineActor.take_update"]
    assert "ferry.engine.BucketReader.__init__" not in h.trajectory  # a socket opened for weights
    # item 4: a weight-transfer class's end-of-round message rides the weights' socket: weight sync
    assert h.trajectory[0] == "ferry.engine.SampleSender.send"
    assert not [q for q in h.trajectory if "Bucket" in q]


def test_a_name_guess_across_sides_carries_no_side():
    """M: ``worker.advance(x)`` on an untyped receiver, ``.remote`` on an untyped handle, a method
    name in a string handed to a dispatcher or ``getattr``: when the repo's methods of that name sit
    on opposite sides, the caller takes neither; when they all sit on one side, it takes that one."""
    assert wrong_labels("accuracy_dispatch") == []


def test_a_name_guess_whose_candidates_nearly_all_agree_takes_their_side():
    """M: ``owner.backend.ask_model(...)`` on an untyped receiver, answered by four generating
    clients and one that also pushes weights: the odd one out does not silence the name; the
    caller samples (a few against a few stays silent, see accuracy_dispatch)."""
    assert wrong_labels("accuracy_majority_guess") == []


def test_object_store_and_object_collectives_check_their_payload():
    """N: ``ray.put`` and ``*_gather_object``/``broadcast_object_list`` are the trajectory handoff
    only for rollouts; settings, statistics and a boxed stop flag are no handoff, parameters are
    the weight sync."""
    assert wrong_labels("accuracy_payload_checks") == []


def test_actors_between_the_sides_and_constructors_of_one_side():
    """R: a CPU actor that drains the results queue, filters, normalises into advantages and packs
    is the trajectory handoff, and so are its serving method and the learner's loader that fetches
    from it; a function that only creates one side's actors takes that side, one creating both is
    the driver."""
    assert wrong_labels("accuracy_between") == []


def _same_object_reason(name: str) -> list[str]:
    return [r for r in _analysis(name).topology.reasons if "same object 'policy'" in r]


def test_a_sampler_acting_with_the_trained_module_is_online_in_one_process():
    """Item 5: the loop hands the module the optimizer steps to the sampler itself: online with no
    weight push, and same-process by positive evidence (not by the absence of transports)."""
    assert wrong_labels("accuracy_same_object") == []
    a = _analysis("accuracy_same_object")
    assert a.handoff.online and a.handoff.weight_sync_path == []
    assert a.topology.verdict == "same-process"
    assert _same_object_reason("accuracy_same_object")
    assert any(e.signal == "same-object" for e in a.topology.code_evidence)


def test_an_opaque_carrier_of_rollouts_is_the_trajectory_handoff():
    """Item 5: a wrapper over a backend nobody can type, fed with what the sampler returned, is the
    trajectory handoff at both ends; a channel both sides use is not the shared model, the policy
    handed to the actor thread is."""
    assert wrong_labels("accuracy_opaque_queue") == []
    a = _analysis("accuracy_opaque_queue")
    assert a.handoff.online
    assert sorted(a.handoff.trajectory) == ["conduit.channel.Channel.pull", "conduit.channel.Channel.push"]
    assert _same_object_reason("accuracy_opaque_queue")


def test_handoff_lists_name_the_carriers_the_loop_reaches():
    """P: a function that generates and hands its own output to the buffer is sampling; the handoff
    lists name the carriers (put/get), not the learner method delegating to one, and code no entry
    point reaches (a file converter) is neither listed nor a boundary module; labels are kept."""
    assert wrong_labels("accuracy_carrier_lists") == []
    a = _analysis("accuracy_carrier_lists")
    assert sorted(a.handoff.trajectory) == ["weft.buffer.RolloutBuffer.get", "weft.buffer.RolloutBuffer.put"]
    assert a.boundary_modules == ["weft.buffer"]
    assert a.functions["weft.offline_tools.export_rollouts"].side.value == "handoff"


def test_control_messages_on_a_socket_are_no_trajectory_handoff():
    """A ZMQ send whose payload is a command (a record with a ``method`` field, a dict keyed by
    ``status``, a literal) and the reply received after it move no rollout; sending and receiving
    rollouts on the same kind of socket stays the trajectory handoff. A class's ``__init__`` that
    only opens the socket stores no trajectory state for its other methods to serve."""
    assert wrong_labels("accuracy_control_messages") == []


def test_a_prompt_batch_wrapped_into_the_batch_type_is_no_trajectory_handoff():
    """Payload direction: wrapping the loader's rows (or a ``next()`` of the loader) into the
    record type the trainer reads feeds the sampler; packing generated sequences and rewards
    into the same type is the trajectory handoff."""
    assert wrong_labels("accuracy_prompt_batch") == []


def test_a_queue_of_prompt_requests_is_the_samplers_intake_not_the_handoff():
    """Payload direction on a queue: requests and tasks (prompts going into the sampler) are no
    trajectory handoff; the worker methods that put one in and take the next out are the
    sampler's intake. A helper that only asks the process layout (world size) takes no side from
    its sampling caller."""
    assert wrong_labels("accuracy_request_queue") == []


def test_training_maths_computed_only_for_a_report_is_no_loss():
    """Ratios, clip fractions and per-group reward spreads written into a metrics record (and
    returned as one, or kept on the object) are diagnostics, not a loss or an advantage
    estimator; the same maths returned as a loss or as advantages stays training."""
    assert wrong_labels("accuracy_report_maths") == []


def test_route_handlers_registered_by_an_app_factory_do_not_take_its_side():
    """K: handlers an app factory defines and registers (``app.add_api_route(path, handler)``) are
    called by the web framework, not by the factory: the factory's own generation call gives its
    admin routes (pause/resume a worker) no side."""
    assert wrong_labels("accuracy_route_handlers") == []


# ---- issue 14, server-backed and agentic rollouts (the sampling chain on frameworks never seen)

def test_served_policy_and_agent_loop_are_the_sampling_chain():
    """A policy served over HTTP (an OpenAI client, raw ``/generate`` and ``/v1/completions`` posts,
    a URL built once in ``__init__`` and posted by another method), an agent/world loop over it,
    gathered by ``asyncio.gather``/``TaskGroup``/``as_completed`` and run through a pool that is
    handed the episode function; graders looked up by name in a dict and an LLM judge are the
    rollout's scoring; a helper awaiting rollouts handed in as pending coroutines runs them. A
    health check, a model listing, a rules listing and an awaited report stay neutral."""
    assert wrong_labels("accuracy_served_rollout") == []
    assert "http-generate" not in own_signals("accuracy_served_rollout", "meadow.client.TokenPolicy.__init__")


def test_an_engine_assembled_from_its_parts_and_stepped_by_hand_is_generation():
    """F: a vLLM worker built and its KV cache sized by hand (set-up of the inference side), and a
    loop that schedules, runs the model on the plan and turns outputs into texts (generation);
    a description and a counter of waiting requests stay neutral."""
    assert wrong_labels("accuracy_engine_loop") == []


def test_actor_endpoints_called_through_their_handles_carry_their_side():
    """B/Q: ``h.m.route(x)``, ``h.m.call_one(x)``, ``h.m.choose(x)``, ``h.m.call(x)`` on a method an
    ``@endpoint`` decorator exposes run ``m`` in the actor: the rollout that routes to the writer is
    sampling, the loop that asks the writer and teaches the tutor is the driver, and the critic's
    grader it calls on fresh answers is rollout-side scoring, and so is a reward object the loop
    builds and hands to the critic (its grader-shaped ``__call__``; a clock object's is not).
    ``setup``, an endpoint every actor has, is a name guess: the start-up code that calls it on all
    of them takes no side."""
    assert wrong_labels("accuracy_endpoint_scoring") == []


def test_a_base_class_template_method_reaches_the_subclasses_it_runs():
    """A base class's method that awaits its own abstract ``run`` (``@abstractmethod`` or a body
    raising NotImplementedError) runs whichever subclass the object is: it takes their side.
    Overrides of a describing method stay neutral, and so does the code listing them."""
    assert wrong_labels("accuracy_template_method") == []


def test_a_hosted_training_service_is_sampled_trained_and_synced_by_its_api():
    """F: a hosted service's sampling client (``sample_async``), training client
    (``forward_backward_async``, ``optim_step_async``) and weight publishing for the sampler are the
    three sides; a client swap and a tokenizer getter stay neutral."""
    assert wrong_labels("accuracy_hosted_service") == []


def test_offline_scripts_hand_nothing_off():
    """P: a checkpoint converter's weight broadcast, reached only from its own script (no
    generation feeding training), is no weight sync, with the reason in the evidence; the GRPO
    launcher's push keeps it. SFT and preference steps stay training (an offline step is still a
    training step), the shared optimizer helper too, and the evaluation's generation sampling."""
    assert wrong_labels("accuracy_offline_entries") == []
    ev = _analysis("accuracy_offline_entries").functions["ember.convert.broadcast_state"].evidence
    assert [e.via for e in ev if e.signal == "offline-entry"] == [
        "offline:scripts.convert_checkpoint"]


def test_a_buffers_store_and_evict_ends_are_the_handoff_too():
    """E: a buffer the actor deposits into and the learner draws a batch from: the method storing
    what it is handed in the drawn list, and the one rewriting that list from itself (dropping
    stale episodes), move the same trajectories as the draw; a reset to an empty list, a size
    query and a log whose list is never drawn from stay neutral."""
    assert wrong_labels("accuracy_buffer_ends") == []


def test_a_rollout_awaiter_typed_with_unions_runs_the_rollout():
    """F: the per-task wrapper of a gather over pending rollouts, its parameter and return typed
    with PEP 604 unions (``Awaitable[X] | Awaitable[list[X]]`` -> ``X | list[X] | BaseException``),
    and the gather calling it are sampling; the same wrapper over pending reports stays neutral."""
    assert wrong_labels("accuracy_union_awaits") == []


def test_batch_assembly_after_generation_is_the_trajectory_handoff():
    """E: generated turns flattened into an accumulator (a parameter named for nothing, whose
    responses, log-probs and rewards are read) and padded into the learner's per-token batch, and
    preallocated tensors filled row by row, both with position ids from the mask's running sum,
    are the trajectory contract being assembled; so is the episodes' loop handing the accumulator
    to the padder. A prompt encoder with the same layout and a reward-to-go over the same
    accumulator are not."""
    assert wrong_labels("accuracy_batch_assembly") == []
    assert "rollout-packing" not in own_signals("accuracy_batch_assembly", "knot.assemble.reward_to_go")


def test_a_queue_payload_built_from_episodes_is_no_prompt_intake():
    """E: a collector that groups a task's finished episodes into a batch object and queues it (through
    a helper whose name says 'task') hands trajectories to the learner, whatever the batch class is
    called; a queue of task requests beside it stays the sampler's intake."""
    assert wrong_labels("accuracy_made_payload") == []


def test_a_collector_queuing_groups_a_helper_shaped_is_the_handoff():
    """R: a collector that groups the episodes it is handed, has a helper normalise their rewards
    into advantages and queues the group for the learner is the handoff's put end (it was training,
    which made its queue internal to training and the sampler calling it a driver); the learner's
    get is the other end; the advantage helper stays training."""
    assert wrong_labels("accuracy_hub_end") == []


def test_rollout_tensors_handed_over_through_shared_file_mappings():
    """E/F: ``torch.from_file(..., shared=True)`` maps a file every process sees: the packed rollout
    batch written into such views on one side and mapped back on the other is the trajectory
    handoff (both the mapper and the writer that calls it); a private read of a file is not."""
    assert wrong_labels("accuracy_shared_files") == []
def test_loop_handing_its_rollouts_to_a_remote_trainer_is_the_driver():
    """D (multi-process): ``batch = await collect(...); await policy.learn(batch)`` where the
    optimizer step sits behind a client whose backend is only known by a name guess; a loop that
    generates and only logs what it got stays sampling."""
    assert wrong_labels("accuracy_remote_trainer") == []


def test_constructor_building_the_engine_and_a_library_trainer_is_the_driver():
    """R: an ``__init__`` that builds a vLLM engine and a training library's trainer in one process
    starts both sides; building only the trainer is the training side's set-up; evaluating with
    a trainer built elsewhere is neither."""
    assert wrong_labels("accuracy_colocated_build") == []


def test_buffer_that_shapes_groups_is_the_handoff_and_the_process_launcher_takes_its_childs_side():
    """R/P: a buffer that gives a finished group its advantages (one call) and queues it is the
    trajectory handoff, not training, and the rollout that feeds it stays sampling (a "task batch"
    of episodes is no prompt intake); ``Process(target=child)`` starts the child's side however
    deep the child's generation sits; a dict's ``get`` is not the buffer's."""
    assert wrong_labels("accuracy_group_buffer") == []


def test_reporting_helpers_take_no_side_and_log_probs_are_no_logging():
    """Neutral precision: a helper named for reporting (``update_*_metrics``, ``_log_*_stats``) that
    computes a KL for the dashboard is no training code, nor is the logger calling it; a helper
    named ``*_log_prob`` is the logarithm, so the caller context still gives it its class's side."""
    assert wrong_labels("accuracy_reporters") == []


def test_a_name_guess_does_not_veto_the_rollout_stepping_its_worlds():
    """Q: plain-Python worlds (``step``/``reset``, no environment library) picked from a registry
    and stepped by the rollout are sampling, though the trainer's ``warmup.step()`` on an untyped
    receiver is name-guessed to every ``step`` of the repo: a guess is no caller."""
    assert wrong_labels("accuracy_env_guesses") == []


def test_helpers_a_driver_hands_its_rollouts_to_are_the_handoff():
    """E/R: plain-Python regrouping and filtering the step loop applies to what generation
    returned, before the update, is the trajectory handoff; a prompt picker fed nothing
    generated and a stats printer stay neutral."""
    assert wrong_labels("accuracy_reshape") == []


def test_a_helper_that_calls_nothing_takes_no_side_from_its_callers():
    """Neutral precision (K): a request-dict builder that calls nothing, used only by the
    sampler's class, does none of its work; the sampler's output parser does and takes its side."""
    assert wrong_labels("accuracy_context_builders") == []


def test_the_loop_that_sends_prompts_to_a_rollout_service_and_trains_on_the_answer_is_the_driver():
    """D (multi-process): agents run in worker processes behind a task queue; the trainer's step
    draws prompts, hands them to the service's client and trains on what comes back. No
    generation score reaches it, yet it drives both chains (and so does the loop calling it);
    a function that only pulls ready rollouts and trains stays training."""
    assert wrong_labels("accuracy_rollout_service") == []


def test_a_bare_transport_under_weight_pushes_and_engine_loads_is_the_weight_sync():
    """Item 4 / N: a shared-memory helper and a ZMQ receiver whose users push parameters or load
    them into the engine carry weights; the same kind of socket shipping rollouts stays trajectory."""
    assert wrong_labels("accuracy_transport_kind") == []


def test_a_call_run_in_a_child_with_a_result_queue_is_no_handoff():
    """E2: a grader run in a child process to bound its time (local queue, start, join, one get)
    is one call; the rollout queue the trainer keeps reading is untouched."""
    assert wrong_labels("accuracy_child_call") == []
    assert not {"sundial.limits._run_child", "sundial.limits.run_bounded"} & set(_analysis("accuracy_child_call").handoff.trajectory)


def test_an_interface_stub_typed_with_the_batch_moves_nothing():
    """A body that only raises NotImplementedError, with the trajectory type in its signature, is no handoff."""
    assert wrong_labels("accuracy_interface_stub") == []


def test_an_in_process_buffer_holding_what_a_generating_loop_made_is_the_handoff():
    """E/P: one process generates with the very module it trains (a hybrid loop); the object
    the loop stores each experience batch in, and gets the training pieces back from, is the
    trajectory handoff: the storing method and the helpers it runs on the store. A meter fed the
    loss stays neutral."""
    assert wrong_labels("accuracy_experience_buffer") == []


def test_a_subclass_of_a_library_rollout_buffer_is_the_handoff():
    """E/F: a class built on an RL library's rollout buffer stores and serves the rollouts; its
    overrides of the buffer's data methods (store, get, sample) are the trajectory handoff, a
    description or the constructor are not, nor is a tally with methods of the same names."""
    assert wrong_labels("accuracy_library_buffer") == []


def test_overrides_of_an_abstract_method_only_the_rollout_calls_take_its_side():
    """Q/K: the environment's step calls a reward through its abstract base (declared with
    ``abstractclassmethod``); the many concrete rewards that run there are rollout-side scoring.
    Loggers behind an abstract sink, and a shaper the trainer calls too, stay neutral."""
    assert wrong_labels("accuracy_abstract_dispatch") == []


def test_launching_the_inference_server_script_takes_its_side():
    """F/R: a function that starts the repo's own inference-server script as a subprocess
    (``Popen([python, path/to/serve.py, ...])``) is the sampling side's launcher, and the training
    loop that launches it and trains is the driver. Launching a dashboard script is neither."""
    assert wrong_labels("accuracy_launched_server") == []


def test_an_inline_python_program_naming_a_rollout_worker_launches_the_sampler():
    """E/F: a pool that starts ``python -c "from pkg.mod import worker; worker(...)"`` per task,
    where ``worker`` plays an episode with the policy, starts the sampling side, and so do the
    pool's tick and polling loop above it, even though the worker sits in the launcher's own
    module. An inline program calling a log uploader launches nothing."""
    assert wrong_labels("accuracy_inline_worker") == []


def test_helpers_whose_result_the_rollout_hands_to_generation_are_sampling():
    """F/K: a gateway route that generates through a relay picks the inference host and sets the
    sampling fields of the request with helpers of a router class in another module, and hands
    their results straight into the generation call: both helpers are sampling. A helper whose
    result only goes to a logger, and one that only wraps its argument into a literal, stay
    neutral."""
    assert wrong_labels("accuracy_generation_inputs") == []


def test_a_handle_passed_through_typing_cast_keeps_its_class():
    """B: ``cast(Any, ray.remote(Cls)).remote()`` is the actor of ``Cls`` (``typing.cast``
    returns its second argument), so ``handle.go.remote()`` reaches ``Cls.go`` only, not every
    repo method named ``go``."""
    assert wrong_labels("accuracy_cast_handle") == []


def test_an_rl_librarys_learn_loop_is_the_driver():
    """D/F: an RL library's ``learn`` collects rollouts with the policy and updates it in one
    loop: the override calling ``super().learn`` and a script calling ``PPO(...).learn`` are the
    driver; saving the model is neither side."""
    assert wrong_labels("accuracy_library_learn") == []


def test_building_a_dataset_class_named_for_rewards_is_no_scoring():
    """Neutral precision: picking a preference dataset whose class name holds 'reward'
    (``...RewardPairsDataset(output_path, seed)``) constructs an object, it scores nothing; a
    call of the reward model on responses still does."""
    assert wrong_labels("accuracy_reward_names") == []


def test_a_text_generation_pipeline_is_the_sampler():
    """F: ``transformers.pipeline`` built for a generation task (text-generation,
    text2text-generation) is a generator: building it and calling it are sampling; a pipeline for
    another task (token classification) is not."""
    assert wrong_labels("accuracy_text_pipeline") == []


def test_a_module_decoding_by_calling_itself_is_generation():
    """L: a model class's own decoding loop runs ``self(**inputs)`` on inputs built from the ids it
    grows with each drawn token (argmax or multinomial): that is generation, and the token
    log-probs it records on the way are no training; log-probs of stored sequences still are."""
    assert wrong_labels("accuracy_self_decode") == []


def test_rollout_plumbing_and_generation_callbacks():
    """A helper in another class that turns the model's text into the next env step or prompt is
    the rollout's own code; a mask object handed to ``generate(logits_processor=[...])`` is called
    while decoding. A helper whose result only goes to a list, and a callable handed to
    ``json.dumps`` on another line of the same sampler, stay neutral."""
    assert wrong_labels("accuracy_rollout_plumbing") == []


def test_rollouts_through_the_repos_own_web_routes_are_the_trajectory_handoff():
    """H/E: a sampler posts scored groups to a web app's route and the learner gets batches from
    another route of the same app: the client path literals pair with the registered routes
    (decorator and ``add_api_route``), the handlers that queue and serve the groups and the thin
    clients are the trajectory handoff. The snapshot routes the learner posts its state dict to and
    the sampler loads from are the weight sync; the health and join routes stay neutral."""
    assert wrong_labels("accuracy_http_trajectories") == []


def test_library_learner_handles_and_loss_objects():
    """A training library's workers, held in an attribute of unknown type, asked to update the actor
    or recompute log-probs on a batch: the calling bodies, up to the update hook, are training; so
    is a loss object whose ``__call__`` returns a library loss of its arguments. A cache's policy
    set by a literal and a loss looked up by name stay neutral."""
    assert wrong_labels("accuracy_learner_handles") == []


def test_trainer_helpers_with_faint_evidence_or_test_callers():
    """A helper of a solid training step whose own evidence is faint but training, and one whose only
    other callers are tests, are the trainer's code; one a report in the same module shares stays
    neutral."""
    assert wrong_labels("accuracy_helper_context") == []


def test_weight_receiver_helpers():
    """A helper the weight receiver hands what it fetched from the store, and whose result it loads
    into the engine's model, is the weight sync; a helper whose result only gets counted is not."""
    assert wrong_labels("accuracy_receiver_helpers") == []


def test_training_setup_helpers_by_value_flow():
    """A helper whose result goes into the caller's optimizer constructor, or that turns gradients on
    for the parameters it is handed, is training set-up; a settings builder is not."""
    assert wrong_labels("accuracy_setup_helpers") == []


def test_weight_sync_resting_on_a_nested_closure():
    """Tensors rebuilt from CUDA IPC handles in a nested closure: the body calling it and its caller
    loading the state dict are the weight sync."""
    assert wrong_labels("accuracy_nested_sync") == []


def test_trained_model_copied_into_the_samplers_model():
    """Copying the trained model into the one a decoding callback runs is a weight sync; into a
    target network only the loss reads is not."""
    assert wrong_labels("accuracy_model_copy") == []


def test_overrides_the_rollout_reaches_through_a_base_are_sampling():
    """F/Q: the rollout calls ``self.arena.reset()`` and ``self.judge(...)`` on attributes typed by
    the repo's base classes (bases with working defaults, not abstract): the subclasses' overrides
    run on every rollout and are sampling, and so is a same-class helper of an override's ``step``.
    A device getter reached the same way, and an override only the update reaches, stay neutral."""
    assert wrong_labels("accuracy_override_dispatch") == []


def test_silent_implementations_of_an_agreed_interface_take_its_side():
    """O/N: two relays over NCCL push and load weights; the other two implementations of the same
    interface use a transfer agent behind a ZMQ mailbox and a blob store the catalog does not know.
    They are weight sync too, and so is the mailbox (its kind follows the interface, not the socket).
    Methods no implementation takes a side in, and a judge interface whose implementations disagree
    (one samples, one trains), leave the silent members neutral."""
    assert wrong_labels("accuracy_interface_consensus") == []
def test_the_code_turning_kept_completions_into_training_rows_is_the_trajectory_handoff():
    """E/R: a proxy keeps each completion in a module-level store; a view reads it back through a
    filtered comprehension and trims each record; the training step fetches the rows itself
    (its side comes from the update it calls) through a builder whose nested helper pads them.
    The chain between is the handoff. A padding helper evaluation also calls, the store's count,
    its start-up reset, the last reply the training step only logs, and the warm-up rows the
    padding helper builds for the first update (its result must not carry the episode's records
    into them) are not."""
    assert wrong_labels("accuracy_conversion_chain") == []


def test_isinstance_narrowing_types_the_callees_parameter():
    """Q: ``if isinstance(self.grader, ManyAtOnce): grade_all(eps, self.grader)`` where ``grade_all``
    annotates the parameter with a sibling base: the batch graders' ``__call__`` run on every
    rollout and are sampling. A method of the same family reached only by a neutral helper stays
    neutral."""
    assert wrong_labels("accuracy_narrowing") == []


def test_helpers_called_by_tests_too_take_their_callers_side():
    """K: a sampler's helper that the project's tests also call takes the sampler's side (a test is
    no caller of any side); a module function only tests call stays neutral."""
    assert wrong_labels("accuracy_context_tests") == []


def test_a_name_guess_with_one_specific_candidate_passes_the_side_firmly():
    """C: ``runner = self.checkout(); runner.play_one_episode(task)`` loses the runner's type; the
    guess has one candidate with a specific name, so the rollout side carries up the chain as over
    a typed call. A short common name (``runner.run``) stays a weak guess."""
    assert wrong_labels("accuracy_telling_guess") == []


def test_weight_update_calls_that_cross_or_hit_a_library_class_are_the_push():
    """O: hooks after the optimizer step that call ``sync_weights.remote(...)`` on a handle set by a
    setter, or ``update_weights(...)`` on an object annotated with a library's class, are the weight
    sync on their own; the same name on an untyped table stays a hint."""
    assert wrong_labels("accuracy_weight_crossing") == []


def test_a_template_call_whose_many_overrides_all_sample_passes_sampling_on():
    """C/Q: a base flow's ``play_guarded`` runs the abstract ``play`` that five flows override, all
    of them samplers (three on their own evidence): the template and the engine's calls above it
    are sampling, as over a registry's classes, not a guess decaying to neutral."""
    assert wrong_labels("accuracy_agreed_overrides") == []


def test_a_library_rollout_objects_generate_is_sampling():
    """F: ``self.rollout.generate_sequences(...)`` on an object built from an installed library's
    rollout class (no repo code answers it) is the generation step; the worker's config writer is not."""
    assert wrong_labels("accuracy_library_rollout") == []


def test_a_body_building_parameter_groups_sets_up_the_optimizer():
    """G/F: the optimizer class comes from the config (``getattr(torch.optim, name)``), so no
    optimizer constructor is named; the parameter groups it is built from (``{"params": ...,
    "weight_decay": ...}``) are the torch convention and make the builder training set-up. A
    summary dict with a ``"params"`` count and no optimizer knob stays neutral."""
    assert wrong_labels("accuracy_param_groups") == []


def test_a_kl_knob_handed_on_to_a_call_is_no_kl_term():
    """G (precision): a scorer that takes ``kl_estimator``/``kl_clip_range`` and ``action_log_probs``
    and passes them on to the reference pass computes no KL itself; the pass it calls does. Its
    zero-tensor and to-CPU helpers then stay neutral instead of taking a training side from it."""
    assert wrong_labels("accuracy_forwarded_knobs") == []
    assert "kl-penalty" not in own_signals("accuracy_forwarded_knobs", "larch.scoring.Judge.__call__")
    assert "kl-penalty" not in own_signals("accuracy_forwarded_knobs", "larch.scoring.score_rollouts")
    assert "kl-penalty" in own_signals("accuracy_forwarded_knobs", "larch.scoring.Judge.reference_kl")


def test_a_broadcast_of_text_or_a_length_is_no_weight_push():
    """N (precision): a bring-up helper broadcasts a head address as a ``LongTensor`` length and a
    ``ByteTensor`` of its bytes; what moves is data made here, not parameters. Its caller stays
    neutral too, and a broadcast over ``named_parameters()`` is still the weight sync."""
    got = {q: w for q, w in (line.split(": label ") for line in wrong_labels("accuracy_data_lookalikes"))}
    assert not any(q.startswith("wren.launch.") for q in got), got


def test_a_function_returning_a_generation_url_sends_no_request():
    """H (precision): ``return f"http://{ip}:8080/v1/completions"`` after an address lookup builds a
    URL for its caller; the function that posts to the route is the sampler."""
    got = {q for q, _ in (line.split(": label ") for line in wrong_labels("accuracy_data_lookalikes"))}
    assert not got & {"wren.remote.endpoint_of", "wren.remote.ask"}, got


def test_a_data_collator_for_language_modeling_is_no_model():
    """F (precision): ``DataCollatorForLanguageModeling(...)`` holds the word Model; calling it on
    the rows' values collates prompts, it is no log-prob or value forward of a model."""
    assert "model-logprob-forward" not in own_signals("accuracy_data_lookalikes", "wren.data.collate_prompts")
    assert "wren.data.collate_prompts" not in " ".join(wrong_labels("accuracy_data_lookalikes"))


def test_a_config_default_naming_a_method_is_no_call_by_name():
    """M (precision): ``cfg.get("gen_fn", "generate")`` reads a setting whose default happens to be
    the name of the engine's method; a mapping lookup's literals are keys and values, so no weak
    string edge reaches every ``generate`` of the repo (typed ``dict`` or untyped receiver)."""
    bad = [w for w in wrong_labels("accuracy_data_lookalikes") if w.startswith("wren.settings.")]
    assert bad == []


def test_a_store_the_training_loop_iterates_is_the_trajectory_handoff():
    """E: an on-policy store collects the iteration's minibatches (``add(minibatch)``) and is handed
    to the training loop as its data loader, which iterates it (``__iter__`` over the list): both
    ends are the handoff although nothing samples from it. A list of hooks iterated the same way
    is no store."""
    assert wrong_labels("accuracy_iterated_store") == []


def test_a_kl_of_two_textbook_log_densities_is_a_kl_term():
    """G: ``estimate_kl(log_p, log_q)`` holds no ``logprob`` word; ``log_p``/``log_q`` are the
    textbook names of the two log-densities, so the k1/k2/k3 estimators are the KL term."""
    assert "kl-penalty" in own_signals("accuracy_forwarded_knobs", "larch.scoring.estimate_kl")


def test_an_environment_lookup_handed_to_the_engine_spawn_is_no_generation_input():
    """Precision: ``env_noset()`` looks two environment variables up and its result goes into the
    engine actor's ``.remote(...)``; a settings read is no part of the generation chain."""
    bad = [w for w in wrong_labels("accuracy_data_lookalikes") if w.startswith("wren.engines.")]
    assert bad == []


def test_an_rpc_that_has_the_engine_workers_join_a_group_is_the_weight_sync_set_up():
    """H/O: ``collective_rpc("init_process_group", args=...)`` has every engine worker join the group
    the trainer broadcasts weights over; the RPC names the operation. Another worker method named
    by the RPC (``report_device_id``) stays neutral."""
    assert wrong_labels("accuracy_rpc_group") == []


def test_an_http_request_whose_reply_is_read_for_rewards_scores_the_samples():
    """F/Q: a deployed reward model is called like any web service (``requests.post(url, json=...)``);
    the body reads ``["rewards"]`` out of the reply, so it scores the samples it sent. A status
    probe over the same client stays neutral."""
    assert wrong_labels("accuracy_reward_request") == []


def test_an_entropy_of_logits_is_training_maths():
    """G: ``logsumexp(logits) - sum(softmax(logits) * logits)`` is the per-token entropy the loss's
    entropy bonus reads (nothing is gathered, so the log-prob signal misses it); its masked mean
    follows. A softmax summed over a batch is no entropy."""
    assert wrong_labels("accuracy_logits_entropy") == []
def test_helpers_whose_result_the_weight_sync_pushes_are_the_weight_sync():
    """O: a bridge holding the trained module and an in-process engine gathers the adapter tensors,
    remaps the state-dict keys and wraps the weights in a ``(name, tensor)`` generator with helpers,
    and hands their results to ``add_lora`` / ``load_weights``: the three helpers are the weight
    sync. A helper that the checkpoint export also calls, and one that only formats the adapter's
    id, stay neutral."""
    assert wrong_labels("accuracy_weight_inputs") == []


def test_silent_functions_of_an_agreed_registry_lookup_take_its_side():
    """Q/G: advantage estimators registered by a decorator (through ``torch.no_grad()(fn)``, which
    registers the function itself) and called as ``ESTIMATORS[name](**inputs)``: two are training
    on their own bodies, so the leave-one-out and best-gap estimators and the one-line dispatcher are
    training too. A registry of metric formatters, and its dispatcher, stay neutral."""
    a = _analysis("accuracy_registry_lookup")
    assert "quill.estimators.leave_one_out" in a.graphs.calls.successors("quill.estimators.estimate")
    assert wrong_labels("accuracy_registry_lookup") == []


def test_patches_installing_a_lora_loader_into_the_engine_are_the_weight_sync_receiver():
    """O/F: an in-process engine takes the trainer's adapter as tensors once its LoRA machinery is
    patched: the worker manager's loader replaced (``setattr(Manager, "_load_adapter", loader)``, the
    nested loader too), the request class given a tensor field, a wrapping runner given its inner
    runner's ``add_lora``. A patch of a model class's non-LoRA attribute and one of a repo class stay
    neutral."""
    assert wrong_labels("accuracy_engine_lora_patch") == []


def test_a_helper_that_reshapes_the_batch_in_place_before_the_update_is_the_trajectory_handoff():
    """E/R: the step loop hands the fresh batch to a helper that reorders it so the training ranks get
    similar token counts (``batch.reorder(order)``, returning nothing), then hands the same batch to
    the update: the helper is the trajectory handoff. One that only writes a length statistic into
    the stats dict it is also handed stays neutral."""
    assert wrong_labels("accuracy_inplace_reshape") == []
def test_model_plumbing_is_no_forward_and_a_started_generate_is_one():
    """L/I: ``self.apply(...)``, ``model.to(...)``, ``model.eval()`` on a model set it up, they run
    no forward pass, so a loader that enables gradient checkpointing stays neutral (and so do its
    callers); ``Thread(target=self.model.generate, kwargs=kw)`` runs the generate call, so the
    streaming engine that starts it samples; a thread saving the tokenizer does not. An evaluator
    whose logits only become argmax answers runs no trainer forward; one keeping log-probs does."""
    assert wrong_labels("accuracy_model_plumbing") == []


def test_a_metrics_named_body_that_returns_its_callees_loss_is_training():
    """G/K: ``get_batch_loss_metrics`` of a preference trainer returns ``(losses.mean(), metrics)``
    with the loss taken from its training callees: the name's "metrics" does not make it a
    reporter. A summary that returns only a dict of numbers from the same callees stays neutral."""
    assert wrong_labels("accuracy_preference_metrics") == []


def test_a_remote_reward_request_and_a_library_ppo_step_and_a_probed_generation_config():
    """F/Q/D: an HTTP request whose response's ``scores`` field is read is the rollout's remote
    reward model (a request that only pushes reward stats is not); ``self.step(q, r, scores)`` of
    TRL's PPOTrainer is the PPO update, so the loop that samples, scores and calls it drives both
    sides; a ``GenerationConfig()`` built empty and probed with ``hasattr`` configures no decoding,
    so neither the options' ``as_kwargs`` nor the reporter that logs them samples; launching an
    SGLang server with ``sglang.utils.launch_server_cmd`` sets up the sampler. A reward model run whose
    outputs are returned as scores (the score server's handler) is the scoring; its pairwise-loss
    training is training."""
    assert wrong_labels("accuracy_remote_scoring") == []
def test_a_record_constructor_that_only_stores_its_arguments_has_no_side():
    """Precision: a hand-written ``__init__`` of a rollout record (``self.kl = kl``,
    ``self.logprobs = logprobs``) names what the record carries and computes nothing, so the
    KL/loss word patterns do not fire on it, and a packer that builds a record does not inherit
    training through the constructor call. A real KL estimate stays training."""
    assert wrong_labels("accuracy_record_init") == []


def test_a_plugin_file_loaded_from_a_computed_path_is_followed():
    """F/Q: ``importlib.util.module_from_spec(spec_from_file_location(name, args.path))`` loads one
    of the repo's files chosen on the command line; ``plugin.flow`` is then any repo module's
    top-level ``flow``, so the runner that calls ``self.flow(...)`` runs the rollout."""
    a = _analysis("accuracy_plugin_files")
    assert _got(a, "mosaic.runner.Runner.run_all") == "sampling"
    assert _got(a, "mosaic.runner.Runner.describe") == "neutral"


def test_scoring_that_arrives_stronger_does_not_hide_the_generation_chain():
    """D: the collector scores one hop down (a reward plugin) and generates several hops down
    through four same-named rollout plugins; its sampling origin is still the generation chain,
    so the loop that then updates the policy is the driver, not training."""
    assert wrong_labels("accuracy_plugin_files") == []


def test_a_batch_record_split_into_per_sample_records_is_the_trajectory_handoff():
    """E: a function taking the rollout batch record apart into records of another repo type that
    hold the same fields (one item per sample) reshapes trajectories for the trainer; a summary
    record of other fields built from the batch stays neutral."""
    assert wrong_labels("accuracy_record_split") == []


def test_a_constructor_starting_a_sampling_actor_and_a_training_actor_is_the_driver():
    """R: ``Generator.remote(...)`` and ``Learner.options(...).remote(...)`` in one ``__init__``
    start the loop although neither actor's ``__init__`` holds evidence; a constructor starting
    only a metrics actor stays neutral."""
    assert wrong_labels("accuracy_actor_launch") == []


def test_a_tokenizer_wrapper_called_only_by_the_sampler_stays_neutral():
    """K (precision): a helper whose body only runs the tokenizer and moves its result is data
    preparation for whoever calls it, so the caller context does not lend it the sampler's side;
    the sampler's stop-word helper still takes it."""
    assert wrong_labels("accuracy_encoder_helper") == []
def test_generic_broadcast_of_a_seed_is_no_weight_sync():
    """A collective helper that sends its own ``tensor`` parameter carries what its callers hand it:
    a seed agreed across ranks is no weight push (nor are its callers); a broadcast of the model's
    parameters still is."""
    assert wrong_labels("accuracy_seed_broadcast") == []


def test_a_decoding_step_that_draws_from_the_models_output_is_generation():
    """L/F: decoding split into a step (run the model, pick the next token from its logits) and a
    loop around it, and a cached loop that feeds each picked token back: all generation, not a
    trainer's forward pass; the trainer's log-probs of stored tokens and a greedy-accuracy eval are not."""
    assert wrong_labels("accuracy_step_decoding") == []


def test_a_generate_call_handed_engine_sampling_params_is_generation():
    """F: an engine handed in untyped (a parameter named after nothing) generates when the call is
    given vLLM's SamplingParams built in the body, here inside the ``**kwargs`` dict; the helper
    unpacking its outputs follows its caller; a report builder's generate stays neutral."""
    assert wrong_labels("accuracy_engine_params") == []


def test_the_method_a_collective_weight_sender_starts_remotely_is_the_receiver():
    """O: a trainer ships its state dict rank to rank (``dist.send`` per tensor) after starting the
    holder actor's receive method over ``.remote``; that method only ``dist.recv``s into its buffers,
    and it is the weight sync's other end. The holder's counter and stats methods, also called
    remotely from the sender, stay neutral."""
    assert wrong_labels("accuracy_collective_receiver") == []


def test_preference_losses_without_logsigmoid_are_training():
    """G: a hinge (``relu(1 - gamma * margin)``) and a softplus over the chosen-minus-rejected
    log-probs are preference objectives; an accuracy and margin read-out of the same values, and a
    ReLU activation, stay neutral."""
    assert wrong_labels("accuracy_preference_margin") == []


def test_a_plugin_read_off_a_file_module_is_not_an_entry_scripts_main():
    """A function read by name off a module loaded from a configured path (``getattr(module, name)``,
    default ``"main"``) is a plugin file's; the ``main`` of a script run under its own ``__main__``
    guard (the training entry, a tool) is no candidate, so the grader stays on the sampler's side
    instead of reaching the whole loop through the entry script and turning into a driver."""
    assert wrong_labels("accuracy_plugin_entry_mains") == []


def test_log_probs_of_stored_answers_are_no_token_draw():
    """L (precision): a helper that takes the log-softmax of the model's logits and, apart from it,
    an ``argmax`` over the answer mask (where each answer starts) draws no token: the preference
    trainer's forward pass over stored pairs stays training; a picker that samples from the softmax
    it builds still makes its caller a decoding step."""
    assert wrong_labels("accuracy_scored_pairs") == []


def test_a_broadcast_over_the_default_group_is_no_weight_sync():
    """Precision (O): ``dist.broadcast(param.data, src=0)`` with no group makes the training ranks
    agree on loaded weights (the default group is the launcher's training world, which no inference
    engine joins); the push over the group made for the engines stays the weight sync."""
    assert wrong_labels("accuracy_world_broadcast") == []
def test_a_step_loop_publishing_weights_in_its_own_body_is_the_driver():
    """D: loops against a hosted service that sample, train and publish the new weights in one body
    (inline, or by calling a sampler and a learner) are drivers, not the weight sync; a publish
    alone stays weight sync. A launcher that picks one of two such loops at run time
    (``loop = a if flag else b``) drives both chains too."""
    assert wrong_labels("accuracy_publishing_loop") == []


def test_a_decorator_handing_the_function_to_a_wrapper_factory_is_transparent():
    """A: ``spanned(fn)`` returns ``_wrap_with_span(fn, name)``'s closure. Bound to the closure,
    every decorated function's arguments met in its ``*args`` and reached every other one (a
    sampler's plan object became the learner's), so the sampler, the learner and a tally all
    came out drivers; bound to the original they keep their sides. ``inspect.iscoroutinefunction(fn)``
    in the factory only looks at ``fn``: the factory calls no decorated function back."""
    assert wrong_labels("accuracy_span_factory") == []
    edges = _analysis("accuracy_span_factory").graphs.calls
    assert not [v for v in edges.successors("quill.span._wrap_with_span") if v.startswith("quill.rollout")]


def test_group_rewards_centred_on_their_mean_are_advantages():
    """G: rewards minus their group mean, called advantages, with no division by a std (Dr. GRPO,
    a mean baseline), is advantage estimation; a report of the mean reward is not."""
    assert wrong_labels("accuracy_centred_advantages") == []
def test_a_handler_table_handed_to_a_generic_executor_gives_each_caller_its_own_side():
    """M: one plan executor calls ``handlers[type(op)](...)`` over a table each caller hands it (a
    decoding table from a class attribute, an optimiser family's table from a typed parameter's
    property, abstract in the base). The executor's dispatch site holds every caller's handlers,
    so the decoder and the trainer take the side of the table they hand, not the union's; the
    abstract hooks' overrides join the spread instead of passing training on as a firm call."""
    assert wrong_labels("accuracy_handler_tables") == []


def test_a_mask_or_length_of_the_prompt_tokens_is_not_a_drawn_prompt():
    """D: a PPO step reads ``prompt_mask`` (which tokens of the generated sequences were the
    prompt) and ``prompt_lens``, packs them with the advantages into the batch type and hands it to
    the engine's update. Those names hold a property of prompts already sampled on, not prompts
    sent out for generation, so the step is training, not a driver requesting rollouts."""
    assert wrong_labels("accuracy_prompt_masks") == []


def test_a_token_drawn_from_a_categorical_over_the_model_logits_is_generation():
    """L: the decoding step runs the model and hands its last-position logits to a repo picker
    that builds ``torch.distributions.Categorical(logits=...)`` and samples (or takes its mode):
    acting with the policy, not a trainer's forward pass; a log-prob scorer of stored tokens
    stays training."""
    assert wrong_labels("accuracy_categorical_draw") == []


def test_a_clipped_regression_onto_value_targets_is_a_value_loss():
    """G: a critic objective that clips the new values around the old ones and takes the max of two
    squared errors against ``target_value`` (the returns, named as the value's target) is the
    value loss; a helper that only clamps stored targets for display stays neutral."""
    assert wrong_labels("accuracy_value_targets") == []
def test_a_method_marked_by_a_typed_decorator_passes_its_side_to_the_group_calling_it():
    """A: a Ray method mark whose ``@overload`` stubs return a Protocol with ``__call__`` made every
    ``handle.method.remote()`` resolve to the method and to that stub ``__call__``; the stub halved
    what the method passed on, so the group fanning a weight push out to its learners came out
    neutral. The training fan-out and a stats fan-out keep their sides."""
    assert wrong_labels("accuracy_stub_decorator") == []


def test_a_field_typed_with_a_union_alias_reaches_every_member_class():
    """B/F: a producer's field annotated with a module-level ``Spec: TypeAlias = A | B`` (defined after
    the classes) typed the field as nothing, so ``self.loop.run_group()`` fell back to every
    same-named method of the repo and the strategy above it came out neutral. The alias's members
    (and the members of an inline ``A | B`` annotation) are the field's classes now; look-alike
    methods of that name stay neutral."""
    assert wrong_labels("accuracy_union_alias") == []
def test_nan_aware_group_normalisation_is_advantage_estimation():
    """Group normalisation written with NaN-aware reductions (``nanmean``/``nanstd``, which skip the
    samples no grader scored) is advantage estimation like ``mean``/``std``: a standalone helper is
    training, and a step that generates, grades and normalises in one body is a driver; a dashboard
    summary taking the same reductions stays neutral."""
    assert wrong_labels("accuracy_nan_group_norm") == []


def test_take_along_axis_is_the_gather_of_token_log_probs():
    """NumPy/JAX spell the per-token gather ``take_along_axis``: ``log_softmax`` of the logits
    with ``take_along_axis`` of the sequence ids recomputes per-token log-probs for
    the loss, as ``gather`` does in torch; reordering a score table with it stays neutral."""
    assert wrong_labels("accuracy_jax_token_logps") == []
def test_a_broadcast_of_rows_built_on_the_leader_is_no_weight_push():
    """N (precision): the leader of a model-parallel group builds an id or shape tensor from data
    (``torch.tensor(ids).cuda()``) and the other ranks allocate an empty buffer to receive it; what
    moves is data, not parameters; so is each column of a fetched batch (``batch_rows[col].cuda()``).
    A broadcast over ``named_parameters()`` and its receiving end,
    which allocates buffers by the parameters' shapes, are still the weight sync."""
    assert wrong_labels("accuracy_rank_shared_batches") == []


def test_a_multinomial_over_weights_built_in_the_body_picks_rows_not_tokens():
    """L (precision): a store draws ready rows with ``torch.multinomial`` over weights it builds
    itself (``torch.ones(n)``, or from the rows' lengths); nothing of a policy is around the draw,
    so neither the picker nor the method handing rows out samples. A decoding step that draws from
    the softmax of its model's logits still does."""
    assert wrong_labels("accuracy_index_draws") == []
